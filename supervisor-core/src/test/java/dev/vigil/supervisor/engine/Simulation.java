package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Lane;
import dev.vigil.coordination.Lease;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.Owner;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.Prerequisite;
import dev.vigil.coordination.Prerequisites;
import dev.vigil.coordination.RetryPolicy;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunQuery;
import dev.vigil.coordination.RunSpec;
import dev.vigil.coordination.RunState;
import dev.vigil.coordination.Question;
import dev.vigil.coordination.QuestionId;
import dev.vigil.coordination.Snapshot;
import dev.vigil.coordination.StopIntent;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketQuery;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.Verdict;
import dev.vigil.coordination.law.CoordinationInvariants;
import dev.vigil.coordination.law.LeaseLaw;
import dev.vigil.coordination.law.ScheduleLaw;
import dev.vigil.coordination.schedule.CatchUp;
import dev.vigil.coordination.schedule.Cron;
import dev.vigil.coordination.schedule.FireDecision;
import dev.vigil.coordination.schedule.Overlap;
import dev.vigil.coordination.schedule.Schedule;
import dev.vigil.coordination.schedule.ScheduleChange;
import dev.vigil.coordination.schedule.ScheduleName;
import dev.vigil.coordination.schedule.ScheduleSpec;
import dev.vigil.coordination.schedule.ScheduleView;
import dev.vigil.coordination.schedule.Schedules;
import java.time.ZoneId;
import dev.vigil.supervisor.StopKind;
import dev.vigil.supervisor.StoreOutage;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.TimeoutLattice;
import dev.vigil.supervisor.law.TimeLimitLaw;
import dev.vigil.supervisor.engine.CrashingCoordination.SimulatedStoreFailure;
import dev.vigil.supervisor.engine.port.Launch;
import dev.vigil.supervisor.engine.port.LaunchRequest;
import dev.vigil.supervisor.engine.port.OutcomeRecord;
import dev.vigil.supervisor.engine.port.Ports;
import dev.vigil.supervisor.engine.port.ProcessExit;
import dev.vigil.supervisor.engine.port.ProcessTable;
import dev.vigil.supervisor.engine.port.Signal;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * A deterministic simulation of the daemon: {@link LeaseLaw} as the store, {@link SimWorld} as the
 * operating system, a simulated clock, and a seeded generator mixing submissions, worker exits and
 * crashes, hangs, forks and stalls, daemon crashes at any coordination verb (the engine instance is
 * thrown away and a new owner boots over the same store, processes and directories), store outages
 * (the engine is thrown away, the daemon process lives on and boots a new owner when the store is
 * back), builds
 * changing between boots, quiesce rounds, parks, operator verbs, time limits and kills, and clock
 * jumps. Then the faults stop and every ticket must settle.
 *
 * <p>After every step it checks {@link CoordinationInvariants} and the engine's own laws:
 *
 * <ul>
 *   <li>C1: never two live working processes for one ticket, across any number of crashes;
 *   <li>Q3: a worker is told go only while its run is RUNNING with its identity;
 *   <li>C5, Q4, Q6: an exit is taken, a claim rolled back, only when no process of the run lives and
 *       its reservation is free, whatever the clocks say; a clock leap changes no liveness verdict;
 *   <li>Q1, Q2, Q5: every settlement's verdict is the one the worker's fate calls for, so attempts
 *       are charged exactly (a stall, a stop by the daemon, a worker that never began cost nothing);
 *   <li>Q12, Q13: a time-out and a kill are on record before their stop begins; a timed-out run
 *       settles FAILED and a killed one KILLED, each run exactly once, however many crashes fall in
 *       between, and the ticket of a killed run goes where the kill said;
 *   <li>Q9, Q11, D4, S6: every stop and signal has its reason (a park, another build, an operator,
 *       a quiesce), so a restart stops, settles and charges no live worker;
 *   <li>S5: an idle shutdown stops only when no worker has work, and never signals a worker with work;
 *   <li>Q11, D1: lane occupancy within limits and equal to live runs; status published every heartbeat;
 *   <li>D5: while the store fails and until the daemon reopens it, nothing is written, no worker is
 *       launched or signalled and no exit is taken; the incarnation that boots on the same process
 *       when the store is back recovers every run of the dropped one, leaving none to it;
 *   <li>H1: another host's runs are left exactly as it left them until this host's operator releases it; a
 *       run of this host that the other host's operator releases is never told go after the release, its
 *       worker is stopped within a reconcile pass and the stop's graces while a daemon of this host runs, it is
 *       never settled here, and every run is settled once, by whichever host; a release cut short is finished
 *       by the releasing host's next daemon; a lane's slots count only this host's live runs;
 *   <li>liveness: once faults stop, every ticket reaches a resting state.
 * </ul>
 *
 * A failure names the seed and the one line that replays it.
 */
final class Simulation {
  /** A kind of event the generator mixes in, with its chance per step in the faulty phase. */
  enum Knob {
    /** Submit one or two tickets (some to unconfigured lanes or types, some with a reused key). */
    SUBMIT,
    /** {@code kill -9} of one worker process (its forks live on). */
    KILL_WORKER,
    /** The daemon dies between steps. */
    CRASH,
    /**
     * The daemon dies at one of its next coordination verbs, before or after it commits; a boot
     * after a crash does so at one of its first verbs with twice this chance (it dies in its
     * own recovery: at an adoptClaim, an abortClaim, a readopt, a takeExit or a finish).
     */
    VERB_CRASH,
    /** The daemon dies right after its next launch started a process. */
    LAUNCH_CRASH,
    /** Chance that a boot after a crash runs a new build. */
    NEW_BUILD,
    /** Park or unpark a ticket or a lane. */
    PARK,
    /** Start or stop a service. */
    SERVICE_CONTROL,
    /** Pause or resume dispatch. */
    PAUSE,
    /** {@code shutdown{ifIdle}}. */
    SHUTDOWN_IDLE,
    /** {@code shutdown} stopping workers (half this chance). */
    SHUTDOWN_STOP,
    /**
     * {@code shutdown} leaving every worker running ({@code vigil restart}, half this chance): the
     * daemon stops at once, sends no worker anything, and the next one boots soon after.
     */
    RESTART,
    /** The wall clock jumps (days ahead, or minutes back). */
    WALL_JUMP,
    /** The monotonic clock jumps (a suspend). */
    MONO_JUMP,
    /** A clock leap with the world frozen: liveness verdicts must not change (C5, Q6). */
    LEAP,
    /** Chance that the configuration has services at all. */
    SERVICES,
    /** Work arrives at a service session. */
    SERVICE_WORK,
    /** Per mille per step that a serving service worker crashes (upper bound of a script's draw). */
    SERVICE_CRASH,
    /** Launches fail to exec. */
    LAUNCH_FAILURE,
    /** The host reboots (tenths of a percent): every process dies, the boot id changes. */
    REBOOT,
    /** Hold, release or cancel a ticket. */
    HOLD,
    /** A live worker's reservation lock is lost (its file deleted): only its identity speaks. */
    LOCK_LOSS,
    /**
     * Chance that a submission has a time limit of its own (0.5-9 s); when above 0, lane b also has a
     * default limit of 9 s (Q12).
     */
    TIMEOUT,
    /** An operator kills a ticket's live run (Q13), with retry, hold or neither. */
    KILL,
    /**
     * The store fails at one of the daemon's next coordination verbs, before it commits (a full disk,
     * an I/O error), and stays failing for 0.5-20 s: every verb and query fails. The daemon lives on
     * without its engine, its workers running and connected, and reopens the store at the backoff
     * times of {@link StoreOutage}; once it works, it closes every worker connection and boots a new
     * incarnation with a new owner on the same process (D5). A boot does so at one of its first verbs
     * with twice this chance (a boot in a new process then exits).
     */
    STORE_OUTAGE,
    /**
     * Chance that a submission waits for one or two tickets queued before (Q14), in a batch also for
     * an earlier one of the batch; one in twenty of those names a ticket that does not exist, and the
     * submission is refused.
     */
    AFTER,
    /**
     * Chance that four schedules fire every 2, 3 and 5 s and 5 min (Q15), each catch-up and overlap policy among them;
     * per step, the same chance that the daemon dies at its next look at them, before it commits or
     * after (it never saw what it decided).
     */
    SCHEDULE,
    /**
     * An operator answers an open question (Q16): one the daemon asked about a held ticket or a given-up
     * service; one answer in ten names an option the question does not offer, one in twenty a question that
     * does not exist. Every answer is recorded by the command alone and applied exactly once by a daemon,
     * whatever crashes fall between (counted at the store: {@link CrashingCoordination#applies()}).
     */
    ANSWER,
    /**
     * A maintenance job asks the daemon to prune (Q18): finished tickets older than 0-20 s, one in four a
     * dry run; after a real prune, the job records some or all of the listed run directories removed
     * (a daemon crash may fall between, and the next prune lists them again). Every ticket pruned was
     * finished; no live run's ticket is ever pruned; one in ten asks for a compaction instead.
     */
    PRUNE,
    /**
     * Another host's daemon shares the store (H1): it submits, claims, starts, ends and settles tickets of its
     * own lane c, and claims some of lane a too, with its own owner (of another host id and boot), and now and
     * then stops in the middle. The daemon under test is of host-a; it never touches the other host's runs
     * until released, and counts only its own host's runs in its lanes. One step in fifty of this chance this
     * host's operator releases the other host (a release rolls back its claims and settles its other live runs
     * LOST; one in four dies at one of its verbs, and the next daemon finishes it); one in fifty the other
     * host's operator releases this host through a real daemon of that host, whether this host's daemon runs
     * (a partition) or is down (one in four of those releases dies at a verb, and that host's next daemon
     * finishes it); one in fifty that host's daemon just starts.
     */
    HOSTS,
    /** When above 0, the engine starts one task worker at a time ({@code maxStarting} 1). */
    STARTS
  }

  /** A mix of events; {@code steps} faulty steps, then the quiet phase. */
  record Profile(String name, int steps, Map<Knob, Integer> knobs) {
    static Profile of(String name, Object... knobValues) {
      Map<Knob, Integer> m = new EnumMap<>(Knob.class);
      for (Knob k : Knob.values()) {
        m.put(k, 0);
      }
      for (int i = 0; i < knobValues.length; i += 2) {
        m.put((Knob) knobValues[i], (Integer) knobValues[i + 1]);
      }
      return new Profile(name, 140, Map.copyOf(m));
    }

    int pct(Knob k) {
      return knobs.get(k);
    }

    /** Everything at once. */
    static final Profile MIXED = of("MIXED", Knob.SUBMIT, 22, Knob.KILL_WORKER, 2, Knob.CRASH, 2, Knob.VERB_CRASH, 2,
        Knob.LAUNCH_CRASH, 1, Knob.NEW_BUILD, 30, Knob.PARK, 3, Knob.SERVICE_CONTROL, 3, Knob.PAUSE, 2,
        Knob.SHUTDOWN_IDLE, 2, Knob.SHUTDOWN_STOP, 1, Knob.WALL_JUMP, 2, Knob.MONO_JUMP, 1, Knob.LEAP, 3,
        Knob.SERVICES, 60, Knob.SERVICE_WORK, 8, Knob.SERVICE_CRASH, 25, Knob.LAUNCH_FAILURE, 2, Knob.HOLD, 2,
        Knob.LOCK_LOSS, 2, Knob.TIMEOUT, 10, Knob.KILL, 2, Knob.STORE_OUTAGE, 1, Knob.AFTER, 10, Knob.ANSWER, 4);
    /**
     * Daemon crashes and store outages at every kind of point, one build: restarts must keep live
     * workers (Q11, D4, D5).
     */
    static final Profile CRASHES = of("CRASHES", Knob.SUBMIT, 22, Knob.KILL_WORKER, 1, Knob.CRASH, 5,
        Knob.VERB_CRASH, 6, Knob.LAUNCH_CRASH, 2, Knob.SERVICE_CONTROL, 1, Knob.SERVICES, 50, Knob.SERVICE_WORK, 6,
        Knob.SERVICE_CRASH, 10, Knob.HOLD, 1, Knob.LOCK_LOSS, 1, Knob.TIMEOUT, 10, Knob.KILL, 2, Knob.STORE_OUTAGE, 2,
        Knob.ANSWER, 8);
    /** Builds change at many boots (S6). */
    static final Profile BUILDS = of("BUILDS", Knob.SUBMIT, 20, Knob.KILL_WORKER, 1, Knob.CRASH, 4, Knob.VERB_CRASH, 2,
        Knob.LAUNCH_CRASH, 1, Knob.NEW_BUILD, 60, Knob.PARK, 1, Knob.SERVICE_CONTROL, 1, Knob.SHUTDOWN_IDLE, 1,
        Knob.SERVICES, 80, Knob.SERVICE_WORK, 8, Knob.SERVICE_CRASH, 25, Knob.LAUNCH_FAILURE, 1, Knob.HOLD, 1,
        Knob.LOCK_LOSS, 1);
    /** Clock jumps and leaps far ahead (C5, Q6). */
    static final Profile CLOCKS = of("CLOCKS", Knob.SUBMIT, 20, Knob.KILL_WORKER, 2, Knob.CRASH, 2, Knob.VERB_CRASH, 1,
        Knob.PARK, 1, Knob.SERVICE_CONTROL, 1, Knob.WALL_JUMP, 6, Knob.MONO_JUMP, 3, Knob.LEAP, 10, Knob.SERVICES, 40,
        Knob.SERVICE_WORK, 6, Knob.SERVICE_CRASH, 25, Knob.LAUNCH_FAILURE, 1, Knob.REBOOT, 1, Knob.HOLD, 1,
        Knob.LOCK_LOSS, 4);
    /** Idle shutdowns over busy and idle workers (S5). */
    static final Profile SHUTDOWNS = of("SHUTDOWNS", Knob.SUBMIT, 10, Knob.KILL_WORKER, 1, Knob.CRASH, 1,
        Knob.VERB_CRASH, 1, Knob.NEW_BUILD, 20, Knob.SERVICE_CONTROL, 1, Knob.PAUSE, 1, Knob.SHUTDOWN_IDLE, 12,
        Knob.SHUTDOWN_STOP, 2, Knob.RESTART, 6, Knob.SERVICES, 100, Knob.SERVICE_WORK, 20, Knob.SERVICE_CRASH, 10,
        Knob.HOLD, 1);
    /** Service workers crash, survive their stops and run out of budget (S1, S3, S6). */
    static final Profile SERVICES = of("SERVICES", Knob.SUBMIT, 8, Knob.KILL_WORKER, 3, Knob.CRASH, 3,
        Knob.VERB_CRASH, 1, Knob.LAUNCH_CRASH, 1, Knob.NEW_BUILD, 40, Knob.SERVICE_CONTROL, 1, Knob.SHUTDOWN_IDLE, 1,
        Knob.SHUTDOWN_STOP, 1, Knob.WALL_JUMP, 1, Knob.MONO_JUMP, 1, Knob.SERVICES, 100, Knob.SERVICE_WORK, 12,
        Knob.SERVICE_CRASH, 300, Knob.LAUNCH_FAILURE, 15, Knob.HOLD, 1);

    /** Time limits and kills among daemon crashes at every kind of point, hand starts among them (Q12, Q13). */
    static final Profile STOPS = of("STOPS", Knob.SUBMIT, 24, Knob.KILL_WORKER, 1, Knob.CRASH, 4, Knob.VERB_CRASH, 7,
        Knob.LAUNCH_CRASH, 2, Knob.NEW_BUILD, 10, Knob.PARK, 1, Knob.WALL_JUMP, 1, Knob.HOLD, 3, Knob.LOCK_LOSS, 1,
        Knob.TIMEOUT, 45, Knob.KILL, 9);

