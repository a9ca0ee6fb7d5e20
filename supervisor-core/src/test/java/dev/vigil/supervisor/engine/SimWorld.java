package dev.vigil.supervisor.engine;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunState;
import dev.vigil.coordination.Store;
import dev.vigil.coordination.Verdict;
import dev.vigil.supervisor.OrphanPolicy;
import dev.vigil.supervisor.RevivalGate;
import dev.vigil.supervisor.Step;
import dev.vigil.supervisor.StopKind;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.TimeoutLattice;
import dev.vigil.supervisor.WorkGate;
import dev.vigil.supervisor.WorkSet;
import dev.vigil.supervisor.engine.port.IdentityRecord;
import dev.vigil.supervisor.engine.port.Launch;
import dev.vigil.supervisor.engine.port.LaunchRequest;
import dev.vigil.supervisor.engine.port.OutcomeRecord;
import dev.vigil.supervisor.engine.port.Prepared;
import dev.vigil.supervisor.engine.port.ProcessExit;
import dev.vigil.supervisor.engine.port.ProcessTable;
import dev.vigil.supervisor.engine.port.RunDirectories;
import dev.vigil.supervisor.engine.port.Signal;
import dev.vigil.supervisor.engine.port.WorkerChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The operating system under a simulated daemon: processes (pids reused from a small pool, process
 * groups, identity-gated signals, forks that outlive their leader), run and service directories
 * (reservations, identity, outcome and busy records) and the worker socket. It survives daemon
 * crashes; only the engine instance is thrown away. Workers follow seeded scripts that run, exit,
 * crash, hang, fork, stall and answer the protocol as worker-runtime's WorkerMain does.
 *
 * <p>Everything is deterministic for a seed: ordered maps, one random source per script.
 */
final class SimWorld {
  /** The daemon as the workers see it: up or not, and its socket. */
  interface Daemon {
    boolean up();

    /** The engine's answer to a hello, or empty when the daemon is down (or died answering). */
    Optional<ToWorker> hello(WorkerMessage.Hello hello);

    void message(WorkerKey from, WorkerMessage message);

    int incarnation();

    String build();
  }

  /** Where the world reports a broken law (the simulation fails with the seed). */
  interface Laws {
    void violated(String law);
  }

  private static final int PID_BASE = 100;
  private static final int PID_POOL = 64;

  final Store store;
  final TimeoutLattice timeouts;
  final Laws laws;
  Daemon daemon;
  long monoMs;
  long wallMs;
  String bootId = "boot-a";
  private int pidCursor;
  private long startTicks = 1_000;
  private long tokens = 0x5eed;
  final TreeMap<Long, Proc> livePids = new TreeMap<>();
  final List<Proc> everyProcess = new ArrayList<>();
  final TreeMap<WorkerKey, Dir> dirs = new TreeMap<>();
  /** The current daemon's welcomed connections. */
  final TreeMap<WorkerKey, WorkerProc> bound = new TreeMap<>();
  /** Exits of the current daemon's children, for {@link Engine#onExit}. */
  final Deque<ProcessExit> pendingExits = new ArrayDeque<>();
  /** Each service session's durable input queue: work arrives here and is resumable. */
  final Map<String, Deque<Long>> sessionInbox = new TreeMap<>();
  /** Chooses the script of each launched worker. */
  Function<LaunchRequest, Object> scripts;
  /** Set by the simulation: launches fail (exec error) with this probability, in percent. */
  int launchFailurePercent;
  /** Set by the simulation: the next launch crashes the daemon right after the process started. */
  boolean crashAfterNextLaunch;
  /** Set by the simulation: an idle shutdown is pending in this incarnation (S5 checks signals). */
  boolean idleShutdownPending;
  /** Workers whose escalating stop (another build, an operator) began before the idle shutdown. */
  final Set<WorkerKey> stoppingBeforeIdleShutdown = new HashSet<>();
  /**
   * Set by the simulation: the daemon lives through a store outage (D5) with no engine: it takes no
   * exit, answers no hello, drops what workers send, and its workers stay connected.
   */
  boolean outage;
  /**
   * Set by the simulation: runs that an operator of another host released while their workers lived (H1):
   * such a worker may be refused by a daemon after its go, and then leaves as an orphan does.
   */
  Predicate<RunId> released = run -> false;
  final Tally seen;

  SimWorld(Store store, TimeoutLattice timeouts, Laws laws, Tally seen, long monoMs, long wallMs) {
    this.store = store;
    this.timeouts = timeouts;
    this.laws = laws;
    this.seen = seen;
    this.monoMs = monoMs;
    this.wallMs = wallMs;
  }

  long ms(Timeout t) {
    return timeouts.ms(t);
  }

  // ---- processes ----

  abstract static class Proc {
    final ProcessIdentity identity;
    final int parentIncarnation;
    final long startedAtMono;
    boolean alive = true;
    Integer exitCode;
    Integer signal;
    long diedAtMono = -1;

    Proc(ProcessIdentity identity, int parentIncarnation, long startedAtMono) {
      this.identity = identity;
      this.parentIncarnation = parentIncarnation;
      this.startedAtMono = startedAtMono;
    }

    long pgid() {
      return identity.pgid();
    }
  }

  static final class DaemonProc extends Proc {
    DaemonProc(ProcessIdentity identity, int incarnation, long startedAtMono) {
      super(identity, incarnation, startedAtMono);
    }
  }

  /** A child a worker forked into its group: it inherits the reservation and outlives its leader. */
  static final class ForkProc extends Proc {
    final WorkerProc leader;
    final long outlivesMs;

