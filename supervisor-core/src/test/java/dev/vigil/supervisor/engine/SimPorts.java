package dev.vigil.supervisor.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.law.LeaseLaw;
import dev.vigil.supervisor.engine.port.Launch;
import dev.vigil.supervisor.engine.port.LaunchRequest;
import dev.vigil.supervisor.engine.port.ProcessTable;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * The simulation's fake ports for the port contracts: one {@link SimWorld} with a daemon that is
 * up but answers no hello, so workers wait for a welcome as worker hosts do with no daemon.
 */
final class SimPorts {
  /** The build in every request. */
  static final String BUILD = "1.0.0+contract";
  /** Simulated time the fixture lets pass while it awaits a condition, ms (less than supervisorBoot). */
  private static final long PATIENCE_MS = 3_000;
  private static final long STEP_MS = 10;

  final SimWorld world;
  final ProcessTable processes;
  /** Scripts of the next launched workers; a well-behaved worker when empty. */
  final Deque<Object> scripts = new ArrayDeque<>();

  SimPorts() {
    world = new SimWorld(new LeaseLaw(Simulation.POLICY), Simulation.TIMEOUTS, law -> {
      throw new AssertionError(law);
    }, new Tally("port contracts"), 1_000_000, 1_700_000_000_000L);
    world.scripts = request -> !scripts.isEmpty() ? scripts.poll()
        : request.key() instanceof WorkerKey.Task ? Bench.task().build() : Bench.service().build();
    world.daemon = new SimWorld.Daemon() {
      @Override
      public boolean up() {
        return true;
      }

      @Override
      public Optional<ToWorker> hello(WorkerMessage.Hello hello) {
        return Optional.empty();
      }

      @Override
      public void message(WorkerKey from, WorkerMessage message) {}

      @Override
      public int incarnation() {
        return 1;
      }

      @Override
      public String build() {
        return BUILD;
      }
    };
    processes = world.processesOf(world.startDaemon(1));
  }

  static LaunchRequest request(WorkerKey key) {
    return new LaunchRequest(key, Simulation.TYPES.get("cmd").orElseThrow(), "{}", key instanceof WorkerKey.Task ? 1 : 0, BUILD);
  }

  /** Steps the world until {@code condition} holds; fails naming {@code what} after {@link #PATIENCE_MS}. */
  void await(String what, BooleanSupplier condition) {
    for (long waited = 0; !condition.getAsBoolean(); waited += STEP_MS) {
      assertTrue(waited < PATIENCE_MS, "within " + PATIENCE_MS + " simulated ms: " + what);
      world.monoMs += STEP_MS;
      world.wallMs += STEP_MS;
      world.step();
    }
  }

  /** Ends the live process {@code identity} by SIGKILL. */
  void kill9(ProcessIdentity identity) {
    SimWorld.Proc p = world.livePids.get(identity.pid());
    assertTrue(p != null && p.identity.equals(identity), "a live process " + identity);
    world.end(p, null, 9);
  }

  /** Launches a well-behaved worker of {@code key} (its directory prepared) and returns its process. */
  SimWorld.WorkerProc launch(WorkerKey key) {
    Launch.Started s = assertInstanceOf(Launch.Started.class, processes.launch(request(key)));
    SimWorld.Proc p = world.livePids.get(s.identity().pid());
    assertEquals(s.identity(), p.identity);
    return (SimWorld.WorkerProc) p;
  }

  SimWorld.Dir dir(WorkerKey key) {
    SimWorld.Dir d = world.dirs.get(key);
    assertTrue(d != null, "the directory of " + key + " is prepared");
    return d;
  }
}
