package dev.vigil.supervisor.law;

import dev.vigil.coordination.Verdict;
import dev.vigil.supervisor.StopKind;
import dev.vigil.supervisor.Verdicts.Ending;
import dev.vigil.supervisor.Verdicts.Judgement;
import dev.vigil.supervisor.Verdicts.Outcome;

/**
 * Q1, Q2, Q5, Q12 and Q13 for one ended run as written: a kill on record is KILLED, a time-out on
 * record is FAILED "timed out after …", whatever the worker wrote; else a worker's own outcome is
 * its verdict (with its result, for SUCCEEDED); without one,
 * a stop by this daemon that could leave work behind (park, another build, an operator; never the
 * idle shutdown, which reaches only idle workers) or a worker never told to go costs no attempt
 * (STALLED now); anything else is LOST. The diagnosis says how the worker ended and why.
 */
public final class VerdictLaw {
  private VerdictLaw() {}

  /** The judgement for {@code e} at {@code nowWallMs}. */
  public static Judgement decide(Ending e, long nowWallMs) {
    if (e.intent() == dev.vigil.coordination.StopIntent.KILL || e.intent() == dev.vigil.coordination.StopIntent.KILL_RETRY
        || e.intent() == dev.vigil.coordination.StopIntent.KILL_HOLD) {
      return new Judgement.Killed("killed by an operator");
    }
    if (e.intent() == dev.vigil.coordination.StopIntent.TIMEOUT) {
      return new Judgement.TimedOut("timed out after " + dev.vigil.supervisor.Durations.format(e.timeoutMs()));
    }
    if (e.outcome() instanceof Outcome.Written w) {
      return new Judgement.Reported(w.verdict(), w.verdict() == Verdict.STALLED ? w.stallUntilWallMs() : 0, w.note(),
          w.verdict() == Verdict.SUCCEEDED ? w.result() : null);
    }
    String diagnosis = ((Outcome.Missing) e.outcome()).diagnosis();
    String how = e.exit() == null ? "unknown" : e.exit().toString();
    boolean stoppedLeavingWork = e.stoppedBy() == StopKind.PARK || e.stoppedBy() == StopKind.LOST
        || e.stoppedBy() == StopKind.OPERATOR || e.stoppedBy() == StopKind.TIMEOUT || e.stoppedBy() == StopKind.KILL;
    if (stoppedLeavingWork) {
      return new Judgement.StoppedWithoutOutcome(nowWallMs, String.format(
          "worker ended (%s) after a %s stop without an outcome (%s): work left resumable, no attempt spent",
          how, e.stoppedBy(), diagnosis));
    }
    if (e.neverToldToGo()) {
      return new Judgement.NeverBegan(nowWallMs,
          String.format("worker ended (%s) before it was told to go: no work began (%s)", how, diagnosis));
    }
    return new Judgement.Lost(String.format("worker ended (%s) without an outcome: %s", how, diagnosis));
  }

  /** Whether a settlement with {@code v} spends an attempt (Q1, Q2, Q13). */
  public static boolean spendsAnAttempt(Verdict v) {
    return v == Verdict.FAILED || v == Verdict.LOST;
  }
}
