package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Checkpointing;
import dev.vigil.coordination.EndOf;
import dev.vigil.coordination.Exit;
import dev.vigil.coordination.ExitAndFinish;
import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Finish;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.Settlement;
import dev.vigil.coordination.StopIntent;
import dev.vigil.supervisor.StopKind;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.Verdicts;
import dev.vigil.supervisor.engine.port.OutcomeRecord;
import dev.vigil.supervisor.engine.port.RunDirectories;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The end of a task run: its exit is taken once its worker is dead by identity and reservation
 * (C5, C6), and it is settled through the one verdict rule, {@link Verdicts} (Q1, Q2, Q5, Q7, Q12,
 * Q13), whether the supervisor or recovery took the exit. A worker's result goes into the same
 * finish, so it is stored in the settlement's transaction or not at all.
 *
 * <p>The exit recorded is the one people are shown: the exit code or signal of the command the run
 * stands for, as the worker wrote it with its outcome, else the worker host's own as the shell saw
 * it, else unknown. A worker this incarnation launched is its child, so once it is found dead the
 * shell's report of its exit is awaited (at most one reconcile interval) and the exit is taken as
 * its supervisor, never as recovery with unknown facts.
 */
final class Settling {
  /** What became of a supervised run at a look for its death. */
  enum Look {
    /** Its worker lives (or may): nothing was done. */
    ALIVE,
    /** Its worker is dead; this daemon's own child whose exit report is still awaited. */
    AWAITING_EXIT_REPORT,
    /** Its worker is dead: its exit was taken and it is settled (or another daemon has it); no longer supervised. */
    ENDED
  }

  private final Ctx ctx;
  private final TaskTable table;
  private final Releases releases;

  Settling(Ctx ctx, TaskTable table, Releases releases) {
    this.ctx = ctx;
    this.table = table;
    this.releases = releases;
  }

  /**
   * The supervisor's own exits found in one pass of the loop, taken and settled together at its end
   * by one {@code takeExitAndFinishAll} ({@link #settleAll}).
   */
  static final class Pass {
    private final List<Own> own = new ArrayList<>();

    boolean isEmpty() {
      return own.isEmpty();
    }
  }

  /** One exit of a {@link Pass}: the run, its end as asked of the store, and what the decision is recorded with. */
  private record Own(TaskTable.Tracked t, EndOf end, StopKind stoppedBy, boolean neverToldToGo) {}

  /**
   * Takes the exit and settles when the worker of {@code t} is dead by identity and reservation
   * (C5); a dead worker this incarnation launched waits for the shell's exit report first. A run
   * the store says is no longer this daemon's (H1: a release of this host) is only recorded: its
   * checkpoint is not kept, its exit not taken, and it is not settled here.
   */
  Look settleIfDead(TaskTable.Tracked t, RunPhase.Running r, long nowMonoMs, long nowWallMs) {
    return settleIfDead(t, r, nowMonoMs, nowWallMs, null);
  }

  /**
   * As {@link #settleIfDead(TaskTable.Tracked, RunPhase.Running, long, long)}; with a {@code pass},
   * an exit this daemon saw as the run's supervisor is only noted in it (the run is then ENDED for
   * the rest of the pass), and taken and settled by {@link #settleAll} with the others of the pass.
   */
  Look settleIfDead(TaskTable.Tracked t, RunPhase.Running r, long nowMonoMs, long nowWallMs, Pass pass) {
    if (!Liveness.dead(ctx.processes, ctx.directories, t.key(), r.start().identity())) {
      return Look.ALIVE;
    }
    if (r.exit() == null && r.ownChild()) {
      long since = r.deadSinceMonoMs() >= 0 ? r.deadSinceMonoMs() : nowMonoMs;
      if (nowMonoMs - since < ctx.ms(Timeout.RECONCILE)) {
        if (r.deadSinceMonoMs() < 0) {
          table.transition(t, r.deadSince(nowMonoMs));
        }
        return Look.AWAITING_EXIT_REPORT;
      }
    }
    boolean reported = r.exit() != null;
    ExitOwner claimant = reported ? ExitOwner.supervisor(ctx.me) : ExitOwner.recovery(ctx.me);
    RunExit facts = facts(t.run, reported ? r.exit().at(nowWallMs) : RunExit.unknown(nowWallMs), nowWallMs);
    StopKind stoppedBy = r.stop() == null ? null : r.stop().kind();
    boolean neverToldToGo = r.go() == RunPhase.Go.PENDING;
    Optional<Run> stored = ctx.store.run(t.run);
    Optional<String> elsewhere = stored.isEmpty() ? Optional.of("the store no longer has it")
        : releases.elsewhere(stored.get());
    if (elsewhere.isPresent()) { // H1: no longer this daemon's: no checkpoint kept, no exit taken, no finish
      releases.release(t, elsewhere.get(), nowMonoMs, false);
      return Look.ENDED;
    }
    keepCheckpoint(t.run, nowWallMs);
    Exit e;
    if (reported) {
      // the supervisor's own exit: taken and settled in one transaction (a finish refused leaves the
      // run EXITED by this owner, as below)
      Finish f = finishOf(stored, t.run, claimant, outcome(t.run), stoppedBy, neverToldToGo, facts, false, nowWallMs);
      if (pass != null) {
        pass.own.add(new Own(t, new EndOf(t.run, claimant, facts, f), stoppedBy, neverToldToGo));
        return Look.ENDED;
      }
      ExitAndFinish ef;
      try {
        ef = ctx.coordination.takeExitAndFinish(t.run, claimant, facts, f, nowWallMs);
      } catch (RuntimeException x) {
        ctx.occupancy.recount();
        throw x;
      }
      ended(t, claimant, stoppedBy, neverToldToGo, facts, f, ef, nowWallMs);
      return Look.ENDED;
    } else {
      e = ctx.coordination.takeExit(t.run, claimant, facts);
      // supervision ends here either way: should the settlement not happen (a crash), the run stays
      // EXITED by this owner and the next reconcile settles it (recovery's SETTLE_OWN_EXIT)
      if (e instanceof Exit.Taken) {
        ctx.record(new EngineEvent.ExitTaken(t.run, claimant.role(), facts));
        settle(t.run, claimant, stoppedBy, neverToldToGo, facts, false, nowWallMs);
      }
    }
    lost(t, e, stoppedBy, neverToldToGo, nowWallMs);
    table.transition(t, null);
    return Look.ENDED;
  }

