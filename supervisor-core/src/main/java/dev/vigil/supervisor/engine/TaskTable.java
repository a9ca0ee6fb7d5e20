package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Lane;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.Ticket;
import dev.vigil.supervisor.engine.port.IdentityRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The task runs this incarnation supervises, each in one {@link RunPhase}; {@link #transition} is
 * the one place where a run's phase changes, whichever phase of the run decides it (handoff,
 * reconcile, recovery, settlement, stops).
 *
 * <p>The store is the truth; this table is what the current incarnation is doing about it.
 * Anything a crash loses is rebuilt by {@link Recovery} from the store, the process table and the
 * directories.
 */
final class TaskTable {
  /** One supervised run. */
  static final class Tracked {
    final RunId run;
    final Lane lane;
    private RunPhase phase;

    Tracked(RunId run, Lane lane) {
      this.run = run;
      this.lane = lane;
    }

    RunPhase phase() {
      return phase;
    }

    WorkerKey.Task key() {
      return new WorkerKey.Task(run);
    }
  }

  /**
   * How this daemon relates to a run it supervises, for status.
   *
   * @param supervision its phase, as status names it
   * @param identity    its worker's identity as the phase knows it, or null
   */
  record Supervised(Status.Supervision supervision, ProcessIdentity identity) {}

  private final Ctx ctx;
  private final SortedMap<RunId, Tracked> tracked = new TreeMap<>();
  /** How many supervised runs are starting ({@link #starting()}). */
  private int starting;

  TaskTable(Ctx ctx) {
    this.ctx = ctx;
  }

  /** Moves {@code t} to {@code next}; {@code null} ends its supervision. */
  void transition(Tracked t, RunPhase next) {
    Tracked before = tracked.get(t.run);
    boolean wasStarting = before != null && starting(before.phase);
    if (next == null) {
      tracked.remove(t.run);
    } else {
      t.phase = next;
      tracked.put(t.run, t);
    }
    boolean isStarting = next != null && starting(next);
    if (wasStarting && !isStarting) {
      starting--;
      ctx.occupancy.startEnded();
    } else if (!wasStarting && isStarting) {
      starting++;
    }
  }

  /**
   * How many supervised runs are starting: in their handoff (launched or adopted), or started by this daemon
   * with their worker not yet told to go (it has not said hello).
   */
  int starting() {
    return starting;
  }

  private static boolean starting(RunPhase p) {
    return p instanceof RunPhase.Handoff || (p instanceof RunPhase.Running r && r.go() == RunPhase.Go.PENDING);
  }

  boolean isEmpty() {
    return tracked.isEmpty();
  }

  Optional<Tracked> get(RunId run) {
    return Optional.ofNullable(tracked.get(run));
  }

  /** Whether {@code t} is still the supervised entry of its run (a step over a copy may have ended it). */
  boolean current(Tracked t) {
    return tracked.get(t.run) == t;
  }

  boolean contains(RunId run) {
    return tracked.containsKey(run);
  }

  /** A copy: steps over it may end supervision of any run. */
  List<Tracked> all() {
    return List.copyOf(tracked.values());
  }

  /** The worker's identity: as its phase knows it, else (an adopted handoff) from its identity record. */
  ProcessIdentity identityOf(Tracked t) {
    ProcessIdentity known = t.phase.knownIdentity();
    if (known != null || !(t.phase instanceof RunPhase.Handoff)) {
      return known;
    }
    return ctx.directories.identity(t.key()) instanceof IdentityRecord.Written w ? w.identity() : null;
  }

  /** Liveness of every supervised run, by identity and reservation only (C5). */
  Map<RunId, Liveness.Life> liveness() {
    Map<RunId, Liveness.Life> out = new TreeMap<>();
    for (Tracked t : tracked.values()) {
      out.put(t.run, Liveness.judge(ctx.processes, ctx.directories, t.key(), identityOf(t)));
    }
    return out;
  }

  /** Whether the run's ticket or lane is parked (Q9). */
  boolean parked(Tracked t) {
    return ctx.store.parkedLanes().contains(t.lane)
        || ctx.store.ticket(t.run.ticket()).map(Ticket::parked).orElse(false);
  }

  /** What status shows of {@code run}, empty when this daemon does not supervise it. */
  Optional<Supervised> statusOf(RunId run) {
    Tracked t = tracked.get(run);
    if (t == null) {
      return Optional.empty();
    }
    RunPhase p = t.phase;
    if (p instanceof RunPhase.Handoff h) {
      return Optional.of(new Supervised(Status.Supervision.HANDOFF, h.launched()));
    } else if (p instanceof RunPhase.Aborting a) {
      return Optional.of(new Supervised(Status.Supervision.ABORTING, a.identity()));
    } else if (p instanceof RunPhase.Running r) {
      return Optional.of(new Supervised(r.stop() == null ? Status.Supervision.RUNNING : Status.Supervision.STOPPING,
          r.start().identity()));
    } else if (p instanceof RunPhase.Released r) {
      return Optional.of(new Supervised(Status.Supervision.STOPPING, r.identity()));
    } else {
      throw new AssertionError(p);
    }
  }

  /** Names of the workers an idle-shutdown round asks (every supervised run, S5). */
  List<WorkerKey> workers() {
    List<WorkerKey> out = new ArrayList<>();
    for (Tracked t : tracked.values()) {
      out.add(t.key());
    }
    return out;
  }
}
