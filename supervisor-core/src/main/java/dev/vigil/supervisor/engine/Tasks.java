package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Claim;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunState;
import dev.vigil.coordination.StopIntent;
import dev.vigil.coordination.StopRequest;
import dev.vigil.supervisor.HelloCheck;
import dev.vigil.supervisor.StopKind;
import dev.vigil.supervisor.TimeLimit;
import dev.vigil.supervisor.Verdicts;
import dev.vigil.supervisor.engine.port.ProcessExit;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The task runs this daemon supervises, from claim to settlement, each run in one {@link RunPhase}
 * kept by the {@link TaskTable}. Each phase of a run has its own part: the reservation handoff
 * ({@link Handoffs}, Q3), the reconcile pass and renewal ({@link Reconciler}, C3, C4, C5, Q6),
 * recovery of runs without a live owner ({@link Recovery}, Q4, Q10, Q11, S6), settlement
 * ({@link Settling}, C6, Q1, Q2, Q5, Q7), stops ({@link TaskStops}, Q9, Q12, Q13, S5, S6) and runs
 * the store says are no longer this daemon's ({@link Releases}, H1). This
 * class routes the tick, the shell's events and the worker's hello to them, and decides time-outs
 * ({@link TimeLimit}, Q12) and kills (Q13): each is recorded in the store before its first signal.
 */
final class Tasks {
  private final Ctx ctx;
  private final Workers workers;
  private final TaskTable table;
  private final TaskStops stops;
  private final Settling settling;
  private final Handoffs handoffs;
  private final Recovery recovery;
  private final Reconciler reconciler;
  private final Releases releases;

  Tasks(Ctx ctx, Workers workers) {
    this.ctx = ctx;
    this.workers = workers;
    this.table = new TaskTable(ctx);
    this.stops = new TaskStops(ctx, table, workers);
    this.releases = new Releases(ctx, table, workers);
    this.settling = new Settling(ctx, table, releases);
    this.handoffs = new Handoffs(ctx, table, stops, workers, releases);
    this.recovery = new Recovery(ctx, table, handoffs, settling, stops);
    this.reconciler = new Reconciler(ctx, table, settling, stops, recovery, releases);
  }

  // ---- queries ----

  boolean isEmpty() {
    return table.isEmpty();
  }

  boolean supervises(RunId run) {
    return table.contains(run);
  }

  /** How many of its runs are starting: launched or adopted, their worker not yet told to go. */
  int starting() {
    return table.starting();
  }

  /** Liveness of every run this daemon supervises, by identity and reservation only (C5). */
  Map<RunId, Liveness.Life> liveness() {
    return table.liveness();
  }

  /** What status shows of {@code run}: how this daemon supervises it, empty when it does not. */
  Optional<TaskTable.Supervised> statusOf(RunId run) {
    return table.statusOf(run);
  }

  /** The workers an idle-shutdown round asks (every supervised run, S5). */
  List<WorkerKey> workers() {
    return table.workers();
  }

  // ---- dispatch, reconcile, the tick ----

  /** Launches the worker of a fresh claim (Q3), or rolls the claim back when that cannot be done. */
  void launch(Claim.Granted g, long nowMonoMs, long nowWallMs) {
    handoffs.launch(g, nowMonoMs, nowWallMs);
  }

  /**
   * The reconcile pass ({@link Reconciler}); {@code atBoot} for the boot's recovery of every live run.
   * Returns whether it looked at any run (false: none supervised here and none live in the store).
   */
  boolean reconcile(boolean atBoot, long nowMonoMs, long nowWallMs) {
    return reconciler.reconcile(atBoot, nowMonoMs, nowWallMs);
  }

  /**
   * Moves every run on: handoffs, rollbacks, reported exits, stops, go. The starts of the pass are
   * recorded in one {@code startAll}, and the exits this daemon saw as supervisor are taken and settled
   * in one {@code takeExitAndFinishAll}, at the end of the pass (the decisions of the single verbs in
   * turn, one commit each batch).
   */
  void tick(long nowMonoMs, long nowWallMs) {
    Handoffs.Pass starts = new Handoffs.Pass();
    Settling.Pass ends = new Settling.Pass();
    for (TaskTable.Tracked t : table.all()) {
      if (!table.current(t)) {
        continue;
      }
      RunPhase p = t.phase();
      if (p instanceof RunPhase.Handoff h) {
        handoffs.advance(t, h, nowMonoMs, nowWallMs, starts);
      } else if (p instanceof RunPhase.Aborting a) {
        handoffs.advanceAborting(t, a, nowMonoMs, nowWallMs);
      } else if (p instanceof RunPhase.Running r) {
        // a run being stopped is looked at every tick, so its stop moves on only while its worker lives
        if ((r.exit() != null || r.exitExpected() || r.stop() != null || r.deadSinceMonoMs() >= 0)
            && settling.settleIfDead(t, r, nowMonoMs, nowWallMs, ends) != Settling.Look.ALIVE) {
          continue;
        }
        timeLimit(t, nowMonoMs, nowWallMs);
        stops.advance(t, nowMonoMs);
        handoffs.goIfPending(t);
      } else if (p instanceof RunPhase.Released r) {
        releases.advance(t, r, nowMonoMs);
      } else {
        throw new AssertionError(p);
      }
    }
    settling.settleAll(ends, nowWallMs);
    handoffs.startAll(starts, nowMonoMs);
  }

