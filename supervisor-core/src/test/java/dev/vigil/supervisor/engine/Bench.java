package dev.vigil.supervisor.engine;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.Owner;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.law.LeaseLaw;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.TimeoutLattice;
import dev.vigil.supervisor.engine.port.Ports;
import dev.vigil.supervisor.engine.port.ProcessExit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * A hand-driven daemon over {@link SimWorld} for named examples: boot, crash, step the clock,
 * script the next workers, send commands, read the journal.
 */
final class Bench {
  static final long TICK_MS = 250;

  final LeaseLaw law = new LeaseLaw(Simulation.POLICY);
  final CrashingCoordination coordination = new CrashingCoordination(law);
  final dev.vigil.coordination.law.ScheduleLaw schedules = new dev.vigil.coordination.law.ScheduleLaw(law);
  final SimWorld world;
  final List<EngineEvent> events = new ArrayList<>();
  final List<Status> statuses = new ArrayList<>();
  final Deque<Object> scripts = new ArrayDeque<>();
  /** The lanes of the next boot. */
  List<EngineConfig.LaneLimit> lanes = Simulation.LANES;
  /** The most task workers starting at once, from the next boot. */
  int maxStarting = Workload.DEFAULT_MAX_STARTING;
  List<ServiceSpec> services = List.of();
  Engine engine;
  SimWorld.DaemonProc daemon;
  int incarnation;
  String build = "b1";
  /** The host id this bench's daemons register (H1), or null for a store that one host uses. */
  String hostId;

  final TimeoutLattice timeouts;

  Bench() {
    this(Simulation.TIMEOUTS);
  }

  Bench(TimeoutLattice timeouts) {
    this.timeouts = timeouts;
    world = new SimWorld(law, timeouts, law -> {
      throw new AssertionError(law);
    }, new Tally("bench"), 1_000_000, 1_700_000_000_000L);
    world.scripts = request -> scripts.isEmpty()
        ? request.key() instanceof WorkerKey.Task ? task().build() : service().build()
        : scripts.poll();
    world.daemon = new SimWorld.Daemon() {
      @Override
      public boolean up() {
        return engine != null;
      }

      @Override
      public Optional<ToWorker> hello(WorkerMessage.Hello hello) {
        return guard(() -> engine.onHello(hello, world.monoMs, world.wallMs));
      }

      @Override
      public void message(WorkerKey from, WorkerMessage message) {
        guard(() -> {
          engine.onMessage(from, message, world.monoMs, world.wallMs);
          return null;
        });
      }

      @Override
      public int incarnation() {
        return incarnation;
      }

      @Override
      public String build() {
        return build;
      }
    };
  }

  static long ms(Timeout t) {
    return Simulation.TIMEOUTS.ms(t);
  }

  // ---- the daemon ----

  Bench services(ServiceSpec... specs) {
    services = List.of(specs);
    for (ServiceSpec s : specs) {
      if (s.activation() == ServiceSpec.Activation.ON_DEMAND) {
        world.onDemand.add(s.name());
      }
    }
    return this;
  }

  Engine boot() {
    return boot(build);
  }

  Engine boot(String onBuild) {
    build = onBuild;
    incarnation++;
    daemon = world.startDaemon(incarnation);
    EngineConfig config = new EngineConfig(new OwnerId("d" + incarnation), "bench", build, "1.0.0", 1,
        new Workload(lanes, Simulation.TYPES, services, maxStarting), timeouts, hostId);
    Ports ports = new Ports(coordination, world.processesOf(daemon), world.directories, world.channel, statuses::add,
        events::add, schedules);
    engine = Engine.boot(config, ports, world.monoMs, world.wallMs);
    return engine;
  }

  /** The daemon dies (kill -9): the engine is thrown away; workers live on. */
  void crash() {
    world.end(daemon, null, 9);
    world.daemonDied();
    coordination.disarm();
    engine = null;
  }

  private <T> Optional<T> guard(java.util.function.Supplier<T> call) {
    if (engine == null) {
      return Optional.empty();
    }
    try {
      return Optional.ofNullable(call.get());
    } catch (SimulatedCrash c) {
      crash();
      return Optional.empty();
    }
  }

  /** Advances the clocks by {@code ms} in ticks: workers act, exits are delivered, the engine ticks. */
  void run(long ms) {
    for (long t = 0; t < ms; t += TICK_MS) {
      tick();
    }
  }

  void tick() {
    world.monoMs += TICK_MS;
    world.wallMs += TICK_MS;
    world.step();
    while (engine != null && !world.pendingExits.isEmpty()) {
      ProcessExit x = world.pendingExits.poll();
      guard(() -> {
        engine.onExit(x, world.monoMs, world.wallMs);
        return null;
      });
    }
    guard(() -> {
      engine.tick(world.monoMs, world.wallMs);
      return null;
    });
  }

  /** Ticks until {@code done} holds, at most {@code maxMs}; fails naming {@code what} otherwise. */
  void until(String what, BooleanSupplier done, long maxMs) {
    for (long t = 0; t <= maxMs; t += TICK_MS) {
      if (done.getAsBoolean()) {
        return;
      }
      tick();
    }
    assertTrue(done.getAsBoolean(), "within " + maxMs + " ms: " + what + "\n  events: " + events);
  }

  // ---- commands and queries ----

  /** Sends a command; returns its answer, or null when the daemon died answering (or answers later). */
  Reply command(Command c) {
    List<Reply> out = send(c);
    return out.isEmpty() ? null : out.get(0);
  }