    /**
     * Store outages at every kind of verb, at boots and at reopens, among crashes, time limits and
     * kills: the daemon lives through each, its workers run on, and a new incarnation on the same
     * process recovers what the dropped one ran (D5, D4, Q11).
     */
    static final Profile OUTAGES = of("OUTAGES", Knob.SUBMIT, 24, Knob.KILL_WORKER, 2, Knob.CRASH, 1,
        Knob.VERB_CRASH, 2, Knob.LAUNCH_CRASH, 1, Knob.PARK, 1, Knob.SERVICE_CONTROL, 1, Knob.SERVICES, 60,
        Knob.SERVICE_WORK, 8, Knob.SERVICE_CRASH, 10, Knob.HOLD, 1, Knob.LOCK_LOSS, 1, Knob.TIMEOUT, 10, Knob.KILL, 2,
        Knob.STORE_OUTAGE, 8);

    /**
     * Chains of tickets that wait for others, among daemon crashes at every kind of point, failures,
     * time limits, kills, holds, releases and cancels (Q14).
     */
    static final Profile CHAINS = of("CHAINS", Knob.SUBMIT, 26, Knob.AFTER, 60, Knob.KILL_WORKER, 2, Knob.CRASH, 4,
        Knob.VERB_CRASH, 6, Knob.LAUNCH_CRASH, 2, Knob.HOLD, 6, Knob.TIMEOUT, 15, Knob.KILL, 4, Knob.LAUNCH_FAILURE, 2,
        Knob.WALL_JUMP, 1, Knob.LEAP, 2, Knob.STORE_OUTAGE, 1);

    /** Schedules firing among daemon crashes (some at a look at them), clock jumps, holds and kills (Q15). */
    static final Profile SCHEDULES = of("SCHEDULES", Knob.SUBMIT, 6, Knob.KILL_WORKER, 1, Knob.CRASH, 4,
        Knob.VERB_CRASH, 3, Knob.LAUNCH_CRASH, 1, Knob.WALL_JUMP, 2, Knob.MONO_JUMP, 1, Knob.HOLD, 2, Knob.KILL, 2,
        Knob.SCHEDULE, 8);

    /**
     * Bursts of submissions started one worker at a time ({@code maxStarting} 1), among daemon crashes at every
     * kind of point, launch failures, kills, holds, pauses and store outages.
     */
    static final Profile STARTS = of("STARTS", Knob.SUBMIT, 40, Knob.KILL_WORKER, 2, Knob.CRASH, 3, Knob.VERB_CRASH, 3,
        Knob.LAUNCH_CRASH, 2, Knob.LAUNCH_FAILURE, 2, Knob.HOLD, 2, Knob.KILL, 2, Knob.PAUSE, 2, Knob.STORE_OUTAGE, 1,
        Knob.STARTS, 1);

    /** Prunes and compactions among chains, holds, kills and daemon crashes at every kind of point (Q18). */
    static final Profile PRUNES = of("PRUNES", Knob.SUBMIT, 26, Knob.AFTER, 40, Knob.KILL_WORKER, 2, Knob.CRASH, 4,
        Knob.VERB_CRASH, 6, Knob.LAUNCH_CRASH, 1, Knob.HOLD, 6, Knob.KILL, 3, Knob.WALL_JUMP, 1, Knob.PRUNE, 12);

    /** Another host's daemon shares the store, among crashes, kills, holds and store outages (H1). */
    static final Profile HOSTS = of("HOSTS", Knob.SUBMIT, 20, Knob.KILL_WORKER, 2, Knob.CRASH, 4, Knob.VERB_CRASH, 5,
        Knob.LAUNCH_CRASH, 1, Knob.HOLD, 3, Knob.KILL, 3, Knob.WALL_JUMP, 1, Knob.STORE_OUTAGE, 1, Knob.HOSTS, 40);

    static Profile named(String name) {
      for (Profile p : List.of(MIXED, CRASHES, BUILDS, CLOCKS, SHUTDOWNS, SERVICES, STOPS, OUTAGES, CHAINS, SCHEDULES,
          PRUNES, HOSTS)) {
        if (p.name.equals(name)) {
          return p;
        }
      }
      throw new IllegalArgumentException("no profile " + name);
    }
  }

  /** The simulation's timeouts: a valid lattice (S2) at a scale a few hundred steps can cover. */
  static final TimeoutLattice TIMEOUTS = lattice();
  static final RetryPolicy POLICY = new RetryPolicy(500, 8_000);
  static final Lane LANE_A = new Lane("a");
  static final Lane LANE_B = new Lane("b");
  static final List<EngineConfig.LaneLimit> LANES =
      List.of(new EngineConfig.LaneLimit(LANE_A, 2), new EngineConfig.LaneLimit(LANE_B, 1));
  /** The lanes when the profile times runs out: lane b has a default limit (Q12). */
  static final List<EngineConfig.LaneLimit> TIMED_LANES =
      List.of(new EngineConfig.LaneLimit(LANE_A, 2), new EngineConfig.LaneLimit(LANE_B, 1, 9_000));
  /** The lanes when schedules fire: lane a runs the catch-up of up to a hundred fires after a wall-clock jump. */
  static final List<EngineConfig.LaneLimit> SCHEDULED_LANES =
      List.of(new EngineConfig.LaneLimit(LANE_A, 12), new EngineConfig.LaneLimit(LANE_B, 1));
  static final WorkerTypes TYPES = WorkerTypes.of(WorkerTypeSpec.declared("cmd", "sim.Cmd", List.of()),
      WorkerTypeSpec.declared("py", "sim.Py", List.of()).resumable(true)); // Q17: py resumes, cmd starts over
  private static final int QUIET_STEPS = 2_400;

  private static TimeoutLattice lattice() {
    Map<Timeout, Long> m = new EnumMap<>(Timeout.class);
    m.put(Timeout.HEARTBEAT, 1_000L);
    m.put(Timeout.STATUS_STALE, 6_000L);
    m.put(Timeout.RECONCILE, 2_000L);
    m.put(Timeout.LEASE_TTL, 5_000L);
    m.put(Timeout.STOP_GRACE, 2_000L);
    m.put(Timeout.WORKER_TEARDOWN, 1_000L);
    m.put(Timeout.PROTOCOL_CLOSE, 500L);
    m.put(Timeout.KILL_ROUTE, 200L);
    m.put(Timeout.CHILD_DRAIN, 500L);
    m.put(Timeout.SUPERVISOR_DRAIN, 1_000L);
    m.put(Timeout.LAUNCHER_WAIT, 5_000L);
    m.put(Timeout.LOST_EXIT, 60_000L);
    m.put(Timeout.CLIENT_RELAUNCH, 20_000L);
    m.put(Timeout.SUPERVISOR_BOOT, 5_000L);
    m.put(Timeout.LAUNCH_HANDOFF, 3_000L);
    m.put(Timeout.BUSY_REFRESH, 20_000L);
    m.put(Timeout.BUSY_FRESHNESS, 100_000L);
    m.put(Timeout.QUIESCE_ANSWER, 1_000L);
    m.put(Timeout.QUIESCE_HOLD, 3_000L);
    m.put(Timeout.RESTART_WINDOW, 60_000L);
    m.put(Timeout.RESTART_BACKOFF_BASE, 250L);
    m.put(Timeout.RESTART_BACKOFF_CAP, 4_000L);
    m.put(Timeout.STALE_CLAIM, 3_600_000L);
    return new TimeoutLattice(m, 5);
  }

  /** What one run of the simulation saw. */
  record Report(long seed, int steps, int quietSteps, int incarnations, int tickets, Tally seen) {}

  // ---- state ----

  private final Profile profile;
  private final long seed;
  /** The engine's maxStarting in this simulation. */
  private final int maxStarting;
  private final SplittableRandom rng;
  private final Tally seen;
  final LeaseLaw law = new LeaseLaw(POLICY);
  private final CrashingCoordination coordination = new CrashingCoordination(law);
  /** The schedules of the same store (Q15), through a port that ends the daemon at a chosen look. */
  final ScheduleLaw scheduleLaw = new ScheduleLaw(law);
  private final FireCrashes schedules = new FireCrashes(scheduleLaw);
  /**
   * Wall-clock ms from which every fire of the catch-up-all schedule must have its ticket: the latest
   * time around a wall-clock jump (a jump far ahead leaves older fires past the catch-up bound).
   */
  private long everyFireFrom;

  /**
   * {@link Schedules} that ends the daemon at its next look, before the look or after it committed (the
   * daemon died before it saw what it decided).
   */
  private static final class FireCrashes implements Schedules {
    private final Schedules inner;
    /** 0: no crash armed; 1: before the next look; 2: after it. */
    private int armed;

    FireCrashes(Schedules inner) {
      this.inner = inner;
    }

    void arm(boolean afterCommit) {
      armed = afterCommit ? 2 : 1;
    }

    void disarm() {
      armed = 0;
    }

    @Override
    public FireRound fireDue(long nowMs) {
      int a = armed;
      armed = 0;
      if (a == 1) {
        throw new SimulatedCrash("before a look at the schedules");
      }
      FireRound r = inner.fireDue(nowMs);
      if (a == 2 && !r.fired().isEmpty()) {
        throw new SimulatedCrash("after a look at the schedules committed");
      }
      return r;
    }

    @Override
    public ScheduleChange add(ScheduleSpec spec, long nowMs) {
      return inner.add(spec, nowMs);
    }

    @Override
    public List<Schedule> configure(List<ScheduleSpec> configured, long nowMs) {
      return inner.configure(configured, nowMs);
    }

    @Override
    public ScheduleChange pause(ScheduleName name) {
      return inner.pause(name);
    }

    @Override
    public ScheduleChange resume(ScheduleName name, long nowMs) {
      return inner.resume(name, nowMs);
    }

    @Override
    public ScheduleChange remove(ScheduleName name) {
      return inner.remove(name);
    }

    @Override
    public List<ScheduleView> list() {
      return inner.list();
    }
  }
  final SimWorld world;
  private final List<ServiceSpec> services;
  private boolean faults = true;
  private int step;
  private int quietSteps;
  private String build = "b1";
  private int builds = 1;
  private int incarnations;
  private Inc inc;
  private long bootAtMono;
  /** Which incarnation started each run, and which began a stop of it (kind by incarnation). */
  private final Map<RunId, Integer> startedBy = new HashMap<>();
  private final Map<RunId, Set<Integer>> stoppedBy = new HashMap<>();
  private final Set<RunId> readopted = new HashSet<>();
  /** The task runs whose workers a restart left running, until the next boot recovered them (D4). */
  private final Set<RunId> restartLeft = new HashSet<>();
  /** Services an answered question restarts or stops (Q16): the daemon that applies it stops them as an operator would. */
  private final Set<String> answeredServiceStops = new HashSet<>();
  /** Whether the daemon that stops now was stopped by a restart. */
  private boolean restarted;
  /** Runs settled so far: each exactly once (C8, Q13), across every incarnation. */
  private final Set<RunId> settledRuns = new HashSet<>();
  private final List<EngineConfig.LaneLimit> lanes;
  private final List<String> keys = List.of("k1", "k2", "k3", "k4");
  /** The store outage the daemon lives through (D5), or null. */
  private StoreOutage outage;
  /** When a failing store works again, monotonic ms, or -1 while it works. */
  private long storeBackAtMono = -1;
  /** The store as it was when it failed: nothing changes it until the daemon reopened it (D5). */
  private Snapshot storeAtFailure;
  /** The file an outage names (the daemon's store). */
  private static final String STORE_FILE = "vigil.mv.db";

  /** One daemon incarnation. */
  final class Inc {
    final int n;
    final OwnerId owner;
    final String build;
    final long bootMono;
    final SimWorld.DaemonProc proc;
    Engine engine;
    boolean booting = true;
    boolean stopWorkers;
    boolean shutdownPending;
    boolean idleShutdown;
    boolean roundStopAll;
    final Set<String> serviceStops = new HashSet<>();
    final Set<WorkerKey> escalating = new HashSet<>();
    final Set<WorkerKey> killing = new HashSet<>();
    final Set<WorkerKey> serviceSignals = new HashSet<>();
    /** The time limit of every run this incarnation started or took over, as its law model counts it (Q12). */
    final Map<RunId, TimeLimitLaw> limits = new HashMap<>();
    long lastPublishMono = Long.MIN_VALUE;
    /**
     * Booted after a store outage (D5): the live runs of the dropped incarnations of its process,
     * each of which it must recover at boot; empty for an incarnation in a new process.
     */
    final Set<RunId> ofDropped = new HashSet<>();

    /** Incarnation {@code n} in a new daemon process. */
    Inc(int n, String build) {
      this(n, build, world.startDaemon(n));
    }

    /** Incarnation {@code n} in {@code proc}: a new one, or the process of the one a store outage dropped (D5). */
    Inc(int n, String build, SimWorld.DaemonProc proc) {
      this.n = n;
      this.owner = new OwnerId("d" + n);
      this.build = build;
      this.bootMono = world.monoMs;
      this.proc = proc;
    }
  }

  /**
   * The process table of one incarnation, as the daemon wraps its own ({@code Daemon}'s
   * {@code EarlierIncarnationsClosed}): an owner registered with this daemon process's identity is
   * dead unless it is this incarnation (which the engine asks about by owner id), so an incarnation
   * booted after a store outage recovers the runs of the dropped ones. An incarnation that was
   * dropped (an outage, a crash) launches and signals nothing (D5).
   */
  private final class IncTable implements ProcessTable {
    private final Inc i;
    private final ProcessTable os;

    IncTable(Inc i) {
      this.i = i;
      this.os = world.processesOf(i.proc);
    }

    @Override
    public ProcessIdentity self() {
      return os.self();
    }

    @Override
    public Launch launch(LaunchRequest request) {
      acting("launched a worker of " + request.key());
      return os.launch(request);
    }

    @Override
    public Optional<ProcessIdentity> identity(long pid) {
      return os.identity(pid);
    }

    @Override
    public boolean alive(ProcessIdentity identity) {
      return !identity.equals(os.self()) && os.alive(identity);
    }

    @Override
    public boolean signalGroup(ProcessIdentity identity, Signal signal) {
      acting("sent " + signal + " to the group of " + identity);
      return os.signalGroup(identity, signal);
    }

    private void acting(String what) {
      if (inc != i || (i.engine == null && !i.booting)) {
        violated("D5: d" + i.n + " " + what + " after it was dropped"
            + (outage != null ? ", during a store outage" : ""));
      }
    }
  }

