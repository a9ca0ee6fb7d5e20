package dev.vigil.supervisor.engine;

import dev.vigil.coordination.AbortClaim;
import dev.vigil.coordination.Checkpoint;
import dev.vigil.coordination.Resumption;
import dev.vigil.coordination.Claim;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunStart;
import dev.vigil.coordination.Start;
import dev.vigil.coordination.StartOf;
import dev.vigil.coordination.Ticket;
import dev.vigil.supervisor.Durations;
import dev.vigil.supervisor.HelloCheck;
import dev.vigil.supervisor.StopKind;
import dev.vigil.supervisor.TimeLimit;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.engine.port.IdentityRecord;
import dev.vigil.supervisor.engine.port.Launch;
import dev.vigil.supervisor.engine.port.LaunchRequest;
import dev.vigil.supervisor.engine.port.Signal;
import java.util.ArrayList;
import java.util.List;

/**
 * The reservation handoff of a task run (Q3): claim, directory, launch, then {@code start} once
 * the worker holds its reservation and its identity is known and alive, and only then go. A
 * handoff that does not complete within {@code launchHandoff}, or whose worker died first, is
 * rolled back: its worker is KILLed (identity-gated) until it is dead by identity and reservation,
 * then the claim is aborted (Q4).
 */
final class Handoffs {
  private final Ctx ctx;
  private final TaskTable table;
  private final TaskStops stops;
  private final Workers workers;
  private final Releases releases;

  Handoffs(Ctx ctx, TaskTable table, TaskStops stops, Workers workers, Releases releases) {
    this.ctx = ctx;
    this.table = table;
    this.stops = stops;
    this.workers = workers;
    this.releases = releases;
  }

  /** Launches the worker of a fresh claim, or rolls the claim back when that cannot be done. */
  void launch(Claim.Granted g, long nowMonoMs, long nowWallMs) {
    RunId run = g.run().id();
    Ticket ticket = ctx.store.ticket(run.ticket()).orElseThrow(() -> new IllegalStateException(
        "claim " + run + " names ticket " + run.ticket() + " that the store does not have"));
    ctx.record(new EngineEvent.Claimed(run, ticket.lane()));
    WorkerKey.Task key = new WorkerKey.Task(run);
    if (!ctx.config.workerTypes().contains(ticket.type())) {
      abort(run, ctx.me, "worker type '" + ticket.type() + "' is not configured on this daemon", nowWallMs);
      return;
    }
    WorkerTypeSpec type = ctx.config.workerType(ticket.type());
    Resumption resumption = Resumption.decide(ticket.id(), type.resumable(), ctx.store.checkpoint(ticket.id())); // Q17
    Checkpoint from = resumption instanceof Resumption.Resume r ? r.checkpoint() : null;
    Launch launch = workers.launch(new LaunchRequest(key, type, ticket.payload(), g.run().attempt(), ctx.config.build(),
        ticket.spec(), ctx.config.workload().output(ticket.lane()), from));
    if (launch instanceof Launch.Failed f) {
      abort(run, ctx.me, f.why(), nowWallMs);
    } else if (launch instanceof Launch.Started s) {
      table.transition(new TaskTable.Tracked(run, ticket.lane()), new RunPhase.Handoff(RunPhase.Source.LAUNCHED,
          s.identity(), s.tokenHash(), nowMonoMs + ctx.ms(Timeout.LAUNCH_HANDOFF), null, null, null));
    } else {
      throw new AssertionError(launch);
    }
  }

  /**
   * Rolls a claim back ({@code abortClaim}, C7) as {@code leaseOwner}: this daemon for its own
   * claims (launched or adopted), or the claim's recorded owner when recovery acts for it (the store
   * refuses if another daemon adopted the claim meanwhile).
   */
  boolean abort(RunId run, OwnerId leaseOwner, String why, long nowWallMs) {
    AbortClaim a;
    try {
      a = ctx.coordination.abortClaim(run, leaseOwner, why, nowWallMs);
    } catch (RuntimeException e) {
      ctx.occupancy.recount();
      throw e;
    }
    if (a instanceof AbortClaim.Aborted ab) {
      ctx.occupancy.freed(ab.ticket().lane(), ctx.ofThisHost(leaseOwner));
      ctx.record(new EngineEvent.ClaimAborted(run, why, ab.ticket().state()));
      return true;
    } else if (a instanceof AbortClaim.Denied d) {
      ctx.record(new EngineEvent.VerbDenied(run, "abortClaim", d.reason().toString()));
      return false;
    } else {
      throw new AssertionError(a);
    }
  }

  /**
   * Recovery adopts the handoff of a CLAIMED run whose claim it took over from its dead owner
   * ({@code adoptClaim}): started as this owner once the worker's identity record names a live
   * process holding the reservation.
   */
  void adopt(RunId run, Lane lane, long nowMonoMs, long nowWallMs) {
    TaskTable.Tracked t = new TaskTable.Tracked(run, lane);
    table.transition(t, new RunPhase.Handoff(RunPhase.Source.ADOPTED, null, null,
        nowMonoMs + ctx.ms(Timeout.LAUNCH_HANDOFF), null, null, null));
    advance(t, (RunPhase.Handoff) t.phase(), nowMonoMs, nowWallMs);
  }

