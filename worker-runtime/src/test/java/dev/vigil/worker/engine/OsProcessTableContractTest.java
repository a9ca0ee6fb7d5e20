package dev.vigil.worker.engine;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RunId;
import dev.vigil.supervisor.engine.ProcessTableContract;
import dev.vigil.supervisor.engine.WorkerKey;
import dev.vigil.supervisor.engine.WorkerTypeSpec;
import dev.vigil.supervisor.engine.port.Launch;
import dev.vigil.supervisor.engine.port.LaunchRequest;
import dev.vigil.supervisor.engine.port.ProcessExit;
import dev.vigil.supervisor.engine.port.ProcessTable;
import dev.vigil.supervisor.engine.port.RunDirectories;
import dev.vigil.worker.host.WorkerArgs;
import java.nio.file.Path;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The process table contract on real worker hosts: setsid, /proc identities, real signals. */
class OsProcessTableContractTest extends ProcessTableContract {
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

  @Override
  protected ProcessTable processes() {
    return real.processes;
  }

  @Override
  protected RunDirectories directories() {
    return real.directories;
  }

  @Override
  protected Launch launchBroken(LaunchRequest request) {
    return real.broken().launch(request);
  }

  @Override
  protected void kill9(ProcessIdentity identity) {
    RealPorts.kill9(identity);
  }

  @Override
  protected List<ProcessExit> exits() {
    return List.copyOf(real.exits);
  }

  @Override
  protected void await(String what, BooleanSupplier condition) {
    RealPorts.await(what, condition);
  }

  @Test
  void aHostWhoseClasspathHoldsNoWorkerHost_saysSoInItsLastWords() {
    WorkerKey key = new WorkerKey.Task(RunId.parse("t-7.1"));
    directories().prepare(key);
    Launch launch = launchBroken(new LaunchRequest(key, WorkerTypeSpec.command(), "{\"argv\":[\"true\"]}", 1, BUILD));
    String said = "Error: Could not find or load main class " + WorkerArgs.MAIN_CLASS;
    if (launch instanceof Launch.Started s) {
      await("the broken host exited", () -> real.exits.stream().anyMatch(e -> e.identity().equals(s.identity())));
      String words = directories().lastWords(key).orElseThrow();
      assertTrue(words.startsWith(said), words);
    } else if (launch instanceof Launch.Failed f) {
      assertTrue(f.why().contains("its stderr ends: " + said), f.why());
    } else {
      throw new AssertionError(launch);
    }
  }
}