  private Simulation(Profile profile, long seed) {
    this.profile = profile;
    this.seed = seed;
    this.rng = new SplittableRandom(seed);
    this.seen = new Tally(profile.name);
    this.world = new SimWorld(law, TIMEOUTS, this::violated, seen, 1_000_000, 1_700_000_000_000L);
    this.lanes = profile.pct(Knob.TIMEOUT) > 0 ? TIMED_LANES : profile.pct(Knob.SCHEDULE) > 0 ? SCHEDULED_LANES : LANES;
    this.maxStarting = profile.pct(Knob.STARTS) > 0 ? 1 : Workload.DEFAULT_MAX_STARTING;
    if (profile.pct(Knob.SCHEDULE) > 0) {
      scheduleLaw.add(schedule("every2s", "0/2 * * * * ?", LANE_A, CatchUp.ALL, Overlap.PARALLEL), world.wallMs);
      scheduleLaw.add(schedule("every3s", "0/3 * * * * ?", LANE_A, CatchUp.NONE, Overlap.SKIP), world.wallMs);
      scheduleLaw.add(schedule("every5s", "0/5 * * * * ?", LANE_B, CatchUp.LATEST, Overlap.QUEUE), world.wallMs);
      // a fire every 5 minutes: after a wall-clock jump its latest fire is mostly more than a minute old (missed)
      scheduleLaw.add(schedule("every5m", "0 */5 * * *", LANE_A, CatchUp.NONE, Overlap.PARALLEL), world.wallMs);
      everyFireFrom = world.wallMs;
    }
    List<ServiceSpec> svcs = new ArrayList<>();
    if (rng.nextInt(100) < profile.pct(Knob.SERVICES)) {
      svcs.add(new ServiceSpec("idx", "cmd", "{}", ServiceSpec.Activation.ALWAYS));
      if (rng.nextBoolean()) {
        svcs.add(new ServiceSpec("chat", "py", "{}", ServiceSpec.Activation.ON_DEMAND));
        world.onDemand.add("chat");
      }
    }
    this.services = List.copyOf(svcs);
    world.scripts = this::script;
    world.released = released::containsKey;
    world.daemon = new SimWorld.Daemon() {
      @Override
      public boolean up() {
        return inc != null && (inc.engine != null || inc.booting);
      }

      @Override
      public Optional<ToWorker> hello(WorkerMessage.Hello hello) {
        return call(e -> e.onHello(hello, world.monoMs, world.wallMs));
      }

      @Override
      public void message(WorkerKey from, WorkerMessage message) {
        call(e -> {
          e.onMessage(from, message, world.monoMs, world.wallMs);
          return null;
        });
      }

      @Override
      public int incarnation() {
        return inc == null ? -1 : inc.n;
      }

      @Override
      public String build() {
        return inc == null ? null : inc.build;
      }
    };
  }

  private static ScheduleSpec schedule(String name, String cron, Lane lane, CatchUp c, Overlap o) {
    return new ScheduleSpec(new ScheduleName(name), Cron.parse(cron), ZoneId.of("UTC"),
        NewTicket.of(lane, "cmd", "{}"), c, o);
  }

  /** Runs one seed of a profile; throws an AssertionError naming the seed and the replay line. */
  static Report run(Profile profile, long seed) {
    Simulation s = new Simulation(profile, seed);
    try {
      return s.run();
    } catch (AssertionError | RuntimeException e) {
      AssertionError a = new AssertionError("simulation " + profile.name + " seed " + seed + " failed at step " + s.step
          + " (quiet step " + s.quietSteps + ", incarnation " + s.incarnations + "): " + e.getMessage()
          + "\n  replay with: Simulation.replay(\"" + profile.name + "\", " + seed + "L);", e);
      throw a;
    }
  }

  /** The one-line replay of a failing seed. */
  static Report replay(String profile, long seed) {
    return run(Profile.named(profile), seed);
  }

  private Report run() {
    world.launchFailurePercent = profile.pct(Knob.LAUNCH_FAILURE);
    boot();
    for (step = 1; step <= profile.steps; step++) {
      advanceClock(100 + rng.nextInt(900));
      world.step();
      chaos();
      store();
      if (inc == null && world.monoMs >= bootAtMono) {
        boot();
      }
      deliverExits();
      tick();
      check();
    }
    quiet();
    CoordinationInvariants.check(law);
    return new Report(seed, profile.steps, quietSteps, incarnations, law.tickets(TicketQuery.all()).size(), seen);
  }

  // ---- the clock ----

  private void advanceClock(long dt) {
    if (outage != null) {
      dt = Math.min(dt, Math.max(1, outage.nextAttemptMonoMs() - world.monoMs)); // a reopen attempt is on time (D5)
    }
    world.monoMs += dt;
    world.wallMs += dt;
    if (faults && rng.nextInt(100) < profile.pct(Knob.WALL_JUMP)) {
      boolean back = rng.nextInt(4) == 0;
      long jump = back ? -(1_000 + rng.nextInt(300_000)) : 60_000L * (1 + rng.nextInt(60 * 24 * 10));
      long before = world.wallMs;
      world.wallMs += jump;
      everyFireFrom = Math.max(everyFireFrom, Math.max(before, world.wallMs));
      seen.saw(back ? "wall clock jumped back" : "wall clock jumped ahead");
    }
    if (faults && rng.nextInt(100) < profile.pct(Knob.MONO_JUMP)) {
      world.monoMs += 5_000 + rng.nextInt(120_000);
      seen.saw("monotonic clock jumped (suspend)");
    }
  }

  // ---- the daemon's life ----

  private <T> Optional<T> call(Function<Engine, T> f) {
    if (inc == null || inc.engine == null) {
      return Optional.empty();
    }
    Inc at = inc;
    try {
      return Optional.ofNullable(f.apply(at.engine));
    } catch (SimulatedCrash c) {
      if (inc == at) {
        sawVerbCrash();
        crash("at a verb: " + coordination.lastCrash());
      }
      return Optional.empty();
    } catch (SimulatedStoreFailure failure) {
      if (inc == at) {
        beginOutage();
      }
      return Optional.empty();
    }
  }

  private void boot() {
    incarnations++;
    if (faults && incarnations > 1 && rng.nextInt(100) < profile.pct(Knob.NEW_BUILD)) {
      build = "b" + (++builds);
      seen.saw("boot on a new build");
    }
    armAtBoot();
    Inc i = new Inc(incarnations, build);
    inc = i;
    try {
      Engine e;
      try {
        e = Engine.boot(config(i), ports(i), world.monoMs, world.wallMs);
      } finally {
        restartLeft.clear(); // what this boot did not recover was recovered by no restart's successor
      }
      i.booting = false;
      if (inc == i) {
        i.engine = e;
        seen.saw("boot");
      }
    } catch (SimulatedCrash c) {
      i.booting = false;
      if (inc == i) {
        seen.saw("crash during boot");
        sawVerbCrash();
        crash("during boot: " + coordination.lastCrash());
      }
    } catch (SimulatedStoreFailure f) {
      // a daemon whose first boot fails exits (Daemon.run): an outage is survived only by a daemon that runs
      i.booting = false;
      if (inc == i) {
        seen.saw("store failed at a start: the daemon exits");
        storeFailed();
        world.end(i.proc, 1, null);
        world.daemonDied();
        coordination.disarm();
        world.crashAfterNextLaunch = false;
        inc = null;
        bootAtMono = world.monoMs + rng.nextInt(3_000);
      }
    }
  }

  /** A boot after the first may crash, or find the store failing, at one of its first verbs. */
  private void armAtBoot() {
    if (faults && incarnations > 1 && rng.nextInt(100) < profile.pct(Knob.VERB_CRASH) * 2) {
      coordination.arm(1 + rng.nextInt(4), rng.nextBoolean());
      seen.saw("verb crash armed at boot");
    }
    if (faults && incarnations > 1 && profile.pct(Knob.STORE_OUTAGE) > 0
        && rng.nextInt(100) < profile.pct(Knob.STORE_OUTAGE) * 2) {
      coordination.armOutage(1 + rng.nextInt(4));
      seen.saw("store failure armed at boot");
    }
  }

  private EngineConfig config(Inc i) {
    return new EngineConfig(i.owner, "sim", i.build, "1.0." + builds, 1, new Workload(lanes, TYPES, services, maxStarting),
        TIMEOUTS, profile.pct(Knob.HOSTS) > 0 ? THIS_HOST : null);
  }

  private Ports ports(Inc i) {
    return new Ports(coordination, new IncTable(i), world.directories, world.channel, s -> published(i, s),
        e -> journal(i, e), schedules);
  }

  // ---- store outages (D5) ----

  /** The store failed now: it works again 0.5-20 s later (often after a launch handoff would have timed out). */
  private void storeFailed() {
    seen.saw("store failure at " + coordination.lastFailure());
    if (storeBackAtMono < 0) {
      storeBackAtMono = world.monoMs + (rng.nextInt(3) == 0 ? 500 + rng.nextInt(2_500) : 3_000 + rng.nextInt(17_000));
      storeAtFailure = law.snapshot();
    }
  }

  /**
   * A verb failed with the store's failure while the engine ran: an outage begins (Daemon's
   * {@code beginOutage}). The engine is dropped at once, as a crash would drop it, but the daemon
   * process lives: every worker runs on and stays connected, and the exits of the dropped
   * incarnation's children are never handed to a later one.
   */
  private void beginOutage() {
    Inc dropped = inc;
    dropped.engine = null;
    seen.saw("store outage");
    storeFailed();
    coordination.disarm();
    world.crashAfterNextLaunch = false;
    world.pendingExits.clear();
    world.idleShutdownPending = false;
    world.outage = true;
    outage = StoreOutage.begin(STORE_FILE, "simulated I/O error", world.monoMs, world.wallMs).outage();
    for (SimWorld.Proc p : world.livePids.values()) {
      if (p instanceof SimWorld.TaskProc t && !t.gotGo
          && law.run(t.run).map(r -> r.state() == RunState.CLAIMED || r.state() == RunState.RUNNING).orElse(false)) {
        seen.saw("outage across a launch handoff");
        break;
      }
    }
    for (SimWorld.Proc p : world.livePids.values()) {
      if (p instanceof SimWorld.TaskProc t && t.gotGo) {
        seen.saw("outage while a worker works");
        break;
      }
    }
  }

  /** The store works again when its time came; the daemon tries to reopen it when an attempt is due (D5). */
  private void store() {
    if (coordination.down() && world.monoMs >= storeBackAtMono) {
      coordination.storeWorks();
      storeBackAtMono = -1;
      seen.saw("store works again");
    }
    if (outage != null && outage.attemptDue(world.monoMs)) {
      reopen();
    }
  }

  /**
   * One reopen attempt (Daemon's {@code reopen}): the store may not open; once it opens, every
   * worker connection is closed and a new incarnation with a new owner boots on the same process;
   * its registration, the first write, fails while the store still does.
   */
  private void reopen() {
    Inc dropped = inc;
    if (coordination.down() && rng.nextBoolean()) {
      seen.saw("reopen attempt failed: the store did not open");
      attemptFailed("the store did not open");
      return;
    }
    world.closeConnections();
    if (coordination.down()) {
      coordination.opened();
    }
    incarnations++;
    armAtBoot();
    Inc i = new Inc(incarnations, dropped.build, dropped.proc);
    for (Run r : law.liveRuns()) {
      OwnerId o = r.state() == RunState.EXITED ? r.exitOwner().owner() : r.owner();
      if (ofThisProcess(i, o)) {
        i.ofDropped.add(r.id());
      }
    }
    inc = i;
    world.outage = false;
    try {
      Engine e = Engine.boot(config(i), ports(i), world.monoMs, world.wallMs);
      i.booting = false;
      if (inc == i) {
        i.engine = e;
        seen.saw("boot");
        storeBack(i);
      }
    } catch (SimulatedCrash c) {
      i.booting = false;
      if (inc == i) {
        seen.saw("crash during boot after a store outage");
        sawVerbCrash();
        crash("during boot after a store outage: " + coordination.lastCrash());
      }
    } catch (SimulatedStoreFailure f) {
      i.booting = false;
      if (inc == i) {
        seen.saw("reopen attempt failed in the new incarnation's boot");
        if (coordination.lastFailure().startsWith("registerOwner")) {
          seen.saw("reopen attempt failed at the registration");
        }
        storeFailed();
        coordination.closed();
        coordination.disarm();
        world.crashAfterNextLaunch = false;
        world.pendingExits.clear();
        world.outage = true;
        attemptFailed("simulated I/O error at " + coordination.lastFailure());
      }
    }
  }

  private void attemptFailed(String why) {
    seen.saw("reopen attempt failed");
    StoreOutage.Step step = outage.attemptFailed(why, world.monoMs);
    if (step.note().isPresent()) {
      seen.saw("outage cause changed");
    }
    outage = step.outage();
  }

  /** Whether {@code owner} registered with the process of incarnation {@code i}, and is not {@code i}. */
  private boolean ofThisProcess(Inc i, OwnerId owner) {
    Optional<Owner> o = law.owner(owner);
    return !owner.equals(i.owner) && o.isPresent() && o.get().identity().equals(i.proc.identity);
  }

  /**
   * D5: the store is back and incarnation {@code i} booted on the process the outage kept: a new
   * owner registered with the same identity, and every run of the dropped incarnations recovered at
   * boot (adopted, readopted, exits taken, settled), none left to them.
   */
  private void storeBack(Inc i) {
    outage.ended(world.monoMs);
    outage = null;
    storeAtFailure = null;
    seen.saw("store back: new incarnation on the same process");
    Optional<Owner> me = law.owner(i.owner);
    if (me.isEmpty() || !me.get().identity().equals(i.proc.identity) || !world.isAlive(i.proc.identity)) {
      violated("D5: after a store outage d" + i.n + " booted as " + me + ", not on the daemon process "
          + i.proc.identity + " that lived through it");
    }
    for (Run r : law.liveRuns()) {
      OwnerId o = r.state() == RunState.EXITED ? r.exitOwner().owner() : r.owner();
      if (ofThisProcess(i, o)) {
        violated("D5: after a store outage d" + i.n + " left " + r.id() + " (" + r.state() + ") to " + o
            + ", an incarnation the outage dropped");
      }
    }
  }

  /** Counts the verb a crash happened at, when it happened at a verb (not right after a launch). */
  private void sawVerbCrash() {
    if (coordination.lastCrash() != null) {
      seen.saw("verb crash at " + coordination.lastCrash());
    }
  }

  private void crash(String why) {
    seen.saw("daemon crash");
    if (outage != null) {
      seen.saw("daemon crash during a store outage");
      outage = null;
    }
    world.outage = false;
    Inc dead = inc;
    world.end(dead.proc, null, 9);
    world.daemonDied();
    coordination.disarm();
    world.crashAfterNextLaunch = false;
    dead.engine = null;
    inc = null;
    bootAtMono = world.monoMs + rng.nextInt(3_000);
  }

  private void cleanExit() {
    seen.saw("daemon exited after shutdown");
    if (!restarted) {
      restartLeft.clear();
    }
    restarted = false;
    world.end(inc.proc, 0, null);
    world.daemonDied();
    inc.engine = null;
    inc = null;
    bootAtMono = world.monoMs + 200 + rng.nextInt(1_000);
  }

  private void deliverExits() {
    while (inc != null && inc.engine != null && !world.pendingExits.isEmpty()) {
      ProcessExit x = world.pendingExits.poll();
      seen.saw("exit delivered");
      for (SimWorld.Proc p : world.everyProcess) {
        if (p.identity.equals(x.identity()) && p.parentIncarnation != inc.n) {
          violated("D5: the exit of " + x.identity() + ", launched by d" + p.parentIncarnation + ", was handed to d"
              + inc.n);
        }
      }
      call(e -> {
        e.onExit(x, world.monoMs, world.wallMs);
        return null;
      });
    }
  }

  private void tick() {
    if (inc == null || inc.engine == null) {
      return;
    }
    if (faults && rng.nextInt(100) < profile.pct(Knob.LEAP)) {
      leap();
      if (inc == null || inc.engine == null) {
        return;
      }
    }
    call(e -> {
      e.tick(world.monoMs, world.wallMs);
      return null;
    });
    if (inc != null && inc.engine != null) {
      if (world.monoMs - inc.lastPublishMono >= TIMEOUTS.ms(Timeout.HEARTBEAT)) {
        violated("D1 heartbeat: no status published for " + (world.monoMs - inc.lastPublishMono) + " ms");
      }
      if (inc.engine.stopped()) {
        cleanExit();
      }
    }
  }

