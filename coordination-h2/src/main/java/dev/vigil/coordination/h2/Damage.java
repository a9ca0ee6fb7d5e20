package dev.vigil.coordination.h2;

import java.io.EOFException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Optional;
import org.h2.mvstore.DataUtils;
import org.h2.mvstore.MVStoreException;

/**
 * The one place that says what an H2 failure means for the store ({@link #diagnose}): the
 * database file is damaged, the environment failed (the store is unavailable, the file may be
 * whole, and the fix is elsewhere), or neither. Each in a few plain words.
 *
 * <p>An environment failure is read from the chain of causes, error codes first, the operating
 * system's words second: an {@link IOException} saying "No space left on device" (ENOSPC),
 * "Input/output error" (EIO), "Read-only file system" (EROFS), "Permission denied" (EACCES, or an
 * {@link AccessDeniedException}), "Disk quota exceeded" (EDQUOT) or "Too many open files"; an
 * MVStore write failure ({@code ERROR_WRITING_FAILED}); a database that closed itself after one
 * (H2 error 90098, MVStore {@code ERROR_CLOSED}). Measured on H2 2.5.252 through a file system
 * that fails writes: the commit that meets the failed write throws general error 50000 wrapping
 * {@code MVStoreException} code 2 ("Writing to … failed") wrapping the {@code IOException};
 * H2 has then closed the database (its store panics), and every later statement, reads included,
 * throws 90098 "The database has been closed" with the same chain as its cause. The file keeps
 * what was written before; the commit that failed is not in it. A lock held by another process is
 * neither damage nor an outage: the file is in use.
 *
 * <p>Measured on H2 2.5.252: a 4 KiB block overwritten inside the data makes the read of that page
 * fail with {@code MVStoreException} code 6 (file corrupt), wrapped in the general error 50000; a
 * file cut short inside its only chunk leaves no complete version, so a read-only open fails with
 * 90097 "read only" (H2 would start an empty store and cannot write) and a writable open silently
 * starts an empty store and truncates the file; an overwritten header gives 90030.
 */
final class Damage {
  /** H2 pages and chunks are whole 4 KiB blocks: an H2 file is always a whole number of them. */
  static final int BLOCK = 4096;

  /** The length of a chunk footer, bytes: the last bytes of every chunk. */
  static final int FOOTER = 128;

  private Damage() {}

  /**
   * Whether the file holds at least one complete chunk (a version H2 can read): its last bytes are
   * a chunk footer (the normal case, one read), or else a walk over the chunk headers from the
   * first finds a chunk whose footer is where its header says it ends. A file without one is
   * damaged: H2 would start an empty store in its place (see the class comment).
   */
  static boolean holdsACompleteChunk(java.nio.channels.FileChannel ch) throws java.io.IOException {
    long size = ch.size();
    if (size >= 3L * BLOCK && footerAt(ch, size - FOOTER)) {
      return true;
    }
    java.nio.ByteBuffer block = java.nio.ByteBuffer.allocate(BLOCK);
    for (long pos = 2L * BLOCK; pos + BLOCK <= size; ) {
      block.clear();
      if (ch.read(block, pos) < BLOCK) {
        return false;
      }
      long len = chunkLength(block.array());
      if (len <= 0) {
        pos += BLOCK;
        continue;
      }
      long end = pos + len * BLOCK;
      if (end <= size && footerAt(ch, end - FOOTER)) {
        return true;
      }
      pos = end <= size ? end : pos + BLOCK;
    }
    return false;
  }

  private static boolean footerAt(java.nio.channels.FileChannel ch, long at) throws java.io.IOException {
    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(FOOTER);
    if (at < 0 || ch.read(b, at) < FOOTER) {
      return false;
    }
    String s = new String(b.array(), java.nio.charset.StandardCharsets.US_ASCII);
    return s.startsWith("chunk:") && s.contains(",fletcher:");
  }