  /**
   * When {@link #tick} must next look at the runs though no event comes: {@code nowMonoMs} while an
   * exit the shell reported waits for its settlement; {@code nowMonoMs + stepMs}
   * while a run is between two states that only a look moves on (a handoff, a rollback, an exit or
   * a death to settle, a stop, a go to send); else the earliest time limit of a running run
   * ({@link Long#MAX_VALUE} when none has one).
   */
  long nextDeadlineMonoMs(long nowMonoMs, long stepMs) {
    long next = Long.MAX_VALUE;
    for (TaskTable.Tracked t : table.all()) {
      if (t.phase() instanceof RunPhase.Running r && r.exit() != null) {
        return nowMonoMs; // a reported exit is settled by the next pass, at once
      }
      if (!(t.phase() instanceof RunPhase.Running r) || r.exit() != null || r.exitExpected() || r.stop() != null
          || r.intent() != null || r.deadSinceMonoMs() >= 0 || r.go() == RunPhase.Go.PENDING
          || r.limit().check(nowMonoMs) instanceof TimeLimit.Check.Expired) {
        return nowMonoMs + stepMs;
      }
      if (r.limit().check(nowMonoMs) instanceof TimeLimit.Check.Within w) {
        next = Math.min(next, w.untilMonoMs());
      }
    }
    return next;
  }

  /**
   * Q12: a run whose time is up is stopped: the intent is recorded first (durable: a daemon that dies
   * in the middle of the stop is followed by one that settles it the same way), then TERM, then KILL
   * after the grace. Whether the run is dead is still decided by identity and reservation only.
   */
  private void timeLimit(TaskTable.Tracked t, long nowMonoMs, long nowWallMs) {
    if (!(t.phase() instanceof RunPhase.Running r) || r.intent() != null
        || !(r.limit().check(nowMonoMs) instanceof TimeLimit.Check.Expired e)) {
      return;
    }
    StopRequest s = ctx.coordination.requestStop(t.run, StopIntent.TIMEOUT, Verdicts.timedOut(e.timeoutMs()), nowWallMs);
    if (s instanceof StopRequest.Recorded rec) {
      ctx.record(new EngineEvent.StopRequested(t.run, rec.run().stopIntent()));
      stops.intended(t, rec.run().stopIntent(), nowMonoMs);
    } else if (s instanceof StopRequest.Denied d) {
      ctx.record(new EngineEvent.VerbDenied(t.run, "requestStop", d.reason().toString()));
    } else {
      throw new AssertionError(s);
    }
  }

  /**
   * Q13: records an operator's kill of {@code run} and stops it if this daemon supervises it (a
   * claimed run is stopped instead of told go once it starts); returns the store's decision.
   */
  StopRequest kill(RunId run, StopIntent intent, String note, long nowMonoMs, long nowWallMs) {
    StopRequest s = ctx.coordination.requestStop(run, intent, note, nowWallMs);
    if (s instanceof StopRequest.Recorded rec) {
      ctx.record(new EngineEvent.StopRequested(run, rec.run().stopIntent()));
      table.get(run).ifPresent(t -> stops.intended(t, rec.run().stopIntent(), nowMonoMs));
    }
    return s;
  }

  /** A stop intent found on record for a supervised run this daemon did not know of (Q12, Q13). */
  void intentOnRecord(TaskTable.Tracked t, StopIntent intent, long nowMonoMs) {
    if (t.phase() instanceof RunPhase.Running r && intent != null && intent != r.intent()) {
      stops.intended(t, intent, nowMonoMs);
    }
  }

  // ---- stops ----

  /** The idle-shutdown stop of a run whose worker quiesced (S5): no signal follows. */
  void stopIdle(RunId run, long nowMonoMs) {
    table.get(run).ifPresent(t -> stops.begin(t, StopKind.IDLE_SHUTDOWN, nowMonoMs));
  }

  /** Stops every running worker of parked tickets and lanes at a safe point (Q9); returns how many were told. */
  int stopParked(long nowMonoMs) {
    return stops.stopParked(nowMonoMs);
  }

  /** A STOP_WORKERS shutdown: stops every running worker now and every worker that starts later. */
  void stopAll(long nowMonoMs) {
    stops.stopAll(nowMonoMs);
  }

  // ---- events ----