  /**
   * C5, Q6: jumps one clock far ahead and ticks with the world frozen: every liveness verdict must
   * stay as it was (a signal the engine sends during the leap is an effect, not a verdict).
   */
  private void leap() {
    Map<RunId, Liveness.Life> before = inc.engine.livenessVerdicts();
    boolean wall = rng.nextBoolean();
    if (wall) {
      world.wallMs += 86_400_000L * (1 + rng.nextInt(30));
      seen.saw("leap: wall clock days ahead");
    } else {
      world.monoMs += 60_000L * (5 + rng.nextInt(60));
      seen.saw("leap: monotonic clock minutes ahead");
    }
    for (Map.Entry<RunId, Liveness.Life> e : before.entrySet()) {
      if (e.getValue() instanceof Liveness.Life.Alive) {
        Optional<Lease> l = law.lease(e.getKey().ticket());
        if (l.isPresent() && l.get().run().equals(e.getKey()) && l.get().expiresAtMs() <= world.wallMs) {
          seen.saw("C5: alive run with an expired lease at a leap");
        }
        for (SimWorld.TaskProc p : world.tasksOf(e.getKey())) {
          if (p.alive && p.gotGo && p.script.hangs()) {
            seen.saw("Q6: silent hung worker alive at a leap");
          }
        }
      }
    }
    Set<WorkerKey> signalled = new HashSet<>();
    Inc at = inc;
    leapSignals = signalled;
    call(e -> {
      e.tick(world.monoMs, world.wallMs);
      return null;
    });
    leapSignals = null;
    if (inc != at || inc.engine == null) {
      return;
    }
    Map<RunId, Liveness.Life> after = inc.engine.livenessVerdicts();
    for (Map.Entry<RunId, Liveness.Life> e : before.entrySet()) {
      Liveness.Life now = after.get(e.getKey());
      if (signalled.contains(new WorkerKey.Task(e.getKey()))) {
        continue;
      }
      if (e.getValue() instanceof Liveness.Life.Alive && now == null) {
        violated("C5 death by identity: " + e.getKey() + " was alive and stopped being supervised across a clock leap");
      }
      if (now != null && !now.equals(e.getValue())) {
        violated("C5 death by identity / Q6: liveness of " + e.getKey() + " changed across a clock leap: " + e.getValue()
            + " -> " + now);
      }
      if (now != null) {
        seen.saw(now instanceof Liveness.Life.Dead ? "leap verdict: dead" : "leap verdict: alive");
      }
    }
  }

  private Set<WorkerKey> leapSignals;

  // ---- the generator ----

  private void chaos() {
    if (!faults) {
      return;
    }
    if (up() && rng.nextInt(100) < profile.pct(Knob.SUBMIT)) {
      for (int k = rng.nextInt(2) + 1; k > 0; k--) {
        submit();
      }
    }
    if (up() && rng.nextInt(100) < 6) {
      queries();
    }
    if (up() && !inc.shutdownPending && rng.nextInt(100) < profile.pct(Knob.PARK)) {
      park();
    }
    if (up() && rng.nextInt(100) < profile.pct(Knob.HOLD)) {
      holdReleaseCancel();
    }
    if (profile.pct(Knob.KILL) > 0 && up() && rng.nextInt(100) < profile.pct(Knob.KILL)) {
      kill();
    }
    if (up() && rng.nextInt(100) < profile.pct(Knob.ANSWER)) {
      answer();
    }
    if (profile.pct(Knob.PRUNE) > 0 && up() && rng.nextInt(100) < profile.pct(Knob.PRUNE)) {
      prune();
    }
    if (profile.pct(Knob.HOSTS) > 0 && rng.nextInt(100) < profile.pct(Knob.HOSTS)) {
      otherHost();
    }
    if (up() && rng.nextInt(100) < profile.pct(Knob.PAUSE)) {
      command(rng.nextBoolean() ? new Command.Pause() : new Command.Resume());
    }
    if (up() && !inc.shutdownPending && rng.nextInt(100) < profile.pct(Knob.SHUTDOWN_IDLE)) {
      shutdown(Command.Shutdown.Mode.IF_IDLE);
    } else if (up() && !inc.shutdownPending && rng.nextInt(200) < profile.pct(Knob.SHUTDOWN_STOP)) {
      shutdown(Command.Shutdown.Mode.STOP_WORKERS);
    } else if (up() && !inc.shutdownPending && rng.nextInt(200) < profile.pct(Knob.RESTART)) {
      restart();
    }
    if (up() && !inc.shutdownPending && !services.isEmpty() && rng.nextInt(100) < profile.pct(Knob.SERVICE_CONTROL)) {
      String name = services.get(rng.nextInt(services.size())).name();
      if (rng.nextBoolean()) {
        command(new Command.StartService(name));
      } else {
        inc.serviceStops.add(name);
        command(new Command.StopService(name));
      }
    }
    if (!services.isEmpty() && rng.nextInt(100) < profile.pct(Knob.SERVICE_WORK)) {
      String name = services.get(rng.nextInt(services.size())).name();
      world.sessionInbox.computeIfAbsent(name, k -> new ArrayDeque<>()).add(500L + rng.nextInt(8_000));
    }
    if (rng.nextInt(100) < profile.pct(Knob.LOCK_LOSS)) {
      // the reservation lock is lost (its file deleted) while the worker lives: only its identity speaks now
      for (SimWorld.Proc p : world.livePids.values()) {
        if (p instanceof SimWorld.TaskProc t && t.reserved && t.forks.isEmpty() && t.script.forkOutlivesMs() < 0
            && world.reserved(t.key)) {
          world.dirs.get(t.key).holders.clear();
          seen.saw("reservation lost while the worker lives");
          break;
        }
      }
    }
    if (rng.nextInt(100) < profile.pct(Knob.KILL_WORKER)) {
      List<SimWorld.WorkerProc> live = new ArrayList<>();
      for (SimWorld.Proc p : world.livePids.values()) {
        if (p instanceof SimWorld.WorkerProc w) {
          live.add(w);
        }
      }
      if (!live.isEmpty()) {
        seen.saw("kill -9 a worker");
        world.end(live.get(rng.nextInt(live.size())), null, 9);
      }
    }
    if (up() && rng.nextInt(100) < profile.pct(Knob.CRASH)) {
      crash("injected between steps");
    } else if (up() && rng.nextInt(100) < profile.pct(Knob.VERB_CRASH)) {
      coordination.arm(1 + rng.nextInt(8), rng.nextBoolean());
      seen.saw("verb crash armed");
    } else if (up() && rng.nextInt(100) < profile.pct(Knob.LAUNCH_CRASH)) {
      world.crashAfterNextLaunch = true;
    } else if (profile.pct(Knob.STORE_OUTAGE) > 0 && up() && !coordination.armed()
        && rng.nextInt(100) < profile.pct(Knob.STORE_OUTAGE)) {
      coordination.armOutage(1 + rng.nextInt(8));
      seen.saw("store failure armed");
    } else if (outage != null && rng.nextInt(400) < profile.pct(Knob.CRASH)) {
      crash("injected during a store outage");
    }
    if (up() && rng.nextInt(100) < profile.pct(Knob.SCHEDULE)) {
      boolean after = rng.nextBoolean();
      schedules.arm(after);
      seen.saw("crash armed at a look at the schedules " + (after ? "after it commits" : "before it"));
    }
    if (rng.nextInt(1_000) < profile.pct(Knob.REBOOT) * 10) {
      seen.saw("host reboot");
      boolean wasUp = inc != null;
      world.reboot();
      if (wasUp) {
        Inc dead = inc;
        dead.engine = null;
        inc = null;
        coordination.disarm();
        outage = null;
        world.outage = false;
        bootAtMono = world.monoMs + rng.nextInt(3_000);
      }
    }
  }

  private boolean up() {
    return inc != null && inc.engine != null;
  }

  private void submit() {
    if (rng.nextInt(8) == 0) {
      submitBatch();
      return;
    }
    NewTicket n = newTicket();
    Reply r = command(new Command.Submit(n));
    if (r == null) {
      return;
    }
    if (!runnable(n)) {
      expect(r instanceof Reply.Invalid, "a submission to lane " + n.lane() + " of type " + n.type() + " is refused", r);
      seen.saw("submission refused");
    } else if (!prerequisitesExist(List.of(n))) {
      expect(r instanceof Reply.Invalid i && i.reason().startsWith("no ticket t-"), "Q14: a submission waiting for "
          + "a ticket that does not exist is refused", r);
      seen.saw("submission waiting for no ticket refused");
    } else {
      if (!n.after().isEmpty()) {
        seen.saw("submission waits for others");
      }
      expect(r instanceof Reply.Submitted, "a valid submission is accepted", r);
      seen.saw(((Reply.Submitted) r).duplicate() ? "submission duplicate" : "submission accepted");
    }
  }

  private NewTicket newTicket() {
    Lane lane = rng.nextInt(40) == 0 ? new Lane("zzz") : rng.nextInt(3) == 0 ? LANE_B : LANE_A;
    String type = rng.nextInt(40) == 0 ? "ruby" : rng.nextBoolean() ? "cmd" : "py";
    long notBefore = rng.nextInt(5) == 0 ? world.wallMs + rng.nextInt(10_000) : 0;
    String key = rng.nextInt(10) == 0 ? keys.get(rng.nextInt(keys.size())) : null;
    NewTicket n = new NewTicket(lane, type, "{\"n\":" + step + "}", 1 + rng.nextInt(4), rng.nextInt(3), notBefore, key);
    if (profile.pct(Knob.TIMEOUT) > 0 && rng.nextInt(100) < profile.pct(Knob.TIMEOUT)) {
      n = n.withSpec(RunSpec.DEFAULT.withTimeout(500 + rng.nextInt(8_500)));
    }
    List<Ticket> all = law.tickets(TicketQuery.all());
    if (profile.pct(Knob.AFTER) > 0 && rng.nextInt(100) < profile.pct(Knob.AFTER) && !all.isEmpty()) {
      List<Prerequisite> after = new ArrayList<>();
      for (int k = rng.nextInt(2) + 1; k > 0; k--) {
        // mostly recent tickets, so that chains form while their first links still run
        Ticket p = all.get(Math.max(0, all.size() - 1 - rng.nextInt(Math.min(all.size(), rng.nextBoolean() ? 4 : 40))));
        after.add(new Prerequisite.Existing(rng.nextInt(20) == 0 ? new TicketId(100_000 + rng.nextInt(10)) : p.id()));
      }
      n = n.withAfter(after);
    }
    return n;
  }

  /** Q14: whether every ticket the batch names exists (places in the batch are always earlier ones here). */
  private boolean prerequisitesExist(List<NewTicket> batch) {
    for (NewTicket n : batch) {
      for (Prerequisite p : n.after()) {
        if (p instanceof Prerequisite.Existing e && law.ticket(e.ticket()).isEmpty()) {
          return false;
        }
      }
    }
    return true;
  }

  private static boolean runnable(NewTicket n) {
    return (n.lane().equals(LANE_A) || n.lane().equals(LANE_B)) && TYPES.contains(n.type());
  }

  /** A batch of 1-6: refused whole, queuing nothing, when one ticket cannot run here; else one reply per ticket. */
  private void submitBatch() {
    List<NewTicket> batch = new ArrayList<>();
    for (int i = rng.nextInt(6) + 1; i > 0; i--) {
      NewTicket n = newTicket();
      if (!batch.isEmpty() && profile.pct(Knob.AFTER) > 0 && rng.nextInt(100) < profile.pct(Knob.AFTER)) {
        List<Prerequisite> after = new ArrayList<>(n.after());
        after.add(new Prerequisite.Earlier(rng.nextInt(batch.size())));
        n = n.withAfter(after);
        seen.saw("batch with a ticket that waits for an earlier one");
      }
      batch.add(n);
    }
    int before = law.tickets(TicketQuery.all()).size();
    Reply r = command(new Command.SubmitAll(batch));
    if (r == null) {
      return;
    }
    if (!batch.stream().allMatch(Simulation::runnable) || !prerequisitesExist(batch)) {
      expect(r instanceof Reply.Invalid, "a batch with a ticket this daemon cannot run, or that waits for no "
          + "ticket, is refused", r);
      expect(law.tickets(TicketQuery.all()).size() == before, "a refused batch queues nothing", r);
      seen.saw("batch refused");
    } else {
      expect(r instanceof Reply.SubmittedAll a && a.tickets().size() == batch.size(),
          "a valid batch answers one ticket per submission", r);
      seen.saw("batch accepted");
    }
  }

  private void queries() {
    Reply r = command(new Command.StatusQuery());
    if (r != null) {
      expect(r instanceof Reply.StatusReport, "status answers a report", r);
    }
    List<Ticket> all = law.tickets(TicketQuery.all());
    TicketId id = all.isEmpty() || rng.nextInt(5) == 0 ? new TicketId(10_000 + rng.nextInt(100))
        : all.get(rng.nextInt(all.size())).id();
    r = command(new Command.Show(id));
    if (r != null) {
      expect(law.ticket(id).isPresent() ? r instanceof Reply.TicketDetail : r instanceof Reply.NotFound,
          "show answers the ticket or not found", r);
    }
    r = command(new Command.ListRuns(RunQuery.all().live()));
    if (r != null) {
      expect(r instanceof Reply.RunList l && l.runs().equals(law.liveRuns()), "runs --live lists the live runs", r);
    }
  }

  private TicketId someTicket() {
    List<Ticket> all = law.tickets(TicketQuery.all());
    return all.isEmpty() ? new TicketId(1) : all.get(rng.nextInt(all.size())).id();
  }

  private void park() {
    int x = rng.nextInt(8);
    if (x == 0) {
      command(rng.nextBoolean() ? new Command.ParkLane(LANE_A) : new Command.UnparkLane(LANE_A));
    } else {
      TicketId t = someTicket();
      Reply r = command(x < 5 ? new Command.Park(t) : new Command.Unpark(t));
      if (r instanceof Reply.TicketChanged c && !c.note().isEmpty()) {
        seen.saw("park reached a live worker");
      }
    }
  }

  /** {@code vigil kill} (Q13): a live run is killed; a ticket without one is refused and nothing changes. */
  private void kill() {
    List<Ticket> leased = law.tickets(TicketQuery.all().inState(TicketState.LEASED));
    TicketId t = leased.isEmpty() || rng.nextInt(6) == 0 ? someTicket() : leased.get(rng.nextInt(leased.size())).id();
    StopIntent intent = List.of(StopIntent.KILL, StopIntent.KILL_RETRY, StopIntent.KILL_HOLD).get(rng.nextInt(3));
    Optional<Lease> lease = law.lease(t);
    Optional<Run> before = lease.flatMap(l -> law.run(l.run()));
    Reply r = command(new Command.Kill(t, null, intent));
    if (r == null) {
      return;
    }
    seen.saw("kill " + r.getClass().getSimpleName());
    if (r instanceof Reply.Killing k) {
      expect(before.isPresent() && k.run().id().equals(before.get().id()), "a kill names the ticket's live run", r);
      StopIntent onRecord = law.run(k.run().id()).map(Run::stopIntent).orElse(null);
      expect(onRecord != null && onRecord.kill(), "Q13: a kill is on record before anything else happens", r);
      seen.saw(before.get().state() == RunState.CLAIMED ? "killed while claimed" : "killed while " + before.get().state());
    } else {
      expect(before.isEmpty() || before.get().state() == RunState.EXITED, "a kill is refused only for a ticket "
          + "without a live run (or one whose exit is taken)", r);
    }
  }

