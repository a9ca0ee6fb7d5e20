package dev.vigil.supervisor.engine;

import dev.vigil.coordination.AbortClaim;
import dev.vigil.coordination.AdoptClaim;
import dev.vigil.coordination.Claim;
import dev.vigil.coordination.Exit;
import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Finish;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.Lease;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.Readopt;
import dev.vigil.coordination.Renewal;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunStart;
import dev.vigil.coordination.RunState;
import dev.vigil.coordination.Settlement;
import dev.vigil.coordination.Start;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.Verdict;
import dev.vigil.supervisor.Adoption;
import dev.vigil.supervisor.Durations;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.engine.EngineEvent.RecoveryAction;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The task runs this daemon supervises, each in one {@link Phase}, and every decision about them:
 * the reservation handoff (Q3), the reconcile pass (C4, C5, C6, Q1, Q2, Q5, Q7), recovery of runs
 * without a live owner (DESIGN.md §7, Q4, Q10, Q11, S6) and stops (Q9, S6). Only
 * {@link #transition} changes a run's phase.
 *
 * <p>The store is the truth; this map is what the current incarnation is doing about it. Anything a
 * crash loses is rebuilt by {@link #recover} from the store, the process table and the directories.
 */
final class Tasks {
  /** Where a supervised run is. */
  sealed interface Phase {
    /**
     * CLAIMED; waiting until the worker holds its reservation and its identity is known, from its
     * identity record or its hello (Q3).
     *
     * @param source         launched by this incarnation, or adopted from a dead owner at recovery (its
     *                       claim already taken over by {@code adoptClaim}: the lease is this owner's either way)
     * @param launched       the launched process (null when adopted)
     * @param launchToken    the launched worker's token hash (null when adopted: from the identity record or the hello)
     * @param deadlineMonoMs when the handoff times out (launchHandoff after the launch or the adoption)
     * @param helloIdentity  the identity of the process that said hello (its token checked when there
     *                       was one to check against), or null
     * @param helloBuild     the build that hello reported, or null
     * @param helloToken     the token hash that hello presented, or null
     */
    record Handoff(Source source, ProcessIdentity launched, String launchToken, long deadlineMonoMs,
                   ProcessIdentity helloIdentity, String helloBuild, String helloToken) implements Phase {
      Handoff withHello(ProcessIdentity id, String build, String token) {
        return new Handoff(source, launched, launchToken, deadlineMonoMs, id, build, token);
      }
    }

    /**
     * The handoff failed: the worker (if any) is sent KILL, identity-gated, once per
     * {@code stopGrace} while it lives. The claim is rolled back once the worker is dead by identity
     * and reservation (Q4).
     *
     * @param identity     the worker's identity if known, else null
     * @param why          the claim's diagnosis
     * @param killAtMonoMs when KILL is due (again)
     */
    record Aborting(ProcessIdentity identity, String why, long killAtMonoMs) implements Phase {}

    /**
     * RUNNING under this owner.
     *
     * @param start        the recorded start
     * @param go           what this incarnation knows about the worker's go
     * @param exit         the exit the shell reported for its child, or null
     * @param exitExpected the worker reported its outcome: probe each tick until it is gone
     * @param stop         the stop in progress, or null
     */
    record Running(RunStart start, Go go, ProcessExit exit, boolean exitExpected, Stopping stop) implements Phase {
      Running with(Go g) {
        return new Running(start, g, exit, exitExpected, stop);
      }

      Running with(ProcessExit e) {
        return new Running(start, go, e, exitExpected, stop);
      }

      Running expectingExit() {
        return new Running(start, go, exit, true, stop);
      }

      Running with(Stopping s) {
        return new Running(start, go, exit, exitExpected, s);
      }
    }
  }

  enum Source { LAUNCHED, ADOPTED }

  /** What this incarnation knows about a running worker's go (Q3). */
  enum Go {
    /** Readopted: a previous daemon may or may not have told it. */
    UNKNOWN,
    /** Started by this incarnation; the worker has not been told yet: it has done no work. */
    PENDING,
    /** Told (a welcome with go=true went to its connection). */
    SENT
  }

  /**
   * A stop in progress.
   *
   * @param kind         why
   * @param sinceMonoMs  when it began
   * @param delivered    whether the stop frame reached the worker's connection
   * @param nextSignal   the signal due next (TERM, then KILL), or null when none is
   * @param signalAtMonoMs when it is due
   */
  record Stopping(StopKind kind, long sinceMonoMs, boolean delivered, Signal nextSignal, long signalAtMonoMs) {}

  /** One supervised run. */
  static final class Tracked {
    final RunId run;
    final Lane lane;
    private Phase phase;

    Tracked(RunId run, Lane lane, Phase phase) {
      this.run = run;
      this.lane = lane;
      this.phase = phase;
    }

    Phase phase() {
      return phase;
    }

    WorkerKey.Task key() {
      return new WorkerKey.Task(run);
    }
  }

  private final Ctx ctx;
  private final SortedMap<RunId, Tracked> tracked = new TreeMap<>();
  /** Live runs already journalled as left to their live owner, so that each is journalled once. */
  private final Set<RunId> leftAlone = new HashSet<>();
  /** Set while a STOP_WORKERS shutdown drains: every run that starts is stopped at once. */
  private boolean stopEveryStart;

  Tasks(Ctx ctx) {
    this.ctx = ctx;
  }

  // ---- the one place where a run's phase changes ----

  private void transition(Tracked t, Phase next) {
    if (next == null) {
      tracked.remove(t.run);
    } else {
      t.phase = next;
      tracked.put(t.run, t);
    }
  }

  // ---- queries ----

  boolean isEmpty() {
    return tracked.isEmpty();
  }

  Optional<Tracked> get(RunId run) {
    return Optional.ofNullable(tracked.get(run));
  }

  List<Tracked> all() {
    return List.copyOf(tracked.values());
  }

  /** Liveness of every run this daemon supervises, by identity and reservation only (C5). */
  Map<RunId, Liveness.Life> liveness() {
    Map<RunId, Liveness.Life> out = new TreeMap<>();
    for (Tracked t : tracked.values()) {
      out.put(t.run, Liveness.judge(ctx.processes, ctx.directories, t.key(), identityOf(t)));
    }
    return out;
  }

  private ProcessIdentity identityOf(Tracked t) {
    Phase p = t.phase;
    if (p instanceof Phase.Handoff h) {
      if (h.launched() != null) {
        return h.launched();
      }
      return ctx.directories.identity(t.key()) instanceof IdentityRecord.Written w ? w.identity() : null;
    } else if (p instanceof Phase.Aborting a) {
      return a.identity();
    } else if (p instanceof Phase.Running r) {
      return r.start().identity();
    } else {
      throw new AssertionError(p);
    }
  }

  // ---- dispatch: claim → directory → launch → handoff (Q3) ----

  /** Launches the worker of a fresh claim, or rolls the claim back when that cannot be done. */
  void launch(Claim.Granted g, long nowMonoMs, long nowWallMs) {
    RunId run = g.run().id();
    Ticket ticket = ctx.store.ticket(run.ticket()).orElseThrow(() -> new IllegalStateException(
        "claim " + run + " names ticket " + run.ticket() + " that the store does not have"));
    ctx.record(new EngineEvent.Claimed(run, ticket.lane()));
    WorkerKey.Task key = new WorkerKey.Task(run);
    if (!ctx.config.workerTypes().contains(ticket.type())) {
      abort(run, ctx.me, "worker type '" + ticket.type() + "' is not configured on this daemon");
      return;
    }
    Prepared prepared = ctx.directories.prepare(key);
    if (prepared instanceof Prepared.Failed f) {
      abort(run, ctx.me, "run directory: " + f.why());
      return;
    } else if (!(prepared instanceof Prepared.Ready)) {
      throw new AssertionError(prepared);
    }
    Launch launch = ctx.processes.launch(
        new LaunchRequest(key, ticket.type(), ticket.payload(), g.run().attempt(), ctx.config.build()));
    if (launch instanceof Launch.Failed f) {
      ctx.record(new EngineEvent.LaunchFailed(key, f.why()));
      abort(run, ctx.me, "launch failed: " + f.why());
    } else if (launch instanceof Launch.Started s) {
      ctx.record(new EngineEvent.Launched(key, s.identity()));
      transition(new Tracked(run, ticket.lane(), null), new Phase.Handoff(Source.LAUNCHED, s.identity(),
          s.tokenHash(), nowMonoMs + ctx.ms(Timeout.LAUNCH_HANDOFF), null, null, null));
    } else {
      throw new AssertionError(launch);
    }
  }

  /**
   * Rolls a claim back as {@code leaseOwner}: this daemon for its own claims (launched or adopted),
   * or the claim's recorded owner when recovery acts for it (the store refuses if another daemon
   * adopted the claim meanwhile).
   */
  private void abort(RunId run, OwnerId leaseOwner, String why) {
    AbortClaim a = ctx.coordination.abortClaim(run, leaseOwner, why);
    if (a instanceof AbortClaim.Aborted ab) {
      ctx.record(new EngineEvent.ClaimAborted(run, why, ab.ticket().state()));
    } else if (a instanceof AbortClaim.Denied d) {
      ctx.record(new EngineEvent.VerbDenied(run, "abortClaim", d.reason().toString()));
    } else {
      throw new AssertionError(a);
    }
  }

  /**
   * Moves a handoff on: start once the worker holds its reservation and its identity is known and
   * alive (Q3); roll back once a launched worker died before that; time out after launchHandoff.
   */
  private void advanceHandoff(Tracked t, Phase.Handoff h, long nowMonoMs, long nowWallMs) {
    WorkerKey.Task key = t.key();
    IdentityRecord record = ctx.directories.identity(key);
    ProcessIdentity identity = null;
    String build = null;
    String token = null;
    if (h.source() == Source.LAUNCHED) {
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
      start(t, new RunStart(identity, build, token, nowWallMs), nowMonoMs);
      return;
    }
    if (h.source() == Source.LAUNCHED && !reserved && !ctx.processes.alive(h.launched())) {
      beginAbort(t, h.launched(), "worker " + h.launched() + " died before it held its reservation and reported its identity",
          nowMonoMs);
      return;
    }
    if (nowMonoMs >= h.deadlineMonoMs()) {
      String why = "worker did not hold its reservation and report its identity within launchHandoff ("
          + Durations.format(ctx.ms(Timeout.LAUNCH_HANDOFF)) + ")";
      ctx.record(new EngineEvent.HandoffTimedOut(key, why));
      beginAbort(t, h.launched() != null ? h.launched() : identity, why, nowMonoMs);
    }
  }

  private void start(Tracked t, RunStart rs, long nowMonoMs) {
    Start s = ctx.coordination.start(t.run, ctx.me, rs);
    if (s instanceof Start.Started) {
      ctx.record(new EngineEvent.Started(t.run, rs.identity(), rs.build()));
      transition(t, new Phase.Running(rs, Go.PENDING, null, false, null));
      StopKind stop = stopDueAtStart(t, rs);
      if (stop != null) {
        beginStop(t, stop, nowMonoMs);
      }
    } else if (s instanceof Start.Denied d) {
      ctx.record(new EngineEvent.VerbDenied(t.run, "start", d.reason().toString()));
      transition(t, null); // the store says otherwise; the next reconcile recovers it from the store
    } else {
      throw new AssertionError(s);
    }
  }

  /** A run that just started is not told go when it must stop instead: another build (S6), parked (Q9), draining. */
  private StopKind stopDueAtStart(Tracked t, RunStart rs) {
    if (!rs.build().equals(ctx.config.build())) {
      return StopKind.LOST;
    }
    if (stopEveryStart) {
      return StopKind.OPERATOR;
    }
    return parked(t) ? StopKind.PARK : null;
  }

  private boolean parked(Tracked t) {
    return ctx.store.parkedLanes().contains(t.lane)
        || ctx.store.ticket(t.run.ticket()).map(Ticket::parked).orElse(false);
  }

  private void beginAbort(Tracked t, ProcessIdentity identity, String why, long nowMonoMs) {
    transition(t, new Phase.Aborting(identity, why, nowMonoMs));
    advanceAborting(t, (Phase.Aborting) t.phase, nowMonoMs);
  }

  private void advanceAborting(Tracked t, Phase.Aborting a, long nowMonoMs) {
    ProcessIdentity identity = a.identity();
    if (identity == null && ctx.directories.identity(t.key()) instanceof IdentityRecord.Written w) {
      identity = w.identity();
      transition(t, new Phase.Aborting(identity, a.why(), a.killAtMonoMs()));
    }
    if (identity != null && nowMonoMs >= a.killAtMonoMs() && ctx.processes.alive(identity)) {
      ctx.record(new EngineEvent.Signalled(t.key(), Signal.KILL, ctx.processes.signalGroup(identity, Signal.KILL)));
      transition(t, new Phase.Aborting(identity, a.why(), nowMonoMs + ctx.ms(Timeout.STOP_GRACE)));
    }
    if (Liveness.dead(ctx.processes, ctx.directories, t.key(), identity)) {
      abort(t.run, ctx.me, a.why());
      transition(t, null);
    }
  }

  // ---- the tick: handoffs, reported exits, stops, go ----

  void tick(long nowMonoMs, long nowWallMs) {
    for (Tracked t : all()) {
      if (tracked.get(t.run) != t) {
        continue;
      }
      Phase p = t.phase;
      if (p instanceof Phase.Handoff h) {
        advanceHandoff(t, h, nowMonoMs, nowWallMs);
      } else if (p instanceof Phase.Aborting a) {
        advanceAborting(t, a, nowMonoMs);
      } else if (p instanceof Phase.Running r) {
        if (r.exit() != null || r.exitExpected() || r.stop() != null) {
          if (settleIfDead(t, r, nowWallMs)) {
            continue;
          }
        }
        advanceStop(t, nowMonoMs);
        sendGoIfPending(t);
      } else {
        throw new AssertionError(p);
      }
    }
  }

  private void sendGoIfPending(Tracked t) {
    if (t.phase instanceof Phase.Running r && r.go() == Go.PENDING && r.stop() == null
        && ctx.channel.send(t.key(), new ToWorker.Welcome(ctx.config.build(), true))) {
      ctx.record(new EngineEvent.Welcomed(t.key(), true));
      transition(t, r.with(Go.SENT));
    }
  }

  /** Takes the exit and settles when the worker is dead by identity and reservation (C5); true if it was. */
  private boolean settleIfDead(Tracked t, Phase.Running r, long nowWallMs) {
    if (!Liveness.dead(ctx.processes, ctx.directories, t.key(), r.start().identity())) {
      return false;
    }
    ExitOwner claimant = r.exit() != null ? ExitOwner.supervisor(ctx.me) : ExitOwner.recovery(ctx.me);
    RunExit facts = r.exit() != null ? r.exit().at(nowWallMs) : RunExit.unknown(nowWallMs);
    StopKind stoppedBy = r.stop() == null ? null : r.stop().kind();
    Exit e = ctx.coordination.takeExit(t.run, claimant, facts);
    // the run stays tracked until settled: should finish fail, the next tick finds the exit taken by
    // this owner and settles again with what this incarnation knows (its stop, its go)
    if (e instanceof Exit.Taken) {
      ctx.record(new EngineEvent.ExitTaken(t.run, claimant.role(), facts));
      settle(t.run, claimant, stoppedBy, r.go() == Go.PENDING, facts, false, nowWallMs);
    } else if (e instanceof Exit.Denied d) {
      if (d.reason() == Exit.Reason.ALREADY_TAKEN && d.winner().owner().equals(ctx.me)) {
        Run run = ctx.store.run(t.run).orElseThrow();
        settle(t.run, d.winner(), stoppedBy, r.go() == Go.PENDING, run.exit(), false, nowWallMs);
      } else {
        ctx.record(new EngineEvent.ExitLost(t.run, d.reason() + (d.winner() == null ? "" : " by " + d.winner())));
      }
    } else {
      throw new AssertionError(e);
    }
    transition(t, null);
    return true;
  }

  /**
   * Settles an EXITED run through the store's retry policy (Q1, Q2, Q5, Q7): the worker's own
   * outcome when it wrote one; when it wrote none (or an unreadable one), STALLED without spending an
   * attempt if this daemon had stopped it or never told it to go, else LOST with the diagnosis.
   */
  private void settle(RunId run, ExitOwner claimant, StopKind stoppedBy, boolean neverToldToGo, RunExit exit,
                      boolean forDeadExitOwner, long nowWallMs) {
    OutcomeRecord outcome = ctx.directories.outcome(run);
    Finish f;
    if (outcome instanceof OutcomeRecord.Written w) {
      f = w.verdict() == Verdict.STALLED ? Finish.stalled(claimant, run, w.stallUntilWallMs(), w.note())
          : Finish.as(claimant, run, w.verdict(), w.note());
    } else {
      String diagnosis;
      if (outcome instanceof OutcomeRecord.Absent a) {
        diagnosis = a.diagnosis();
      } else if (outcome instanceof OutcomeRecord.Corrupt c) {
        diagnosis = c.diagnosis();
      } else {
        throw new AssertionError(outcome);
      }
      String ended = "worker ended (" + (exit == null ? "unknown" : exit) + ")";
      if (stoppedBy != null && stoppedBy != StopKind.IDLE_SHUTDOWN) {
        f = Finish.stalled(claimant, run, nowWallMs, ended + " after a " + stoppedBy + " stop without an outcome ("
            + diagnosis + "): work left resumable, no attempt spent");
      } else if (neverToldToGo) {
        f = Finish.stalled(claimant, run, nowWallMs, ended + " before it was told to go: no work began (" + diagnosis + ")");
      } else {
        f = Finish.as(claimant, run, Verdict.LOST, ended + " without an outcome: " + diagnosis);
      }
    }
    if (forDeadExitOwner) {
      f = f.forDeadExitOwner();
    }
    Settlement s = ctx.coordination.finish(f, nowWallMs);
    if (s instanceof Settlement.Settled ok) {
      ctx.record(new EngineEvent.Settled(run, f.verdict(), f.diagnosis(), ok.ticket().state()));
    } else if (s instanceof Settlement.Denied d) {
      ctx.record(new EngineEvent.SettleDenied(run, d.reason()));
    } else {
      throw new AssertionError(s);
    }
  }

  // ---- stops ----

  /** How hard a stop is: a frame only, then TERM, then KILL. */
  private static int strength(StopKind k) {
    return k.kills() ? 2 : k.escalates() ? 1 : 0;
  }

  /**
   * Begins a stop of a running worker: the stop frame now, TERM one {@code stopGrace} later for
   * kinds that escalate, KILL one more grace later for kinds that kill. A stop in progress is only
   * ever replaced by a harder one.
   */
  boolean beginStop(Tracked t, StopKind kind, long nowMonoMs) {
    if (!(t.phase instanceof Phase.Running r)) {
      return false;
    }
    if (r.stop() != null && strength(kind) <= strength(r.stop().kind())) {
      return false;
    }
    long graceMs = ctx.ms(Timeout.STOP_GRACE);
    boolean delivered = ctx.channel.send(t.key(), new ToWorker.Stop(graceMs, kind));
    boolean termSent = r.stop() != null && r.stop().kind().escalates() && r.stop().nextSignal() != Signal.TERM;
    Signal next = !kind.escalates() ? null : termSent ? Signal.KILL : Signal.TERM;
    // the first signal comes one grace after the stop even when no connection took the frame yet: a
    // worker that reconnects within the grace (after a daemon restart) gets the frame first
    transition(t, r.with(new Stopping(kind, nowMonoMs, delivered, next, nowMonoMs + graceMs)));
    ctx.record(new EngineEvent.StopBegun(t.key(), kind));
    advanceStop(t, nowMonoMs);
    return true;
  }

  /** Resends an undelivered stop frame; sends the signal that is due (identity-gated). */
  private void advanceStop(Tracked t, long nowMonoMs) {
    if (!(t.phase instanceof Phase.Running r) || r.stop() == null) {
      return;
    }
    Stopping s = r.stop();
    long graceMs = ctx.ms(Timeout.STOP_GRACE);
    if (!s.delivered() && ctx.channel.send(t.key(), new ToWorker.Stop(graceMs, s.kind()))) {
      s = new Stopping(s.kind(), s.sinceMonoMs(), true, s.nextSignal(), s.signalAtMonoMs());
    }
    if (s.nextSignal() != null && nowMonoMs >= s.signalAtMonoMs()) {
      boolean sent = ctx.processes.signalGroup(r.start().identity(), s.nextSignal());
      ctx.record(new EngineEvent.Signalled(t.key(), s.nextSignal(), sent));
      Signal next = s.kind().kills() ? Signal.KILL : null; // KILL is repeated every grace until the group is gone
      s = new Stopping(s.kind(), s.sinceMonoMs(), s.delivered(), next, nowMonoMs + graceMs);
    }
    if (!s.equals(r.stop())) {
      transition(t, r.with(s));
    }
  }

  /** Stops every running worker of parked tickets and lanes at a safe point (Q9); returns how many were told. */
  int stopParked(long nowMonoMs) {
    int n = 0;
    for (Tracked t : all()) {
      if (t.phase instanceof Phase.Running r && r.stop() == null && parked(t) && beginStop(t, StopKind.PARK, nowMonoMs)) {
        n++;
      }
    }
    return n;
  }

  /** A STOP_WORKERS shutdown: stops every running worker now and every worker that starts later. */
  void stopAll(long nowMonoMs) {
    stopEveryStart = true;
    for (Tracked t : all()) {
      beginStop(t, StopKind.OPERATOR, nowMonoMs);
    }
  }

  // ---- events ----

  /** The shell's exit report for a worker it launched; false when it is not a task worker. */
  boolean onExit(ProcessExit exit, long nowMonoMs, long nowWallMs) {
    for (Tracked t : all()) {
      Phase p = t.phase;
      if (p instanceof Phase.Handoff h && exit.identity().equals(h.launched())) {
        advanceHandoff(t, h, nowMonoMs, nowWallMs);
        return true;
      } else if (p instanceof Phase.Aborting a && exit.identity().equals(a.identity())) {
        advanceAborting(t, a, nowMonoMs);
        return true;
      } else if (p instanceof Phase.Running r && exit.identity().equals(r.start().identity())) {
        Phase.Running withExit = r.with(exit);
        transition(t, withExit);
        settleIfDead(t, withExit, nowWallMs);
        return true;
      }
    }
    return false;
  }

  /** A hello for a task run: the reply for the worker's connection (C9, Q3, S6). */
  ToWorker onHello(WorkerMessage.Hello hello, RunId run, long nowMonoMs, long nowWallMs) {
    Tracked t = tracked.get(run);
    if (t == null) {
      Optional<Run> stored = ctx.store.run(run);
      if (stored.isEmpty()) {
        return deny(hello, "unknown run " + run);
      }
      if (stored.get().state() == RunState.SETTLED) {
        return deny(hello, "run " + run + " is settled (" + stored.get().verdict() + ")");
      }
      recover(stored.get(), false, nowMonoMs, nowWallMs);
      t = tracked.get(run);
      if (t == null) {
        Run now = ctx.store.run(run).orElseThrow();
        return deny(hello, "run " + run + " is " + now.state() + " and not supervised by this daemon (owner " + now.owner() + ")");
      }
    }
    String build = ctx.config.build();
    Phase p = t.phase;
    if (p instanceof Phase.Handoff h) {
      String expectedToken;
      String expectedBuild;
      ProcessIdentity expectedIdentity;
      if (h.source() == Source.LAUNCHED) {
        expectedToken = h.launchToken();
        expectedBuild = build;
        expectedIdentity = h.launched();
      } else if (ctx.directories.identity(t.key()) instanceof IdentityRecord.Written w) {
        expectedToken = w.tokenHash(); // null: the record carries none; the identity below proves the worker
        expectedBuild = w.build();
        expectedIdentity = w.identity();
      } else {
        return deny(hello, "run " + run + " has no identity record to check the worker against");
      }
      if (expectedToken != null && !Ctx.sameToken(hello.tokenHash(), expectedToken)) {
        return deny(hello, "wrong token for run " + run);
      }
      if (expectedBuild != null && !hello.build().equals(expectedBuild)) {
        return deny(hello, "build " + hello.build() + " is not the build " + expectedBuild + " run " + run + " was launched with");
      }
      Optional<ProcessIdentity> id = ctx.processes.identity(hello.pid());
      if (id.isEmpty() || !id.get().equals(expectedIdentity)) {
        return deny(hello, "pid " + hello.pid() + " is not the worker of run " + run);
      }
      transition(t, h.withHello(id.get(), hello.build(), hello.tokenHash()));
      advanceHandoff(t, (Phase.Handoff) t.phase, nowMonoMs, nowWallMs);
      return welcome(t);
    } else if (p instanceof Phase.Aborting) {
      return deny(hello, "run " + run + " is being rolled back: its handoff failed");
    } else if (p instanceof Phase.Running r) {
      if (!Ctx.sameToken(hello.tokenHash(), r.start().tokenHash())) {
        return deny(hello, "wrong token for run " + run);
      }
      if (!hello.build().equals(r.start().build())) {
        return deny(hello, "build " + hello.build() + " is not the build " + r.start().build() + " run " + run + " started with");
      }
      if (!ctx.processes.identity(hello.pid()).map(r.start().identity()::equals).orElse(false)) {
        return deny(hello, "pid " + hello.pid() + " is not the identity recorded for run " + run);
      }
      if (r.stop() != null) {
        transition(t, r.with(new Stopping(r.stop().kind(), r.stop().sinceMonoMs(), false, r.stop().nextSignal(),
            r.stop().signalAtMonoMs()))); // the new connection gets the stop again on the next tick
      }
      return welcome(t);
    } else {
      throw new AssertionError(p);
    }
  }

  /** The welcome for a tracked run's connection: go only for a RUNNING run that is not being stopped (Q3). */
  private ToWorker welcome(Tracked t) {
    boolean go = t.phase instanceof Phase.Running r && r.stop() == null;
    if (go) {
      transition(t, ((Phase.Running) t.phase).with(Go.SENT));
    }
    ctx.record(new EngineEvent.Welcomed(t.key(), go));
    return new ToWorker.Welcome(ctx.config.build(), go);
  }

  private ToWorker deny(WorkerMessage.Hello hello, String reason) {
    ctx.record(new EngineEvent.HelloDenied(hello.key(), reason));
    return new ToWorker.AdoptDenied(reason);
  }

  /** A worker reported its outcome: it will exit; look for its death every tick from now on. */
  void onOutcomeReported(RunId run) {
    Tracked t = tracked.get(run);
    if (t != null && t.phase instanceof Phase.Running r) {
      transition(t, r.expectingExit());
    }
  }

  // ---- the reconcile pass ----

  /**
   * Every {@code reconcile}: renew the leases of supervised runs (C4: a denial is recorded and
   * decides nothing; an expired lease of a worker alive by identity is re-armed by readopt, C3), look
   * for dead workers by identity and reservation only (C5, Q6), take their exits (C6) and settle
   * (Q1, Q2, Q5, Q7); tell workers of parked tickets to stop (Q9); recover every live run that has
   * no live owner and that this daemon does not supervise.
   */
  void reconcile(boolean atBoot, long nowMonoMs, long nowWallMs) {
    renew(nowMonoMs, nowWallMs);
    for (Tracked t : all()) {
      if (tracked.get(t.run) != t) {
        continue;
      }
      Optional<Run> stored = ctx.store.run(t.run);
      if (stored.isEmpty() || stored.get().state() == RunState.SETTLED) {
        transition(t, null);
        continue;
      }
      if (t.phase instanceof Phase.Running r) {
        if (!settleIfDead(t, r, nowWallMs) && r.stop() == null && parked(t)) {
          beginStop(t, StopKind.PARK, nowMonoMs);
        }
      }
    }
    Map<OwnerId, Boolean> ownerMayLive = new HashMap<>();
    List<Run> live = ctx.store.liveRuns();
    Set<RunId> liveIds = new HashSet<>();
    for (Run r : live) {
      liveIds.add(r.id());
    }
    leftAlone.retainAll(liveIds);
    for (Run r : live) {
      if (!tracked.containsKey(r.id())) {
        recover(r, atBoot, ownerMayLive, nowMonoMs, nowWallMs);
      }
    }
  }

  private void renew(long nowMonoMs, long nowWallMs) {
    if (tracked.isEmpty()) {
      return;
    }
    ctx.coordination.renewAll(ctx.me, nowWallMs, ctx.leaseTtlMs());
    Map<RunId, Lease> leases = new HashMap<>();
    for (Lease l : ctx.store.leases()) {
      leases.put(l.run(), l);
    }
    for (Tracked t : all()) {
      Lease l = leases.get(t.run);
      if (l != null && l.owner().equals(ctx.me) && l.expiresAtMs() > nowWallMs) {
        continue;
      }
      Renewal rn = ctx.coordination.renew(t.run, ctx.me, nowWallMs, ctx.leaseTtlMs());
      if (rn instanceof Renewal.Denied d) {
        ctx.record(new EngineEvent.RenewalDenied(t.run, d.reason()));
        if (d.reason() == Renewal.Reason.EXPIRED && t.phase instanceof Phase.Running r
            && !Liveness.dead(ctx.processes, ctx.directories, t.key(), r.start().identity())
            && ctx.coordination.readopt(t.run, ctx.me, nowWallMs, ctx.leaseTtlMs()) instanceof Readopt.Readopted) {
          ctx.record(new EngineEvent.LeaseRearmed(t.run));
        }
      } else if (!(rn instanceof Renewal.Renewed)) {
        throw new AssertionError(rn);
      }
    }
  }

  // ---- recovery (DESIGN.md §7) ----

  void recover(Run r, boolean atBoot, long nowMonoMs, long nowWallMs) {
    recover(r, atBoot, new HashMap<>(), nowMonoMs, nowWallMs);
  }

  /**
   * Recovers one live run this daemon does not supervise, exactly as DESIGN.md §7:
   *
   * <ol>
   *   <li>A run whose owner may live (this incarnation's runs are always recovered) is left alone,
   *       except a claim older than {@code staleClaim} at boot with its reservation free (Q10).
   *   <li>CLAIMED: reservation held → the claim is taken over from its dead owner
   *       ({@code adoptClaim}, C3) and the handoff adopted: started as this owner once the worker's
   *       identity record names a live process holding the reservation (its build and token from the
   *       record, or from that process's hello when the record has none), rolled back after
   *       launchHandoff once the worker is gone; free → {@code abortClaim} for the claim's owner.
   *   <li>RUNNING: alive by identity or reservation and same build → {@code readopt} (Q11, D4);
   *       alive, another build → readopt and stop as a lost worker (S6); dead → {@code takeExit} as
   *       RECOVERY, outcome read, {@code finish} (Q4, Q5).
   *   <li>EXITED whose exit owner is dead → {@code finish} for the dead exit owner with the recorded
   *       facts; EXITED by this owner → finish (a settlement that had not happened).
   * </ol>
   */
  private void recover(Run r, boolean atBoot, Map<OwnerId, Boolean> ownerMayLive, long nowMonoMs, long nowWallMs) {
    WorkerKey.Task key = new WorkerKey.Task(r.id());
    boolean foreignLive = !r.owner().equals(ctx.me) && ownerMayLive.computeIfAbsent(r.owner(), ctx::ownerMayLive);
    Lane lane = ctx.store.ticket(r.ticket()).map(Ticket::lane).orElse(Lane.DEFAULT);
    if (r.state() == RunState.CLAIMED) {
      boolean stale = atBoot && nowWallMs - r.claimedAtMs() >= ctx.ms(Timeout.STALE_CLAIM);
      boolean reserved = ctx.directories.isReserved(key);
      if (foreignLive && (!stale || reserved)) {
        leave(r, "claim of live owner " + r.owner());
      } else if (reserved) {
        AdoptClaim a = ctx.coordination.adoptClaim(r.id(), ctx.me, r.owner(), nowWallMs, ctx.leaseTtlMs());
        if (a instanceof AdoptClaim.Denied d) {
          ctx.record(new EngineEvent.VerbDenied(r.id(), "adoptClaim", d.reason().toString()));
          return;
        } else if (!(a instanceof AdoptClaim.Adopted)) {
          throw new AssertionError(a);
        }
        ctx.record(new EngineEvent.Recovered(r.id(), RecoveryAction.ADOPT_CLAIM, "reservation held"));
        Tracked t = new Tracked(r.id(), lane, null);
        transition(t, new Phase.Handoff(Source.ADOPTED, null, null, nowMonoMs + ctx.ms(Timeout.LAUNCH_HANDOFF),
            null, null, null));
        advanceHandoff(t, (Phase.Handoff) t.phase, nowMonoMs, nowWallMs);
      } else {
        String why = foreignLive
            ? "stale claim (Q10): claimed " + Durations.format(nowWallMs - r.claimedAtMs()) + " ago by " + r.owner()
                + ", no worker holds its reservation"
            : "recovery: owner " + r.owner() + " is gone and no worker holds the reservation";
        ctx.record(new EngineEvent.Recovered(r.id(), RecoveryAction.ABORT_CLAIM, why));
        abort(r.id(), r.owner(), why);
      }
    } else if (r.state() == RunState.RUNNING) {
      if (foreignLive) {
        leave(r, "run of live owner " + r.owner());
        return;
      }
      boolean alive = !Liveness.dead(ctx.processes, ctx.directories, key, r.start().identity());
      Adoption.Verdict v = ctx.adoption.verdict(alive, Optional.of(r.start().build()), ctx.bootMonoMs, nowMonoMs);
      if (v instanceof Adoption.Verdict.NotAlive) {
        RunExit facts = RunExit.unknown(nowWallMs);
        ExitOwner claimant = ExitOwner.recovery(ctx.me);
        Exit e = ctx.coordination.takeExit(r.id(), claimant, facts);
        if (e instanceof Exit.Taken) {
          ctx.record(new EngineEvent.Recovered(r.id(), RecoveryAction.SETTLE_DEAD, "dead by identity and reservation"));
          ctx.record(new EngineEvent.ExitTaken(r.id(), claimant.role(), facts));
          settle(r.id(), claimant, null, false, facts, false, nowWallMs);
        } else if (e instanceof Exit.Denied d) {
          ctx.record(new EngineEvent.ExitLost(r.id(), d.reason() + (d.winner() == null ? "" : " by " + d.winner())));
        } else {
          throw new AssertionError(e);
        }
      } else if (v instanceof Adoption.Verdict.Adopt || v instanceof Adoption.Verdict.StopAsLost) {
        Readopt ro = ctx.coordination.readopt(r.id(), ctx.me, nowWallMs, ctx.leaseTtlMs());
        if (ro instanceof Readopt.Denied d) {
          ctx.record(new EngineEvent.VerbDenied(r.id(), "readopt", d.reason().toString()));
          return;
        } else if (!(ro instanceof Readopt.Readopted)) {
          throw new AssertionError(ro);
        }
        Tracked t = new Tracked(r.id(), lane, null);
        transition(t, new Phase.Running(r.start(), Go.UNKNOWN, null, false, null));
        if (v instanceof Adoption.Verdict.StopAsLost) {
          ctx.record(new EngineEvent.Recovered(r.id(), RecoveryAction.STOP_OTHER_BUILD,
              "worker build " + r.start().build() + ", daemon build " + ctx.config.build()));
          beginStop(t, StopKind.LOST, nowMonoMs);
        } else {
          ctx.record(new EngineEvent.Recovered(r.id(), RecoveryAction.READOPT, "alive by identity or reservation"));
          StopKind due = stopEveryStart ? StopKind.OPERATOR : parked(t) ? StopKind.PARK : null;
          if (due != null) {
            beginStop(t, due, nowMonoMs);
          }
        }
      } else if (v instanceof Adoption.Verdict.AwaitHello) {
        throw new AssertionError("a task run's build is recorded, so adoption never waits for its hello: " + v);
      } else {
        throw new AssertionError(v);
      }
    } else if (r.state() == RunState.EXITED) {
      ExitOwner exitOwner = r.exitOwner();
      if (exitOwner.owner().equals(ctx.me)) {
        ctx.record(new EngineEvent.Recovered(r.id(), RecoveryAction.SETTLE_OWN_EXIT, "exit taken, not settled"));
        settle(r.id(), exitOwner, null, false, r.exit(), false, nowWallMs);
      } else if (ownerMayLive.computeIfAbsent(exitOwner.owner(), ctx::ownerMayLive)) {
        leave(r, "exit taken by live owner " + exitOwner);
      } else {
        ctx.record(new EngineEvent.Recovered(r.id(), RecoveryAction.FINISH_FOR_DEAD_EXIT_OWNER,
            "exit owner " + exitOwner + " is gone; exit " + r.exit()));
        settle(r.id(), ExitOwner.recovery(ctx.me), null, false, r.exit(), true, nowWallMs);
      }
    } else {
      throw new AssertionError("liveRuns returned a " + r.state() + " run: " + r.id());
    }
  }

  private void leave(Run r, String why) {
    if (leftAlone.add(r.id())) {
      ctx.record(new EngineEvent.Recovered(r.id(), RecoveryAction.LEAVE_TO_LIVE_OWNER, why));
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