  /** Sends a command; the list fills when the engine answers (a shutdown answers from a later tick). */
  List<Reply> send(Command c) {
    List<Reply> out = new ArrayList<>();
    guard(() -> {
      engine.onClientCommand(c, out::add, world.monoMs, world.wallMs);
      return null;
    });
    return out;
  }

  TicketId submit(Lane lane) {
    return submit(NewTicket.of(lane, "cmd", "{}"));
  }

  TicketId submit(NewTicket n) {
    Reply r = command(new Command.Submit(n));
    assertTrue(r instanceof Reply.Submitted, "submitted: " + r);
    return ((Reply.Submitted) r).ticket().id();
  }

  Ticket ticket(TicketId id) {
    return law.ticket(id).orElseThrow();
  }

  Run run(RunId id) {
    return law.run(id).orElseThrow();
  }

  RunId firstRun(TicketId id) {
    return new RunId(id, 1);
  }

  SimWorld.TaskProc worker(RunId run) {
    List<SimWorld.TaskProc> ps = world.tasksOf(run);
    assertTrue(ps.size() == 1, "one worker for " + run + ": " + ps);
    return ps.get(0);
  }

  SimWorld.ServiceProc serviceWorker(String name) {
    SimWorld.ServiceProc last = null;
    for (SimWorld.Proc p : world.everyProcess) {
      if (p instanceof SimWorld.ServiceProc s && s.service.equals(name)) {
        last = s;
      }
    }
    return last;
  }

  List<SimWorld.ServiceProc> serviceWorkers(String name) {
    List<SimWorld.ServiceProc> out = new ArrayList<>();
    for (SimWorld.Proc p : world.everyProcess) {
      if (p instanceof SimWorld.ServiceProc s && s.service.equals(name)) {
        out.add(s);
      }
    }
    return out;
  }

  <T extends EngineEvent> List<T> events(Class<T> type) {
    List<T> out = new ArrayList<>();
    for (EngineEvent e : events) {
      if (type.isInstance(e)) {
        out.add(type.cast(e));
      }
    }
    return out;
  }

  List<EngineEvent.Recovered> recovered(EngineEvent.RecoveryAction action) {
    return events(EngineEvent.Recovered.class).stream().filter(r -> r.action() == action).toList();
  }

  Status status() {
    return ((Reply.StatusReport) command(new Command.StatusQuery())).status();
  }

  Status.ServiceStatus serviceStatus(String name) {
    return status().services().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
  }

  /** A client process that registers as an owner (e.g. {@code vigil run}), alive until it ends. */
  SimWorld.DaemonProc liveClient(OwnerId id) {
    SimWorld.DaemonProc client = world.startDaemon(-1);
    law.registerOwner(new Owner(id, "bench", client.identity, build, world.wallMs));
    return client;
  }

  // ---- scripts ----

  static TaskBuilder task() {
    return new TaskBuilder();
  }

  static ServiceBuilder service() {
    return new ServiceBuilder();
  }

  /** A well-behaved task worker unless told otherwise. */
  static final class TaskBuilder {
    long reserveAfter = 100;
    boolean dieBeforeReserve;
    boolean writesIdentity = true;
    long helloAfter = 50;
    long work = 2_000;
    SimWorld.Ending ending = SimWorld.Ending.SUCCEED;
    long fork = -1;
    long react = 100;
    boolean outcomeOnStop = true;
    boolean hangs;
    long stallFor;
    long lockLag;

    TaskBuilder reserveAfter(long ms) {
      reserveAfter = ms;
      return this;
    }

    TaskBuilder diesBeforeReserving() {
      dieBeforeReserve = true;
      return this;
    }

    TaskBuilder noIdentityRecord() {
      writesIdentity = false;
      return this;
    }

    TaskBuilder helloAfter(long ms) {
      helloAfter = ms;
      return this;
    }

    TaskBuilder work(long ms) {
      work = ms;
      return this;
    }

    TaskBuilder ending(SimWorld.Ending e) {
      ending = e;
      return this;
    }

    TaskBuilder forkOutliving(long ms) {
      fork = ms;
      return this;
    }

    TaskBuilder stopReact(long ms, boolean writesOutcome) {
      react = ms;
      outcomeOnStop = writesOutcome;
      return this;
    }

    TaskBuilder hangs() {
      hangs = true;
      return this;
    }

    TaskBuilder stallFor(long ms) {
      ending = SimWorld.Ending.STALL;
      stallFor = ms;
      return this;
    }

    TaskBuilder lockLag(long ms) {
      lockLag = ms;
      return this;
    }

    SimWorld.TaskScript build() {
      return new SimWorld.TaskScript(reserveAfter, dieBeforeReserve, writesIdentity, helloAfter, work, ending, fork, react,
          outcomeOnStop, hangs, stallFor, lockLag);
    }
  }

  /** A well-behaved service worker unless told otherwise. */
  static final class ServiceBuilder {
    long reserveAfter = 100;
    boolean dieBeforeReserve;
    long helloAfter = 50;
    int crashPerMille;
    long react = 100;
    boolean slowInbox;
    long idleClose = 3_600_000;
    int ignoredSignals;

    ServiceBuilder crashPerMille(int p) {
      crashPerMille = p;
      return this;
    }

    ServiceBuilder stopReact(long ms) {
      react = ms;
      return this;
    }

    ServiceBuilder ignoresSignals(int n) {
      ignoredSignals = n;
      return this;
    }

    ServiceBuilder diesBeforeReserving() {
      dieBeforeReserve = true;
      return this;
    }

    SimWorld.ServiceScript build() {
      return new SimWorld.ServiceScript(reserveAfter, dieBeforeReserve, helloAfter, crashPerMille, react, slowInbox,
          idleClose, ignoredSignals);
    }
  }
}