    ForkProc(ProcessIdentity identity, WorkerProc leader, long outlivesMs, long startedAtMono) {
      super(identity, leader.parentIncarnation, startedAtMono);
      this.leader = leader;
      this.outlivesMs = outlivesMs;
    }
  }

  private ProcessIdentity newIdentity(Long pgid) {
    for (int i = 0; i < PID_POOL; i++) {
      long pid = PID_BASE + (pidCursor++ % PID_POOL);
      if (!livePids.containsKey(pid) && !groupInUse(pid)) {
        return new ProcessIdentity(bootId, pid, ++startTicks, pgid == null ? pid : pgid);
      }
    }
    throw new IllegalStateException("pid pool exhausted");
  }

  private boolean groupInUse(long pgid) {
    for (Proc p : livePids.values()) {
      if (p.pgid() == pgid) {
        return true;
      }
    }
    return false;
  }

  private <P extends Proc> P register(P p) {
    livePids.put(p.identity.pid(), p);
    everyProcess.add(p);
    return p;
  }

  DaemonProc startDaemon(int incarnation) {
    return register(new DaemonProc(newIdentity(null), incarnation, monoMs));
  }

  /** Ends a process (exit code or signal); its reservation is released when no holder lives. */
  void end(Proc p, Integer code, Integer sig) {
    if (!p.alive) {
      return;
    }
    p.alive = false;
    p.exitCode = code;
    p.signal = sig;
    p.diedAtMono = monoMs;
    livePids.remove(p.identity.pid());
    if (p instanceof WorkerProc w) {
      unbind(w);
      if (outage) {
        seen.saw("exit during an outage");
      }
      if (daemon != null && daemon.up() && w.parentIncarnation == daemon.incarnation()) {
        pendingExits.add(new ProcessExit(w.identity, code, sig));
      }
    }
  }

  /** The daemon died: its connections drop; exits of its children go nowhere. */
  void daemonDied() {
    for (WorkerProc w : bound.values()) {
      w.disconnected(monoMs);
    }
    bound.clear();
    pendingExits.clear();
    idleShutdownPending = false;
  }

  /**
   * The daemon closed every worker connection and lives on (its store is back after an outage, D5):
   * each worker finds itself disconnected and says hello again; exits of the daemon's children
   * keep going nowhere until an incarnation that launched them runs.
   */
  void closeConnections() {
    for (WorkerProc w : bound.values()) {
      w.disconnected(monoMs);
    }
    bound.clear();
  }

  /** A host reboot: every process dies, the boot id changes, reservations free. */
  void reboot() {
    for (Proc p : List.copyOf(livePids.values())) {
      p.alive = false;
      p.diedAtMono = monoMs;
      p.signal = 9;
    }
    livePids.clear();
    bound.clear();
    pendingExits.clear();
    bootId = bootId + "'";
  }

  boolean isAlive(ProcessIdentity id) {
    Proc p = livePids.get(id.pid());
    return p != null && p.identity.equals(id);
  }

  /** Every live process of a worker: its leader and its forks (ground truth for C1 and Q4). */
  boolean workerLives(WorkerProc w) {
    if (w.alive) {
      return true;
    }
    for (ForkProc f : w.forks) {
      if (f.alive) {
        return true;
      }
    }
    return false;
  }

  List<TaskProc> tasksOf(RunId run) {
    List<TaskProc> out = new ArrayList<>();
    for (Proc p : everyProcess) {
      if (p instanceof TaskProc t && t.run.equals(run)) {
        out.add(t);
      }
    }
    return out;
  }

  // ---- directories ----

  static final class Dir {
    final Set<Proc> holders = new HashSet<>();
    IdentityRecord identity = new IdentityRecord.Absent();
    OutcomeRecord outcome;
    Optional<RevivalGate.BusyRecord> busy = Optional.empty();
    Verdict written;
    /** What its last worker wrote on stderr (a worker that died before its reservation says why). */
    Optional<String> lastWords = Optional.empty();
    /** Q17: the latest checkpoint its worker saved ({@code checkpoint.json}). */
    Optional<RunDirectories.SavedCheckpoint> checkpoint = Optional.empty();
    /** S7: the bytes its workers wrote on stdout, all told. */
    long output;
    /** S7: the snapshot its last serving worker saved, or null: the next worker starts over it. */
    String snapshot;
    /** S7: how many snapshots its workers saved. */
    int snapshots;
  }

  /** Q17: a checkpoint as saved, with the run that saved it. */
  record Saved(RunId run, long seq, String value) {}

  /** Q17: each ticket's latest checkpoint saved in any run directory, at the moment it was saved. */
  final Map<dev.vigil.coordination.TicketId, Saved> latestSaved = new TreeMap<>();

  /** A task worker saves its {@code seq}-th checkpoint: durable in its directory from now on (Q17). */
  void saveCheckpoint(TaskProc p, long seq) {
    String value = "{\"run\":\"" + p.run + "\",\"seq\":" + seq + "}";
    dirs.get(p.key).checkpoint = Optional.of(new RunDirectories.SavedCheckpoint(seq, value));
    if (!released.test(p.run)) { // a released run's directory is never read: its checkpoints are lost
      latestSaved.put(p.run.ticket(), new Saved(p.run, seq, value));
    }
    seen.saw("checkpoint saved");
  }

