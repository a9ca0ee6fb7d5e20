package dev.vigil.supervisor.engine;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.supervisor.engine.port.WorkerChannel;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * The worker channel contract on the simulation's fake: a connection is a worker process bound to
 * its key, and a frame lands in its inbox at once.
 */
class SimWorkerChannelContractTest extends WorkerChannelContract {
  private final SimPorts sim = new SimPorts();

  @Override
  protected WorkerChannel channel() {
    return sim.world.channel;
  }

  @Override
  protected Connection welcomed(WorkerKey key) {
    sim.world.directories.prepare(key);
    SimWorld.WorkerProc w = sim.launch(key);
    sim.world.bind(w);
    return new Connection() {
      @Override
      public List<ToWorker> received() {
        return w.inbox.stream().map(SimWorld.Delivery::message).toList();
      }

      @Override
      public boolean open() {
        return w.connected;
      }

      @Override
      public void close() {
        sim.world.drop(w);
      }
    };
  }

  /** The fake delivers at once: the condition holds now or never. */
  @Override
  protected void await(String what, BooleanSupplier condition) {
    assertTrue(condition.getAsBoolean(), what);
  }
}
