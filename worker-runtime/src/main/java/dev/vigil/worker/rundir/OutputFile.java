package dev.vigil.worker.rundir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.supervisor.OutputBound;
import dev.vigil.supervisor.OutputBound.Cut;
import dev.vigil.supervisor.OutputBound.Finish;
import dev.vigil.supervisor.OutputBound.Layout;
import dev.vigil.worker.internal.Json;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One output stream of a run, {@code stdout.log} or {@code stderr.log}, bounded by an
 * {@link OutputBound} (DESIGN.md §5, "Bounded output"). The command appends to the file itself,
 * never through a pipe; the worker host cuts it in place, and anyone reads it through a
 * {@link Reader}. Which of its bytes are output is recorded beside it, in {@code stdout.cut.json}
 * (no such file: all of them, nothing was dropped):
 *
 * <pre>
 * {"v": 1, "seq": 3, "state": "cutting", "head": 524288, "dropped": 4194304, "at": 4718592, "max": 1048576}
 * </pre>
 *
 * <ol>
 *   <li>{@code cutting}: the run may still write. The file's first {@code head} bytes are the head,
 *       its bytes from {@code at} on are the stream from {@code head + dropped} on; the bytes between
 *       are a hole whose space was given back to the file system ({@code fallocate --punch-hole}).
 *       A cut writes the new record first and frees the bytes after ({@link #drop}).
 *   <li>{@code moving}: the final form is being written in place ({@link #finish}); the kept end of
 *       the stream is meanwhile in {@code .stdout.log.tail}, from its start, written before this
 *       record. A host killed here leaves a record that still reads right.
 *   <li>{@code cut}: the final form: the head, the marker line ({@link OutputBound#marker}) and the
 *       kept end; the file holds exactly what a reader prints.
 * </ol>
 *
 * <p>Readers compare the record before and after each read of the file and read again when it
 * changed (a cut or the final form came in between), so they never print freed or moved bytes.
 * The record is written whole and renamed into place (0600), without a force: it describes a file
 * that is not forced either.
 */
public final class OutputFile {
  /** The ending of a stream's cut record: {@code stdout.cut.json}. */
  public static final String CUT_SUFFIX = ".cut.json";
  /** The most a reader copies between two reads of the record, bytes. */
  private static final int CHUNK = 256 * 1024;
  /**
   * How often in a row a reader reads again because the record changed under it before it leaves
   * the rest to its next call (a record left {@code moving} without its tail copy never settles).
   */
  private static final int MAX_RETRIES = 20;

  /** Where the output of a state lives. */
  public enum State {
    CUTTING, MOVING, CUT;

    String word() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * A stream's cut record.
   *
   * @param seq      how many times the record was written
   * @param state    where the kept bytes are
   * @param layout   which bytes of the stream are kept, and where
   * @param maxBytes the bound the host cut by
   */
  public record Record(long seq, State state, Layout layout, long maxBytes) {
    public Record {
      Objects.requireNonNull(state, "state");
      Objects.requireNonNull(layout, "layout");
    }
  }

  private final Path log;
  private final Path record;
  private final Path tailCopy;

  private OutputFile(Path log) {
    this.log = log;
    this.record = log.resolveSibling(baseName(log) + CUT_SUFFIX);
    this.tailCopy = log.resolveSibling("." + log.getFileName() + ".tail");
  }

  private static String baseName(Path log) {
    String n = log.getFileName().toString();
    return n.endsWith(".log") ? n.substring(0, n.length() - 4) : n;
  }

  /** The run's stdout. */
  public static OutputFile stdout(RunDirectory dir) {
    return new OutputFile(dir.stdoutLog());
  }

  /** The run's stderr. */
  public static OutputFile stderr(RunDirectory dir) {
    return new OutputFile(dir.stderrLog());
  }

  /** The stream whose file is {@code log} ({@code …/stdout.log}); its record lies beside it. */
  public static OutputFile at(Path log) {
    return new OutputFile(log);
  }

  public Path log() {
    return log;
  }

  public Path recordFile() {
    return record;
  }

  /** The file's size now; 0 when it does not exist. */
  public long size() throws IOException {
    try {
      return Files.size(log);
    } catch (NoSuchFileException e) {
      return 0;
    }
  }

  /**
   * The stream's length now, in stream offsets (the bytes cut from the middle counted, the marker line not): what
   * a {@link Reader} has copied once it copied everything. 0 when the file does not exist.
   */
  public long streamLength() throws IOException {
    for (int retries = 0; retries < MAX_RETRIES; retries++) {
      Optional<Record> before = readRecord();
      long length;
      if (before.isEmpty()) {
        length = size();
      } else if (before.get().state() == State.MOVING) {
        long tail;
        try {
          tail = Files.size(tailCopy);
        } catch (NoSuchFileException e) {
          continue;
        }
        length = before.get().layout().keptFrom() + tail;
      } else {
        Layout l = before.get().layout();
        length = l.keptFrom() + Math.max(0, size() - l.at());
      }
      if (readRecord().equals(before)) {
        return length;
      }
    }
    return 0;
  }

  /** The cut record, or empty when there is none or it cannot be read (then the whole file is output). */
  public Optional<Record> readRecord() {
    try {
      JsonNode n = Json.parse(Files.readAllBytes(record));
      if (n.path("v").asInt() != RunDirectory.SCHEMA) {
        return Optional.empty();
      }
      State state = switch (n.path("state").asText()) {
        case "cutting" -> State.CUTTING;
        case "moving" -> State.MOVING;
        case "cut" -> State.CUT;
        default -> throw new IllegalArgumentException("state");
      };
      Layout layout = new Layout(RunDirectory.Fields.integral(n, "head"), RunDirectory.Fields.integral(n, "dropped"),
          RunDirectory.Fields.integral(n, "at"), state != State.CUTTING);
      return Optional.of(new Record(RunDirectory.Fields.integral(n, "seq"), state, layout,
          RunDirectory.Fields.integral(n, "max")));
    } catch (IOException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private void writeRecord(Record r) throws IOException {
    ObjectNode n = Json.object()
        .put("v", RunDirectory.SCHEMA)
        .put("seq", r.seq())
        .put("state", r.state().word())
        .put("head", r.layout().head())
        .put("dropped", r.layout().dropped())
        .put("at", r.layout().at())
        .put("max", r.maxBytes());
    Files0600.writeAtomically(record, Json.write(n), false);
  }

  // ---------------------------------------------------------------- the host's side

  /**
   * A cut while the run may still write: the record of {@code d.next()} first, then the bytes
   * {@code [d.fromOffset(), d.toOffset())} freed. Returns why when the file system could not free
   * them: they are dropped from the output all the same, and their space comes back with
   * {@link #finish}.
   */
  public Optional<String> drop(Cut.Drop d, OutputBound bound) throws IOException {
    long seq = readRecord().map(Record::seq).orElse(0L) + 1;
    writeRecord(new Record(seq, State.CUTTING, d.next(), bound.maxBytes()));
    return Holes.punch(log, d.fromOffset(), d.toOffset() - d.fromOffset());
  }

  /**
   * The final form, once nothing else writes to the file: the head, the marker and the kept end
   * ({@link OutputBound#onEnd}), written in place so that the file stays the one every descriptor
   * of it appends to. The caller keeps its own writers to the file still meanwhile. Returns whether
   * the file was rewritten.
   */
  public boolean finish(OutputBound bound) throws IOException {
    beginMove(bound);
    return completeMove();
  }

  /** Whether {@link #finish} would rewrite the file (a look at its size, its record and one byte). */
  public boolean finishDue(OutputBound bound) throws IOException {
    Optional<Record> current = readRecord();
    if (current.isPresent() && current.get().state() == State.MOVING) {
      return true;
    }
    return !(finalForm(current, bound) instanceof Finish.Unchanged);
  }

  private Finish finalForm(Optional<Record> current, OutputBound bound) throws IOException {
    long size = size();
    Optional<Layout> layout = current.map(Record::layout);
    long head = layout.map(Layout::head).orElse(bound.headBytes());
    return bound.onEnd(layout, size, size < head || head == 0 || byteAt(head - 1) == '\n');
  }

  /**
   * The first half of {@link #finish}: the kept end copied aside, then the {@code moving} record.
   * Returns false when the file needs no rewrite (or a rewrite is under way already).
   */
  boolean beginMove(OutputBound bound) throws IOException {
    Optional<Record> current = readRecord();
    if (current.isPresent() && current.get().state() == State.MOVING) {
      return false;
    }
    Finish f = finalForm(current, bound);
    if (f instanceof Finish.Unchanged) {
      return false;
    } else if (!(f instanceof Finish.Rewrite w)) {
      throw new AssertionError(f);
    } else {
      try (FileChannel in = FileChannel.open(log, StandardOpenOption.READ);
           FileChannel copy = FileChannel.open(tailCopy, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE,
               StandardOpenOption.TRUNCATE_EXISTING), Files0600.FILE)) {
        transfer(in, w.keepFrom(), w.end() - w.keepFrom(), copy);
      }
      writeRecord(new Record(current.map(Record::seq).orElse(0L) + 1, State.MOVING, w.next(), bound.maxBytes()));
      return true;
    }
  }

  /**
   * Finishes a final form that a killed host left half written ({@code moving}): the kept end is
   * whole in the tail copy. Returns false when there is nothing to finish.
   */
  public boolean completeMove() throws IOException {
    Optional<Record> r = readRecord();
    if (r.isEmpty() || r.get().state() != State.MOVING || !Files.exists(tailCopy)) {
      return false;
    }
    Layout l = r.get().layout();
    String marker = OutputBound.marker(l.dropped(), l.head() == 0 || byteAt(l.head() - 1) == '\n');
    if (marker.getBytes(StandardCharsets.UTF_8).length != l.at() - l.head()) {
      return false; // not the record this file's head makes: leave it as it reads
    }
    move(r.get(), marker);
    return true;
  }

  /** Writes the marker and the tail copy in place, truncates, records the final form, drops the copy. */
  private void move(Record moving, String marker) throws IOException {
    Layout l = moving.layout();
    long tail;
    try (FileChannel out = FileChannel.open(log, StandardOpenOption.WRITE);
         FileChannel copy = FileChannel.open(tailCopy, StandardOpenOption.READ)) {
      ByteBuffer m = ByteBuffer.wrap(marker.getBytes(StandardCharsets.UTF_8));
      long at = l.head();
      while (m.hasRemaining()) {
        at += out.write(m, at);
      }
      tail = copy.size();
      long done = 0;
      while (done < tail) {
        long n = copy.transferTo(done, tail - done, out.position(l.at() + done));
        if (n <= 0) {
          throw new IOException("cannot copy the kept output back into " + log);
        }
        done += n;
      }
      out.truncate(l.at() + tail);
    }
    writeRecord(new Record(moving.seq() + 1, State.CUT, l, moving.maxBytes()));
    Files.deleteIfExists(tailCopy);
  }

  private static void transfer(FileChannel in, long from, long count, FileChannel to) throws IOException {
    long done = 0;
    while (done < count) {
      long n = in.transferTo(from + done, count - done, to);
      if (n <= 0) {
        throw new IOException("the file ended before offset " + (from + count));
      }
      done += n;
    }
  }

  private int byteAt(long offset) throws IOException {
    try (FileChannel ch = FileChannel.open(log, StandardOpenOption.READ)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      return ch.read(b, offset) == 1 ? b.get(0) : -1;
    }
  }

  // ---------------------------------------------------------------- readers

  /** A reader from the start of the stream. */
  public Reader reader() {
    return new Reader();
  }

  /** What one {@link Reader#copyNew} did. */
  public record Copied(long bytes, long droppedBytes, Optional<Record> record) {}

  /**
   * Copies the stream's output as it is written, each byte once; where bytes were dropped before
   * it read them, it prints the marker line with how many instead. Not thread-safe: one reader, one
   * follower.
   */
  public final class Reader {
    /** The stream offset up to which this reader has copied (dropped bytes included). */
    private long position;
    private boolean atLineStart = true;

    private Reader() {}

    /** The stream offset copied up to. */
    public long position() {
      return position;
    }

    /**
     * Copies what was written since the last call (from the start the first time) to {@code to}.
     * A file that does not exist yet reads as empty.
     */
    public Copied copyNew(OutputStream to) throws IOException {
      return copyNew(to, Long.MAX_VALUE);
    }

    /**
     * As {@link #copyNew(OutputStream)}, but no further than stream offset {@code upTo} (a bound inside a dropped
     * part is passed with the marker line): the output written before a mark, for a view that puts other lines
     * at that mark.
     */
    public Copied copyNew(OutputStream to, long upTo) throws IOException {
      long copied = 0;
      long dropped = 0;
      Optional<Record> seen = Optional.empty();
      byte[] buf = new byte[CHUNK];
      int retries = 0;
      while (retries < MAX_RETRIES && position < upTo) {
        Optional<Record> before = readRecord();
        seen = before;
        if (before.isPresent() && position >= before.get().layout().head()
            && position < before.get().layout().keptFrom()) {
          long skip = before.get().layout().keptFrom() - position;
          byte[] marker = OutputBound.marker(skip, atLineStart).getBytes(StandardCharsets.UTF_8);
          to.write(marker);
          atLineStart = true;
          dropped += skip;
          position += skip;
          continue;
        }
        int n = read(before, buf, (int) Math.min(buf.length, upTo - position));
        if (n < 0 || !readRecord().equals(before)) {
          retries++; // the record changed while this read: read again under the new one
          continue;
        }
        retries = 0;
        if (n == 0) {
          break;
        }
        to.write(buf, 0, n);
        atLineStart = buf[n - 1] == '\n';
        position += n;
        copied += n;
      }
      to.flush();
      return new Copied(copied, dropped, seen);
    }

    /** Reads from {@link #position} under {@code r}: bytes read, 0 at the end, -1 when the source went away. */
    private int read(Optional<Record> r, byte[] buf, int most) throws IOException {
      Path source = log;
      long offset = position;
      int limit = most;
      if (r.isPresent()) {
        Layout l = r.get().layout();
        if (position < l.head()) {
          limit = (int) Math.min(limit, l.head() - position);
        } else if (r.get().state() == State.MOVING) {
          source = tailCopy;
          offset = position - l.keptFrom();
        } else {
          offset = l.fileOffsetOf(position);
        }
      }
      try (FileChannel ch = FileChannel.open(source, StandardOpenOption.READ)) {
        ByteBuffer b = ByteBuffer.wrap(buf, 0, limit);
        while (b.hasRemaining()) {
          int k = ch.read(b, offset + b.position());
          if (k <= 0) {
            break;
          }
        }
        return b.position();
      } catch (NoSuchFileException e) {
        return source.equals(log) ? 0 : -1;
      }
    }
  }
}
