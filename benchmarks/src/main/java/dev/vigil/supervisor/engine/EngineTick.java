package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * B2: the daemon engine's tick over the simulation's fakes (supervisor-core's {@code SimWorld},
 * driven by its hand-driven {@code Bench}), µs per 250 ms step of simulated time: the simulated
 * world's step, the exits it delivers and {@code Engine.tick}. In this package because the
 * simulation is package-private. Run with {@code java -jar benchmarks/target/benchmarks.jar EngineTick}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class EngineTick {
  private Bench idle;
  private Bench busy;

  @Setup(Level.Iteration)
  public void setUp() {
    idle = new Bench();
    idle.boot();
    idle.run(5_000);
    busy = new Bench();
    busy.boot();
    for (int i = 0; i < 3; i++) {
      busy.scripts.add(Bench.task().work(Long.MAX_VALUE / 4).build());
    }
    busy.submit(NewTicket.of(Simulation.LANE_A, "cmd", "{}"));
    busy.submit(NewTicket.of(Simulation.LANE_A, "cmd", "{}"));
    busy.submit(NewTicket.of(Simulation.LANE_B, "cmd", "{}"));
    busy.until("three runs live", () -> busy.status().runs().size() == 3, 60_000);
  }

  /** A tick of an engine with nothing to do. */
  @Benchmark
  public long idleTick() {
    idle.tick();
    return idle.world.monoMs;
  }

  /** A tick of an engine supervising three live task runs (leases renewed every reconcile). */
  @Benchmark
  public long tickWithThreeLiveRuns() {
    busy.tick();
    return busy.world.monoMs;
  }

  /** For the smoke test: the lanes the simulation uses. */
  static Lane laneA() {
    return Simulation.LANE_A;
  }
}