  private void holdReleaseCancel() {
    TicketId t = someTicket();
    int x = rng.nextInt(4);
    if (x == 3) {
      handStart(t);
      return;
    }
    Reply r = command(x == 0 ? new Command.Hold(t, "operator") : x == 1 ? new Command.Release(t) : new Command.Cancel(t));
    if (r != null) {
      seen.saw("control " + r.getClass().getSimpleName());
    }
  }

  // ---- another host (H1) ----

  /** The host id of the daemon under test in the HOSTS profile. */
  static final String THIS_HOST = "host-a";
  static final String OTHER_HOST = "host-b";
  static final OwnerId OTHER_OWNER = new OwnerId("b-d1");
  static final ProcessIdentity OTHER_IDENTITY = new ProcessIdentity(OtherHostDaemon.BOOT, 4242, 77, 4242);
  static final Lane LANE_C = new Lane("c");
  private static final String OTHER_TOKEN = "ab".repeat(32);
  /** The other host's live runs as it last left them (H1: nothing else moves them until it is released). */
  private final Map<RunId, Run> otherRuns = new HashMap<>();
  /** Its runs a release was asked for when the daemon died at a verb: some may be settled, the rest are asked again. */
  private final Map<RunId, Run> releasing = new HashMap<>();
  private boolean otherRegistered;
  /**
   * The other host's daemons as real engines, which its operator asks to release this host (the partition
   * case), each booted for one command over a store port of its own that can end it at a verb.
   */
  private final CrashingCoordination atOtherHost = new CrashingCoordination(law);
  private final OtherHostDaemon otherDaemons = new OtherHostDaemon(OTHER_HOST, atOtherHost, scheduleLaw, TIMEOUTS);
  /** How many of the other host's daemons' events were looked at. */
  private int otherEventsSeen;
  /** When a daemon of the other host last settled or rolled back a run (monotonic ms). */
  private long otherHostSettledAtMono = Long.MIN_VALUE / 2;
  /** Runs of this host that the other host's operator released while their workers may have lived. */
  private final Map<RunId, Release> released = new HashMap<>();

  /**
   * A run of this host released by the other host.
   *
   * @param atMono      when
   * @param supervisor  the incarnation that supervised it then, or -1
   */
  private record Release(long atMono, int supervisor) {}

  /** Whether {@code owner} is of the other host: its simulated daemon or one of its engines. */
  private static boolean ofOtherHost(OwnerId owner) {
    return owner.equals(OTHER_OWNER) || owner.value().startsWith(OTHER_HOST + "-");
  }

  /** One step of the other host's daemon, through the store directly, or an operator's release of that host. */
  private void otherHost() {
    if (outage != null || coordination.down() || storeAtFailure != null) {
      return; // the store fails for every host alike
    }
    long now = world.wallMs;
    if (!otherRegistered) {
      law.registerOwner(new Owner(OTHER_OWNER, "other", OTHER_IDENTITY, "b1", now, OTHER_HOST));
      otherRegistered = true;
      otherDaemons.alive = OTHER_IDENTITY::equals;
      otherDaemons.reserved = run -> otherRuns.containsKey(run) || releasing.containsKey(run);
    }
    law.renewAll(OTHER_OWNER, now, TIMEOUTS.ms(Timeout.LEASE_TTL));
    int x = rng.nextInt(50);
    if (x == 0 && up() && !inc.shutdownPending) {
      releaseOtherHost();
      return;
    }
    if (x == 1) {
      releaseThisHost();
      return;
    }
    if (x == 2) {
      otherDaemonStarts();
      return;
    }
    List<Run> mine = new ArrayList<>(otherRuns.values());
    if (x < 12) {
      law.submit(new NewTicket(LANE_C, "cmd", "{}", 1 + rng.nextInt(3), 0, 0, null, RunSpec.DEFAULT,
          new java.util.TreeMap<>(), List.of()), now);
      seen.saw("H1 the other host submitted");
    } else if (x < 24) {
      Lane lane = rng.nextInt(3) == 0 ? LANE_A : LANE_C; // a lane both hosts serve, each with its own slots
      List<Ticket> ready = law.tickets(TicketQuery.all().inState(TicketState.READY).inLane(lane));
      if (!ready.isEmpty() && law.claim(ready.get(0).id(), OTHER_OWNER, now, TIMEOUTS.ms(Timeout.LEASE_TTL))
          instanceof dev.vigil.coordination.Claim.Granted g) {
        otherRuns.put(g.run().id(), g.run());
        seen.saw("H1 the other host claimed");
        if (lane.equals(LANE_A)) {
          seen.saw("H1 the other host claimed in a lane of this host");
        }
      }
    } else if (!mine.isEmpty()) {
      Run r = mine.get(rng.nextInt(mine.size()));
      if (r.state() == RunState.CLAIMED) {
        otherStep(r.id(), law.start(r.id(), OTHER_OWNER, new dev.vigil.coordination.RunStart(
            new ProcessIdentity(OtherHostDaemon.BOOT, 5000 + r.ticket().seq(), 9, 5000 + r.ticket().seq()), "b1",
            OTHER_TOKEN, now, 0)) instanceof dev.vigil.coordination.Start.Started st ? st.run() : null, "started");
      } else if (r.state() == RunState.RUNNING) {
        otherStep(r.id(), law.takeExit(r.id(), dev.vigil.coordination.ExitOwner.supervisor(OTHER_OWNER),
            new dev.vigil.coordination.RunExit(0, null, now)) instanceof dev.vigil.coordination.Exit.Taken t
            ? t.run() : null, "took an exit");
      } else if (r.state() == RunState.EXITED) {
        Run current = law.run(r.id()).orElseThrow();
        dev.vigil.coordination.Settlement st = law.finish(new dev.vigil.coordination.Finish(r.id(),
            dev.vigil.coordination.ExitOwner.supervisor(OTHER_OWNER),
            current.stopIntent() == null ? Verdict.SUCCEEDED : Verdict.KILLED, "done", 0, false, null), now);
        otherRuns.remove(r.id());
        law.run(r.id()).filter(y -> y.state() != RunState.SETTLED).ifPresent(y -> otherRuns.put(y.id(), y));
        if (st instanceof dev.vigil.coordination.Settlement.Settled) {
          seen.saw("H1 the other host settled");
        }
      }
    }
  }

  /** The other host's verb on its run: the run as it left it, or gone from its list when denied. */
  private void otherStep(RunId run, Run after, String did) {
    if (after == null) { // denied: a start of a run killed while claimed is rolled back by its own host
      Run now = law.run(run).orElseThrow();
      if (now.state() == RunState.CLAIMED) {
        law.abortClaim(run, OTHER_OWNER, "stopped before it began", world.wallMs);
        seen.saw("H1 the other host rolled back its killed claim");
      }
      otherRuns.remove(run);
      law.run(run).filter(r -> r.state() != RunState.SETTLED).ifPresent(r -> otherRuns.put(run, r));
    } else {
      otherRuns.put(run, after);
      seen.saw("H1 the other host " + did);
    }
  }

  /** Whether the released host {@code host}'s release takes {@code r}: its run, or one whose exit a daemon of it took. */
  private static boolean releasedWith(Run r, boolean otherHost) {
    boolean runOf = ofOtherHost(r.owner()) == otherHost;
    boolean exitOf = r.state() == RunState.EXITED && ofOtherHost(r.exitOwner().owner()) == otherHost;
    return runOf || exitOf;
  }

  /** H1: an operator releases the other host: its claims are rolled back, its other live runs settled LOST. */
  private void releaseOtherHost() {
    Map<RunId, Run> before = new HashMap<>();
    for (Run r : law.liveRuns()) {
      if (releasedWith(r, true)) {
        before.put(r.id(), r);
      }
    }
    boolean armed = !before.isEmpty() && !coordination.armed() && rng.nextInt(4) == 0;
    if (armed) { // the daemon dies at one of the release's verbs, before or after it commits
      coordination.arm(1 + rng.nextInt(Math.min(3, 2 * before.size())), rng.nextBoolean());
      seen.saw("verb crash armed in a release");
    }
    Reply r = command(new Command.ReleaseHost(OTHER_HOST));
    if (armed && r != null) {
      coordination.disarm(); // the release had fewer verbs than that
    }
    if (r == null) { // the daemon died at a verb, perhaps half way: its next daemon finishes, or the operator asks again
      releasing.putAll(otherRuns);
      otherRuns.clear();
      seen.saw("H1 a release was cut short by a daemon crash");
      return;
    }
    if (r instanceof Reply.Denied) {
      return;
    }
    expect(r instanceof Reply.HostReleased, "a release of another host answers what it released", r);
    Reply.HostReleased h = (Reply.HostReleased) r;
    checkReleased(before, h.runs(), r);
    seen.saw(before.isEmpty() ? "H1 release found nothing live" : "H1 released a host");
    if (before.values().stream().anyMatch(x -> !ofOtherHost(x.owner()))) {
      seen.saw("H1 a release of the other host finished its release of this host, cut short");
    }
    if (!releasing.isEmpty()) {
      seen.saw("H1 a release asked again after a crash");
    }
    otherRuns.clear();
    releasing.clear();
  }

  /** H1: each run live {@code before} a release is rolled back (a claim) or settled LOST (KILLED when killed). */
  private void checkReleased(Map<RunId, Run> before, List<RunId> named, Object r) {
    for (Map.Entry<RunId, Run> e : before.entrySet()) {
      Run now = law.run(e.getKey()).orElseThrow();
      if (named == null && now.state() != RunState.SETTLED) {
        continue; // the release died before it settled this one
      }
      expect(now.state() == RunState.SETTLED && (named == null || named.contains(e.getKey())),
          "H1: a released host's live run is settled or rolled back: " + now, r);
      if (e.getValue().state() == RunState.CLAIMED) {
        expect(now.verdict() == Verdict.ABANDONED, "H1: a released claim is rolled back: " + now, r);
        seen.saw("H1 release rolled back a claim");
      } else {
        expect(now.verdict() == (now.stopIntent() != null && now.stopIntent().kill() ? Verdict.KILLED : Verdict.LOST),
            "H1: a released host's run is settled LOST (KILLED when a kill was on record): " + now, r);
        seen.saw("H1 release settled a " + e.getValue().state() + " run " + now.verdict());
      }
    }
    if (named != null) {
      expect(named.size() == before.size(), "H1: a release names the runs it released and no other", r);
    }
  }

  /**
   * H1, the partition case: an operator of the other host releases this host, whose daemon may well be running
   * (or down between a crash and its next boot): one of that host's daemons rolls back this host's claims and
   * settles its runs LOST. One release in four dies at one of its verbs; the other host's next daemon finishes
   * it. This host's daemon must stop each released worker as lost, tell none go, and settle none.
   */
  private void releaseThisHost() {
    boolean daemonUp = up();
    otherHostSettledAtMono = world.monoMs; // (a settlement whose daemon died right after its commit has no event)
    atOtherHost.disarm();
    if (rng.nextInt(4) == 0) {
      atOtherHost.arm(2 + rng.nextInt(3), rng.nextBoolean()); // its registration is the first verb
    }
    try {
      otherDaemons.boot(world.monoMs, world.wallMs); // its recovery finishes a release of this host it cut short
    } catch (SimulatedCrash c) {
      atOtherHost.disarm();
      otherEvents(true);
      seen.saw("H1 the other host's daemon died at its start");
      return;
    }
    otherEvents();
    Map<RunId, Run> before = new HashMap<>();
    for (Run r : law.liveRuns()) {
      if (releasedWith(r, false)) {
        before.put(r.id(), r);
      }
    }
    Reply r = null;
    try {
      r = otherDaemons.command(new Command.ReleaseHost(THIS_HOST), world.monoMs, world.wallMs);
    } catch (SimulatedCrash c) {
      seen.saw("H1 a release of this host was cut short by its daemon's crash");
    }
    atOtherHost.disarm();
    otherEvents();
    if (r != null) {
      expect(r instanceof Reply.HostReleased, "a release of this host answers what it released", r);
      checkReleased(before, ((Reply.HostReleased) r).runs(), r);
    } else {
      checkReleased(before, null, "a release cut short");
    }
    for (Run b : before.values()) {
      Run now = law.run(b.id()).orElseThrow();
      if (ofOtherHost(b.owner()) || (now.state() != RunState.SETTLED && now.state() == b.state())) {
        continue; // the other host's own run (an exit this host's release took), or not reached before a crash
      }
      boolean supervised = daemonUp && inc.engine.supervises(b.id());
      if (released.putIfAbsent(b.id(), new Release(world.monoMs, supervised ? inc.n : -1)) == null) {
        world.checkpointsLost(b.id());
        boolean working = world.tasksOf(b.id()).stream().anyMatch(p -> p.gotGo && world.workerLives(p));
        seen.saw("H1 released this host " + (supervised ? "while its daemon supervised the run"
            : daemonUp ? "while its daemon ran" : "while its daemon was down") + (working ? ", its worker working" : ""));
      }
    }
    if (before.isEmpty()) {
      seen.saw("H1 a release of this host found nothing live");
    }
  }

  /** H1: the other host's daemon starts (and is gone again): its recovery finishes a release of this host it cut short. */
  private void otherDaemonStarts() {
    atOtherHost.disarm();
    otherHostSettledAtMono = world.monoMs;
    try {
      otherDaemons.boot(world.monoMs, world.wallMs);
    } catch (SimulatedCrash c) {
      throw new AssertionError("the other host's daemon is never armed to crash at a plain start", c);
    }
    otherEvents();
    seen.saw("H1 the other host's daemon started");
  }

  /** The events of the other host's daemons since the last look: each run is settled once, by whichever host. */
  private void otherEvents() {
    otherEvents(false);
  }

  /**
   * As above; {@code crashed}: that daemon died at one of its verbs, so the last finish of a release it began
   * may be cut short in turn (the next look finishes it).
   */
  private void otherEvents(boolean crashed) {
    List<EngineEvent> events = otherDaemons.events;
    for (; otherEventsSeen < events.size(); otherEventsSeen++) {
      EngineEvent e = events.get(otherEventsSeen);
      if (e instanceof EngineEvent.Settled st) {
        onceSettled(st.run());
        otherHostSettledAtMono = world.monoMs;
      } else if (e instanceof EngineEvent.ClaimAborted) {
        otherHostSettledAtMono = world.monoMs;
      } else if (e instanceof EngineEvent.SettleDenied d) {
        violated("C8: the other host's daemon had a settlement denied: " + d);
      } else if (e instanceof EngineEvent.Recovered rec) {
        seen.saw("H1 the other host's daemon recovered " + rec.action());
        if (rec.action() == EngineEvent.RecoveryAction.FINISH_RELEASE) {
          Run now = law.run(rec.run()).orElseThrow();
          if (crashed && otherEventsSeen == events.size() - 1 && now.state() == RunState.EXITED) {
            seen.saw("H1 finishing a release cut short was cut short too");
            continue;
          }
          expect(now.state() == RunState.SETTLED && (now.verdict() == Verdict.LOST || now.verdict() == Verdict.KILLED),
              "H1: a release cut short is settled as the release would have", now);
        }
      }
    }
  }

  /** C8: each run is settled once, whichever daemon of whichever host settles it. */
  private void onceSettled(RunId run) {
    if (!settledRuns.add(run)) {
      violated("C8/Q13: run " + run + " was settled twice");
    }
  }