  /** The length in blocks that a chunk header at the start of {@code block} gives, or 0 when it starts none. */
  static long chunkLength(byte[] block) {
    int end = 0;
    while (end < 1024 && end < block.length && block[end] >= 0x20 && block[end] < 0x7f) {
      end++;
    }
    String header = new String(block, 0, end, java.nio.charset.StandardCharsets.US_ASCII).strip();
    if (!header.startsWith("chunk:")) {
      return 0;
    }
    for (String field : header.split(",")) {
      if (field.startsWith("len:")) {
        try {
          return Long.parseLong(field.substring(4), 16);
        } catch (NumberFormatException e) {
          return 0;
        }
      }
    }
    return 0;
  }

  /** What a failure says about the store. */
  sealed interface Diagnosis {
    /** The file holds damaged data: what is damaged, in a few words. */
    record Damaged(String reason) implements Diagnosis {}

    /**
     * The environment failed, the file may be whole.
     *
     * @param cause  the failure underneath, in a few words (like {@code no space left on device});
     *               {@code null} when the failure says only that the database is closed
     * @param closed whether the database had closed itself (after a failed write)
     */
    record Unavailable(String cause, boolean closed) implements Diagnosis {
      public Unavailable {
        if (cause == null && !closed) {
          throw new IllegalArgumentException("an unavailable store needs a cause or a closed database");
        }
      }

      /** Why the store is unavailable, in a few words, like {@code no space left on device}. */
      String reason() {
        return !closed ? cause : cause == null ? CLOSED_ITSELF : CLOSED_ITSELF + " after a failed write (" + cause + ")";
      }
    }

    /** Neither: a lock conflict, a refusal, a bug. */
    record Other() implements Diagnosis {}
  }

