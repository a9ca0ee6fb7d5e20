package dev.vigil.worker.engine;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.supervisor.engine.ProcessTableContract;
import dev.vigil.supervisor.engine.port.Launch;
import dev.vigil.supervisor.engine.port.LaunchRequest;
import dev.vigil.supervisor.engine.port.ProcessExit;
import dev.vigil.supervisor.engine.port.ProcessTable;
import dev.vigil.supervisor.engine.port.RunDirectories;
import java.nio.file.Path;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
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
}