  /**
   * H1, after every step: the other host's live runs are as it left them; a released run of this host is never
   * told go (its worker's own check), its worker is stopped within a reconcile pass and the stop's grace of the
   * release (or of the boot of the daemon that meets it) while this host's daemon runs, and no other of its
   * ticket's runs counts it as a second working process.
   */
  private void checkOtherHost() {
    for (Run left : List.copyOf(otherRuns.values())) {
      Run now = law.run(left.id()).orElseThrow();
      if (now.stopIntent() != left.stopIntent()) {
        seen.saw("H1 a kill of another host's run is on record for that host");
        left = new Run(left.id(), left.attempt(), left.state(), left.owner(), left.claimedAtMs(), left.handStarted(),
            left.start(), left.exit(), left.exitOwner(), left.verdict(), left.diagnosis(), now.stopIntent(),
            left.result()); // an operator's kill is recorded for the host that runs it
        otherRuns.put(left.id(), left);
      }
      if (!now.equals(left)) {
        violated("H1: run " + left.id() + " of another host was changed by this host's daemon: it left " + left
            + ", the store has " + now);
      }
    }
    if (!otherRuns.isEmpty()) {
      seen.saw("H1 another host's live runs checked");
    }
    // a reconcile pass to notice, TERM after a grace, KILL after another, death seen: each of these four falls on a
    // step, which may come up to a second late, and the stop's signals repeat once more after a third grace
    long bound = TIMEOUTS.ms(Timeout.RECONCILE) + 3 * TIMEOUTS.ms(Timeout.STOP_GRACE) + 4 * 1_000 + 1_000;
    for (Map.Entry<RunId, Release> e : released.entrySet()) {
      for (SimWorld.TaskProc p : world.tasksOf(e.getKey())) {
        if (!p.gotGo || !world.workerLives(p) || !up()) {
          continue;
        }
        long since = Math.max(e.getValue().atMono(), inc.bootMono);
        if (world.monoMs - since > bound) {
          violated("H1: the worker " + p.identity + " of " + e.getKey() + ", which the other host's operator released, "
              + "still works " + (world.monoMs - since) + " ms after the release while d" + inc.n + " runs");
        }
      }
    }
  }

  /**
   * The quiet phase: the other host stops for good. A release of this host it cut short is finished by its next
   * daemon or, half the time, by this host's operator releasing it; then the operator releases it and cancels
   * what it left queued.
   */
  private void otherHostLeaves() {
    if (!otherRegistered || outage != null || coordination.down() || storeAtFailure != null) {
      return;
    }
    boolean cutShort = law.liveRuns().stream().anyMatch(r -> r.state() == RunState.EXITED && !ofOtherHost(r.owner())
        && ofOtherHost(r.exitOwner().owner()));
    if (cutShort && rng.nextBoolean()) {
      otherDaemonStarts();
    } else if ((cutShort || !otherRuns.isEmpty() || !releasing.isEmpty()) && up() && !inc.shutdownPending) {
      releaseOtherHost();
    }
    if (otherRuns.isEmpty() && releasing.isEmpty()) {
      for (Lane lane : List.of(LANE_C)) {
        for (Ticket t : law.tickets(TicketQuery.all().inState(TicketState.READY).inLane(lane))) {
          law.cancel(t.id(), world.wallMs);
        }
      }
    }
  }

  /**
   * Q18: a maintenance job prunes (or compacts); every ticket it deletes was finished before, no live ticket or
   * run is touched, and a real prune's directories are recorded removed, some or all, unless the daemon died.
   */
  private void prune() {
    if (rng.nextInt(10) == 0) {
      Reply r = command(new Command.Compact("compact"));
      if (r != null) {
        expect(r instanceof Reply.Compacted, "a compaction answers what it did", r);
        seen.saw("compacted");
      }
      return;
    }
    Snapshot before = law.snapshot();
    boolean dry = rng.nextInt(4) == 0;
    Reply r = command(new Command.Prune(rng.nextBoolean() ? "retention" : "prune", rng.nextInt(20_000), dry));
    if (!(r instanceof Reply.Pruned p)) {
      if (r != null) {
        expect(r instanceof Reply.Denied, "a prune is answered with what it did, or denied when stopping", r);
      }
      return;
    }
    Map<TicketId, Ticket> was = new HashMap<>();
    before.tickets().forEach(t -> was.put(t.id(), t));
    for (TicketId t : p.pruning().tickets()) {
      Ticket b = was.get(t);
      expect(b != null && b.state().terminal(), "Q18: only a finished ticket is pruned: " + t + " was " + b, r);
      expect(dry == law.ticket(t).isPresent(), "Q18: a prune deletes what it names, a dry run nothing: " + t, r);
    }
    for (Ticket t : before.tickets()) {
      if (!t.state().terminal()) {
        expect(law.ticket(t.id()).isPresent(), "Q18: a ticket that is not finished is never pruned: " + t.id(), r);
      }
    }
    for (dev.vigil.coordination.Run run : before.runs()) {
      if (run.state() != dev.vigil.coordination.RunState.SETTLED) {
        expect(law.run(run.id()).isPresent(), "Q18: a live run is never pruned: " + run.id(), r);
      }
    }
    seen.saw(dry ? "prune dry run" : p.pruning().tickets().isEmpty() ? "prune found nothing" : "prune deleted tickets");
    if (p.pruning().kept().get(dev.vigil.coordination.Retention.Reason.LINKED) > 0) {
      seen.saw("prune kept a linked ticket");
    }
    if (dry || p.pruning().directories().isEmpty()) {
      return;
    }
    List<RunId> dirs = p.pruning().directories();
    List<RunId> removed = rng.nextInt(3) == 0 ? dirs.subList(0, rng.nextInt(dirs.size()) + 1) : dirs;
    if (rng.nextInt(5) == 0) {
      crash("between a prune and its directories' removal");
      seen.saw("daemon crash between a prune and its directories' removal");
      return;
    }
    Reply d = command(new Command.DirectoriesRemoved("retention", removed, removed.size() + " run directories removed"));
    if (d instanceof Reply.DirectoriesRecorded) {
      seen.saw("prune directories recorded removed");
    }
  }

  /** Q16: an operator answers an open question; the answer alone changes no ticket, run, lease or lane. */
  private void answer() {
    List<Question> open = law.questions(Set.of(Question.State.OPEN));
    int x = rng.nextInt(20);
    if (open.isEmpty() || x == 0) {
      QuestionId missing = new QuestionId(law.questions(Set.of()).size() + 1 + rng.nextInt(5));
      Reply r = command(new Command.Answer(missing, "retry"));
      if (r != null) {
        expect(r instanceof Reply.NotFound, "an answer to no question is refused as not found", r);
        seen.saw("answer to no question");
      }
      return;
    }
    Question q = open.get(rng.nextInt(open.size()));
    List<String> names = q.optionNames();
    String option = x <= 2 ? "banana" : names.get(rng.nextInt(names.size()));
    Snapshot before = law.snapshot();
    Reply r = command(new Command.Answer(q.id(), option));
    if (r == null) {
      return;
    }
    if (option.equals("banana")) {
      expect(r instanceof Reply.Invalid, "an answer with an option the question does not offer is refused", r);
      seen.saw("answer refused: no such option");
    } else if (r instanceof Reply.QuestionAnswered a) {
      expect(a.question().answer().equals(option), "the answer is recorded as given", r);
      seen.saw("answer recorded: " + option);
      for (dev.vigil.coordination.Action act : a.question().chosen().orElseThrow().actions()) {
        if (act instanceof dev.vigil.coordination.Action.RestartService
            || act instanceof dev.vigil.coordination.Action.StopService) {
          answeredServiceStops.add(act.service()); // applied by this daemon or a later one: an operator's stop
        }
      }
    } else {
      expect(r instanceof Reply.Denied && law.question(q.id()).orElseThrow().state() != Question.State.OPEN,
          "an answer is refused only when one was recorded before", r);
    }
    Snapshot after = law.snapshot();
    expect(before.tickets().equals(after.tickets()) && before.runs().equals(after.runs())
        && before.leases().equals(after.leases()) && before.parkedLanes().equals(after.parkedLanes()),
        "Q16: the deputy's answer acts on nothing", r);
  }

  /** {@code vigil run TICKET} (Q8): granted only for a READY, unparked, due ticket, and the run is marked. */
  private void handStart(TicketId t) {
    Reply status = command(new Command.StatusQuery());
    if (!(status instanceof Reply.StatusReport report)) {
      return;
    }
    Status.State state = report.status().state();
    Optional<Ticket> before = law.ticket(t);
    boolean laneParked = before.isPresent() && law.parkedLanes().contains(before.get().lane());
    boolean resume = (t.seq() + world.wallMs) % 2 == 0; // not from rng: the other draws of a seed stay as they were
    // Q17: what the attempt would be handed; --resume starts only an attempt that would resume
    boolean wouldResume = before.isPresent() && TYPES.get(before.get().type()).map(WorkerTypeSpec::resumable).orElse(false)
        && law.checkpoint(t).isPresent();
    Reply r = command(new Command.RunByHand(t, resume));
    if (r == null) {
      return;
    }
    seen.saw("hand start " + r.getClass().getSimpleName());
    boolean refusedToStartOver = r instanceof Reply.Denied d && d.reason().contains(" would start over, not resume: ");
    if (refusedToStartOver) {
      seen.saw("hand start refused: would start over");
      expect(resume && !wouldResume, "Q17: --resume refuses only an attempt that would start over", r);
      expect(law.ticket(t).equals(before), "Q17: a refused --resume changes nothing", r);
      return;
    }
    if (r instanceof Reply.HandStarted h) {
      expect(!resume || wouldResume, "Q17: --resume starts only an attempt that would resume", r);
      expect((h.resumedFrom() != null) == wouldResume && (h.resumedFrom() == null
          || h.resumedFrom().equals(law.checkpoint(t).orElseThrow())), "Q17: a hand start resumes from the latest", r);
      if (h.resumedFrom() != null) {
        seen.saw(resume ? "hand start resumed (--resume)" : "hand start resumed");
      }
      expect(h.run().handStarted() && h.run().id().ticket().equals(t), "a hand start claims a hand-started run of " + t, r);
      expect(before.isPresent() && before.get().claimableAt(world.wallMs) && !laneParked,
          "only a READY, unparked, due ticket is started by hand", r);
    } else {
      boolean full = r instanceof Reply.Denied d && d.reason().contains(" is full (");
      boolean stopping = r instanceof Reply.Denied d && d.reason().contains("shutting down")
          && state != Status.State.RUNNING && state != Status.State.PAUSED;
      if (full) {
        seen.saw("hand start refused: lane full");
      }
      boolean waiting = before.isPresent() && !Prerequisites.met(before.get().after().stream()
          .map(p -> law.ticket(p).orElseThrow().state()).toList());
      if (waiting) {
        seen.saw("hand start refused: waits for others");
      }
      expect(stopping || (before.isEmpty() ? r instanceof Reply.NotFound : !before.get().claimableAt(world.wallMs)
          || laneParked || full || waiting || r instanceof Reply.Invalid), "a hand start is refused only when the ticket "
          + "cannot be claimed or the daemon is shutting down", r);
    }
  }

  private void shutdown(Command.Shutdown.Mode mode) {
    Inc i = inc;
    i.shutdownPending = true;
    i.idleShutdown = mode == Command.Shutdown.Mode.IF_IDLE;
    i.stopWorkers = mode == Command.Shutdown.Mode.STOP_WORKERS;
    world.idleShutdownPending = i.idleShutdown;
    world.stoppingBeforeIdleShutdown.clear();
    world.stoppingBeforeIdleShutdown.addAll(i.escalating);
    seen.saw("shutdown " + mode);
    int[] replies = {0};
    call(e -> {
      e.onClientCommand(new Command.Shutdown(mode), r -> shutdownReplied(i, mode, r, replies), world.monoMs,
          world.wallMs);
      return null;
    });
  }

  /**
   * D4 by {@code vigil restart}: the daemon stops at once, answered in the same call; no worker is
   * sent anything (no stop, no quiesce) and every worker stays alive for the next daemon, which
   * boots on the same build and takes each live run over without a new run or a spent attempt.
   */
  private void restart() {
    Map<WorkerKey, Integer> inboxes = new HashMap<>();
    world.bound.forEach((k, w) -> inboxes.put(k, w.inbox.size()));
    List<SimWorld.Proc> alive = world.livePids.values().stream().filter(p -> p.alive).toList();
    shutdown(Command.Shutdown.Mode.LEAVE_WORKERS);
    if (inc != null && inc.engine != null && !inc.engine.stopped()) {
      violated("D4: a restart's shutdown did not stop the daemon at once");
    }
    world.bound.forEach((k, w) -> {
      if (w.inbox.size() > inboxes.getOrDefault(k, 0)) {
        violated("D4: a restart sent " + k + " " + w.inbox.peekLast().message());
      }
    });
    for (SimWorld.Proc p : alive) {
      if (!p.alive) {
        violated("D4: a restart ended the worker " + p.identity);
      }
    }
    restartLeft.clear();
    for (SimWorld.Proc p : alive) {
      if (p instanceof SimWorld.TaskProc t && t.gotGo) {
        restartLeft.add(t.run);
      }
    }
    if (!restartLeft.isEmpty()) {
      seen.saw("restart: a task worker left running");
    }
    if (alive.stream().anyMatch(p -> p instanceof SimWorld.ServiceProc)) {
      seen.saw("restart: a service worker left running");
    }
  }

  private void shutdownReplied(Inc i, Command.Shutdown.Mode mode, Reply r, int[] replies) {
    if (++replies[0] > 1) {
      violated("a command is answered exactly once: shutdown answered twice");
    }
    i.shutdownPending = false;
    if (inc == i) {
      world.idleShutdownPending = false;
    }
    seen.saw("shutdown " + mode + " -> " + r.getClass().getSimpleName());
    if (r instanceof Reply.ShuttingDown && mode == Command.Shutdown.Mode.LEAVE_WORKERS) {
      restarted = true;
    } else if (r instanceof Reply.ShuttingDown) {
      if (!law.liveRuns().isEmpty()) {
        violated("S5 idle shutdown never aborts: shutting down with live runs " + law.liveRuns());
      }
      for (SimWorld.Proc p : world.livePids.values()) {
        if (p instanceof SimWorld.TaskProc t && t.gotGo) {
          violated("S5: shutting down while task worker " + t.identity + " of " + t.run + " works");
        } else if (p instanceof SimWorld.ServiceProc s && s.work().isBusy() && mode == Command.Shutdown.Mode.IF_IDLE) {
          violated("S5 idle shutdown never aborts: shutting down while " + s.key + " has work " + s.work().describe());
        }
      }
    } else if (r instanceof Reply.Busy) {
      i.roundStopAll = false;
    } else {
      expect(r instanceof Reply.Denied, "a shutdown is answered ShuttingDown, Busy or Denied", r);
    }
  }

  private Reply command(Command c) {
    Reply[] out = new Reply[1];
    int[] count = {0};
    call(e -> {
      e.onClientCommand(c, r -> {
        out[0] = r;
        count[0]++;
      }, world.monoMs, world.wallMs);
      return null;
    });
    if (inc != null && inc.engine != null && count[0] != 1) {
      violated("a command is answered exactly once at once: " + c + " answered " + count[0] + " times");
    }
    return out[0];
  }

  /** Q8: a hand-started run never leaves its ticket READY. */
  private void handStartedSettled(RunId run) {
    Optional<Run> r = law.run(run);
    if (r.isEmpty() || !r.get().handStarted()) {
      return;
    }
    TicketState after = law.ticket(run.ticket()).orElseThrow().state();
    if (after == TicketState.READY) {
      violated("Q8: hand-started run " + run + " settled " + r.get().verdict() + " and left its ticket READY");
    }
    seen.saw("hand-started run settled: ticket " + after);
  }

