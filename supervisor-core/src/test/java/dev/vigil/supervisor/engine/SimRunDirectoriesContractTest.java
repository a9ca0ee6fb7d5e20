package dev.vigil.supervisor.engine;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RunId;
import dev.vigil.supervisor.RevivalGate;
import dev.vigil.supervisor.engine.port.IdentityRecord;
import dev.vigil.supervisor.engine.port.OutcomeRecord;
import dev.vigil.supervisor.engine.port.RunDirectories;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/** The run directories contract on the simulation's fake, whose files are records. */
class SimRunDirectoriesContractTest extends RunDirectoriesContract {
  private final SimPorts sim = new SimPorts();

  @Override
  protected RunDirectories directories() {
    return sim.world.directories;
  }

  @Override
  protected ProcessIdentity startWorker(WorkerKey key) {
    ProcessIdentity id = sim.launch(key).identity;
    sim.await("the worker of " + key + " holds its reservation and wrote its identity",
        () -> sim.world.directories.isReserved(key)
            && sim.world.directories.identity(key) instanceof IdentityRecord.Written w && w.identity().equals(id));
    return id;
  }

  @Override
  protected void kill9(ProcessIdentity identity) {
    sim.kill9(identity);
  }

  @Override
  protected void await(String what, BooleanSupplier condition) {
    sim.await(what, condition);
  }

  @Override
  protected void writeIdentity(WorkerKey key, IdentityRecord.Written record) {
    sim.dir(key).identity = record;
  }

  @Override
  protected void writeOutcome(RunId run, OutcomeRecord.Written outcome) {
    sim.dir(new WorkerKey.Task(run)).outcome = outcome;
  }

  @Override
  protected void writeBusy(WorkerKey key, RevivalGate.BusyRecord record) {
    sim.dir(key).busy = Optional.of(record);
  }

  @Override
  protected void damage(WorkerKey key, WorkerFile file, Damage damage) {
    SimWorld.Dir d = sim.dir(key);
    switch (file) {
      case IDENTITY -> d.identity = new IdentityRecord.Corrupt("identity.json of " + key + ": " + damage);
      case OUTCOME -> d.outcome = new OutcomeRecord.Corrupt("outcome.json of " + key + ": " + damage);
      case BUSY -> d.busy = Optional.empty();
    }
  }
}