  /**
   * H1: {@code run} was released by another host's operator, which settles it reading nothing of its
   * directory: the checkpoints it saved are lost, and its ticket's latest is the one the store kept.
   */
  void checkpointsLost(RunId run) {
    Saved s = latestSaved.get(run.ticket());
    if (s != null && s.run().equals(run)) {
      Optional<dev.vigil.coordination.Checkpoint> kept = store.checkpoint(run.ticket());
      if (kept.isPresent()) {
        latestSaved.put(run.ticket(), new Saved(kept.get().run(), kept.get().seq(), kept.get().value()));
      } else {
        latestSaved.remove(run.ticket());
      }
      seen.saw("H1 a released run's checkpoints were lost");
    }
  }

  /**
   * Q17: an attempt receives the latest checkpoint any earlier run of its ticket saved when its type is
   * resumable, and none otherwise: every earlier run is settled (C1), and each settlement kept what its
   * directory held first, whatever crashed in between.
   */
  private void checkResumption(LaunchRequest request, WorkerKey.Task t) {
    Saved want = request.type().resumable() ? latestSaved.get(t.run().ticket()) : null;
    dev.vigil.coordination.Checkpoint got = request.previousCheckpoint();
    Saved given = got == null ? null : new Saved(got.run(), got.seq(), got.value());
    if (!java.util.Objects.equals(want, given)) {
      laws.violated("Q17 resume from the latest: " + t.run() + " (type " + request.type().name() + ", resumable "
          + request.type().resumable() + ") was handed " + given + " but the latest saved is " + want);
    }
    if (given != null) {
      seen.saw("resumed from a checkpoint");
    } else if (latestSaved.containsKey(t.run().ticket())) {
      seen.saw("started over past a checkpoint: not resumable");
    }
  }

  boolean reserved(WorkerKey key) {
    Dir d = dirs.get(key);
    if (d == null) {
      return false;
    }
    for (Proc p : d.holders) {
      if (p.alive) {
        return true;
      }
    }
    return false;
  }

  // ---- the ports ----

  /** The process table as the daemon {@code self} sees it: {@code self()} is that daemon's identity. */
  ProcessTable processesOf(DaemonProc self) {
    return new Table(self);
  }

  private final class Table implements ProcessTable {
    private final DaemonProc self;

    Table(DaemonProc self) {
      this.self = self;
    }

    @Override
    public ProcessIdentity self() {
      return self.identity;
    }

    @Override
    public Launch launch(LaunchRequest request) {
      Dir d = dirs.get(request.key());
      if (d == null) {
        laws.violated("Q3 running before execution: launch of " + request.key() + " before its directory was prepared");
      }
      if (launchFailurePercent > 0 && Math.floorMod(tokens * 31 + monoMs, 100) < launchFailurePercent) {
        tokens++;
        seen.saw("launch failed");
        return new Launch.Failed("simulated exec failure");
      }
      if (request.key() instanceof WorkerKey.Task t) {
        checkResumption(request, t);
      }
      Object script = scripts.apply(request);
      String token = String.format("%016x", ++tokens).repeat(4);
      WorkerProc w;
      if (request.key() instanceof WorkerKey.Task t) {
        w = register(new TaskProc(newIdentity(null), t.run(), request.build(), token, (TaskScript) script,
            daemon.incarnation(), monoMs));
      } else if (request.key() instanceof WorkerKey.Service s) {
        w = register(new ServiceProc(newIdentity(null), s, request.build(), token, (ServiceScript) script,
            daemon.incarnation(), monoMs));
      } else {
        throw new AssertionError(request.key());
      }
      if (crashAfterNextLaunch) {
        crashAfterNextLaunch = false;
        seen.saw("crash after launch");
        throw new SimulatedCrash("right after launching " + request.key());
      }
      return new Launch.Started(w.identity, token);
    }

    @Override
    public Optional<ProcessIdentity> identity(long pid) {
      Proc p = livePids.get(pid);
      return p == null ? Optional.empty() : Optional.of(p.identity);
    }

    @Override
    public boolean alive(ProcessIdentity identity) {
      return isAlive(identity);
    }

    @Override
    public boolean signalGroup(ProcessIdentity identity, Signal signal) {
      if (!isAlive(identity)) {
        seen.saw("signal refused: identity gone");
        return false;
      }
      for (Proc p : List.copyOf(livePids.values())) {
        if (p.pgid() == identity.pgid()) {
          deliver(p, signal);
        }
      }
      return true;
    }
  }

  private void deliver(Proc p, Signal signal) {
    if (p instanceof WorkerProc w) {
      // a task worker whose handoff failed is killed before it began any work (Q3): not the shutdown's doing
      boolean userWork = w instanceof TaskProc t ? t.gotGo : w.hasWork();
      if (idleShutdownPending && userWork && !stoppingBeforeIdleShutdown.contains(w.key)) {
        laws.violated("S5 idle shutdown never aborts: " + signal + " reached " + w.key + " while it has work ("
            + w.work().describe() + ") during an idle shutdown");
      }
      w.onSignal(this, signal);
    } else if (p instanceof ForkProc f) {
      end(f, null, signal == Signal.KILL ? 9 : 15);
    } else {
      laws.violated("a worker signal reached the daemon itself");
    }
  }

