package dev.vigil.supervisor.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.bridge.Behaviour;
import dev.vigil.bridge.BridgeTimeouts;
import dev.vigil.bridge.Scenario;
import dev.vigil.bridge.ScriptedWorker;
import dev.vigil.bridge.Stack;
import dev.vigil.coordination.Coordination;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.Snapshot;
import dev.vigil.coordination.law.LeaseLaw;
import dev.vigil.launcher.internal.JournalFile;
import dev.vigil.launcher.internal.Wire;
import dev.vigil.supervisor.Replacement;
import dev.vigil.supervisor.RevivalGate;
import dev.vigil.supervisor.Version;
import dev.vigil.supervisor.engine.port.IdentityRecord;
import dev.vigil.supervisor.engine.port.LaunchRequest;
import dev.vigil.supervisor.engine.port.OutcomeRecord;
import dev.vigil.supervisor.engine.port.Ports;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * A scenario's {@link Stack} on the deterministic simulation: the {@link Engine} over
 * {@link LeaseLaw} and {@link SimWorld} (fake processes, run directories, socket and clock),
 * ticked every {@value #TICK_MS} ms of simulated time like the daemon's shell ticks it.
 *
 * <p>Where the real stack has a part the engine does not (the launcher), this runner realises the
 * step as that part does, through the same pure decisions: a boot takes {@value #BOOT_MS} ms (a
 * JVM starting); SIGTERM is a crash that deletes the status file (D1); a second daemon is refused
 * while one lives, naming the pid its status names (D2, the launcher's lock and
 * {@code DaemonLiveness}); {@code vigil up} and a client's status follow {@link Replacement} and
 * say what the launcher says (S8, S9); {@code vigil watch} relaunches a lost daemon only when the
 * status file still names it, it is dead and of the watch's build (S9). The scripted worker's
 * behaviours are the simulated workers' scripts: a stop frame is taken as the worker host takes
 * it (a worker that ignores TERM ignores frames too), no outcome is written on a stop, and a
 * killed service worker's unfinished item stays in its session's queue as the real inbox keeps it.
 */
public final class SimStack implements Stack {
  /** Simulated ms per engine tick. */
  static final long TICK_MS = 100;
  /** Simulated ms from a start to a serving daemon. */
  static final long BOOT_MS = 800;
  private static final long SHUTDOWN_MS = 60_000;

  private final Scenario.Config config;
  private final LeaseLaw law = new LeaseLaw(BridgeTimeouts.RETRY);
  private final SimWorld world;
  private final List<ServiceSpec> services = new ArrayList<>();
  private final List<EngineConfig.LaneLimit> lanes = new ArrayList<>();
  private final List<ObjectNode> journal = new ArrayList<>();
  private final Map<String, Integer> launches = new HashMap<>();
  private Engine engine;
  private SimWorld.DaemonProc daemon;
  private int incarnation;
  private String build;
  private boolean suspended;
  private Status lastStatus;
  private boolean statusDeleted = true;
  private SimWorld.DaemonProc live;

  public SimStack(Scenario.Config config) {
    this.config = config;
    this.world = new SimWorld(law, BridgeTimeouts.LATTICE, v -> {
      throw new AssertionError("the simulation saw a law broken: " + v);
    }, new Tally("bridge"), 1_000_000, 1_700_000_000_000L);
    config.lanes().forEach((l, n) -> lanes.add(new EngineConfig.LaneLimit(new Lane(l), n)));
    config.services().forEach((name, table) -> {
      ObjectNode p = Wire.JSON.createObjectNode();
      ObjectNode t = p.putObject("launches");
      table.forEach((n, b) -> t.put(n, b.toString()));
      services.add(new ServiceSpec(name, ScriptedWorker.NAME, p.toString(), ServiceSpec.Activation.ALWAYS));
    });
    world.scripts = this::script;
    world.daemon = new SimWorld.Daemon() {
      @Override
      public boolean up() {
        return engine != null;
      }

      @Override
      public Optional<ToWorker> hello(WorkerMessage.Hello hello) {
        if (engine == null || suspended) {
          return Optional.empty();
        }
        return Optional.of(engine.onHello(hello, world.monoMs, world.wallMs));
      }

      @Override
      public void message(WorkerKey from, WorkerMessage message) {
        if (engine != null && !suspended) {
          engine.onMessage(from, message, world.monoMs, world.wallMs);
        }
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

  @Override
  public String name() {
    return "simulation";
  }

  // ---- workers: the scripted type's behaviours as simulated scripts ----

  private Object script(LaunchRequest request) {
    JsonNode payload;
    try {
      payload = Wire.JSON.readTree(request.payload());
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException(e);
    }
    if (request.key() instanceof WorkerKey.Service s) {
      int n = launches.merge(s.service(), 1, Integer::sum);
      Behaviour b = ScriptedWorker.pick(payload, "launches", n, Behaviour.serve());
      return new SimWorld.ServiceScript(100, false, 50, b.ending() == Behaviour.Ending.CRASH ? 1_000 : 0, 100, false,
          Long.MAX_VALUE / 4, 0);
    }
    int run = ((WorkerKey.Task) request.key()).run().number();
    Behaviour b = ScriptedWorker.pick(payload, "runs", run, Behaviour.exit(0, 0));
    SimWorld.Ending ending = switch (b.ending()) {
      case EXIT -> b.code() == 0 ? SimWorld.Ending.SUCCEED : b.code() == Behaviour.STALL_CODE ? SimWorld.Ending.STALL
          : SimWorld.Ending.FAIL;
      case STALL -> SimWorld.Ending.STALL;
      case BLOCKED -> SimWorld.Ending.BLOCK;
      case PERMANENT -> SimWorld.Ending.PERMANENT;
      case NO_OUTCOME -> SimWorld.Ending.NO_OUTCOME;
      case CRASH -> SimWorld.Ending.CRASH;
      case HANG -> SimWorld.Ending.SUCCEED;
      case SERVE -> throw new IllegalArgumentException("a task does not serve");
    };
    long work = b.ending() == Behaviour.Ending.HANG || b.untilTold() ? Behaviour.TOLD
        : b.ending() == Behaviour.Ending.CRASH ? 2 * b.afterMs() : Math.max(1, b.afterMs());
    return new SimWorld.TaskScript(100, false, true, 50, work, ending, b.forkMs(), b.ignoreTerm() ? -1 : 50, false,
        b.ignoreTerm(), b.stallForMs(), 0);
  }

  // ---- the daemon ----

  @Override
  public void boot(String label) {
    if (engine != null) {
      throw new IllegalStateException("a daemon serves already");
    }
    pass(BOOT_MS);
    build = config.buildId(label);
    incarnation++;
    daemon = world.startDaemon(incarnation);
    EngineConfig ec = new EngineConfig(new OwnerId("d" + incarnation), "sim", build, config.version(label), 1,
        new Workload(lanes, WorkerTypes.of(WorkerTypeSpec.command(),
            WorkerTypeSpec.declared(ScriptedWorker.NAME, ScriptedWorker.class.getName(), List.of())), services),
        BridgeTimeouts.LATTICE);
    Ports ports = new Ports(law, world.processesOf(daemon), world.directories, world.channel, s -> {
      lastStatus = s;
      statusDeleted = false;
    }, e -> journal.add(JournalFile.toJson(e, world.wallMs, ec.owner())), new dev.vigil.coordination.law.ScheduleLaw(law));
    engine = Engine.boot(ec, ports, world.monoMs, world.wallMs);
  }

  @Override
  public void crash() {
    requireUp();
    world.end(daemon, null, 9);
    world.daemonDied();
    engine = null;
  }

  @Override
  public void sigterm() {
    requireUp();
    world.end(daemon, 0, null);
    world.daemonDied();
    engine = null;
    statusDeleted = true;
  }

  @Override
  public void suspend(long ms) {
    requireUp();
    suspended = true;
    try {
      pass(ms);
    } finally {
      suspended = false;
    }
  }

  @Override
  public boolean up() {
    return engine != null;
  }

  @Override
  public long daemonPid() {
    return daemon == null ? -1 : daemon.identity.pid();
  }

  private void requireUp() {
    if (engine == null) {
      throw new IllegalStateException("no daemon serves");
    }
  }

  @Override
  public ObjectNode command(String op, ObjectNode args) {
    requireUp();
    Command c = Wire.command(op, args, config.maxAttempts());
    List<Reply> out = new ArrayList<>();
    engine.onClientCommand(c, out::add, world.monoMs, world.wallMs);
    if (out.size() != 1) {
      throw new AssertionError(op + " was answered " + out.size() + " times at once");
    }
    return Wire.reply(out.get(0));
  }

  @Override
  public ObjectNode shutdown(boolean ifIdle) {
    requireUp();
    List<Reply> out = new ArrayList<>();
    engine.onClientCommand(new Command.Shutdown(ifIdle ? Command.Shutdown.Mode.IF_IDLE : Command.Shutdown.Mode.STOP_WORKERS),
        out::add, world.monoMs, world.wallMs);
    stoppedCleanly();
    for (long waited = 0; out.isEmpty(); waited += TICK_MS) {
      if (waited > SHUTDOWN_MS) {
        throw new AssertionError("the shutdown was not answered within " + SHUTDOWN_MS + " ms");
      }
      pass(TICK_MS);
    }
    return Wire.reply(out.get(0));
  }

  private void stoppedCleanly() {
    if (engine != null && engine.stopped()) {
      world.end(daemon, 0, null);
      world.daemonDied();
      engine = null;
      statusDeleted = true;
    }
  }

  @Override
  public void pass(long ms) {
    for (long t = 0; t < ms; t += TICK_MS) {
      long dt = Math.min(TICK_MS, ms - t);
      world.monoMs += dt;
      world.wallMs += dt;
      world.step();
      if (engine == null || suspended) {
        continue;
      }
      while (engine != null && !world.pendingExits.isEmpty()) {
        engine.onExit(world.pendingExits.poll(), world.monoMs, world.wallMs);
      }
      engine.tick(world.monoMs, world.wallMs);
      stoppedCleanly();
    }
  }

  @Override
  public long nowWallMs() {
    return world.wallMs;
  }

  // ---- the world ----

  @Override
  public void killWorker(RunId run) {
    Run r = law.run(run).orElseThrow();
    if (r.start() == null) {
      throw new IllegalStateException(run + " has no worker identity yet");
    }
    SimWorld.Proc p = world.livePids.get(r.start().identity().pid());
    if (p == null || !p.identity.equals(r.start().identity())) {
      throw new IllegalStateException("the worker of " + run + " is not alive");
    }
    world.end(p, null, 9);
  }

  /**
   * As the scripted worker ends a run "until told": its outcome written (durably, then reported),
   * then the exit; no outcome for {@code no-outcome} and {@code crash}. With {@code fork}, its
   * grandchild ends.
   */
  @Override
  public void tell(RunId run, boolean fork) {
    for (SimWorld.TaskProc p : world.tasksOf(run)) {
      if (fork) {
        for (SimWorld.ForkProc f : p.forks) {
          world.end(f, 0, null);
        }
        continue;
      }
      if (!p.alive) {
        continue;
      }
      Behaviour b = ScriptedWorker.pick(readTree(law.ticket(run.ticket()).orElseThrow().payload()), "runs", run.number(),
          Behaviour.exit(0, 0));
      OutcomeRecord o = switch (b.ending()) {
        case EXIT -> b.code() == 0 ? new OutcomeRecord.Written(dev.vigil.coordination.Verdict.SUCCEEDED, 0, "exit code 0")
            : b.code() == Behaviour.STALL_CODE
            ? new OutcomeRecord.Written(dev.vigil.coordination.Verdict.STALLED, world.wallMs + b.stallForMs(), "exit code 75")
            : new OutcomeRecord.Written(dev.vigil.coordination.Verdict.FAILED, 0, "exit code " + b.code());
        case STALL -> new OutcomeRecord.Written(dev.vigil.coordination.Verdict.STALLED, world.wallMs + b.stallForMs(),
            "stalled");
        case BLOCKED -> new OutcomeRecord.Written(dev.vigil.coordination.Verdict.BLOCKED, 0, "blocked");
        case PERMANENT -> new OutcomeRecord.Written(dev.vigil.coordination.Verdict.PERMANENT_FAILURE, 0, "permanent");
        case NO_OUTCOME, CRASH, HANG, SERVE -> null;
      };
      if (o != null) {
        p.wrote = o;
        world.dirs.get(p.key).outcome = o;
        p.send(world, new WorkerMessage.OutcomeReported(((OutcomeRecord.Written) o).verdict()));
      }
      world.end(p, b.ending() == Behaviour.Ending.CRASH ? null : o != null ? 0 : 1,
          b.ending() == Behaviour.Ending.CRASH ? 9 : null);
    }
  }

  private static JsonNode readTree(String json) {
    try {
      return Wire.JSON.readTree(json);
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException(e);
    }
  }

  @Override
  public boolean workerAlive(RunId run) {
    for (SimWorld.TaskProc p : world.tasksOf(run)) {
      if (world.workerLives(p)) {
        return true;
      }
    }
    return false;
  }

  private SimWorld.ServiceProc liveService(String service) {
    SimWorld.ServiceProc last = null;
    for (SimWorld.Proc p : world.livePids.values()) {
      if (p instanceof SimWorld.ServiceProc s && s.service.equals(service)) {
        last = s;
      }
    }
    return last;
  }

  @Override
  public void killService(String service) {
    SimWorld.ServiceProc p = liveService(service);
    if (p == null) {
      throw new IllegalStateException("no worker of service " + service + " lives");
    }
    if (p.work.isBusy()) {
      world.sessionInbox.computeIfAbsent(service, k -> new ArrayDeque<>()).addFirst(Math.max(1, p.itemEndsAt - world.monoMs));
    }
    world.end(p, null, 9);
  }

  @Override
  public boolean serviceWorkerAlive(String service) {
    return liveService(service) != null;
  }

  @Override
  public void serviceWork(String service, long ms) {
    world.sessionInbox.computeIfAbsent(service, k -> new ArrayDeque<>()).add(ms);
  }

  @Override
  public boolean busyRecord(String service) {
    SimWorld.Dir d = world.dirs.get(new WorkerKey.Service(service));
    return d != null && d.busy.map(RevivalGate.BusyRecord::busy).orElse(false);
  }

  @Override
  public <T> T store(Function<Coordination, T> f) {
    if (engine != null) {
      throw new IllegalStateException("the store is the daemon's while it serves");
    }
    return f.apply(law);
  }

  @Override
  public ProcessIdentity liveIdentity() {
    if (live == null) {
      live = world.startDaemon(-1);
    }
    return live.identity;
  }

  @Override
  public ProcessIdentity deadIdentity() {
    return new ProcessIdentity(world.bootId, 99_999, 1, 99_999);
  }

  @Override
  public String forgeHello(RunId run) {
    requireUp();
    ToWorker t = engine.onHello(new WorkerMessage.Hello(new WorkerKey.Task(run), "0f".repeat(32), build,
        liveIdentity().pid()), world.monoMs, world.wallMs);
    return t instanceof ToWorker.AdoptDenied ? "refused" : "accepted";
  }

  @Override
  public Optional<JsonNode> statusFile() {
    if (statusDeleted || lastStatus == null) {
      return Optional.empty();
    }
    ObjectNode o = Wire.JSON.createObjectNode();
    o.put("pid", lastStatus.pid());
    o.put("heartbeat_at", lastStatus.heartbeatAtWallMs());
    o.put("build", lastStatus.build());
    return Optional.of(o);
  }

  /** The launcher's lock is held while the daemon process lives; a refusal names the status file's pid. */
  @Override
  public Optional<Long> secondDaemon() {
    if (daemon != null && daemon.alive) {
      return Optional.of(statusFile().map(s -> s.path("pid").asLong()).orElse(daemon.identity.pid()));
    }
    return Optional.empty();
  }

  private Replacement.Daemon running() {
    return new Replacement.Daemon(Version.parse(lastStatus.version()), lastStatus.build(), 1,
        Set.of(Replacement.IDLE_SHUTDOWN));
  }

  private Replacement.Client client(String label, boolean interactive) {
    return new Replacement.Client(Version.parse(config.version(label)), config.buildId(label), 1, interactive);
  }

  /** As the launcher's {@code Up.up}: its decision and its words. */
  @Override
  public Told up(String label) {
    if (engine == null) {
      boot(label);
      return new Told(0, daemonPid(), "");
    }
    Replacement.Verdict v = Replacement.decide(client(label, true), Optional.of(running()));
    long pid = daemonPid();
    if (v instanceof Replacement.Verdict.Use) {
      return new Told(0, pid, "");
    } else if (v instanceof Replacement.Verdict.UseAndTell t) {
      return new Told(0, pid, "vigil: " + t.message());
    } else if (v instanceof Replacement.Verdict.Refuse r) {
      return new Told(3, -1, "vigil: " + r.message());
    } else if (v instanceof Replacement.Verdict.ReplaceIfIdle) {
      String replaced = "v" + lastStatus.version() + ", pid " + pid;
      ObjectNode reply = shutdown(true);
      if (!reply.path("kind").asText().equals("ShuttingDown")) {
        String why = reply.path("message").asText().replaceFirst("^(busy|denied): ", "");
        return new Told(3, -1, "vigil: " + ("Busy".equals(reply.path("kind").asText()) ? "busy" : "refused")
            + ": the running daemon (" + replaced + ") is not replaced: " + why);
      }
      boot(label);
      return new Told(0, daemonPid(), "vigil: replaced the idle daemon (" + replaced + ") with this vigil (v"
          + config.version(label) + ", pid " + daemonPid() + ")");
    }
    throw new AssertionError(v);
  }

  @Override
  public Told clientStatus(String label) {
    requireUp();
    Replacement.Verdict v = Replacement.decide(client(label, false), Optional.of(running()));
    if (v instanceof Replacement.Verdict.UseAndTell t) {
      return new Told(0, -1, "vigil: " + t.message());
    } else if (v instanceof Replacement.Verdict.Refuse r) {
      return new Told(3, -1, "vigil: " + r.message());
    }
    return new Told(0, -1, "");
  }

  /** As the launcher's {@code Watch}: relaunch only a lost daemon (status file kept, pid dead) of its own build. */
  @Override
  public Optional<Long> watch(String label) {
    if (engine != null) {
      return Optional.empty();
    }
    Optional<JsonNode> st = statusFile();
    boolean lost = st.isPresent() && !daemon.alive;
    if (lost && st.get().path("build").asText().equals(config.buildId(label))) {
      boot(label);
      return Optional.of(daemonPid());
    }
    pass(3_000);
    return Optional.empty();
  }

  @Override
  public List<ObjectNode> journal() {
    return journal;
  }

  @Override
  public Snapshot finish() {
    return law.snapshot();
  }

  @Override
  public void close() {}

}