  /** The shell's exit report for a worker it launched; false when it is not a task worker. */
  boolean onExit(ProcessExit exit, long nowMonoMs, long nowWallMs) {
    for (TaskTable.Tracked t : table.all()) {
      RunPhase p = t.phase();
      if (p instanceof RunPhase.Handoff h && exit.identity().equals(h.launched())) {
        handoffs.advance(t, h, nowMonoMs, nowWallMs);
        return true;
      } else if (p instanceof RunPhase.Aborting a && exit.identity().equals(a.identity())) {
        handoffs.advanceAborting(t, a, nowMonoMs, nowWallMs);
        return true;
      } else if (p instanceof RunPhase.Running r && exit.identity().equals(r.start().identity())) {
        // taken and settled by the next pass of the loop, with every other exit reported before it
        // (one transaction for all: the shell reports exits as they are reaped, and the loop handles
        // every event it has before it ticks)
        table.transition(t, r.with(exit));
        return true;
      } else if (p instanceof RunPhase.Released r && exit.identity().equals(r.identity())) {
        return true; // its stop ends at the next look, which finds it dead
      }
    }
    return false;
  }

  /** A worker reported its outcome: it will exit; look for its death every tick from now on. */
  void onOutcomeReported(RunId run) {
    table.get(run).ifPresent(t -> {
      if (t.phase() instanceof RunPhase.Running r) {
        table.transition(t, r.expectingExit());
      }
    });
  }

  /** H1: releases another host's live runs ({@link Recovery#releaseHost}). */
  List<RunId> releaseHost(String hostId, long nowWallMs) {
    return recovery.releaseHost(hostId, nowWallMs);
  }

  /**
   * A hello for a task run: the reply for the worker's connection (C9, Q3, S6). A run this daemon
   * does not supervise is recovered first; the hello is checked by {@link HelloCheck} against what
   * the run's phase knows of its worker. H1: a run the store says is no longer this daemon's is
   * released ({@link Releases}) and the hello refused, before any welcome could tell its worker go.
   */
  ToWorker onHello(WorkerMessage.Hello hello, RunId run, long nowMonoMs, long nowWallMs) {
    Optional<TaskTable.Tracked> found = table.get(run);
    if (found.isEmpty()) {
      Optional<Run> stored = ctx.store.run(run);
      if (stored.isEmpty()) {
        return workers.deny(hello, "unknown run " + run);
      }
      if (stored.get().state() != RunState.SETTLED) {
        recovery.recover(stored.get(), nowMonoMs, nowWallMs);
        found = table.get(run);
      }
      if (found.isEmpty()) {
        Run now = ctx.store.run(run).orElseThrow();
        Optional<ToWorker> released = releases.helloOfReleased(hello, now, nowMonoMs);
        if (released.isPresent()) {
          return released.get();
        }
        return workers.deny(hello, now.state() == RunState.SETTLED
            ? "run " + run + " is settled (" + now.verdict() + ")"
            : "run " + run + " is " + now.state() + " and not supervised by this daemon (owner " + now.owner() + ")");
      }
    }
    TaskTable.Tracked t = found.get();
    if (t.phase() instanceof RunPhase.Running) { // a welcome may tell go: the store's word on the run first
      Optional<String> how = releases.elsewhere(t);
      if (how.isPresent()) {
        releases.release(t, how.get(), nowMonoMs, true);
      }
    }
    RunPhase p = t.phase();
    if (p instanceof RunPhase.Released r) {
      return releases.refuse(hello, t, r.how());
    }
    HelloCheck.Expected expected;
    if (p instanceof RunPhase.Aborting) {
      return workers.deny(hello, "run " + run + " is being rolled back: its handoff failed");
    } else if (p instanceof RunPhase.Handoff h) {
      expected = handoffs.expected(t, h);
    } else if (p instanceof RunPhase.Running r) {
      expected = new HelloCheck.Expected(r.start().identity(), r.start().tokenHash(), r.start().build());
    } else {
      throw new AssertionError(p);
    }
    HelloCheck.Result result = workers.check(hello, expected);
    if (result instanceof HelloCheck.Result.Denied d) {
      return workers.deny(hello, expected, d.reason(), "run " + run);
    } else if (result instanceof HelloCheck.Result.Accepted a) {
      if (p instanceof RunPhase.Handoff h) {
        handoffs.helloAccepted(t, h, a.identity(), hello, nowMonoMs, nowWallMs);
        if (t.phase() instanceof RunPhase.Released r) { // its start was refused: the run is no longer this daemon's
          return releases.refuse(hello, t, r.how());
        }
      } else if (p instanceof RunPhase.Running r && r.stop() != null) {
        table.transition(t, r.with(r.stop().redeliver())); // the new connection gets the stop on the next tick
      }
      return welcome(t);
    } else {
      throw new AssertionError(result);
    }
  }

  /** The welcome for a tracked run's connection: go only for a RUNNING run that is not being stopped (Q3). */
  private ToWorker welcome(TaskTable.Tracked t) {
    boolean go = t.phase() instanceof RunPhase.Running r && r.stop() == null;
    if (go) {
      table.transition(t, ((RunPhase.Running) t.phase()).with(RunPhase.Go.SENT));
    }
    ctx.record(new EngineEvent.Welcomed(t.key(), go));
    return new ToWorker.Welcome(ctx.config.build(), go);
  }
}
