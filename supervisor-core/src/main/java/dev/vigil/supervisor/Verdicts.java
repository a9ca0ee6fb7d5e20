package dev.vigil.supervisor;

import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.StopIntent;
import dev.vigil.coordination.Verdict;
import java.util.Objects;

/**
 * The verdict of a task run whose worker is gone (Q1, Q2, Q5, Q12, Q13): one rule wherever and
 * whenever the run ended (a live finish, recovery at boot, a finish for a dead exit owner), so the
 * same facts always give the same ticket transition. In order:
 *
 * <ol>
 *   <li>An operator killed it (its kill is on record, Q13): KILLED, no attempt spent, whatever it
 *       wrote.
 *   <li>It was stopped for its time limit (on record, Q12): FAILED "timed out after …", one attempt
 *       spent, whatever it wrote.
 *   <li>The worker wrote an outcome: its verdict and note (a STALLED outcome until its hint, Q2),
 *       and for SUCCEEDED the result it returned, if any.
 *   <li>It wrote none, or one that cannot be read, after this daemon stopped it with a stop other
 *       than the idle shutdown (park, another build, an operator): STALLED now, no attempt spent;
 *       its work is left resumable.
 *   <li>It wrote none and was never told to go (Q3): STALLED now; no work began.
 *   <li>Otherwise LOST with the diagnosis: one attempt spent (Q1).
 * </ol>
 *
 * An idle-shutdown stop reaches only a worker without work (S5), so it excuses nothing.
 */
public final class Verdicts {
  private Verdicts() {}

  /** What the run's directory holds. */
  public sealed interface Outcome {
    /**
     * The worker's own outcome.
     *
     * @param verdict          what it wrote
     * @param stallUntilWallMs for STALLED, when the ticket is due again (Q2); else 0
     * @param note             its note for humans, or {@code null}
     * @param result           for SUCCEEDED, what it returned as JSON text, or {@code null}
     */
    record Written(Verdict verdict, long stallUntilWallMs, String note, String result) implements Outcome {
      public Written {
        Objects.requireNonNull(verdict, "verdict");
        if (verdict != Verdict.STALLED && stallUntilWallMs != 0) {
          throw new IllegalArgumentException("stallUntilWallMs is only for STALLED outcomes");
        }
        dev.vigil.coordination.Run.checkResult(result, verdict);
      }

      /** An outcome without a result. */
      public Written(Verdict verdict, long stallUntilWallMs, String note) {
        this(verdict, stallUntilWallMs, note, null);
      }
    }

    /**
     * No readable outcome: none was written, or the file cannot be read.
     *
     * @param diagnosis what was found, naming the file
     */
    record Missing(String diagnosis) implements Outcome {
      public Missing {
        Objects.requireNonNull(diagnosis, "diagnosis");
      }
    }
  }

  /**
   * How a run ended, as the settling daemon knows it.
   *
   * @param outcome       what its directory holds
   * @param exit          how its worker ended, or {@code null} when not even that is known
   * @param stoppedBy     the stop this daemon had begun, or {@code null}
   * @param neverToldToGo whether this daemon started the run and its worker was never told go (Q3)
   * @param intent        the stop intent on record for the run (a time-out, a kill), or {@code null}
   * @param timeoutMs     the run's time limit, ms (0 for none): what a time-out's diagnosis names
   */
  public record Ending(Outcome outcome, RunExit exit, StopKind stoppedBy, boolean neverToldToGo, StopIntent intent,
                       long timeoutMs) {
    public Ending {
      Objects.requireNonNull(outcome, "outcome");
      if (timeoutMs < 0) {
        throw new IllegalArgumentException("timeoutMs (" + timeoutMs + ") must be >= 0");
      }
    }

    /** An ending without a stop intent on record. */
    public Ending(Outcome outcome, RunExit exit, StopKind stoppedBy, boolean neverToldToGo) {
      this(outcome, exit, stoppedBy, neverToldToGo, null, 0);
    }
  }