  private void expect(boolean ok, String what, Object r) {
    if (!ok) {
      violated(what + ", got " + r);
    }
  }

  private Object script(LaunchRequest request) {
    SplittableRandom r = new SplittableRandom(rng.nextLong());
    if (request.key() instanceof WorkerKey.Task) {
      return SimWorld.TaskScript.random(r, faults);
    }
    return SimWorld.ServiceScript.random(r, faults, profile.pct(Knob.SERVICE_CRASH));
  }

  // ---- the quiet phase: faults stop, every ticket must settle ----

  private void quiet() {
    faults = false;
    world.launchFailurePercent = 0;
    coordination.disarm();
    schedules.disarm();
    for (ScheduleView v : scheduleLaw.list()) { // schedules fire forever: stop them, so that every ticket can settle
      scheduleLaw.pause(v.schedule().name());
    }
    world.crashAfterNextLaunch = false;
    for (quietSteps = 1; quietSteps <= QUIET_STEPS; quietSteps++) {
      if (inc != null && inc.engine != null && !inc.shutdownPending) {
        command(new Command.Resume());
        for (Ticket t : law.tickets(TicketQuery.all())) {
          if (t.parked()) {
            command(new Command.Unpark(t.id()));
          }
        }
        if (law.parkedLanes().contains(LANE_A)) {
          command(new Command.UnparkLane(LANE_A));
        }
      }
      advanceClock(1_000);
      world.step();
      store();
      if (inc == null && world.monoMs >= bootAtMono) {
        boot();
      }
      otherHostLeaves();
      deliverExits();
      tick();
      check();
      if (resting()) {
        seen.saw("every ticket settled");
        coordination.batchesOfSeveral().forEach((verb, calls) -> seen.saw(verb + " of several runs in one pass"));
        dependencies();
        questionsSettled();
        return;
      }
    }
    StringBuilder b = new StringBuilder();
    for (Ticket t : law.tickets(TicketQuery.all())) {
      if (!restingState(t.state())) {
        b.append("\n    ").append(t.id()).append(' ').append(t.state()).append(" parked=").append(t.parked())
            .append(" notBefore in ").append(t.notBeforeMs() - world.wallMs).append(" ms, runs ").append(law.runsOf(t.id()));
      }
    }
    violated("liveness: once faults stopped, not every ticket settled within " + QUIET_STEPS + " s:" + b);
  }

  /**
   * Q14 at the end of a history (the invariants checked it at every step): counts the dependents that
   * ran, each after every prerequisite succeeded, and those held for a prerequisite.
   */
  private void dependencies() {
    for (Ticket t : law.tickets(TicketQuery.all())) {
      if (t.after().isEmpty()) {
        continue;
      }
      if (!law.runsOf(t.id()).isEmpty()) {
        seen.saw("Q14: a dependent ran after its prerequisites succeeded");
      }
      if (t.heldFor() != null) {
        seen.saw("Q14: a dependent held for a prerequisite that " + switch (law.ticket(t.heldFor()).orElseThrow()
            .state()) {
          case HELD -> "is held";
          case FAILED -> "failed";
          case CANCELLED -> "was cancelled";
          default -> "is " + law.ticket(t.heldFor()).orElseThrow().state();
        });
      }
      if (t.retryOf() == null && law.runsOf(t.id()).size() > 0 && t.after().stream()
          .anyMatch(p -> law.ticket(p).orElseThrow().retryOf() != null)) {
        seen.saw("Q14: a dependent ran after the retry of its prerequisite");
      }
    }
  }

  /**
   * Q16 once faults stopped: a daemon that is up has applied every answered question (one answered before a
   * crash too, after the restart) and has asked about every held ticket.
   */
  private void questionsSettled() {
    for (int i = 0; i < 3 && inc != null && inc.engine != null; i++) {
      advanceClock(1_000);
      world.step();
      store();
      tick();
    }
    if (inc == null || inc.engine == null || inc.shutdownPending) {
      return;
    }
    List<Question> answered = law.questions(Set.of(Question.State.ANSWERED));
    if (!answered.isEmpty()) {
      violated("Q16: a daemon is up and questions stay answered, not applied: " + answered);
    }
    for (Ticket t : law.tickets(TicketQuery.all().inState(TicketState.HELD))) {
      if (t.heldFor() == null && law.questionByKey(DaemonQuestions.heldKey(t, law.runsOf(t.id()).size())).isEmpty()) {
        violated("Q16: a daemon is up and asked nothing about held ticket " + t.id());
      }
    }
    long applied = law.questions(Set.of(Question.State.APPLIED)).size();
    if (applied > 0) {
      seen.saw("questions applied");
    }
  }

  private static boolean restingState(TicketState s) {
    return s == TicketState.SUCCEEDED || s == TicketState.FAILED || s == TicketState.HELD || s == TicketState.CANCELLED;
  }

  private boolean resting() {
    for (Ticket t : law.tickets(TicketQuery.all())) {
      if (!restingState(t.state())) {
        return false;
      }
    }
    for (SimWorld.Proc p : world.everyProcess) {
      if (p instanceof SimWorld.TaskProc t && world.workerLives(t)) {
        return false;
      }
    }
    return law.liveRuns().isEmpty();
  }

  // ---- invariants after every step ----

  private void check() {
    checkSchedules();
    checkOtherHost();
    for (Map.Entry<String, Integer> r : coordination.restoresAdded().entrySet()) {
      if (r.getValue() > 1) {
        violated("S7 one notice per restore: restore " + r.getKey() + " was stored " + r.getValue() + " times");
      }
    }
    for (TicketId t : coordination.pruned) {
      if (law.ticket(t).isPresent()) {
        violated("Q18: ticket " + t + " was pruned but the store has it again");
      }
    }
    for (SimWorld.Proc p : world.everyProcess) {
      // A worker that was never told to go may outlive its pruned ticket: a daemon that died launched it, the next
      // one aborted its claim before it held its lock, and its hello is denied as of an unknown run.
      if (p instanceof SimWorld.TaskProc t && world.workerLives(t) && coordination.pruned.contains(t.run.ticket())) {
        if (t.gotGo) {
          violated("Q18: the ticket of live run " + t.run + " was pruned");
        }
        seen.saw("a worker never told to go outlived its pruned ticket");
      }
    }
    for (Map.Entry<QuestionId, Integer> a : coordination.applies().entrySet()) {
      if (a.getValue() > 1) {
        violated("Q16 applied once: question " + a.getKey() + " was applied " + a.getValue() + " times");
      }
    }
    Snapshot now = law.snapshot();
    List<String> broken = CoordinationInvariants.violations(now);
    if (!broken.isEmpty()) {
      violated(String.join("; ", broken));
    }
    if (storeAtFailure != null) {
      if (coordination.down() || outage != null) {
        if (!now.equals(storeAtFailure)) {
          violated("D5: the store changed while it failed or before the daemon reopened it (events "
              + storeAtFailure.events().size() + " -> " + now.events().size() + ")");
        }
      } else {
        storeAtFailure = null;
      }
    }
    Map<dev.vigil.coordination.TicketId, List<SimWorld.TaskProc>> working = new TreeMap<>();
    for (SimWorld.Proc p : world.everyProcess) {
      if (p instanceof SimWorld.TaskProc t && t.gotGo && world.workerLives(t)) {
        if (released.containsKey(t.run)) {
          // H1: a release of a host whose daemon runs may let the ticket's next run start beside it while it is
          // stopped (the released worker's stop is bounded in checkOtherHost)
          if (working.containsKey(t.run.ticket()) || law.runsOf(t.run.ticket()).size() > t.run.number()) {
            seen.saw("H1 a released worker was still stopping when its ticket ran again");
          }
          continue;
        }
        working.computeIfAbsent(t.run.ticket(), k -> new ArrayList<>()).add(t);
      }
    }
    for (Map.Entry<dev.vigil.coordination.TicketId, List<SimWorld.TaskProc>> e : working.entrySet()) {
      if (e.getValue().size() > 1) {
        StringBuilder b = new StringBuilder();
        for (SimWorld.TaskProc t : e.getValue()) {
          b.append(' ').append(t.run).append('@').append(t.identity.pid());
        }
        violated("C1 no double spawn: ticket " + e.getKey() + " has " + e.getValue().size() + " live working processes:" + b);
      }
    }
    Map<Lane, Integer> occupied = ownLiveRuns();
    if (maxStarting == 1 && occupied.values().stream().mapToInt(Integer::intValue).sum()
        < lanes.stream().mapToInt(EngineConfig.LaneLimit::concurrency).sum()
        && world.everyProcess.stream().anyMatch(p -> p instanceof SimWorld.TaskProc t && t.alive && !t.gotGo)
        && !law.tickets(TicketQuery.all().inState(TicketState.READY)).isEmpty()) {
      seen.saw("a worker starting while work waits and a slot is free");
    }
    for (EngineConfig.LaneLimit l : lanes) {
      if (occupied.getOrDefault(l.lane(), 0) > l.concurrency()) {
        violated("Q11 slots from live workers: lane " + l.lane() + " has " + occupied.get(l.lane()) + " live runs, limit "
            + l.concurrency());
      }
    }
  }

  /** Q11, H1: this host's live runs per lane: LEASED tickets whose lease is held by an owner of this host. */
  private Map<Lane, Integer> ownLiveRuns() {
    Map<Lane, Integer> occupied = new HashMap<>();
    for (Ticket t : law.tickets(TicketQuery.all().inState(TicketState.LEASED))) {
      if (law.lease(t.id()).map(l -> !ofOtherHost(l.owner())).orElse(true)) {
        occupied.merge(t.lane(), 1, Integer::sum);
      }
    }
    return occupied;
  }

  // ---- the journal: every decision checked against the world when it is made ----

  /** A cron's next fire after a moment, by cron, zone and moment. */
  private record CronLook(Cron cron, java.time.ZoneId zone, long afterMs) {}

  private final Map<CronLook, Long> cronLooks = new HashMap<>();
  private final Map<String, Long> fireInstants = new HashMap<>();

  /** The first fire of {@code s} after {@code afterMs}, {@link Long#MAX_VALUE} when there is none. */
  private long nextFire(Schedule s, long afterMs) {
    return cronLooks.computeIfAbsent(new CronLook(s.spec().cron(), s.spec().zone(), afterMs),
        k -> k.cron().nextAfter(k.afterMs(), k.zone()).orElse(Long.MAX_VALUE));
  }

  /**
   * Q15 after every step: no fire has two tickets, every ticket of a schedule is of one of its fires,
   * and the catch-up-all, parallel schedule has a ticket for every fire it decided since
   * {@link #everyFireFrom}, whatever crashes fell between.
   */
  private void checkSchedules() {
    // checked after every step over every ticket so far: the cron's answers and the parsed fire
    // labels are remembered (both are pure), which keeps a long history's checks linear
    Map<String, Schedule> byName = new HashMap<>();
    for (ScheduleView v : scheduleLaw.list()) {
      byName.put(v.schedule().name().name(), v.schedule());
    }
    if (byName.isEmpty()) {
      return;
    }
    Map<String, Set<Long>> fires = new HashMap<>();
    for (Ticket t : law.tickets(TicketQuery.all())) {
      String name = t.labels().get(Schedule.LABEL);
      if (name == null) {
        continue;
      }
      Schedule s = byName.get(name);
      long fire = fireInstants.computeIfAbsent(t.labels().get(Schedule.FIRE_LABEL),
          l -> java.time.Instant.parse(l).toEpochMilli());
      if (!fires.computeIfAbsent(name, n -> new HashSet<>()).add(fire)) {
        violated("Q15: fire " + t.labels().get(Schedule.FIRE_LABEL) + " of schedule " + name + " has two tickets");
      }
      if (nextFire(s, fire - 1) != fire || fire <= s.createdAtMs()
          || fire > s.lastFireMs()) {
        violated("Q15: " + t.id() + " is of no fire of schedule " + name + " that was decided: " + t.labels());
      }
    }
    Schedule all = byName.get("every2s");
    long f = everyFireFrom;
    while (true) {
      f = nextFire(all, f);
      if (f > all.lastFireMs()) {
        break;
      }
      if (!fires.getOrDefault("every2s", Set.of()).contains(f)) {
        violated("Q15: fire " + java.time.Instant.ofEpochMilli(f) + " of every2s (catch-up all, parallel) was decided"
            + " but has no ticket");
      }
      seen.saw("Q15 a fire of every2s checked");
    }
  }

