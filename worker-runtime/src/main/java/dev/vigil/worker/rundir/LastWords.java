package dev.vigil.worker.rundir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The end of a worker's log, short enough for a diagnosis: a worker that died before it took its run
 * lock (a JVM that found no main class, a bad flag, a missing jar) says why only on its stderr.
 *
 * <ol>
 *   <li>Only the last {@value #READ_BYTES} bytes of the log are read, however long it grew.
 *   <li>Of those, the last {@value #LINES} lines that are neither blank nor stack frames
 *       ({@code at …}, {@code ... 3 more}), joined with {@value #SEPARATOR}.
 *   <li>Cut to its last {@value #MAX_CHARS} characters, after an ellipsis, when longer.
 * </ol>
 */
final class LastWords {
  /** Bytes read from the end of the log. */
  static final int READ_BYTES = 4096;
  /** Lines kept. */
  static final int LINES = 4;
  /** Characters kept, from the end. */
  static final int MAX_CHARS = 400;
  /** Between two lines kept. */
  static final String SEPARATOR = " / ";

  private static final Pattern FRAME = Pattern.compile("\\s+(at\\s.*|\\.\\.\\.\\s*\\d+\\s.*)");

  private LastWords() {}

  /** The last words in {@code log}; empty when it is missing, holds nothing but blanks and frames, or cannot be read. */
  static Optional<String> of(Path log) {
    String text;
    try (FileChannel ch = FileChannel.open(log, StandardOpenOption.READ)) {
      long size = ch.size();
      long from = Math.max(0, size - READ_BYTES);
      ByteBuffer buf = ByteBuffer.allocate((int) (size - from));
      while (buf.hasRemaining() && ch.read(buf, from + buf.position()) > 0) {
        // read on to the end as it was when opened
      }
      text = new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8);
      if (from > 0) {
        int nl = text.indexOf('\n');
        text = nl < 0 ? "" : text.substring(nl + 1); // the first line read is a part of one
      }
    } catch (IOException e) {
      return Optional.empty(); // missing (a worker that never started) or unreadable: nothing to tell
    }
    Deque<String> kept = new ArrayDeque<>();
    String[] lines = text.split("\r?\n");
    for (int i = lines.length - 1; i >= 0 && kept.size() < LINES; i--) {
      String line = lines[i].strip();
      if (!line.isEmpty() && !FRAME.matcher(lines[i]).matches()) {
        kept.addFirst(line);
      }
    }
    if (kept.isEmpty()) {
      return Optional.empty();
    }
    String words = String.join(SEPARATOR, kept);
    return Optional.of(words.length() <= MAX_CHARS ? words : "…" + words.substring(words.length() - MAX_CHARS));
  }
}
