package dev.vigil.launcher.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import dev.vigil.coordination.OwnerId;
import dev.vigil.supervisor.engine.EngineEvent;
import dev.vigil.supervisor.engine.port.Journal;
import dev.vigil.supervisor.engine.WorkerKey;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the daemon decided, for programs: every engine event as one JSON object per line in
 * {@code <home>/logs/journal.jsonl}, e.g.
 *
 * <pre>{@code
 * {"at":1764615396227,"by":"d-host-4711-73569","event":"Claimed","run":"t-1.1","lane":"default"}
 * {"at":1764615396569,"by":"d-host-4711-73569","event":"Settled","run":"t-1.1","verdict":"SUCCEEDED",...}
 * }</pre>
 *
 * <ol>
 *   <li>{@code at} is the wall-clock ms of the record, {@code by} the owner id of the daemon
 *       incarnation that decided (one file holds the journals of successive daemons on the home),
 *       {@code event} the event's name, then the event's fields by name (ids, lanes, owners and
 *       worker keys as their text, e.g. {@code "t-3.1"} or {@code "service:indexer"}). Readers
 *       ignore fields they do not know.
 *   <li>Each line is written whole and flushed to the operating system before the next decision,
 *       so the journal of a daemon killed with {@code kill -9} ends at its last event.
 *   <li>Bounded: once the file holds {@value #MAX_BYTES} bytes it becomes {@code journal.1.jsonl}
 *       (replacing an older one) and a new file begins, so the journal never takes more than twice
 *       that. The file is 0600 like everything in the home.
 *   <li>Recording decides nothing: a failed write is logged once and the journal goes on without it.
 * </ol>
 *
 * <p>Threading: called on the daemon's scheduling thread only.
 */
public final class JournalFile implements Journal {
  /** The file's name in {@code <home>/logs}. */
  public static final String NAME = "journal.jsonl";
  /** The name of the previous file after a rotation. */
  public static final String PREVIOUS = "journal.1.jsonl";
  /** Size at which the file is rotated, bytes (8 MiB). */
  public static final long MAX_BYTES = 8L << 20;

  private static final Logger LOG = LoggerFactory.getLogger(JournalFile.class);
  private static final ObjectMapper JSON = Wire.JSON.copy()
      .registerModule(new SimpleModule("vigil-journal").addSerializer(WorkerKey.class, ToStringSerializer.instance));

  private final Path file;
  private final long maxBytes;
  private final LongSupplier wallClock;
  private final OwnerId by;
  private OutputStream out;
  private long size;
  private boolean failed;

  /**
   * @param logs      the home's {@code logs/} directory
   * @param maxBytes  the rotation size, bytes
   * @param wallClock wall-clock ms, for {@code at}
   * @param by        the daemon incarnation whose events these are
   */
  JournalFile(Path logs, long maxBytes, LongSupplier wallClock, OwnerId by) {
    this.file = Objects.requireNonNull(logs, "logs").resolve(NAME);
    if (maxBytes < 1) {
      throw new IllegalArgumentException("maxBytes (" + maxBytes + ") must be >= 1");
    }
    this.maxBytes = maxBytes;
    this.wallClock = Objects.requireNonNull(wallClock, "wallClock");
    this.by = Objects.requireNonNull(by, "by");
  }

  /** The journal of the daemon incarnation {@code by} on {@code home}, rotated at {@link #MAX_BYTES}. */
  public static JournalFile of(Home home, OwnerId by) {
    return new JournalFile(home.logs(), MAX_BYTES, System::currentTimeMillis, by);
  }

  /** One journal line's object: {@code at}, {@code by}, {@code event}, then the event's fields. */
  public static ObjectNode toJson(EngineEvent event, long atWallMs, OwnerId by) {
    ObjectNode o = JSON.createObjectNode();
    o.put("at", atWallMs);
    o.put("by", by.toString());
    o.put("event", event.getClass().getSimpleName());
    o.setAll((ObjectNode) JSON.valueToTree(event));
    return o;
  }

  @Override
  public void record(EngineEvent event) {
    byte[] line;
    try {
      line = (JSON.writeValueAsString(toJson(event, wallClock.getAsLong(), by)) + "\n").getBytes(StandardCharsets.UTF_8);
    } catch (IOException e) {
      fail(e);
      return;
    }
    try {
      if (out == null) {
        open();
      } else if (size + line.length > maxBytes && size > 0) {
        rotate();
      }
      out.write(line);
      out.flush();
      size += line.length;
    } catch (IOException e) {
      fail(e);
      close();
    }
  }

  private void open() throws IOException {
    if (!Files.exists(file)) {
      Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    }
    out = Files.newOutputStream(file, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
    size = Files.size(file);
  }

  private void rotate() throws IOException {
    close();
    Files.move(file, file.resolveSibling(PREVIOUS), StandardCopyOption.REPLACE_EXISTING);
    open();
  }

  private void fail(IOException e) {
    if (!failed) {
      failed = true;
      LOG.warn("cannot write the journal {}: {}", file, e.toString());
    }
  }

  /** Closes the file; a later record opens it again. */
  void close() {
    if (out != null) {
      try {
        out.close();
      } catch (IOException e) {
        // every line was flushed when it was written
      }
      out = null;
    }
  }
}