  /**
   * Takes and settles the exits noted in {@code pass} in one {@code takeExitAndFinishAll}, then
   * records each decision as {@link #settleIfDead} does for one; the pass is empty afterwards. When
   * the verb fails, no exit was taken: the runs stay as they were, and the next pass tries again.
   */
  void settleAll(Pass pass, long nowWallMs) {
    if (pass.own.isEmpty()) {
      return;
    }
    List<Own> own = List.copyOf(pass.own);
    pass.own.clear();
    List<ExitAndFinish> decided;
    try {
      decided = ctx.coordination.takeExitAndFinishAll(own.stream().map(Own::end).toList(), nowWallMs);
    } catch (RuntimeException x) {
      ctx.occupancy.recount();
      throw x;
    }
    for (int i = 0; i < own.size(); i++) {
      Own o = own.get(i);
      ended(o.t(), o.end().claimant(), o.stoppedBy(), o.neverToldToGo(), o.end().exit(), o.end().finish(),
          decided.get(i), nowWallMs);
    }
  }

  /** Records what the store decided of the supervisor's own exit and its finish; the run is no longer supervised. */
  private void ended(TaskTable.Tracked t, ExitOwner claimant, StopKind stoppedBy, boolean neverToldToGo, RunExit facts,
                     Finish f, ExitAndFinish ef, long nowWallMs) {
    Exit e = ef.exit();
    if (e instanceof Exit.Taken) {
      ctx.record(new EngineEvent.ExitTaken(t.run, claimant.role(), facts));
      settled(f, ef.settlement().orElseThrow());
    }
    lost(t, e, stoppedBy, neverToldToGo, nowWallMs);
    table.transition(t, null);
  }

  /**
   * An exit not taken by this call: settled here when this owner took it before; else another owner took
   * it or settled the run while this daemon supervised it (H1: this host was released), which is recorded,
   * and the run is not settled here.
   */
  private void lost(TaskTable.Tracked t, Exit e, StopKind stoppedBy, boolean neverToldToGo, long nowWallMs) {
    if (e instanceof Exit.Denied d) {
      if (d.reason() == Exit.Reason.ALREADY_TAKEN && d.winner().owner().equals(ctx.me)) {
        Run run = ctx.store.run(t.run).orElseThrow();
        settle(t.run, d.winner(), stoppedBy, neverToldToGo, run.exit(), false, nowWallMs);
      } else {
        String how = ctx.store.run(t.run).flatMap(releases::elsewhere).orElse("its exit was not taken here: "
            + d.reason() + (d.winner() == null ? "" : " by " + d.winner()));
        ctx.record(new EngineEvent.SettledElsewhere(t.run, how, false));
      }
    } else if (!(e instanceof Exit.Taken)) {
      throw new AssertionError(e);
    }
  }

  /**
   * Q17: offers the store the checkpoint the dead worker of {@code run} left in its directory, before the run
   * is settled, so that the next attempt resumes from the latest one the worker saved, whoever settles the run
   * and after whatever crash. Offering again what the store keeps is refused as not newer and changes nothing.
   */
  private void keepCheckpoint(RunId run, long nowWallMs) {
    Optional<RunDirectories.SavedCheckpoint> saved = ctx.directories.checkpoint(run);
    if (saved.isEmpty()) {
      return;
    }
    Checkpointing c = ctx.coordination.keepCheckpoint(run, saved.get().seq(), saved.get().value(), nowWallMs);
    if (c instanceof Checkpointing.Kept k) {
      ctx.record(new EngineEvent.CheckpointKept(run, k.checkpoint().seq(), k.checkpoint().bytes()));
    } else if (!(c instanceof Checkpointing.Denied)) {
      throw new AssertionError(c);
    }
  }

