package dev.vigil.coordination;

/**
 * A run's state: {@code CLAIMED → RUNNING → EXITED → SETTLED}, or {@code CLAIMED → SETTLED}
 * (verdict ABANDONED) when the claim is rolled back. A run holds its ticket's lease until SETTLED.
 */
public enum RunState {
  /** Claimed; the worker is being launched but user work has not begun (Q3). */
  CLAIMED,
  /** Started: the worker holds its reservation and its identity is recorded. */
  RUNNING,
  /** The exit checkpoint was taken by exactly one claimant (C6); not yet settled. */
  EXITED,
  /** Settled once with a verdict (C8); its lease is gone (C7). */
  SETTLED;

  /** True while the run holds its ticket's lease. */
  public boolean holdsLease() {
    return this != SETTLED;
  }
}