  private void journal(Inc i, EngineEvent e) {
    seen.saw(e.getClass().getSimpleName());
    if (e instanceof EngineEvent.ScheduleFired f) {
      seen.saw("schedule " + (f.decision() instanceof FireDecision.Skip k ? "skip " + k.reason()
          : f.decision().getClass().getSimpleName()));
    }
    if (e instanceof EngineEvent.Recovered r) {
      seen.saw("recovered " + r.action());
      if (i.ofDropped.contains(r.run())) {
        if (r.action() == EngineEvent.RecoveryAction.LEAVE_TO_LIVE_OWNER) {
          violated("D5: after a store outage d" + i.n + " left " + r.run() + " to an incarnation the outage dropped: "
              + r.detail());
        }
        seen.saw("recovered after an outage");
        seen.saw("recovered after an outage: " + r.action());
      }
      if (r.action() == EngineEvent.RecoveryAction.READOPT) {
        readopted.add(r.run());
      }
      if (restartLeft.remove(r.run())) {
        seen.saw("recovered after a restart: " + r.action());
        if (r.action() != EngineEvent.RecoveryAction.READOPT
            && world.tasksOf(r.run()).stream().anyMatch(p -> p.alive && p.gotGo && p.build.equals(i.build))) {
          violated("D4: " + r.run() + " ran on, untouched, through a restart, and the next daemon of its build did "
              + r.action() + " instead of taking it over");
        }
      }
      if (r.action() == EngineEvent.RecoveryAction.READOPT || r.action() == EngineEvent.RecoveryAction.STOP_OTHER_BUILD) {
        Run run = law.run(r.run()).orElseThrow();
        i.limits.put(r.run(), TimeLimitLaw.takenOver(run.start().timeoutMs(), run.start().startedAtMs(), world.monoMs,
            world.wallMs));
        if (run.stopIntent() != null) {
          seen.saw("a " + (run.stopIntent().kill() ? "kill" : "time-out") + " resumed by a later daemon");
        }
      }
    } else if (e instanceof EngineEvent.Started s) {
      startedBy.put(s.run(), i.n);
      law.run(s.run()).ifPresent(r -> i.limits.put(s.run(), TimeLimitLaw.started(r.start().timeoutMs(), world.monoMs)));
      if (!world.reserved(new WorkerKey.Task(s.run())) || !world.isAlive(s.identity())) {
        violated("Q3 running before execution: " + s.run() + " started before its worker " + s.identity()
            + " held its reservation");
      }
    } else if (e instanceof EngineEvent.StopRequested sr) {
      seen.saw("stop requested " + sr.intent());
      Run r = law.run(sr.run()).orElseThrow();
      if (r.stopIntent() == null || (sr.intent() == StopIntent.TIMEOUT && r.stopIntent() != StopIntent.TIMEOUT)) {
        violated("Q12/Q13: a stop was requested (" + sr.intent() + ") but the store records " + r.stopIntent());
      }
      if (sr.intent() == StopIntent.TIMEOUT) {
        // Q12 as its law model has it, on the clocks of the incarnation that decided
        TimeLimitLaw limit = i.limits.get(sr.run());
        if (limit == null || !limit.up(world.monoMs)) {
          violated("Q12: " + sr.run() + " was timed out by d" + i.n + " before its time was up (limit "
              + r.start().timeoutMs() + " ms, started at wall " + r.start().startedAtMs() + ", now " + world.wallMs + ")");
        }
      }
    } else if (e instanceof EngineEvent.StopBegun s) {
      stopBegun(i, s.key(), s.kind());
    } else if (e instanceof EngineEvent.Signalled s) {
      signalled(i, s);
    } else if (e instanceof EngineEvent.ExitTaken x) {
      seen.saw("exit taken as " + x.role());
      requireDead(x.run(), "C5/Q4: exit of " + x.run() + " taken as " + x.role());
    } else if (e instanceof EngineEvent.ClaimAborted a) {
      WorkerKey k = new WorkerKey.Task(a.run());
      if (world.reserved(k)) {
        violated("Q4 recovery needs both: claim " + a.run() + " rolled back while a worker holds its reservation");
      }
      for (SimWorld.TaskProc p : world.tasksOf(a.run())) {
        if (p.gotGo) {
          violated("Q3: rolled back claim " + a.run() + " whose worker was told go");
        }
        if (p.alive && p.parentIncarnation == i.n) {
          violated("Q4: claim " + a.run() + " rolled back while the worker this daemon launched lives");
        }
      }
    } else if (e instanceof EngineEvent.Settled s) {
      seen.saw("settled " + s.verdict());
      settled(i, s);
      handStartedSettled(s.run());
    } else if (e instanceof EngineEvent.CheckpointKept k) {
      seen.saw("checkpoint kept before settlement by daemon");
      if (law.run(k.run()).map(r -> r.state() == RunState.SETTLED).orElse(true)) {
        violated("Q17: the checkpoint of " + k.run() + " was kept after the run settled");
      }
    } else if (e instanceof EngineEvent.SettleDenied d) {
      violated("C8: a settlement was denied: " + d);
    } else if (e instanceof EngineEvent.SettledElsewhere x) {
      Run r = law.run(x.run()).orElseThrow();
      boolean elsewhere = r.state() == RunState.SETTLED || (r.state() == RunState.EXITED
          && !r.exitOwner().owner().equals(i.owner)) || !r.owner().equals(i.owner);
      if (!elsewhere || !released.containsKey(x.run())) {
        violated("H1: d" + i.n + " gave up " + x.run() + " as settled elsewhere, but the store has " + r);
      }
      seen.saw("H1 SettledElsewhere " + (x.workerAlive() ? "with its worker alive" : "after its worker ended")
          + (r.state() == RunState.SETTLED ? "" : ", its exit taken by a release cut short"));
    } else if (e instanceof EngineEvent.RenewalDenied r) {
      seen.saw("renewal denied " + r.reason());
    } else if (e instanceof EngineEvent.QuiesceDecided q) {
      i.roundStopAll = q.stopAll();
      seen.saw(q.stopAll() ? "round: every worker quiesced" : "round: busy");
    } else if (e instanceof EngineEvent.ServiceRestartScheduled || e instanceof EngineEvent.ServiceGivenUp) {
      WorkerKey k = new WorkerKey.Service(e instanceof EngineEvent.ServiceRestartScheduled r ? r.service()
          : ((EngineEvent.ServiceGivenUp) e).service());
      i.serviceSignals.add(k);
    } else if (e instanceof EngineEvent.HandoffTimedOut h) {
      i.serviceSignals.add(h.key());
    } else if (e instanceof EngineEvent.ServiceRestored r) {
      seen.saw(r.added() ? "restore notice stored" : "restore notice already stored");
    } else if (e instanceof EngineEvent.ServiceRevival r) {
      seen.saw(r.revived() ? "service revived" : "service not revived");
    } else if (e instanceof EngineEvent.ServiceUp u) {
      seen.saw(u.adopted() ? "service adopted" : "service up");
    } else if (e instanceof EngineEvent.HelloDenied h) {
      seen.saw("hello denied " + (h.key() instanceof WorkerKey.Task ? "task" : "service"));
    } else if (e instanceof EngineEvent.Welcomed w) {
      seen.saw(w.go() ? "welcomed with go" : "welcomed without go");
    }
  }

  private void requireDead(RunId run, String what) {
    if (world.reserved(new WorkerKey.Task(run))) {
      violated(what + " while a worker holds its reservation");
    }
    for (SimWorld.TaskProc p : world.tasksOf(run)) {
      if (world.workerLives(p)) {
        violated(what + " while its worker " + p.identity + " (or a process of its group) lives");
      }
    }
  }

  private void stopBegun(Inc i, WorkerKey key, StopKind kind) {
    seen.saw("stop " + kind + (key instanceof WorkerKey.Task ? " task" : " service"));
    if (kind.termsAtOnce() || (key instanceof WorkerKey.Task t && released.containsKey(t.run()))) {
      world.stoppingBeforeIdleShutdown.add(key); // its signals are a time-out's, a kill's or a release's, not an idle shutdown's
    }
    if (kind.escalates()) {
      i.escalating.add(key);
    }
    if (kind.kills()) {
      i.killing.add(key);
    }
    if (key instanceof WorkerKey.Task t) {
      Run r = law.run(t.run()).orElseThrow();
      Ticket ticket = law.ticket(t.run().ticket()).orElseThrow();
      boolean ok = switch (kind) {
        case PARK -> ticket.parked() || law.parkedLanes().contains(ticket.lane());
        case LOST -> (r.start() != null && !r.start().build().equals(i.build)) || released.containsKey(t.run());
        case OPERATOR -> i.stopWorkers;
        case IDLE_SHUTDOWN -> i.roundStopAll;
        // Q12, Q13: the intent is on record before the stop begins (and a time-out needs a limit)
        case TIMEOUT -> r.stopIntent() == StopIntent.TIMEOUT && r.start() != null && r.start().timeoutMs() > 0;
        case KILL -> r.stopIntent() != null && r.stopIntent().kill();
      };
      if (!ok) {
        violated("Q11/D4: a restart stops no live run: " + kind + " stop of " + t.run() + " without its reason (ticket "
            + ticket.state() + " parked=" + ticket.parked() + ", run build " + (r.start() == null ? "-" : r.start().build())
            + ", daemon build " + i.build + ")");
      }
      if (kind != StopKind.IDLE_SHUTDOWN) {
        stoppedBy.computeIfAbsent(t.run(), k -> new HashSet<>()).add(i.n);
      }
    } else if (key instanceof WorkerKey.Service s) {
      SimWorld.ServiceProc w = liveService(i, s);
      boolean ok = switch (kind) {
        case LOST -> w == null || !w.build.equals(i.build)
            || (!w.welcomedBy.contains(i.n) && world.monoMs - i.bootMono >= TIMEOUTS.ms(Timeout.LAUNCH_HANDOFF));
        case OPERATOR -> i.stopWorkers || i.serviceStops.contains(s.service())
            || answeredServiceStops.contains(s.service());
        case IDLE_SHUTDOWN -> i.roundStopAll && (w == null || w.answeredQuiesced);
        case PARK, TIMEOUT, KILL -> false;
      };
      if (!ok) {
        violated("S6/D4: " + kind + " stop of " + key + " without its reason (worker build " + (w == null ? "-" : w.build)
            + ", daemon build " + i.build + ")");
      }
    }
  }

  /**
   * The live worker of a service that incarnation {@code i} deals with: the one it welcomed, else
   * any live one. Two can live for a moment: a worker launched by a daemon that crashed before the
   * worker wrote its identity is unknown to the next daemon, which launches another; the
   * reservation lock lets only one of them serve.
   */
  private SimWorld.ServiceProc liveService(Inc i, WorkerKey.Service key) {
    SimWorld.ServiceProc any = null;
    for (SimWorld.Proc p : world.livePids.values()) {
      if (p instanceof SimWorld.ServiceProc s && s.key.equals(key)) {
        if (s.welcomedBy.contains(i.n)) {
          return s;
        }
        any = any == null ? s : any;
      }
    }
    return any;
  }

  private void signalled(Inc i, EngineEvent.Signalled s) {
    seen.saw("signal " + s.signal() + (s.sent() ? " sent" : " refused"));
    if (leapSignals != null) {
      leapSignals.add(s.key());
    }
    WorkerKey key = s.key();
    if (s.signal() == Signal.TERM ? i.escalating.contains(key) : i.killing.contains(key)) {
      return;
    }
    if (key instanceof WorkerKey.Task t) {
      Run r = law.run(t.run()).orElseThrow();
      if (s.signal() != Signal.KILL || (r.state() != RunState.CLAIMED && !released.containsKey(t.run()))) {
        violated("D4/Q11: " + s.signal() + " to " + key + " (" + r.state() + ") without a stop that escalates");
      }
      seen.saw("handoff kill");
    } else if (!i.serviceSignals.contains(key)) {
      violated("S6: " + s.signal() + " to " + key + " without a stop, a handoff timeout or a survivor");
    }
  }

  /** Q1, Q2, Q5: the verdict the worker's fate calls for, and so an exact charge of attempts. */
  private void settled(Inc i, EngineEvent.Settled s) {
    Run r = law.run(s.run()).orElseThrow();
    onceSettled(s.run());
    if (ofOtherHost(r.owner())) {
      return; // H1: a released host's run, whose worker is that host's (releaseOtherHost checks its verdict)
    }
    if (released.containsKey(s.run())) {
      // H1: a run of this host whose exit a release of it took: settled LOST, reading nothing, as the release would
      expect(r.exitOwner() != null && ofOtherHost(r.exitOwner().owner()) && (r.verdict() == Verdict.LOST
          || r.verdict() == Verdict.KILLED), "H1: only a release cut short by the other host is settled here", r);
      seen.saw("H1 this host settled its own run whose exit the other host's release took");
      return;
    }
    SimWorld.TaskProc w = null;
    for (SimWorld.TaskProc p : world.tasksOf(s.run())) {
      if (r.start() != null && p.identity.equals(r.start().identity())) {
        w = p;
      }
    }
    if (w == null) {
      violated("Q3: settled run " + s.run() + " has no worker with its recorded identity");
      return;
    }
    requireDead(s.run(), "C5: settled " + s.run());
    Verdict expected;
    OutcomeRecord o = w.wrote;
    boolean stoppedBySettler = stoppedBy.getOrDefault(s.run(), Set.of()).contains(i.n);
    if (r.stopIntent() != null && r.stopIntent().kill()) {
      expected = Verdict.KILLED;
      Ticket t = law.ticket(s.run().ticket()).orElseThrow();
      TicketState where = switch (r.stopIntent()) {
        case KILL -> TicketState.CANCELLED;
        case KILL_RETRY -> r.handStarted() ? TicketState.HELD : TicketState.READY;
        case KILL_HOLD -> TicketState.HELD;
        case TIMEOUT -> throw new AssertionError();
      };
      if (t.state() != where && !(where == TicketState.READY && t.state() == TicketState.LEASED)) {
        violated("Q13: killed run " + s.run() + " (" + r.stopIntent() + ") left its ticket " + t.state());
      }
      seen.saw("killed run settled: ticket " + where);
      if (startedBy.get(s.run()) != null && startedBy.get(s.run()) != i.n) {
        seen.saw("Q13: a kill settled by a later daemon than the one that started the run");
      }
    } else if (r.stopIntent() == StopIntent.TIMEOUT) {
      expected = Verdict.FAILED;
      seen.saw("timed-out run settled FAILED");
      if (!("timed out after " + dev.vigil.supervisor.Durations.format(r.start().timeoutMs())).equals(s.diagnosis())) {
        violated("Q12: timed-out run " + s.run() + " settled with diagnosis " + s.diagnosis());
      }
      if (startedBy.get(s.run()) != null && startedBy.get(s.run()) != i.n) {
        seen.saw("Q12: a time-out settled by a later daemon than the one that started the run");
      }
    } else if (o instanceof OutcomeRecord.Written written) {
      expected = written.verdict();
      seen.saw("verdict from the worker's outcome");
      if (!java.util.Objects.equals(r.result(), written.result())) {
        violated("no outcome lost: " + s.run() + " settled with the result " + r.result() + " but its worker returned "
            + written.result());
      } else if (written.result() != null) {
        seen.saw("a worker's result stored with its run");
      }
      if (readopted.contains(s.run()) && w.gotGo) {
        seen.saw("D4: a readopted worker settled by its own outcome");
      }
    } else if (stoppedBySettler) {
      expected = Verdict.STALLED;
      seen.saw("stopped by this daemon: no attempt spent");
    } else if (!w.gotGo && !w.goQueued && Integer.valueOf(i.n).equals(startedBy.get(s.run()))) {
      expected = Verdict.STALLED;
      seen.saw("never told to go: no attempt spent");
    } else {
      expected = Verdict.LOST;
      seen.saw(o instanceof OutcomeRecord.Corrupt ? "corrupt outcome: LOST" : "no outcome: LOST");
      if (!w.gotGo) {
        seen.saw("LOST without go: knowledge lost in a crash");
      }
    }
    if (s.verdict() != expected) {
      violated("Q1/Q2/Q5: " + s.run() + " settled " + s.verdict() + " but its worker's fate calls for " + expected
          + " (outcome " + o + ", go " + w.gotGo + ", go queued " + w.goQueued + ", started by d" + startedBy.get(s.run())
          + ", stopped by " + stoppedBy.get(s.run()) + ", settled by d" + i.n + ")");
    }
  }

  // ---- status (D1, Q11) ----

  private void published(Inc i, Status s) {
    i.lastPublishMono = world.monoMs;
    seen.saw("status " + s.state());
    // another host's runs are shown when the daemon reads the store for its own (an idle daemon's beat does not)
    List<RunId> live = law.liveRuns().stream().filter(r -> !ofOtherHost(r.owner())).map(Run::id).toList();
    List<RunId> shown = s.runs().stream().map(Status.RunStatus::run)
        .filter(r -> law.run(r).map(x -> !ofOtherHost(x.owner())).orElse(true)).toList();
    if (!live.equals(shown)) {
      violated("D1: status shows runs " + shown + " but the live runs are " + live);
    }
    Map<Lane, Integer> own = ownLiveRuns();
    // a release of this host by the other host frees its slots in the store; the daemon counts them again when
    // it notices, at the latest at its next reconcile pass
    boolean releasedLately = world.monoMs - otherHostSettledAtMono <= TIMEOUTS.ms(Timeout.RECONCILE) + 1_000;
    for (Status.LaneStatus l : s.lanes()) {
      int leased = own.getOrDefault(l.lane(), 0);
      if ((l.occupied() != leased && !releasedLately) || l.occupied() > l.concurrency()) {
        violated("Q11: status lane " + l.lane() + " occupied " + l.occupied() + " but it has " + leased
            + " live runs of this host (limit " + l.concurrency() + "); leased there: "
            + law.tickets(TicketQuery.all().inState(TicketState.LEASED).inLane(l.lane())).stream()
                .map(t -> t.id() + " " + law.lease(t.id())).toList() + ", released " + released);
      }
    }
    for (Status.ServiceStatus sv : s.services()) {
      seen.saw("service status " + sv.state());
    }
    if (s.schema() != Status.SCHEMA || !s.owner().equals(i.owner) || s.pid() != i.proc.identity.pid()) {
      violated("D1: status names another daemon: " + s.owner() + " pid " + s.pid());
    }
  }

  private void violated(String law) {
    throw new AssertionError(law);
  }
}