  /**
   * The facts an exit records: the command's own exit code or signal when the worker wrote it with its
   * outcome (at {@code nowWallMs}), else {@code observed}.
   */
  RunExit facts(RunId run, RunExit observed, long nowWallMs) {
    if (ctx.directories.outcome(run) instanceof OutcomeRecord.Written w && w.exit() != null) {
      return new RunExit(w.exit().exitCode(), w.exit().signal(), nowWallMs);
    }
    return observed;
  }

  /**
   * Settles an EXITED run with the verdict {@link Verdicts} gives for what its directory holds, what
   * this daemon knows of its end and what the store holds of its stop intent and time limit.
   *
   * @param stoppedBy        the stop this daemon had begun, or null
   * @param neverToldToGo    whether this daemon started it and never told it go
   * @param forDeadExitOwner whether the exit was taken by an owner proven dead (recovery finishes for it)
   */
  void settle(RunId run, ExitOwner claimant, StopKind stoppedBy, boolean neverToldToGo, RunExit exit,
              boolean forDeadExitOwner, long nowWallMs) {
    keepCheckpoint(run, nowWallMs);
    Finish f = finishOf(run, claimant, outcome(run), stoppedBy, neverToldToGo, exit, forDeadExitOwner, nowWallMs);
    Settlement s;
    try {
      s = ctx.coordination.finish(f, nowWallMs);
    } catch (RuntimeException e) {
      ctx.occupancy.recount();
      throw e;
    }
    settled(f, s);
  }

  /**
   * The finish {@link Verdicts} gives for what the run's directory holds, what this daemon knows of
   * its end and what the store holds of its stop intent and time limit (which taking the exit does
   * not change).
   */
  private Finish finishOf(RunId run, ExitOwner claimant, Verdicts.Outcome outcome, StopKind stoppedBy,
                          boolean neverToldToGo, RunExit exit, boolean forDeadExitOwner, long nowWallMs) {
    return finishOf(ctx.store.run(run), run, claimant, outcome, stoppedBy, neverToldToGo, exit, forDeadExitOwner,
        nowWallMs);
  }

  /** As above, with the run as just read from the store. */
  private Finish finishOf(Optional<Run> stored, RunId run, ExitOwner claimant, Verdicts.Outcome outcome,
                          StopKind stoppedBy, boolean neverToldToGo, RunExit exit, boolean forDeadExitOwner,
                          long nowWallMs) {
    StopIntent intent = stored.map(Run::stopIntent).orElse(null);
    long timeoutMs = stored.map(Run::start).map(s -> s.timeoutMs()).orElse(0L);
    Verdicts.Judgement j = Verdicts.judge(new Verdicts.Ending(outcome, exit, stoppedBy, neverToldToGo, intent,
        timeoutMs), nowWallMs);
    return new Finish(run, claimant, j.verdict(), j.diagnosis(), j.stallUntilWallMs(), forDeadExitOwner, j.result());
  }

  /**
   * Settles an EXITED run as one without an outcome (LOST, or KILLED or stopped as its stop intent says), with
   * {@code why}, reading nothing of its directory (H1: a released host's run, whose directory is that host's);
   * returns whether it was settled.
   */
  boolean settleLost(RunId run, ExitOwner claimant, boolean forDeadExitOwner, RunExit exit, String why,
                     long nowWallMs) {
    Finish f = finishOf(run, claimant, new Verdicts.Outcome.Missing(why), null, false, exit, forDeadExitOwner,
        nowWallMs);
    Settlement s;
    try {
      s = ctx.coordination.finish(f, nowWallMs);
    } catch (RuntimeException e) {
      ctx.occupancy.recount();
      throw e;
    }
    settled(f, s);
    return s instanceof Settlement.Settled;
  }

  /** Records the store's decision on {@code f}. */
  private void settled(Finish f, Settlement s) {
    RunId run = f.run();
    if (s instanceof Settlement.Settled ok) {
      ctx.occupancy.freed(ok.ticket().lane(), ctx.ofThisHost(ok.run().owner()));
      ctx.record(new EngineEvent.Settled(run, f.verdict(), f.diagnosis(), ok.ticket().state(),
          ok.run().exit() == null || (ok.run().exit().exitCode() == null && ok.run().exit().signal() == null) ? null
              : ok.run().exit()));
    } else if (s instanceof Settlement.Denied d) {
      ctx.record(new EngineEvent.SettleDenied(run, d.reason()));
    } else {
      throw new AssertionError(s);
    }
  }

  private Verdicts.Outcome outcome(RunId run) {
    OutcomeRecord o = ctx.directories.outcome(run);
    if (o instanceof OutcomeRecord.Written w) {
      return new Verdicts.Outcome.Written(w.verdict(), w.stallUntilWallMs(), w.note(), w.result());
    } else if (o instanceof OutcomeRecord.Absent a) {
      return new Verdicts.Outcome.Missing(a.diagnosis());
    } else if (o instanceof OutcomeRecord.Corrupt c) {
      return new Verdicts.Outcome.Missing(c.diagnosis());
    } else {
      throw new AssertionError(o);
    }
  }
}
