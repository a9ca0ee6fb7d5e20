package dev.vigil.worker.rundir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The exclusive OS lock on a run's {@code reservation.lock}, held by its worker for its whole life
 * (DESIGN.md §5). The OS releases it when the process dies, however it dies, so a free lock means no
 * live worker (C5). Closing it releases it early (tests, or a worker that gives up its handoff).
 */
public final class Reservation implements AutoCloseable {
  private final Path file;
  private final FileChannel channel;
  private final FileLock lock;

  Reservation(Path file, FileChannel channel, FileLock lock) {
    this.file = Objects.requireNonNull(file, "file");
    this.channel = Objects.requireNonNull(channel, "channel");
    this.lock = Objects.requireNonNull(lock, "lock");
  }

  /** The lock file. */
  public Path file() {
    return file;
  }

  /** Whether this process still holds the lock. */
  public boolean isValid() {
    return lock.isValid();
  }

  @Override
  public void close() throws IOException {
    synchronized (RunDirectory.LOCKS) {
      try {
        if (lock.isValid()) {
          lock.release();
        }
        channel.close();
      } finally {
        RunDirectory.HELD.remove(file);
      }
    }
  }
}
