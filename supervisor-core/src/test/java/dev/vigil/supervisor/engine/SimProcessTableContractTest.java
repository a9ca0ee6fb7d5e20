package dev.vigil.supervisor.engine;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.supervisor.engine.port.Launch;
import dev.vigil.supervisor.engine.port.LaunchRequest;
import dev.vigil.supervisor.engine.port.ProcessExit;
import dev.vigil.supervisor.engine.port.ProcessTable;
import dev.vigil.supervisor.engine.port.RunDirectories;
import java.util.List;
import java.util.function.BooleanSupplier;

/** The process table contract on the simulation's fake. */
class SimProcessTableContractTest extends ProcessTableContract {
  private final SimPorts sim = new SimPorts();

  @Override
  protected ProcessTable processes() {
    return sim.processes;
  }

  @Override
  protected RunDirectories directories() {
    return sim.world.directories;
  }

  @Override
  protected Launch launchBroken(LaunchRequest request) {
    sim.scripts.add(request.key() instanceof WorkerKey.Task ? Bench.task().diesBeforeReserving().build()
        : Bench.service().diesBeforeReserving().build());
    return sim.processes.launch(request);
  }

  @Override
  protected void kill9(ProcessIdentity identity) {
    sim.kill9(identity);
  }

  @Override
  protected List<ProcessExit> exits() {
    return List.copyOf(sim.world.pendingExits);
  }

  @Override
  protected void await(String what, BooleanSupplier condition) {
    sim.await(what, condition);
  }
}
