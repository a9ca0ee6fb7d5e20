package dev.vigil.worker.engine;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RunId;
import dev.vigil.supervisor.RevivalGate;
import dev.vigil.supervisor.WorkSet;
import dev.vigil.supervisor.engine.RunDirectoriesContract;
import dev.vigil.supervisor.engine.WorkerKey;
import dev.vigil.supervisor.engine.WorkerTypeSpec;
import dev.vigil.supervisor.engine.port.IdentityRecord;
import dev.vigil.supervisor.engine.port.LaunchRequest;
import dev.vigil.supervisor.engine.port.OutcomeRecord;
import dev.vigil.supervisor.engine.port.RunDirectories;
import dev.vigil.worker.Outcome;
import dev.vigil.worker.rundir.BusyEvidence;
import dev.vigil.worker.rundir.RecordedOutcome;
import dev.vigil.worker.rundir.RunDirectory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** The run directories contract on real files in a temporary home, with a real worker host holding a reservation. */
class DiskRunDirectoriesContractTest extends RunDirectoriesContract {
  private static final IdentityRecord.Written SOME_IDENTITY =
      new IdentityRecord.Written(new ProcessIdentity("boot-1", 42, 7, 42), "1.0.0+b1", "ab".repeat(32));

  @TempDir
  Path home;
  private RealPorts real;

  @BeforeEach
  void open() {
    real = new RealPorts(home);
  }

  @AfterEach
  void killWhatIsLeft() {
    real.close();
  }

  private RunDirectory dir(WorkerKey key) {
    return DiskRunDirectories.directoryOf(home, key);
  }

  @Override
  protected RunDirectories directories() {
    return real.directories;
  }

  @Override
  protected ProcessIdentity startWorker(WorkerKey key) {
    return real.started(new LaunchRequest(key, WorkerTypeSpec.command(), "{\"argv\":[\"true\"]}", 1, "1.0.0+b1")).identity();
  }

  @Override
  protected void kill9(ProcessIdentity identity) {
    RealPorts.kill9(identity);
  }

  @Override
  protected void await(String what, BooleanSupplier condition) {
    RealPorts.await(what, condition);
  }

  @Override
  protected void writeIdentity(WorkerKey key, IdentityRecord.Written record) {
    try {
      dir(key).writeIdentity(record);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  @Override
  protected void writeOutcome(RunId run, OutcomeRecord.Written outcome) {
    try {
      dir(new WorkerKey.Task(run)).writeOutcome(new RecordedOutcome(run.toString(), outcomeOf(outcome), 1_000));
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static com.fasterxml.jackson.databind.JsonNode parse(String json) {
    try {
      return new com.fasterxml.jackson.databind.ObjectMapper().readTree(json);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static Outcome outcomeOf(OutcomeRecord.Written o) {
    return switch (o.verdict()) {
      case SUCCEEDED -> new Outcome.Succeeded(o.note(), o.result() == null ? null : parse(o.result()));
      case FAILED -> new Outcome.Failed(o.note());
      case PERMANENT_FAILURE -> new Outcome.PermanentFailure(o.note());
      case STALLED -> new Outcome.Stalled(o.stallUntilWallMs(), o.note());
      case BLOCKED -> new Outcome.Blocked(o.note());
      case LOST, ABANDONED, SUPERSEDED, KILLED -> throw new AssertionError("no worker writes " + o.verdict());
    };
  }

  @Override
  protected void writeBusy(WorkerKey key, RevivalGate.BusyRecord record) {
    WorkSet work = record.busy() ? WorkSet.EMPTY.plus(WorkSet.Kind.RUN, key.name()) : WorkSet.EMPTY;
    try {
      dir(key).writeBusy(new BusyEvidence(record.busy(), record.atWallMs(), work));
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  @Override
  protected void damage(WorkerKey key, WorkerFile file, Damage damage) {
    RunDirectory dir = dir(key);
    try {
      String name = switch (file) {
        case IDENTITY -> {
          dir.writeIdentity(SOME_IDENTITY);
          yield RunDirectory.IDENTITY;
        }
        case OUTCOME -> {
          dir.writeOutcome(new RecordedOutcome(dir.runId(), new Outcome.Succeeded("done"), 1_000));
          yield RunDirectory.OUTCOME;
        }
        case BUSY -> {
          dir.writeBusy(new BusyEvidence(true, 1_000, WorkSet.EMPTY.plus(WorkSet.Kind.RUN, key.name())));
          yield RunDirectory.BUSY;
        }
      };
      Path p = dir.file(name);
      byte[] whole = Files.readAllBytes(p);
      byte[] damaged = switch (damage) {
        case EMPTY -> new byte[0];
        case TRUNCATED -> Arrays.copyOf(whole, whole.length / 2);
        case NOT_JSON -> new byte[] {0, 1, 2, '{', 'x'};
        case INVALID -> invalid(file, dir.runId()).getBytes(StandardCharsets.UTF_8);
      };
      Files.write(p, damaged);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  /** Well-formed JSON that is not a valid record: a field of the wrong kind or a value no worker writes. */
  private static String invalid(WorkerFile file, String runId) {
    return switch (file) {
      case IDENTITY -> "{\"v\":1,\"bootId\":\"b\",\"pid\":42,\"startTicks\":7,\"pgid\":42,\"tokenHash\":\"not-a-sha256\"}";
      case OUTCOME -> "{\"v\":1,\"run\":\"" + runId + "\",\"verdict\":\"LOST\",\"detail\":\"x\",\"atMs\":1}";
      case BUSY -> "{\"v\":1,\"busy\":\"yes\",\"atMs\":1,\"work\":[]}";
    };
  }
}