  final RunDirectories directories = new RunDirectories() {
    @Override
    public Prepared prepare(WorkerKey key) {
      dirs.computeIfAbsent(key, k -> new Dir());
      return new Prepared.Ready();
    }

    @Override
    public boolean isReserved(WorkerKey key) {
      return reserved(key);
    }

    @Override
    public IdentityRecord identity(WorkerKey key) {
      Dir d = dirs.get(key);
      return d == null ? new IdentityRecord.Absent() : d.identity;
    }

    @Override
    public OutcomeRecord outcome(RunId run) {
      Dir d = dirs.get(new WorkerKey.Task(run));
      return d == null || d.outcome == null ? new OutcomeRecord.Absent("no outcome.json in runs/" + run) : d.outcome;
    }

    @Override
    public Optional<RunDirectories.SavedCheckpoint> checkpoint(RunId run) {
      Dir d = dirs.get(new WorkerKey.Task(run));
      return d == null ? Optional.empty() : d.checkpoint;
    }

    @Override
    public Optional<RevivalGate.BusyRecord> latestBusy(WorkerKey key) {
      Dir d = dirs.get(key);
      return d == null ? Optional.empty() : d.busy;
    }

    @Override
    public Optional<String> lastWords(WorkerKey key) {
      Dir d = dirs.get(key);
      return d == null ? Optional.empty() : d.lastWords;
    }

    @Override
    public long outputMark(WorkerKey key) {
      Dir d = dirs.get(key);
      return d == null ? 0 : d.output;
    }
  };

  /** What a simulated worker that dies before its reservation writes on stderr. */
  static String lastWordsOf(WorkerKey key) {
    return "Error: could not start the worker of " + key;
  }

  final WorkerChannel channel = (key, message) -> {
    WorkerProc w = bound.get(key);
    if (w == null || !w.alive) {
      return false;
    }
    w.inbox.add(new Delivery(message, monoMs + w.inboxDelayMs()));
    if (message instanceof ToWorker.Welcome wel && wel.go() && w instanceof TaskProc t) {
      t.goQueued = true;
    }
    return true;
  };

  record Delivery(ToWorker message, long atMono) {}

  /**
   * The daemon's side of a welcome: {@code w}'s connection becomes its key's, and an older
   * connection of that key is dropped (its worker finds itself disconnected).
   *
   * @return the worker whose connection was bound before, or null
   */
  WorkerProc bind(WorkerProc w) {
    w.connected = true;
    WorkerProc previous = bound.put(w.key, w);
    if (previous != null && previous != w) {
      previous.disconnected(monoMs);
    }
    return previous;
  }

  /** {@code w}'s connection closed from the worker's side: frames for its key go nowhere until it is welcomed again. */
  void drop(WorkerProc w) {
    unbind(w);
    w.disconnected(monoMs);
  }

  private void unbind(WorkerProc w) {
    if (bound.get(w.key) == w) {
      bound.remove(w.key);
    }
  }

  // ---- workers ----

  /** A worker host: reservation, identity record, hello, inbox. */
  abstract static class WorkerProc extends Proc {
    final WorkerKey key;
    final String build;
    final String tokenHash;
    final Deque<Delivery> inbox = new ArrayDeque<>();
    final List<ForkProc> forks = new ArrayList<>();
    final Set<Integer> welcomedBy = new HashSet<>();
    boolean connected;
    boolean reserved;
    /** Set by a test: the worker never says hello again (unreachable). */
    boolean mute;
    long nextHelloAt = Long.MAX_VALUE;
    long lostAtMono;
    long lastContactMono;

    WorkerProc(ProcessIdentity identity, WorkerKey key, String build, String tokenHash, int parentIncarnation,
               long startedAtMono) {
      super(identity, parentIncarnation, startedAtMono);
      this.key = key;
      this.build = build;
      this.tokenHash = tokenHash;
      this.lastContactMono = startedAtMono;
    }

    abstract void step(SimWorld w);

    abstract void onSignal(SimWorld w, Signal s);

    abstract WorkSet work();

    abstract long inboxDelayMs();

    boolean hasWork() {
      return work().isBusy();
    }

    void disconnected(long nowMono) {
      if (connected) {
        connected = false;
        lostAtMono = nowMono;
        nextHelloAt = nowMono + 200;
      }
    }

    /** Takes the reservation and writes the identity record (DESIGN.md §5). */
    void reserve(SimWorld w, boolean writeIdentity) {
      Dir d = w.dirs.get(key);
      d.holders.removeIf(p -> !p.alive);
      if (!d.holders.isEmpty()) {
        w.end(this, 5, null); // the lock is held: a worker never runs beside a survivor
        w.seen.saw("reservation busy at start");
        return;
      }
      d.holders.add(this);
      reserved = true;
      if (writeIdentity) {
        d.identity = identityRecord();
      }
    }

    /**
     * Half the workers write a full record (identity, build and token hash, as worker-runtime's host
     * does), half a bare one (the identity only, as a worker of an older build may have written).
     */
    IdentityRecord.Written identityRecord() {
      return identity.startTicks() % 2 == 0 ? IdentityRecord.Written.bare(identity)
          : new IdentityRecord.Written(identity, build, tokenHash);
    }

    /** Says hello when due; returns the engine's answer, or empty when no daemon answered. */
    Optional<ToWorker> helloIfDue(SimWorld w) {
      if (connected || mute || w.monoMs < nextHelloAt) {
        return Optional.empty();
      }
      if (w.daemon == null || !w.daemon.up()) {
        nextHelloAt = w.monoMs + 300;
        return Optional.empty();
      }
      Optional<ToWorker> reply = w.daemon.hello(new WorkerMessage.Hello(key, tokenHash, build, identity.pid()));
      if (!alive) {
        return Optional.empty();
      }
      if (reply.isEmpty()) {
        nextHelloAt = w.monoMs + 300;
        return reply;
      }
      lastContactMono = w.monoMs;
      if (reply.get() instanceof ToWorker.Welcome) {
        welcomedBy.add(w.daemon.incarnation());
        WorkerProc previous = w.bind(this);
        if (previous != null && previous != this && previous.alive) {
          w.laws.violated("C1 one lease: two live workers welcomed for " + key + ": " + previous.identity + " and "
              + identity);
        }
      }
      return reply;
    }