  /**
   * What a hello from the worker of a handoff is checked against: the launched process, its token
   * and this daemon's build; for an adopted handoff, whatever its identity record carries.
   */
  HelloCheck.Expected expected(TaskTable.Tracked t, RunPhase.Handoff h) {
    if (h.source() == RunPhase.Source.LAUNCHED) {
      return new HelloCheck.Expected(h.launched(), h.launchToken(), ctx.config.build());
    } else if (ctx.directories.identity(t.key()) instanceof IdentityRecord.Written w) {
      return new HelloCheck.Expected(w.identity(), w.tokenHash(), w.build());
    } else {
      return new HelloCheck.Expected(null, null, null);
    }
  }

  /**
   * A hello passed its check: the handoff knows the worker that said it, and moves on; a start it
   * completes is told go by the answer to that hello.
   */
  void helloAccepted(TaskTable.Tracked t, RunPhase.Handoff h, ProcessIdentity identity, WorkerMessage.Hello hello,
                     long nowMonoMs, long nowWallMs) {
    table.transition(t, h.withHello(identity, hello.build(), hello.tokenHash()));
    advance(t, (RunPhase.Handoff) t.phase(), nowMonoMs, nowWallMs, null, false);
  }

  /**
   * Moves a handoff on: start once the worker holds its reservation and its identity is known and
   * alive (Q3), and tell it go at once; roll back once a launched worker died before that, with the end
   * of its stderr in the diagnosis (a JVM that could not start says why only there); time out after
   * launchHandoff.
   */
  void advance(TaskTable.Tracked t, RunPhase.Handoff h, long nowMonoMs, long nowWallMs) {
    advance(t, h, nowMonoMs, nowWallMs, null, true);
  }

  /**
   * The starts found in one pass of the loop, recorded together at its end by one {@code startAll}
   * ({@link #startAll}).
   */
  static final class Pass {
    private final List<Pending> starts = new ArrayList<>();
  }

  /** One start of a {@link Pass}: the handoff it ends and what is recorded. */
  private record Pending(TaskTable.Tracked t, RunPhase.Handoff h, RunStart start) {}

  /**
   * As {@link #advance(TaskTable.Tracked, RunPhase.Handoff, long, long)}; with a {@code pass}, a
   * handoff ready to start is only noted in it, and started by {@link #startAll} with the others.
   */
  void advance(TaskTable.Tracked t, RunPhase.Handoff h, long nowMonoMs, long nowWallMs, Pass pass) {
    advance(t, h, nowMonoMs, nowWallMs, pass, true);
  }

  private void advance(TaskTable.Tracked t, RunPhase.Handoff h, long nowMonoMs, long nowWallMs, Pass pass,
                       boolean goNow) {
    WorkerKey.Task key = t.key();
    IdentityRecord record = ctx.directories.identity(key);
    ProcessIdentity identity = null;
    String build = null;
    String token = null;
    if (h.source() == RunPhase.Source.LAUNCHED) {
      boolean recorded = record instanceof IdentityRecord.Written w && w.identity().equals(h.launched());
      if (recorded || h.launched().equals(h.helloIdentity())) {
        identity = h.launched();
        build = ctx.config.build();
        token = h.launchToken();
      }
    } else if (record instanceof IdentityRecord.Written w) {
      // adopted: the record names the worker; build and token come from it, or else from that
      // worker's own hello
      boolean saidHello = w.identity().equals(h.helloIdentity());
      String b = w.build() != null ? w.build() : saidHello ? h.helloBuild() : null;
      String tk = w.tokenHash() != null ? w.tokenHash() : saidHello ? h.helloToken() : null;
      if (b != null && tk != null) {
        identity = w.identity();
        build = b;
        token = tk;
      }
    }
    boolean reserved = ctx.directories.isReserved(key);
    if (identity != null && reserved && ctx.processes.alive(identity)) {
      RunStart rs = new RunStart(identity, build, token, nowWallMs, timeoutOf(t));
      if (pass != null) {
        pass.starts.add(new Pending(t, h, rs));
      } else {
        started(t, h, rs, ctx.coordination.start(t.run, ctx.me, rs), nowMonoMs, goNow);
      }
      return;
    }
    if (h.source() == RunPhase.Source.LAUNCHED && !reserved && !ctx.processes.alive(h.launched())) {
      beginAbort(t, h.launched(), "worker " + h.launched() + " died before it took its run lock and reported its process identity"
          + ctx.directories.lastWords(key).map(w -> "; its stderr ends: " + w).orElse(""), nowMonoMs, nowWallMs);
      return;
    }
    if (nowMonoMs >= h.deadlineMonoMs()) {
      String why = "worker did not take its run lock and report its process identity within launchHandoff ("
          + Durations.format(ctx.ms(Timeout.LAUNCH_HANDOFF)) + ")";
      ctx.record(new EngineEvent.HandoffTimedOut(key, why));
      beginAbort(t, h.launched() != null ? h.launched() : identity, why, nowMonoMs, nowWallMs);
    }
  }

