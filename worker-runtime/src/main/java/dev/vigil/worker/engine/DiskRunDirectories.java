package dev.vigil.worker.engine;

import dev.vigil.coordination.RunId;
import dev.vigil.supervisor.RevivalGate;
import dev.vigil.supervisor.engine.WorkerKey;
import dev.vigil.supervisor.engine.port.IdentityRecord;
import dev.vigil.supervisor.engine.port.OutcomeRecord;
import dev.vigil.supervisor.engine.port.Prepared;
import dev.vigil.supervisor.engine.port.RunDirectories;
import dev.vigil.worker.Outcome;
import dev.vigil.worker.internal.Json;
import dev.vigil.worker.rundir.OutcomeRead;
import dev.vigil.worker.rundir.OutputFile;
import dev.vigil.worker.rundir.RunDirectory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's {@link RunDirectories} on disk: {@link RunDirectory} under {@code <home>/runs}, one
 * per task run (named after the run id) and one per service session ({@code s-<service>}). The
 * daemon creates the directory here and writes the payload at launch ({@link OsProcessTable}); the
 * rest is the worker's: the reservation lock it holds for life, {@code identity.json} with its
 * identity, build and token hash, {@code outcome.json} (whose result is read as compact JSON text, as
 * the store keeps it) and {@code busy.json}.
 *
 * <p>Reads are permissive: a missing, truncated or corrupt file reads as a value with a diagnosis
 * and never throws. Threading: holds no state of its own, so every method is safe on any thread;
 * each is one short file operation (a lock probe, a small read).
 */
public final class DiskRunDirectories implements RunDirectories {
  private static final Logger LOG = LoggerFactory.getLogger(DiskRunDirectories.class);

  private final Path home;

  /** @param home Vigil's home; directories live under {@code <home>/runs} */
  public DiskRunDirectories(Path home) {
    this.home = Objects.requireNonNull(home, "home");
  }

  /** The directory name of a worker key: the run id, or {@code s-<service>} for a service session. */
  public static String nameOf(WorkerKey key) {
    if (key instanceof WorkerKey.Task t) {
      return t.run().toString();
    } else if (key instanceof WorkerKey.Service s) {
      return "s-" + s.service();
    } else {
      throw new AssertionError(key);
    }
  }

  /** The directory of {@code key} under {@code home}, without touching the disk. */
  public static RunDirectory directoryOf(Path home, WorkerKey key) {
    return RunDirectory.of(home, nameOf(key));
  }

  @Override
  public Prepared prepare(WorkerKey key) {
    try {
      RunDirectory.create(home, nameOf(key));
      return new Prepared.Ready();
    } catch (IOException | RuntimeException e) {
      return new Prepared.Failed("cannot create " + directoryOf(home, key).path() + ": " + e.getMessage());
    }
  }

  @Override
  public boolean isReserved(WorkerKey key) {
    RunDirectory dir = directoryOf(home, key);
    if (!Files.exists(dir.file(RunDirectory.RESERVATION))) {
      return false;
    }
    try {
      return dir.isReserved();
    } catch (IOException e) {
      LOG.warn("cannot probe the reservation of {}: {}", key, e.toString());
      return false;
    }
  }

  @Override
  public IdentityRecord identity(WorkerKey key) {
    return directoryOf(home, key).readIdentity();
  }

  @Override
  public OutcomeRecord outcome(RunId run) {
    RunDirectory dir = directoryOf(home, new WorkerKey.Task(run));
    OutcomeRead read = dir.readOutcome();
    if (read instanceof OutcomeRead.Recorded rec) {
      Outcome o = rec.outcome().outcome();
      long until = o instanceof Outcome.Stalled s ? s.untilMs() : 0;
      String result = o instanceof Outcome.Succeeded s && s.result() != null
          ? new String(Json.write(s.result()), StandardCharsets.UTF_8) : null;
      return new OutcomeRecord.Written(o.verdict(), until, o.detail(), rec.outcome().exit(), result);
    } else if (read instanceof OutcomeRead.None none) {
      return Files.exists(dir.file(RunDirectory.OUTCOME))
          ? new OutcomeRecord.Corrupt(none.diagnosis())
          : new OutcomeRecord.Absent(none.diagnosis());
    } else {
      throw new AssertionError(read);
    }
  }

  @Override
  public Optional<SavedCheckpoint> checkpoint(RunId run) {
    return directoryOf(home, new WorkerKey.Task(run)).readCheckpoint();
  }

  @Override
  public Optional<RevivalGate.BusyRecord> latestBusy(WorkerKey key) {
    return directoryOf(home, key).readBusy().map(b -> new RevivalGate.BusyRecord(b.busy(), b.atWallMs()));
  }

  @Override
  public Optional<String> lastWords(WorkerKey key) {
    return directoryOf(home, key).lastWords();
  }

  @Override
  public long outputMark(WorkerKey key) {
    try {
      return OutputFile.stdout(directoryOf(home, key)).streamLength();
    } catch (IOException | RuntimeException e) {
      LOG.warn("cannot measure the output of {}: {}", key, e.toString());
      return 0;
    }
  }
}