    void send(SimWorld w, WorkerMessage m) {
      if (connected && w.daemon != null && w.daemon.up() && w.bound.get(key) == this) {
        w.daemon.message(key, m);
      }
    }
  }

  enum Ending { SUCCEED, FAIL, STALL, BLOCK, PERMANENT, CRASH, CORRUPT, NO_OUTCOME }

  /**
   * A task worker's script.
   *
   * @param reserveAfterMs   from launch to reservation and identity record
   * @param dieBeforeReserve crashes during startup
   * @param writesIdentity   writes identity.json (else only its hello tells)
   * @param helloAfterMs     from reservation to its first hello
   * @param workMs           how long its user work takes after go
   * @param ending           how its work ends
   * @param forkOutlivesMs   forks a child that outlives it by this much, or -1
   * @param stopReactMs      how long it takes to reach a safe point after a stop, or -1 (never)
   * @param outcomeOnStop    writes a STALLED outcome when it stops at a safe point
   * @param hangs            sends nothing and ignores TERM
   * @param stallForMs       the stall hint of a STALL ending, ms after now (wall)
   * @param lockLagMs        writes its identity and says hello this long before it holds the lock
   */
  record TaskScript(long reserveAfterMs, boolean dieBeforeReserve, boolean writesIdentity, long helloAfterMs,
                    long workMs, Ending ending, long forkOutlivesMs, long stopReactMs, boolean outcomeOnStop,
                    boolean hangs, long stallForMs, long lockLagMs) {
    static TaskScript random(SplittableRandom r, boolean faults) {
      long reserve = faults && r.nextInt(25) == 0 ? 3_500 + r.nextInt(5_000) : 50 + r.nextInt(1_500);
      boolean die = faults && r.nextInt(30) == 0;
      boolean identity = !faults || r.nextInt(12) != 0;
      Ending ending;
      int x = r.nextInt(100);
      if (faults) {
        ending = x < 40 ? Ending.SUCCEED : x < 55 ? Ending.FAIL : x < 69 ? Ending.STALL : x < 72 ? Ending.BLOCK
            : x < 75 ? Ending.PERMANENT : x < 87 ? Ending.CRASH : x < 93 ? Ending.CORRUPT : Ending.NO_OUTCOME;
      } else {
        ending = x < 60 ? Ending.SUCCEED : x < 85 ? Ending.FAIL : x < 93 ? Ending.PERMANENT : Ending.BLOCK;
      }
      boolean hangs = faults && r.nextInt(16) == 0;
      long work = hangs ? 20_000 + r.nextInt(60_000) : 300 + r.nextInt(12_000);
      long fork = faults && r.nextInt(12) == 0 ? 500 + r.nextInt(8_000) : -1;
      long react = r.nextInt(5) == 0 ? -1 : r.nextInt(3_000);
      long lag = faults && r.nextInt(10) == 0 ? 300 + r.nextInt(2_500) : 0;
      return new TaskScript(reserve, die, identity, r.nextInt(600), work, ending, fork, react, r.nextInt(10) < 7, hangs,
          r.nextInt(20_000), lag);
    }
  }

  /** What became of a task worker: the simulation's ground truth for verdicts. */
  static final class TaskProc extends WorkerProc {
    final RunId run;
    final TaskScript script;
    final WorkGate gate;
    boolean gotGo;
    boolean goQueued;
    long workStartMono;
    long stopAtMono = -1;
    StopKind stopSeen;
    OutcomeRecord wrote;
    boolean forked;
    boolean announced;
    /** Q17: how many checkpoints it saved. */
    long checkpoints;

    TaskProc(ProcessIdentity identity, RunId run, String build, String tokenHash, TaskScript script,
             int parentIncarnation, long startedAtMono) {
      super(identity, new WorkerKey.Task(run), build, tokenHash, parentIncarnation, startedAtMono);
      this.run = run;
      this.script = script;
      this.gate = WorkGate.open(3_000);
    }

    @Override
    WorkSet work() {
      return gotGo ? WorkSet.EMPTY.plus(WorkSet.Kind.RUN, run.toString())
          : WorkSet.EMPTY.plus(WorkSet.Kind.ADMITTED_RUN_START, run.toString());
    }

    @Override
    long inboxDelayMs() {
      return 0;
    }

