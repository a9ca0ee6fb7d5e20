package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Exit;
import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Finish;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.Settlement;
import dev.vigil.supervisor.StopKind;
import dev.vigil.supervisor.Verdicts;
import dev.vigil.supervisor.engine.port.OutcomeRecord;

/**
 * The end of a task run: its exit is taken once its worker is dead by identity and reservation
 * (C5, C6), and it is settled through the one verdict rule, {@link Verdicts} (Q1, Q2, Q5, Q7),
 * whether the supervisor or recovery took the exit.
 */
final class Settling {
  private final Ctx ctx;
  private final TaskTable table;

  Settling(Ctx ctx, TaskTable table) {
    this.ctx = ctx;
    this.table = table;
  }

  /**
   * Takes the exit and settles when the worker of {@code t} is dead by identity and reservation
   * (C5); true if it was, and the run is then no longer supervised.
   */
  boolean settleIfDead(TaskTable.Tracked t, RunPhase.Running r, long nowWallMs) {
    if (!Liveness.dead(ctx.processes, ctx.directories, t.key(), r.start().identity())) {
      return false;
    }
    ExitOwner claimant = r.exit() != null ? ExitOwner.supervisor(ctx.me) : ExitOwner.recovery(ctx.me);
    RunExit facts = r.exit() != null ? r.exit().at(nowWallMs) : RunExit.unknown(nowWallMs);
    StopKind stoppedBy = r.stop() == null ? null : r.stop().kind();
    boolean neverToldToGo = r.go() == RunPhase.Go.PENDING;
    Exit e = ctx.coordination.takeExit(t.run, claimant, facts);
    // supervision ends here either way: should the settlement not happen (a crash), the run stays
    // EXITED by this owner and the next reconcile settles it (recovery's SETTLE_OWN_EXIT)
    if (e instanceof Exit.Taken) {
      ctx.record(new EngineEvent.ExitTaken(t.run, claimant.role(), facts));
      settle(t.run, claimant, stoppedBy, neverToldToGo, facts, false, nowWallMs);
    } else if (e instanceof Exit.Denied d) {
      if (d.reason() == Exit.Reason.ALREADY_TAKEN && d.winner().owner().equals(ctx.me)) {
        Run run = ctx.store.run(t.run).orElseThrow();
        settle(t.run, d.winner(), stoppedBy, neverToldToGo, run.exit(), false, nowWallMs);
      } else {
        ctx.record(new EngineEvent.ExitLost(t.run, d.reason() + (d.winner() == null ? "" : " by " + d.winner())));
      }
    } else {
      throw new AssertionError(e);
    }
    table.transition(t, null);
    return true;
  }

  /**
   * Settles an EXITED run with the verdict {@link Verdicts} gives for what its directory holds and
   * what this daemon knows of its end.
   *
   * @param stoppedBy        the stop this daemon had begun, or null
   * @param neverToldToGo    whether this daemon started it and never told it go
   * @param forDeadExitOwner whether the exit was taken by an owner proven dead (recovery finishes for it)
   */
  void settle(RunId run, ExitOwner claimant, StopKind stoppedBy, boolean neverToldToGo, RunExit exit,
              boolean forDeadExitOwner, long nowWallMs) {
    Verdicts.Judgement j = Verdicts.judge(new Verdicts.Ending(outcome(run), exit, stoppedBy, neverToldToGo), nowWallMs);
    Finish f = new Finish(run, claimant, j.verdict(), j.diagnosis(), j.stallUntilWallMs(), forDeadExitOwner);
    Settlement s = ctx.coordination.finish(f, nowWallMs);
    if (s instanceof Settlement.Settled ok) {
      ctx.record(new EngineEvent.Settled(run, f.verdict(), f.diagnosis(), ok.ticket().state()));
    } else if (s instanceof Settlement.Denied d) {
      ctx.record(new EngineEvent.SettleDenied(run, d.reason()));
    } else {
      throw new AssertionError(s);
    }
  }

  private Verdicts.Outcome outcome(RunId run) {
    OutcomeRecord o = ctx.directories.outcome(run);
    if (o instanceof OutcomeRecord.Written w) {
      return new Verdicts.Outcome.Written(w.verdict(), w.stallUntilWallMs(), w.note());
    } else if (o instanceof OutcomeRecord.Absent a) {
      return new Verdicts.Outcome.Missing(a.diagnosis());
    } else if (o instanceof OutcomeRecord.Corrupt c) {
      return new Verdicts.Outcome.Missing(c.diagnosis());
    } else {
      throw new AssertionError(o);
    }
  }
}
