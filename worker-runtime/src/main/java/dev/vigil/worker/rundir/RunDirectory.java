package dev.vigil.worker.rundir;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.Verdict;
import dev.vigil.supervisor.WorkSet;
import dev.vigil.supervisor.engine.port.IdentityRecord;
import dev.vigil.worker.Outcome;
import dev.vigil.worker.internal.Json;
import dev.vigil.worker.internal.JsonWriter;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A run directory {@code <home>/runs/<run-id>/} (0700; every file 0600), DESIGN.md §5:
 *
 * <ol>
 *   <li>{@code reservation.lock}: an exclusive OS file lock the worker holds for its whole life; a
 *       free lock means no live worker (C5). {@link #isReserved()} tells it from any process
 *       without disturbing the holder.
 *   <li>{@code identity.json}: the worker's process identity, its build and the SHA-256 of its run
 *       token, written after it holds the lock; the daemon records {@code start} only after both
 *       (reservation handoff, Q3) and checks a worker's hello against them (C9, S6).
 *   <li>{@code payload.json}: the ticket's payload, written by the daemon before the launch.
 *   <li>{@code busy.json}: the worker's latest busy evidence (S3).
 *   <li>{@code outcome.json}: the outcome, written before it is reported (temporary file, fsync,
 *       atomic rename, fsync of the directory), with a success's result as the JSON value
 *       {@code result} (absent when there is none, as in every file written before results). A
 *       missing, truncated or corrupt file reads as {@link OutcomeRead.None} with a diagnosis, never as
 *       an exception.
 *   <li>{@code checkpoint.json}: the latest checkpoint the worker saved (Q17), written like the outcome
 *       before the worker's {@code checkpoint} call returns; the daemon offers it to the store before it
 *       settles the run.
 *   <li>{@code resume-from.json}: the checkpoint this attempt resumes from, written by the daemon before
 *       the launch when the run's type is resumable and its ticket keeps one (Q17).
 *   <li>{@code stdout.log}, {@code stderr.log}: the worker's output, appended to by the worker and
 *       its command, and kept within the run's output bound by the worker host
 *       ({@link OutputFile}); once a log was cut, {@code stdout.cut.json} or {@code stderr.cut.json}
 *       says which of its bytes are output.
 * </ol>
 *
 * <p>POSIX record locks belong to a process and are dropped when <em>any</em> descriptor of the file
 * in that process is closed, so this JVM never opens a lock file it holds: held reservations are
 * tracked (and kept reachable) here until closed, and probes and reservations in one JVM are
 * serialised.
 */
public final class RunDirectory {
  public static final String RESERVATION = "reservation.lock";
  public static final String IDENTITY = "identity.json";
  public static final String PAYLOAD = "payload.json";
  public static final String BUSY = "busy.json";
  public static final String OUTCOME = "outcome.json";
  public static final String CHECKPOINT = "checkpoint.json";
  public static final String RESUME_FROM = "resume-from.json";
  public static final String STDOUT = "stdout.log";
  public static final String STDERR = "stderr.log";
  /** Schema number written in every JSON file. */
  static final int SCHEMA = 1;
  /** Pause between reservation attempts while a probe briefly holds the lock, ms. */
  private static final long RESERVE_RETRY_MS = 2;

  private static final Pattern RUN_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

  /** Serialises lock probes and reservations within this JVM. */
  static final Object LOCKS = new Object();
  /**
   * Reservations this JVM holds, by lock file. The strong reference matters: a file channel that
   * becomes unreachable is closed by its cleaner, which would drop the lock while the worker lives.
   */
  static final Map<Path, Reservation> HELD = new HashMap<>();

  private final Path dir;
  private final String runId;

  private RunDirectory(Path dir, String runId) {
    this.dir = dir;
    this.runId = runId;
  }

  /** {@code <home>/runs}. */
  public static Path runsOf(Path home) {
    return home.toAbsolutePath().normalize().resolve("runs");
  }

  /**
   * The run directory of {@code runId} under {@code home}, without touching the disk.
   *
   * @throws IllegalArgumentException when {@code runId} is not a safe directory name
   */
  public static RunDirectory of(Path home, String runId) {
    Objects.requireNonNull(home, "home");
    Objects.requireNonNull(runId, "runId");
    if (!RUN_ID.matcher(runId).matches() || runId.contains("..")) {
      throw new IllegalArgumentException("run id '" + runId + "' must be 1-128 letters, digits, '.', '_' or '-', "
          + "start with a letter or digit, and not contain '..'");
    }
    return new RunDirectory(runsOf(home).resolve(runId), runId);
  }

  /**
   * Creates the run directory of {@code runId} (0700, and {@code home} and {@code runs} when missing)
   * with an empty reservation lock and logs (0600). Idempotent.
   */
  public static RunDirectory create(Path home, String runId) throws IOException {
    RunDirectory rd = of(home, runId);
    Files0600.directories(rd.dir);
    Files0600.touch(rd.file(RESERVATION));
    Files0600.touch(rd.file(STDOUT));
    Files0600.touch(rd.file(STDERR));
    return rd;
  }

  public Path path() {
    return dir;
  }

  public String runId() {
    return runId;
  }

  public Path stdoutLog() {
    return file(STDOUT);
  }

  public Path stderrLog() {
    return file(STDERR);
  }

  public Path file(String name) {
    return dir.resolve(name);
  }

  /**
   * The end of {@code stderr.log} on one line: its last few lines without stack frames, cut to a few
   * hundred characters ({@link LastWords}); empty when there is none.
   */
  public Optional<String> lastWords() {
    return LastWords.of(stderrLog());
  }

  // ---------------------------------------------------------------- reservation

  /** Takes the reservation now, or empty when another process (or this one) holds it. */
  public Optional<Reservation> tryReserve() throws IOException {
    Path lockFile = file(RESERVATION);
    synchronized (LOCKS) {
      if (HELD.containsKey(lockFile)) {
        return Optional.empty();
      }
      FileChannel ch = FileChannel.open(lockFile, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE), Files0600.FILE);
      FileLock lock;
      try {
        lock = ch.tryLock();
      } catch (IOException | RuntimeException e) {
        ch.close();
        throw e;
      }
      if (lock == null) {
        ch.close();
        return Optional.empty();
      }
      Reservation r = new Reservation(lockFile, ch, lock);
      HELD.put(lockFile, r);
      return Optional.of(r);
    }
  }

  /**
   * Takes the reservation, retrying for up to {@code waitMs} while it is held: a probe from another
   * process ({@link #isReserved()}) holds the lock for microseconds, a live worker for its life.
   */
  public Optional<Reservation> reserve(long waitMs) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + waitMs * 1_000_000;
    while (true) {
      Optional<Reservation> r = tryReserve();
      if (r.isPresent() || System.nanoTime() - deadline >= 0) {
        return r;
      }
      Thread.sleep(RESERVE_RETRY_MS);
    }
  }

  /**
   * Whether a live process holds the reservation (C5). Tells it by taking a shared lock for an
   * instant, so a worker reserving at that instant retries ({@link #reserve(long)}).
   */
  public boolean isReserved() throws IOException {
    Path lockFile = file(RESERVATION);
    synchronized (LOCKS) {
      if (HELD.containsKey(lockFile)) {
        return true;
      }
      try (FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.READ)) {
        FileLock probe = ch.tryLock(0, Long.MAX_VALUE, true);
        if (probe == null) {
          return true;
        }
        probe.release();
        return false;
      } catch (NoSuchFileException e) {
        return false;
      } catch (OverlappingFileLockException e) {
        throw new IllegalStateException("lock of " + lockFile + " held in this JVM outside RunDirectory", e);
      }
    }
  }

  // ---------------------------------------------------------------- identity

  /**
   * Writes {@code identity.json}: the worker's process identity, the build it runs and the SHA-256
   * of its run token (never the token itself, C9); a null build or hash is left out.
   */
  public void writeIdentity(IdentityRecord.Written record) throws IOException {
    Files0600.writeAtomically(file(IDENTITY), identityJson(record));
  }

  /** The bytes of {@code identity.json}: {@code {v, bootId, pid, startTicks, pgid, build?, tokenHash?}}. */
  static byte[] identityJson(IdentityRecord.Written record) {
    ProcessIdentity identity = record.identity();
    JsonWriter w = new JsonWriter().beginObject()
        .name("v").value(SCHEMA)
        .name("bootId").value(identity.bootId())
        .name("pid").value(identity.pid())
        .name("startTicks").value(identity.startTicks())
        .name("pgid").value(identity.pgid());
    if (record.build() != null) {
      w.name("build").value(record.build());
    }
    if (record.tokenHash() != null) {
      w.name("tokenHash").value(record.tokenHash());
    }
    return w.endObject().toBytes();
  }

  /**
   * The identity record the worker wrote: {@link IdentityRecord.Absent} while there is none,
   * {@link IdentityRecord.Corrupt} with a diagnosis when it is truncated, not JSON or invalid;
   * never throws.
   */
  public IdentityRecord readIdentity() {
    JsonNode n;
    try {
      n = read(IDENTITY);
    } catch (NoSuchFileException e) {
      return new IdentityRecord.Absent();
    } catch (JsonProcessingException e) {
      return new IdentityRecord.Corrupt(IDENTITY + " in " + dir + " is corrupt or truncated: " + e.getOriginalMessage());
    } catch (IOException | RuntimeException e) {
      return new IdentityRecord.Corrupt(IDENTITY + " in " + dir + " is unreadable: " + e);
    }
    try {
      checkSchema(n);
      ProcessIdentity identity = new ProcessIdentity(Fields.text(n, "bootId"), Fields.integral(n, "pid"),
          Fields.integral(n, "startTicks"), Fields.integral(n, "pgid"));
      return new IdentityRecord.Written(identity, Fields.optionalText(n, "build"), Fields.optionalText(n, "tokenHash"));
    } catch (IllegalArgumentException e) {
      return new IdentityRecord.Corrupt(IDENTITY + " in " + dir + " is invalid: " + e.getMessage());
    }
  }

  // ---------------------------------------------------------------- payload

  /**
   * Writes the payload atomically but without forcing it to the device: the payload is a copy of
   * what the store holds durably, read only by the host launched next while this machine runs. A
   * crash of the machine ends that host as well, and a later launch writes the payload again. (Its
   * force and directory sync cost the daemon's scheduling thread 20-30 ms per launch.)
   */
  public void writePayload(JsonNode payload) throws IOException {
    Files0600.writeAtomically(file(PAYLOAD), Json.write(Objects.requireNonNull(payload, "payload")), false);
  }

  /**
   * The payload; an empty object when none was written.
   *
   * @throws IOException with a one-line message when the file is not JSON
   */
  public JsonNode readPayload() throws IOException {
    try {
      return read(PAYLOAD);
    } catch (NoSuchFileException e) {
      return Json.object();
    } catch (JsonProcessingException e) {
      throw new IOException(PAYLOAD + " is not JSON: " + e.getOriginalMessage());
    }
  }

  // ---------------------------------------------------------------- busy evidence

  public void writeBusy(BusyEvidence evidence) throws IOException {
    Files0600.writeAtomically(file(BUSY), busyJson(evidence));
  }

  /** The bytes of {@code busy.json}: {@code {v, busy, atMs, work: [{kind, id}…]}}. */
  static byte[] busyJson(BusyEvidence evidence) {
    JsonWriter w = new JsonWriter().beginObject()
        .name("v").value(SCHEMA)
        .name("busy").value(evidence.busy())
        .name("atMs").value(evidence.atWallMs())
        .name("work").beginArray();
    for (WorkSet.Item i : evidence.work().items()) {
      w.beginObject().name("kind").value(i.kind().name()).name("id").value(i.id()).endObject();
    }
    return w.endArray().endObject().toBytes();
  }

  /** The latest busy evidence, or empty when there is none or it is unreadable (read permissively). */
  public Optional<BusyEvidence> readBusy() {
    try {
      JsonNode n = read(BUSY);
      WorkSet work = WorkSet.EMPTY;
      for (JsonNode i : n.path("work")) {
        work = work.plus(WorkSet.Kind.valueOf(Fields.text(i, "kind")), Fields.text(i, "id"));
      }
      return Optional.of(new BusyEvidence(Fields.bool(n, "busy"), Fields.integral(n, "atMs"), work));
    } catch (IOException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  // ---------------------------------------------------------------- outcome

  /** Writes the outcome durably (see the class comment) before anyone is told of it. */
  public void writeOutcome(RecordedOutcome recorded) throws IOException {
    if (!recorded.runId().equals(runId)) {
      throw new IllegalArgumentException("outcome of run " + recorded.runId() + " does not belong in run directory " + runId);
    }
    Files0600.writeAtomically(file(OUTCOME), outcomeJson(recorded));
  }

  /**
   * The bytes of {@code outcome.json}: {@code {v, run, verdict, detail, atMs, untilMs?, result?,
   * exitCode? | signal?}}.
   */
  static byte[] outcomeJson(RecordedOutcome recorded) {
    Outcome o = recorded.outcome();
    JsonWriter w = new JsonWriter().beginObject()
        .name("v").value(SCHEMA)
        .name("run").value(recorded.runId())
        .name("verdict").value(o.verdict().name())
        .name("detail").value(o.detail())
        .name("atMs").value(recorded.atWallMs());
    if (o instanceof Outcome.Stalled s) {
      w.name("untilMs").value(s.untilMs());
    }
    if (o instanceof Outcome.Succeeded s && s.result() != null) {
      w.name("result").value(s.result());
    }
    if (recorded.exit() != null && recorded.exit().exitCode() != null) {
      w.name("exitCode").value(recorded.exit().exitCode());
    } else if (recorded.exit() != null && recorded.exit().signal() != null) {
      w.name("signal").value(recorded.exit().signal());
    }
    return w.endObject().toBytes();
  }

  /** The outcome, or {@link OutcomeRead.None} with a diagnosis; never throws. */
  public OutcomeRead readOutcome() {
    JsonNode n;
    try {
      n = read(OUTCOME);
    } catch (NoSuchFileException e) {
      return new OutcomeRead.None("no " + OUTCOME + " in " + dir);
    } catch (JsonProcessingException e) {
      return new OutcomeRead.None(OUTCOME + " is corrupt or truncated: " + e.getOriginalMessage());
    } catch (IOException | RuntimeException e) {
      return new OutcomeRead.None(OUTCOME + " is unreadable: " + e);
    }
    try {
      checkSchema(n);
      String run = Fields.text(n, "run");
      if (!run.equals(runId)) {
        throw new IllegalArgumentException("it names run " + run + ", not " + runId);
      }
      Verdict verdict = Verdict.valueOf(Fields.text(n, "verdict"));
      long untilMs = verdict == Verdict.STALLED ? Fields.integral(n, "untilMs") : 0;
      JsonNode result = n.get("result");
      if (result != null && verdict != Verdict.SUCCEEDED) {
        throw new IllegalArgumentException("field 'result' is only for SUCCEEDED, not " + verdict);
      }
      Outcome outcome = result != null ? new Outcome.Succeeded(Fields.text(n, "detail"), result)
          : Outcome.of(verdict, Fields.text(n, "detail"), untilMs);
      dev.vigil.coordination.RunExit exit = n.has("exitCode")
          ? dev.vigil.coordination.RunExit.code((int) Fields.integral(n, "exitCode"), 0)
          : n.has("signal") ? dev.vigil.coordination.RunExit.signal((int) Fields.integral(n, "signal"), 0) : null;
      return new OutcomeRead.Recorded(new RecordedOutcome(run, outcome, Fields.integral(n, "atMs"), exit));
    } catch (IllegalArgumentException e) {
      return new OutcomeRead.None(OUTCOME + " is invalid: " + e.getMessage());
    }
  }

  // ---------------------------------------------------------------- checkpoints (Q17)

  /**
   * Writes the worker's {@code seq}-th checkpoint durably (temporary file, fsync, atomic rename, fsync of the
   * directory), replacing the one before: from the return on, the run's settlement offers it to the store.
   */
  public void writeCheckpoint(long seq, JsonNode value) throws IOException {
    dev.vigil.coordination.Checkpoint.check(seq, Json.text(Objects.requireNonNull(value, "value")));
    write(CHECKPOINT, Json.object().put("v", SCHEMA).put("run", runId).put("seq", seq).set("value", value));
  }

  /**
   * The latest checkpoint the worker saved, as its number and its value's JSON text; empty when there is
   * none, or it is unreadable or not this run's (read permissively: the rename is atomic, so a crash never
   * leaves half of one).
   */
  public Optional<dev.vigil.supervisor.engine.port.RunDirectories.SavedCheckpoint> readCheckpoint() {
    try {
      JsonNode n = read(CHECKPOINT);
      checkSchema(n);
      if (!Fields.text(n, "run").equals(runId) || !n.has("value")) {
        return Optional.empty();
      }
      return Optional.of(new dev.vigil.supervisor.engine.port.RunDirectories.SavedCheckpoint(
          Fields.integral(n, "seq"), Json.text(n.get("value"))));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * Writes the checkpoint this attempt resumes from, before its worker is launched; like the payload, a copy
   * of what the store holds, so not forced to the device.
   */
  public void writeResumeFrom(dev.vigil.coordination.Checkpoint from) throws IOException {
    ObjectNode n = Json.object().put("v", SCHEMA).put("run", from.run().toString()).put("seq", from.seq())
        .put("savedAtMs", from.savedAtMs());
    n.set("value", Json.parse(from.value().getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    Files0600.writeAtomically(file(RESUME_FROM), Json.write(n), false);
  }

  /**
   * The checkpoint this attempt resumes from: its value, empty when the daemon wrote none.
   *
   * @throws IOException with a one-line message when the file is there but unreadable
   */
  public Optional<JsonNode> readResumeFrom() throws IOException {
    JsonNode n;
    try {
      n = read(RESUME_FROM);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (JsonProcessingException e) {
      throw new IOException(RESUME_FROM + " is not JSON: " + e.getOriginalMessage());
    }
    if (!n.has("value")) {
      throw new IOException(RESUME_FROM + " has no value");
    }
    return Optional.of(n.get("value"));
  }

  // ---------------------------------------------------------------- JSON files

  private void write(String name, JsonNode node) throws IOException {
    Files0600.writeAtomically(file(name), Json.write(node));
  }

  private JsonNode read(String name) throws IOException {
    return Json.parse(Files.readAllBytes(file(name)));
  }

  /** Checks that {@code n} is a record of this schema; throws naming what is wrong. */
  private static void checkSchema(JsonNode n) {
    if (!n.isObject()) {
      throw new IllegalArgumentException("not a JSON object");
    }
    long v = Fields.integral(n, "v");
    if (v != SCHEMA) {
      throw new IllegalArgumentException("schema " + v + " is not " + SCHEMA);
    }
  }

  @Override
  public String toString() {
    return dir.toString();
  }

  /** Typed field reads; each failure names the field. */
  static final class Fields {
    private Fields() {}

    static String text(JsonNode n, String field) {
      JsonNode v = n.get(field);
      if (v == null || !v.isTextual()) {
        throw new IllegalArgumentException("field '" + field + "' must be a string");
      }
      return v.textValue();
    }

    /** A string field that may be absent (then null). */
    static String optionalText(JsonNode n, String field) {
      return n.has(field) ? text(n, field) : null;
    }

    static long integral(JsonNode n, String field) {
      JsonNode v = n.get(field);
      if (v == null || !v.isIntegralNumber() || !v.canConvertToLong()) {
        throw new IllegalArgumentException("field '" + field + "' must be an integer");
      }
      return v.longValue();
    }

    static boolean bool(JsonNode n, String field) {
      JsonNode v = n.get(field);
      if (v == null || !v.isBoolean()) {
        throw new IllegalArgumentException("field '" + field + "' must be true or false");
      }
      return v.booleanValue();
    }
  }
}
