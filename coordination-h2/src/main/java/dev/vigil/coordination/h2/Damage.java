package dev.vigil.coordination.h2;

import java.io.EOFException;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Optional;
import org.h2.mvstore.DataUtils;
import org.h2.mvstore.MVStoreException;

/**
 * Which H2 failures mean that the database file is damaged, in a few plain words. A failure of
 * the environment (a full disk, a read-only file system, missing permissions, a lock held by
 * another process) is not damage: the file may be whole, and the fix is elsewhere.
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

  /** What is damaged, if {@code failure} (an H2 exception, or one that wraps it) says the file is damaged. */
  static Optional<String> of(Throwable failure) {
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
      case 90028, 90031 -> environment(m) ? Optional.empty() : Optional.of("part of it cannot be read");
      default -> m.contains("mvstoreexception") && (m.contains("unable to read") || m.contains("corrupt")
          || m.contains("chunk") && m.contains("not found"))
          ? Optional.of("a page of its data cannot be read") : Optional.empty();
    };
  }

  /** An I/O failure that says the environment is wrong rather than the file. */
  private static boolean environment(String lowerMessage) {
    return lowerMessage.contains("no space left") || lowerMessage.contains("read-only file system")
        || lowerMessage.contains("permission denied") || lowerMessage.contains("disk quota")
        || lowerMessage.contains("too many open files");
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
