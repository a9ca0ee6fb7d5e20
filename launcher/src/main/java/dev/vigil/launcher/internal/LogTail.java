package dev.vigil.launcher.internal;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Follows a worker directory's {@code stdout.log} and {@code stderr.log}: each call copies only the
 * bytes written since the previous one. A log that does not exist yet reads as empty. Not
 * thread-safe: one follower per instance.
 */
public final class LogTail {
  private static final int CHUNK = 64 * 1024;

  private final Path out;
  private final Path err;
  private long outAt;
  private long errAt;

  public LogTail(Path workerDir) {
    this.out = workerDir.resolve("stdout.log");
    this.err = workerDir.resolve("stderr.log");
  }

  /** Copies what both logs gained since the last call to {@code toOut} and {@code toErr}. */
  public void copyNew(OutputStream toOut, OutputStream toErr) throws IOException {
    outAt = copy(out, outAt, toOut);
    errAt = copy(err, errAt, toErr);
  }

  private static long copy(Path p, long from, OutputStream to) throws IOException {
    try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
      long at = ch.size() < from ? 0 : from; // truncated or replaced: start over
      ByteBuffer buf = ByteBuffer.allocate(CHUNK);
      int n;
      while ((n = ch.read(buf, at)) > 0) {
        to.write(buf.array(), 0, n);
        at += n;
        buf.clear();
      }
      to.flush();
      return at;
    } catch (NoSuchFileException e) {
      return from;
    }
  }
}