  /**
   * What {@code failure} (an H2 exception, or one that wraps it) says about the store. An
   * environment failure anywhere in the chain wins over signs of damage: a read that fails with an
   * I/O error says nothing about the bytes in the file.
   */
  static Diagnosis diagnose(Throwable failure) {
    Optional<String> os = Optional.empty();
    boolean writeFailed = false;
    boolean closed = false;
    String writeDetail = null;
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof MVStoreException m) {
        if (m.getErrorCode() == DataUtils.ERROR_WRITING_FAILED) {
          writeFailed = true;
          writeDetail = writeDetail == null ? innermostMessage(m) : writeDetail;
        } else if (m.getErrorCode() == DataUtils.ERROR_CLOSED) {
          closed = true;
        }
      } else if (t instanceof SQLException s && s.getErrorCode() == DATABASE_CLOSED) {
        closed = true;
      }
      if (os.isEmpty()) {
        os = osReason(t);
      }
      for (Throwable s : t.getSuppressed()) {
        if (os.isEmpty()) {
          os = osReason(s);
        }
      }
    }
    if (os.isEmpty() && !writeFailed && !closed) {
      Optional<String> damage = damageOf(failure);
      return damage.isPresent() ? new Diagnosis.Damaged(damage.get()) : new Diagnosis.Other();
    }
    String cause = os.orElse(writeFailed ? "a write to the file failed" + (writeDetail == null ? "" : ": " + writeDetail)
        : null);
    return new Diagnosis.Unavailable(cause, closed);
  }

  /**
   * The reason of a database that H2 closed, when the failure at hand does not say why: H2 gives
   * the failed write's cause to the statement that met it, and to some that follow, not to all.
   */
  static final String CLOSED_ITSELF = "the database closed itself";

  /** H2's error code for "The database has been closed". */
  static final int DATABASE_CLOSED = 90098;

  /** The message of the last cause in {@code t}'s chain below it, short, if there is one. */
  private static String innermostMessage(Throwable t) {
    Throwable last = null;
    for (Throwable c = t.getCause(); c != null; c = c.getCause() == c ? null : c.getCause()) {
      last = c;
    }
    return last == null || last.getMessage() == null ? null : h2Detail(last);
  }

  /**
   * The operating system's reason in {@code t} itself, if it is an environment failure it names:
   * an {@link IOException}, or H2's I/O errors 90028 and 90031, which carry the words in their message.
   */
  private static Optional<String> osReason(Throwable t) {
    if (t instanceof AccessDeniedException) {
      return Optional.of("permission denied");
    }
    String m = t instanceof FileSystemException f && f.getReason() != null ? f.getReason() : t.getMessage();
    boolean io = t instanceof IOException
        || t instanceof SQLException s && (s.getErrorCode() == 90028 || s.getErrorCode() == 90031);
    if (!io || m == null) {
      return Optional.empty();
    }
    String l = m.toLowerCase(Locale.ROOT);
    if (l.contains("no space left on device")) {
      return Optional.of("no space left on device");
    } else if (l.contains("input/output error")) {
      return Optional.of("an I/O error");
    } else if (l.contains("read-only file system")) {
      return Optional.of("the file system is read-only");
    } else if (l.contains("permission denied") || l.contains("operation not permitted")) {
      return Optional.of("permission denied");
    } else if (l.contains("disk quota exceeded")) {
      return Optional.of("the disk quota is exceeded");
    } else if (l.contains("too many open files")) {
      return Optional.of("too many open files");
    }
    return Optional.empty();
  }

  /**
   * What is damaged, if {@code failure} (an H2 exception, or one that wraps it) says the file is
   * damaged; empty for an environment failure (see {@link #diagnose}).
   */
  static Optional<String> of(Throwable failure) {
    return diagnose(failure) instanceof Diagnosis.Damaged d ? Optional.of(d.reason()) : Optional.empty();
  }

  private static Optional<String> damageOf(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof MVStoreException m) {
        Optional<String> r = ofStoreCode(m.getErrorCode());
        if (r.isPresent()) {
          return r;
        }
      } else if (t instanceof SQLException s) {
        Optional<String> r = ofSqlCode(s);
        if (r.isPresent()) {
          return r;
        }
      } else if (t instanceof EOFException) {
        return Optional.of("it ends before its data does: it is cut short");
      }
    }
    return Optional.empty();
  }

  /** Whether {@code failure} says that another process holds the file's lock (not damage). */
  static boolean locked(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof MVStoreException m && m.getErrorCode() == DataUtils.ERROR_FILE_LOCKED) {
        return true;
      }
    }
    return false;
  }

  private static Optional<String> ofStoreCode(int code) {
    return switch (code) {
      case DataUtils.ERROR_FILE_CORRUPT -> Optional.of("a page of its data fails the database's checks");
      case DataUtils.ERROR_READING_FAILED -> Optional.of("part of it cannot be read");
      case DataUtils.ERROR_CHUNK_NOT_FOUND -> Optional.of("a chunk of its data is missing");
      case DataUtils.ERROR_BLOCK_NOT_FOUND -> Optional.of("a block of its data is missing");
      case DataUtils.ERROR_UNKNOWN_DATA_TYPE -> Optional.of("a page of its data holds values H2 cannot decode");
      default -> Optional.empty();
    };
  }

  private static Optional<String> ofSqlCode(SQLException s) {
    String m = String.valueOf(s.getMessage()).toLowerCase(Locale.ROOT);
    return switch (s.getErrorCode()) {
      case 90030 -> Optional.of("the database finds it corrupted");
      case 90028, 90031 -> Optional.of("part of it cannot be read");
      default -> m.contains("mvstoreexception") && (m.contains("unable to read") || m.contains("corrupt")
          || m.contains("chunk") && m.contains("not found"))
          ? Optional.of("a page of its data cannot be read") : Optional.empty();
    };
  }

  /**
   * H2's own words for a failure, short: the message of the innermost storage exception up to its
   * chunk details (like {@code Unable to read the page at position 0x400013e1d6}), else the first
   * line of the message.
   */
  static String detail(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof MVStoreException) {
        String m = h2Detail(t);
        int chunk = m.indexOf(", chunk");
        return chunk < 0 ? m : m.substring(0, chunk);
      }
    }
    return h2Detail(e);
  }

  /** The first line of an H2 message without its trailing {@code [code-build]} tag, at most 160 characters. */
  static String h2Detail(Throwable e) {
    String m = String.valueOf(e.getMessage());
    int nl = m.indexOf('\n');
    m = nl < 0 ? m : m.substring(0, nl);
    int bracket = m.lastIndexOf(" [");
    m = (bracket < 0 ? m : m.substring(0, bracket)).strip();
    return m.length() <= 160 ? m : m.substring(0, 157) + "...";
  }
}