  /** The run's time limit (Q12): its ticket's own, else its lane's; fixed at its start. */
  private long timeoutOf(TaskTable.Tracked t) {
    long own = ctx.store.ticket(t.run.ticket()).map(k -> k.spec().timeoutMs()).orElse(0L);
    return TimeLimit.effective(own, ctx.config.laneTimeoutMs(t.lane));
  }

  /**
   * Records the starts noted in {@code pass} in one {@code startAll} (Q3), then moves each handoff on
   * by its decision, in the order noted; the pass is empty afterwards. When the verb fails, no run
   * was started: the handoffs stay as they were, and the next pass tries again.
   */
  void startAll(Pass pass, long nowMonoMs) {
    if (pass.starts.isEmpty()) {
      return;
    }
    List<Pending> pending = List.copyOf(pass.starts);
    pass.starts.clear();
    List<Start> decided = ctx.coordination.startAll(ctx.me,
        pending.stream().map(p -> new StartOf(p.t().run, p.start())).toList());
    for (int i = 0; i < pending.size(); i++) {
      Pending p = pending.get(i);
      started(p.t(), p.h(), p.start(), decided.get(i), nowMonoMs, true);
    }
  }

  /**
   * Moves a handoff on by the store's decision on its start: a started run is told go at once
   * ({@code goNow}; else by the answer to the hello being handled), in the same step as the start's
   * commit, unless a stop is due instead. A start refused because the run is no longer this daemon's
   * (H1: rolled back by a release of this host) stops its worker as a lost one.
   */
  private void started(TaskTable.Tracked t, RunPhase.Handoff h, RunStart rs, Start s, long nowMonoMs, boolean goNow) {
    if (s instanceof Start.Started st) {
      ctx.record(new EngineEvent.Started(t.run, rs.identity(), rs.build()));
      table.transition(t, RunPhase.Running.begun(rs, RunPhase.Go.PENDING, TimeLimit.startedNow(rs.timeoutMs(), nowMonoMs),
          h.source() == RunPhase.Source.LAUNCHED, st.run().stopIntent()));
      StopKind stop = stops.dueAtStart(t, st.run());
      if (stop != null) {
        stops.begin(t, stop, nowMonoMs);
      } else if (goNow) {
        goIfPending(t);
      }
    } else if (s instanceof Start.Denied d) {
      ctx.record(new EngineEvent.VerbDenied(t.run, "start", d.reason().toString()));
      java.util.Optional<String> how = releases.elsewhere(t);
      if (how.isPresent()) {
        releases.release(t, how.get(), nowMonoMs, false);
      } else {
        table.transition(t, null); // the store says otherwise; the next reconcile recovers it from the store
      }
    } else {
      throw new AssertionError(s);
    }
  }

  /**
   * Tells a started worker go (Q3) when it has not been told and no stop is in progress; a worker whose
   * connection does not take it is told by the answer to its next hello.
   */
  void goIfPending(TaskTable.Tracked t) {
    if (t.phase() instanceof RunPhase.Running r && r.go() == RunPhase.Go.PENDING && r.stop() == null
        && ctx.channel.send(t.key(), new ToWorker.Welcome(ctx.config.build(), true))) {
      ctx.record(new EngineEvent.Welcomed(t.key(), true));
      table.transition(t, r.with(RunPhase.Go.SENT));
    }
  }

  private void beginAbort(TaskTable.Tracked t, ProcessIdentity identity, String why, long nowMonoMs, long nowWallMs) {
    table.transition(t, new RunPhase.Aborting(identity, why, nowMonoMs));
    advanceAborting(t, (RunPhase.Aborting) t.phase(), nowMonoMs, nowWallMs);
  }

  /** Moves a failed handoff on: KILL its worker every stopGrace while it lives; roll the claim back once it is dead (Q4). */
  void advanceAborting(TaskTable.Tracked t, RunPhase.Aborting a, long nowMonoMs, long nowWallMs) {
    ProcessIdentity identity = a.identity();
    if (identity == null && ctx.directories.identity(t.key()) instanceof IdentityRecord.Written w) {
      identity = w.identity();
      table.transition(t, new RunPhase.Aborting(identity, a.why(), a.killAtMonoMs()));
    }
    if (identity != null && nowMonoMs >= a.killAtMonoMs() && ctx.processes.alive(identity)) {
      workers.signal(t.key(), identity, Signal.KILL);
      table.transition(t, new RunPhase.Aborting(identity, a.why(), nowMonoMs + ctx.ms(Timeout.STOP_GRACE)));
    }
    if (Liveness.dead(ctx.processes, ctx.directories, t.key(), identity)) {
      abort(t.run, ctx.me, a.why(), nowWallMs);
      table.transition(t, null);
    }
  }
}