    @Override
    void step(SimWorld w) {
      long now = w.monoMs;
      if (!announced) {
        if (script.dieBeforeReserve() && now >= startedAtMono + script.reserveAfterMs() / 2) {
          w.seen.saw("task worker died before its reservation");
          w.dirs.computeIfAbsent(key, k -> new Dir()).lastWords = Optional.of(lastWordsOf(key));
          w.end(this, 1, null);
          return;
        }
        if (now < startedAtMono + script.reserveAfterMs()) {
          return;
        }
        announced = true;
        nextHelloAt = now + script.helloAfterMs();
        lastContactMono = now;
        if (script.lockLagMs() > 0) {
          if (script.writesIdentity()) {
            w.dirs.get(key).identity = identityRecord();
          }
          w.seen.saw("task worker announced itself before it held its lock");
        }
      }
      if (!reserved && now >= startedAtMono + script.reserveAfterMs() + script.lockLagMs()) {
        reserve(w, script.writesIdentity());
        if (!alive) {
          return;
        }
      }
      while (alive && !inbox.isEmpty() && inbox.peek().atMono() <= now) {
        handle(w, inbox.poll().message());
      }
      if (!alive) {
        return;
      }
      Optional<ToWorker> reply = helloIfDue(w);
      if (!alive) {
        return;
      }
      if (reply.isPresent()) {
        handle(w, reply.get());
        if (!alive) {
          return;
        }
      }
      if (!gotGo) {
        if (now - Math.max(startedAtMono, lastContactMono) >= w.ms(Timeout.SUPERVISOR_BOOT)) {
          w.seen.saw("task worker gave up waiting for go");
          w.end(this, 4, null); // never confirmed within its window: exits without any work (Q3)
        }
        return;
      }
      if (stopAtMono >= 0 && now >= stopAtMono) {
        if (script.outcomeOnStop()) {
          writeOutcome(w, new OutcomeRecord.Written(Verdict.STALLED, w.wallMs, "stopped at a safe point"));
        }
        w.seen.saw("task worker stopped at a safe point");
        w.end(this, 0, null);
        return;
      }
      long elapsed = now - workStartMono;
      if (checkpoints < 2 && elapsed >= script.workMs() * (checkpoints + 1) / 5) { // Q17: two, before a crash at half
        w.saveCheckpoint(this, ++checkpoints);
      }
      if (!forked && script.forkOutlivesMs() >= 0 && elapsed >= script.workMs() / 3) {
        forked = true;
        ForkProc f = w.register(new ForkProc(w.newIdentity(identity.pgid()), this, script.forkOutlivesMs(), now));
        forks.add(f);
        w.dirs.get(key).holders.add(f);
        w.seen.saw("task worker forked");
      }
      if (script.ending() == Ending.CRASH && elapsed >= script.workMs() / 2) {
        w.seen.saw("task worker crashed");
        w.end(this, null, 11);
        return;
      }
      if (elapsed >= script.workMs()) {
        OutcomeRecord o = switch (script.ending()) {
          case SUCCEED -> new OutcomeRecord.Written(Verdict.SUCCEEDED, 0, "done", null,
              run.ticket().seq() % 2 == 0 ? null : "{\"run\":\"" + run + "\"}");
          case FAIL -> new OutcomeRecord.Written(Verdict.FAILED, 0, "exit 1");
          case STALL -> new OutcomeRecord.Written(Verdict.STALLED, w.wallMs + script.stallForMs(), "quota");
          case BLOCK -> new OutcomeRecord.Written(Verdict.BLOCKED, 0, "needs a human");
          case PERMANENT -> new OutcomeRecord.Written(Verdict.PERMANENT_FAILURE, 0, "bad input");
          case CORRUPT -> new OutcomeRecord.Corrupt("outcome.json: truncated after 7 bytes");
          case NO_OUTCOME, CRASH -> null;
        };
        if (o != null) {
          writeOutcome(w, o);
          if (o instanceof OutcomeRecord.Written written && !script.hangs()) {
            send(w, new WorkerMessage.OutcomeReported(written.verdict()));
          }
        }
        w.end(this, script.ending() == Ending.SUCCEED ? 0 : 1, null);
        return;
      }
      if (!script.hangs() && w.monoMs % 7 == 0) {
        send(w, new WorkerMessage.Busy(work()));
      }
    }

    private void writeOutcome(SimWorld w, OutcomeRecord o) {
      if (wrote != null) {
        throw new AssertionError("a worker writes one outcome");
      }
      wrote = o;
      w.dirs.get(key).outcome = o;
    }

    private void handle(SimWorld w, ToWorker m) {
      if (m instanceof ToWorker.Welcome wel) {
        if (wel.go() && !gotGo) {
          Run r = w.store.run(run).orElse(null);
          if (r == null || r.state() != RunState.RUNNING || !r.start().identity().equals(identity)) {
            w.laws.violated("Q3 running before execution: worker " + identity + " of " + run + " told go while the run is "
                + (r == null ? "unknown" : r.state() + " with identity " + (r.start() == null ? "none" : r.start().identity())));
          }
          gotGo = true;
          workStartMono = w.monoMs;
          w.seen.saw("go");
        }
      } else if (m instanceof ToWorker.AdoptDenied) {
        if (gotGo && !w.released.test(run)) {
          w.laws.violated("D4 replacement leaves workers alone: working worker " + identity + " of " + run + " was denied");
        } else if (gotGo) {
          w.seen.saw("H1 a released run's working worker was refused and left");
          w.end(this, 5, null); // as an orphan: no outcome
          return;
        }
        w.seen.saw("task worker denied");
        w.end(this, 3, null);
      } else if (m instanceof ToWorker.Quiesce) {
        Step<WorkGate, WorkGate.Answer> a = gate.onQuiesce(work(), w.monoMs);
        send(w, a.decision() instanceof WorkGate.Answer.Busy b ? new WorkerMessage.Busy(b.work()) : new WorkerMessage.Quiesced());
      } else if (m instanceof ToWorker.Release) {
        // a task worker's gate never closes: it always has work
      } else if (m instanceof ToWorker.Answer) {
        w.laws.violated("Q16: an answer sent to a worker that asked nothing: " + run);
      } else if (m instanceof ToWorker.Stop s) {
        stopSeen = s.kind();
        if (s.kind() == StopKind.IDLE_SHUTDOWN) {
          send(w, new WorkerMessage.Busy(work())); // refuses: it has work (S5)
        } else if (!gotGo) {
          w.seen.saw("task worker stopped before go");
          w.end(this, 0, null);
        } else if (script.stopReactMs() >= 0 && stopAtMono < 0) {
          stopAtMono = w.monoMs + script.stopReactMs();
        }
      } else {
        throw new AssertionError(m);
      }
    }

