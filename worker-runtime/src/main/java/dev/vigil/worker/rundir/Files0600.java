package dev.vigil.worker.rundir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/** Private files and directories: created 0600 / 0700, and written atomically and durably. */
final class Files0600 {
  static final FileAttribute<Set<PosixFilePermission>> FILE = PosixFilePermissions.asFileAttribute(
      PosixFilePermissions.fromString("rw-------"));
  static final FileAttribute<Set<PosixFilePermission>> DIR = PosixFilePermissions.asFileAttribute(
      PosixFilePermissions.fromString("rwx------"));

  private Files0600() {}

  /** Creates {@code dir} (0700) and any missing parents (0700); an existing one is left as it is. */
  static void directories(Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      return;
    }
    Path parent = dir.toAbsolutePath().getParent();
    if (parent != null) {
      directories(parent);
    }
    try {
      Files.createDirectory(dir, DIR);
    } catch (FileAlreadyExistsException e) {
      if (!Files.isDirectory(dir)) {
        throw e;
      }
    }
  }

  /** Creates an empty file 0600 unless it exists. */
  static void touch(Path file) throws IOException {
    try {
      Files.createFile(file, FILE);
    } catch (FileAlreadyExistsException e) {
      // kept as it is: logs are appended to, never truncated
    }
  }

  /**
   * Replaces {@code target} with {@code bytes} so that a reader sees the old file or the whole new
   * one, and a crash at any point leaves one of them:
   *
   * <ol>
   *   <li>write a temporary file (0600) in the same directory and fsync it;
   *   <li>rename it over the target atomically;
   *   <li>fsync the directory, so the rename itself survives a crash.
   * </ol>
   */
  static void writeAtomically(Path target, byte[] bytes) throws IOException {
    writeAtomically(target, bytes, true);
  }

  /**
   * As {@link #writeAtomically(Path, byte[])}; without {@code durable}, steps 1 and 3 skip the
   * fsyncs: a reader still sees the old file or the whole new one while the machine runs, but a
   * power loss or OS crash may lose the new file. Only for a copy of data kept durably elsewhere.
   */
  static void writeAtomically(Path target, byte[] bytes, boolean durable) throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    Path tmp = dir.resolve("." + target.getFileName() + "." + Long.toHexString(ThreadLocalRandom.current().nextLong()) + ".tmp");
    IOException failed = null;
    try {
      try (FileChannel ch = FileChannel.open(tmp, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), FILE)) {
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        if (durable) {
          ch.force(true);
        }
      }
      try {
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        throw new IOException("cannot replace " + target + " atomically: " + e.getMessage(), e);
      }
    } catch (IOException e) {
      failed = e;
      throw e;
    } finally {
      // a failed write leaves no temporary file (a writer trying again must not fill the disk further),
      // and a failing clean-up never hides why the write failed
      try {
        Files.deleteIfExists(tmp);
      } catch (IOException e) {
        if (failed == null) {
          throw e;
        }
        failed.addSuppressed(e);
      }
    }
    if (durable) {
      syncDirectory(dir);
    }
  }

  static void syncDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }
}
