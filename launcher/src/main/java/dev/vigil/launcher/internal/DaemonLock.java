package dev.vigil.launcher.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.Set;

/**
 * The singleton lock on {@code <home>/daemon.lock} (D2): an exclusive OS file lock held for the
 * daemon's whole life and released by the kernel when its process dies, however it dies.
 */
public final class DaemonLock implements AutoCloseable {
  private final FileChannel channel;
  private final FileLock lock;

  private DaemonLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /** Takes the lock, or returns empty when another process (or this one) holds it. */
  public static Optional<DaemonLock> tryAcquire(Path file) throws IOException {
    FileChannel ch = FileChannel.open(file, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    try {
      FileLock l = ch.tryLock();
      if (l == null) {
        ch.close();
        return Optional.empty();
      }
      return Optional.of(new DaemonLock(ch, l));
    } catch (OverlappingFileLockException e) {
      ch.close();
      return Optional.empty();
    }
  }

  @Override
  public void close() throws IOException {
    try {
      lock.release();
    } finally {
      channel.close();
    }
  }
}