    @Override
    void onSignal(SimWorld w, Signal s) {
      if (s == Signal.KILL) {
        w.seen.saw("task worker killed");
        w.end(this, null, 9);
      } else if (!script.hangs()) {
        w.seen.saw("task worker terminated");
        w.end(this, null, 15);
      } else {
        w.seen.saw("hung task worker ignored TERM");
      }
    }
  }

  /**
   * A service worker's script.
   *
   * @param reserveAfterMs   from launch to reservation and identity record
   * @param dieBeforeReserve crashes during startup
   * @param helloAfterMs     from reservation to hello
   * @param crashPerMille    chance per step of a crash while serving, per mille
   * @param stopReactMs      time to stop after a LOST or OPERATOR stop, or -1 (never: only signals end it)
   * @param slowInbox        handles frames late (up to 4 s), so a quiesce hold can lapse
   * @param idleCloseMs      an ON_DEMAND worker closes after this long without work
   * @param ignoredSignals   how many signals it survives (a process stuck in the kernel), 0 for none
   */
  record ServiceScript(long reserveAfterMs, boolean dieBeforeReserve, long helloAfterMs, int crashPerMille,
                       long stopReactMs, boolean slowInbox, long idleCloseMs, int ignoredSignals) {
    static ServiceScript random(SplittableRandom r, boolean faults, int maxCrashPerMille) {
      return new ServiceScript(faults && r.nextInt(20) == 0 ? 4_000 : 50 + r.nextInt(1_000),
          faults && r.nextInt(15) == 0, r.nextInt(500), faults && maxCrashPerMille > 0 ? r.nextInt(maxCrashPerMille) : 0,
          r.nextInt(6) == 0 ? -1 : r.nextInt(2_500), r.nextInt(4) == 0, 15_000 + r.nextInt(20_000),
          faults && r.nextInt(8) == 0 ? 1 + r.nextInt(4) : 0);
    }
  }

  /** A service worker: a run gate (S5), busy evidence (S3), orphan policy (S4). */
  static final class ServiceProc extends WorkerProc {
    final String service;
    final ServiceScript script;
    final SplittableRandom random;
    WorkGate gate;
    WorkSet work = WorkSet.EMPTY;
    long itemEndsAt;
    long itemMs;
    boolean serving;
    long idleSinceMono;
    long stopAtMono = -1;
    boolean answeredQuiesced;
    int signalsSurvived;
    /** Set by a test: frames sent from now on arrive this much later. */
    long extraInboxDelayMs;
    /** S7: the snapshot this worker started over, or null; said after every welcome. */
    String restoredFrom;
    boolean restoreDecided;

    ServiceProc(ProcessIdentity identity, WorkerKey.Service key, String build, String tokenHash, ServiceScript script,
                int parentIncarnation, long startedAtMono) {
      super(identity, key, build, tokenHash, parentIncarnation, startedAtMono);
      this.service = key.service();
      this.script = script;
      this.random = new SplittableRandom(identity.startTicks() * 7919 + identity.pid());
      this.idleSinceMono = startedAtMono;
    }

    @Override
    WorkSet work() {
      return work;
    }

    @Override
    long inboxDelayMs() {
      return extraInboxDelayMs + (script.slowInbox() ? random.nextInt(4_000) : 0);
    }

    @Override
    void step(SimWorld w) {
      long now = w.monoMs;
      if (!reserved) {
        if (script.dieBeforeReserve() && now >= startedAtMono + script.reserveAfterMs() / 2) {
          w.seen.saw("service worker died before its reservation");
          w.dirs.computeIfAbsent(key, k -> new Dir()).lastWords = Optional.of(lastWordsOf(key));
          w.end(this, 1, null);
          return;
        }
        if (now >= startedAtMono + script.reserveAfterMs()) {
          reserve(w, true);
          nextHelloAt = now + script.helloAfterMs();
          lastContactMono = now;
        }
        return;
      }
      if (gate == null) {
        gate = WorkGate.open(w.ms(Timeout.QUIESCE_HOLD));
      }
      gate = gate.onTick(now);
      while (alive && !inbox.isEmpty() && inbox.peek().atMono() <= now) {
        handle(w, inbox.poll().message());
      }
      if (!alive) {
        return;
      }
      Optional<ToWorker> reply = helloIfDue(w);
      if (!alive) {
        return;
      }
      if (reply.isPresent()) {
        handle(w, reply.get());
        if (!alive) {
          return;
        }
      }
      if (!connected && (serving || lostAtMono > 0)) {
        OrphanPolicy.Orphan o = OrphanPolicy.from(w.timeouts).onTick(lostAtMono == 0 ? startedAtMono : lostAtMono, work, now);
        if (o instanceof OrphanPolicy.Orphan.ExitBusy) {
          w.seen.saw("orphan exits busy");
          leave(w, 0, null);
          return;
        } else if (o instanceof OrphanPolicy.Orphan.Close) {
          w.seen.saw("orphan closes");
          leave(w, 0, null);
          return;
        }
      }
      if (!serving) {
        return;
      }
      if (stopAtMono >= 0 && now >= stopAtMono) {
        w.seen.saw("service worker stopped");
        leave(w, 0, null);
        return;
      }
      if (script.crashPerMille() > 0 && random.nextInt(1_000) < script.crashPerMille()) {
        w.seen.saw("service worker crashed");
        leave(w, 1, null);
        return;
      }
      if (work.isBusy() && now >= itemEndsAt) {
        work = WorkSet.EMPTY;
        idleSinceMono = now;
        Dir d = w.dirs.get(key);
        d.output += 40;
        d.snapshot = "snap-" + (++d.snapshots); // S7: each finished item saves a snapshot the next worker restores
        send(w, new WorkerMessage.Idle());
      }
      Deque<Long> queue = w.sessionInbox.computeIfAbsent(service, k -> new ArrayDeque<>());
      if (work.isIdle() && !queue.isEmpty()) {
        Step<WorkGate, WorkGate.Admission> a = gate.admit(now);
        gate = a.next();
        if (a.decision() instanceof WorkGate.Admission.Admit) {
          itemMs = queue.poll();
          itemEndsAt = now + itemMs;
          work = WorkSet.EMPTY.plus(WorkSet.Kind.RUN, service + "@" + now);
          send(w, new WorkerMessage.Busy(work));
        }
      }
      RevivalGate.Refresh r = RevivalGate.from(w.timeouts).onTick(w.dirs.get(key).busy, work, w.wallMs);
      if (r instanceof RevivalGate.Refresh.Write wr) {
        w.dirs.get(key).busy = Optional.of(wr.record());
      }
      if (work.isIdle() && now - idleSinceMono >= script.idleCloseMs() && w.ondemand(service)) {
        w.seen.saw("on-demand service closed idle");
        leave(w, 0, null);
      }
    }