  /** The verdict, and why. */
  public sealed interface Judgement {
    /** The verdict to settle with. */
    Verdict verdict();

    /** For STALLED, when the ticket is due again, wall ms; else 0. */
    default long stallUntilWallMs() {
      return 0;
    }

    /** The diagnosis to record, or {@code null} (a worker's outcome without a note). */
    String diagnosis();

    /**
     * The result to store with the run, JSON text, or {@code null}: only the worker's own SUCCEEDED
     * outcome has one; a kill or a time-out on record drops what the worker returned.
     */
    default String result() {
      return null;
    }

    /** The worker's own outcome, with its result when it returned one. */
    record Reported(Verdict verdict, long stallUntilWallMs, String diagnosis, String result) implements Judgement {
      /** An outcome without a result. */
      public Reported(Verdict verdict, long stallUntilWallMs, String diagnosis) {
        this(verdict, stallUntilWallMs, diagnosis, null);
      }
    }

    /** No outcome after this daemon's stop: STALLED, no attempt spent. */
    record StoppedWithoutOutcome(long stallUntilWallMs, String diagnosis) implements Judgement {
      @Override
      public Verdict verdict() {
        return Verdict.STALLED;
      }
    }

    /** No outcome, never told to go: STALLED, no work began. */
    record NeverBegan(long stallUntilWallMs, String diagnosis) implements Judgement {
      @Override
      public Verdict verdict() {
        return Verdict.STALLED;
      }
    }

    /** An operator killed it (Q13): KILLED, no attempt spent. */
    record Killed(String diagnosis) implements Judgement {
      @Override
      public Verdict verdict() {
        return Verdict.KILLED;
      }
    }

    /** It was stopped for its time limit (Q12): FAILED, one attempt spent. */
    record TimedOut(String diagnosis) implements Judgement {
      @Override
      public Verdict verdict() {
        return Verdict.FAILED;
      }
    }

    /** No outcome otherwise: LOST. */
    record Lost(String diagnosis) implements Judgement {
      @Override
      public Verdict verdict() {
        return Verdict.LOST;
      }
    }
  }

  /** The verdict for {@code ending}, judged at {@code nowWallMs}. */
  public static Judgement judge(Ending ending, long nowWallMs) {
    Objects.requireNonNull(ending, "ending");
    Outcome o = ending.outcome();
    if (ending.intent() != null && ending.intent().kill()) {
      return new Judgement.Killed(KILLED);
    } else if (ending.intent() == StopIntent.TIMEOUT) {
      return new Judgement.TimedOut(timedOut(ending.timeoutMs()));
    } else if (o instanceof Outcome.Written w) {
      return new Judgement.Reported(w.verdict(), w.stallUntilWallMs(), w.note(), w.result());
    } else if (o instanceof Outcome.Missing m) {
      return withoutOutcome(ending, m.diagnosis(), nowWallMs);
    } else {
      throw new AssertionError(o);
    }
  }

  /** The diagnosis of a killed run. */
  public static final String KILLED = "killed by an operator";

  /** The diagnosis of a run stopped for its time limit, e.g. {@code timed out after 30m}. */
  public static String timedOut(long timeoutMs) {
    return "timed out after " + Durations.format(timeoutMs);
  }

  private static Judgement withoutOutcome(Ending ending, String diagnosis, long nowWallMs) {
    String ended = "worker ended (" + (ending.exit() == null ? "unknown" : ending.exit()) + ")";
    StopKind stop = ending.stoppedBy();
    if (stop != null && stop != StopKind.IDLE_SHUTDOWN) {
      return new Judgement.StoppedWithoutOutcome(nowWallMs, ended + " after a " + stop + " stop without an outcome ("
          + diagnosis + "): work left resumable, no attempt spent");
    }
    if (ending.neverToldToGo()) {
      return new Judgement.NeverBegan(nowWallMs, ended + " before it was told to go: no work began (" + diagnosis + ")");
    }
    return new Judgement.Lost(ended + " without an outcome: " + diagnosis);
  }
}
