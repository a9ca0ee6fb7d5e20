package dev.vigil.coordination;

/** How a run ended, as settled. See {@link RetryPolicy} for what each does to its ticket. */
public enum Verdict {
  /** The work succeeded: the ticket is done. */
  SUCCEEDED,
  /** The work failed and may be retried: consumes an attempt (Q1). */
  FAILED,
  /** The work can never succeed: the ticket FAILS at once. */
  PERMANENT_FAILURE,
  /** The machine hit a quota: no attempt consumed, READY again at the stall's hint (Q2). */
  STALLED,
  /** The work could not proceed for a reason outside it: no attempt consumed, ticket HELD. */
  BLOCKED,
  /** The worker died without a readable outcome: consumes an attempt like FAILED (Q1). */
  LOST,
  /** The claim was rolled back before the run started ({@code abortClaim} only). */
  ABANDONED,
  /** An earlier BLOCKED or STALLED run whose ticket later succeeded (Q7); never given by finish. */
  SUPERSEDED,
  /**
   * An operator killed the run (Q13): no attempt consumed; the ticket goes where the kill said
   * (CANCELLED, READY or HELD). Given exactly to runs whose kill was requested.
   */
  KILLED;

  /** True when settling with this verdict spends one of the ticket's attempts. */
  public boolean chargesAttempt() {
    return this == SUCCEEDED || this == FAILED || this == PERMANENT_FAILURE || this == LOST;
  }

  /** True for verdicts a claimant may pass to {@code finish}. */
  public boolean finishable() {
    return this != ABANDONED && this != SUPERSEDED;
  }
}