    /** Exits leaving its work resumable: the item goes back to the session's queue, busy evidence recorded (S4). */
    private void leave(SimWorld w, Integer code, Integer sig) {
      if (work.isBusy()) {
        w.sessionInbox.computeIfAbsent(service, k -> new ArrayDeque<>()).addFirst(Math.max(1, itemEndsAt - w.monoMs));
        w.dirs.get(key).busy = Optional.of(new RevivalGate.BusyRecord(true, w.wallMs));
      } else {
        w.dirs.get(key).busy = Optional.of(new RevivalGate.BusyRecord(false, w.wallMs));
      }
      w.end(this, code, sig);
    }

    private void handle(SimWorld w, ToWorker m) {
      long now = w.monoMs;
      if (m instanceof ToWorker.Welcome wel) {
        if (wel.go()) {
          serving = true;
        }
        Dir d = w.dirs.get(key);
        if (!restoreDecided && d != null) {
          restoreDecided = true; // a worker starts over the snapshot its directory holds when it first hears a daemon
          restoredFrom = d.snapshot;
        }
        if (restoredFrom != null) {
          if (welcomedBy.size() > 1) {
            w.seen.saw("a restore said again to a later daemon");
          }
          send(w, new WorkerMessage.Restored(identity.toString(), restoredFrom)); // S7: after every welcome
        }
      } else if (m instanceof ToWorker.AdoptDenied) {
        w.seen.saw("service worker denied");
        leave(w, 0, null); // stops as a lost worker does (S6)
      } else if (m instanceof ToWorker.Quiesce) {
        if (gate == null) {
          gate = WorkGate.open(w.ms(Timeout.QUIESCE_HOLD));
        }
        Step<WorkGate, WorkGate.Answer> a = gate.onQuiesce(work, now);
        gate = a.next();
        if (a.decision() instanceof WorkGate.Answer.Busy b) {
          send(w, new WorkerMessage.Busy(b.work()));
        } else {
          answeredQuiesced = true;
          send(w, new WorkerMessage.Quiesced());
        }
      } else if (m instanceof ToWorker.Release) {
        if (gate != null) {
          gate = gate.onRelease();
        }
      } else if (m instanceof ToWorker.Stop s) {
        if (s.kind() == StopKind.IDLE_SHUTDOWN) {
          if (gate == null) {
            gate = WorkGate.open(w.ms(Timeout.QUIESCE_HOLD));
          }
          Step<WorkGate, WorkGate.StopAnswer> a = gate.onIdleStop(work, now);
          gate = a.next();
          if (a.decision() instanceof WorkGate.StopAnswer.Comply) {
            if (work.isBusy()) {
              w.laws.violated("S5 idle shutdown never aborts: " + key + " stopped with work " + work.describe());
            }
            w.seen.saw("service worker complied with idle stop");
            leave(w, 0, null);
          } else if (a.decision() instanceof WorkGate.StopAnswer.Refuse ref) {
            w.seen.saw("service worker refused idle stop");
            send(w, new WorkerMessage.Busy(ref.work()));
          }
        } else if (script.stopReactMs() >= 0 && stopAtMono < 0) {
          stopAtMono = now + script.stopReactMs();
        }
      } else {
        throw new AssertionError(m);
      }
    }

    @Override
    void onSignal(SimWorld w, Signal s) {
      if (signalsSurvived < script.ignoredSignals()) {
        signalsSurvived++;
        w.seen.saw("service worker survived a signal");
        return;
      }
      w.seen.saw("service worker signalled");
      leave(w, null, s == Signal.KILL ? 9 : 15);
    }
  }

  /** Filled in by the simulation: which services are on demand. */
  Set<String> onDemand = new HashSet<>();

  boolean ondemand(String service) {
    return onDemand.contains(service);
  }

  /** Runs every live process one step: scripts, inboxes, hellos; forks outliving their leaders. */
  void step() {
    for (Proc p : List.copyOf(livePids.values())) {
      if (!p.alive) {
        continue;
      }
      if (p instanceof WorkerProc w) {
        w.step(this);
      } else if (p instanceof ForkProc f) {
        if (!f.leader.alive && monoMs >= f.leader.diedAtMono + f.outlivesMs) {
          end(f, 0, null);
        }
      }
    }
  }
}
