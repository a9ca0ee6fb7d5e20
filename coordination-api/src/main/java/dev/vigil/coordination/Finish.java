package dev.vigil.coordination;

import java.util.Objects;

/**
 * A request to settle a run (the {@code finish} verb).
 *
 * @param run            the run to settle
 * @param claimant       who asks; must be the run's exit owner unless {@code exitOwnerDead}
 * @param verdict        the verdict (any {@link Verdict#finishable()} one)
 * @param diagnosis      a note for humans, or {@code null}
 * @param stallUntilMs   for STALLED: wall-clock ms at which the ticket is due again (Q2); else 0
 * @param exitOwnerDead  the claimant has proven the recorded exit owner dead (its daemon's
 *                       identity matches no live process); recovery then settles with the
 *                       recorded facts
 * @param result         for SUCCEEDED: what the worker returned, as JSON text of at most
 *                       {@link Run#MAX_RESULT_BYTES} bytes, stored with the run; else {@code null}
 */
public record Finish(RunId run, ExitOwner claimant, Verdict verdict, String diagnosis, long stallUntilMs,
                     boolean exitOwnerDead, String result) {
  public Finish {
    Objects.requireNonNull(run, "run");
    Objects.requireNonNull(claimant, "claimant");
    Objects.requireNonNull(verdict, "verdict");
    if (!verdict.finishable()) {
      throw new IllegalArgumentException("verdict " + verdict + " cannot be given by finish");
    }
    if (verdict != Verdict.STALLED && stallUntilMs != 0) {
      throw new IllegalArgumentException("stallUntilMs is only for STALLED verdicts");
    }
    Run.checkResult(result, verdict);
  }

  /** A finish without a result. */
  public Finish(RunId run, ExitOwner claimant, Verdict verdict, String diagnosis, long stallUntilMs,
                boolean exitOwnerDead) {
    this(run, claimant, verdict, diagnosis, stallUntilMs, exitOwnerDead, null);
  }

  /** Settle as the exit owner with a SUCCEEDED verdict and the worker's result (JSON text, or {@code null}). */
  public static Finish succeeded(ExitOwner claimant, RunId run, String diagnosis, String result) {
    return new Finish(run, claimant, Verdict.SUCCEEDED, diagnosis, 0, false, result);
  }

  /** Settle as the exit owner. */
  public static Finish as(ExitOwner claimant, RunId run, Verdict verdict, String diagnosis) {
    return new Finish(run, claimant, verdict, diagnosis, 0, false);
  }

  /** Settle as the exit owner with a STALLED verdict, due again at {@code untilMs} (Q2). */
  public static Finish stalled(ExitOwner claimant, RunId run, long untilMs, String diagnosis) {
    return new Finish(run, claimant, Verdict.STALLED, diagnosis, untilMs, false);
  }

  /** The same request on behalf of a dead exit owner. */
  public Finish forDeadExitOwner() {
    return new Finish(run, claimant, verdict, diagnosis, stallUntilMs, true, result);
  }
}
