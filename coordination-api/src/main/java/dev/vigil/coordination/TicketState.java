package dev.vigil.coordination;

/**
 * A ticket's state. {@code READY → LEASED → SUCCEEDED | READY (retry) | HELD | FAILED | CANCELLED};
 * {@code HELD → READY} only by {@code release}. Parking is an orthogonal flag, not a state.
 */
public enum TicketState {
  /** Waiting to be claimed once due and unparked. */
  READY,
  /** Claimed: exactly one lease and one unsettled run exist for it (C1). */
  LEASED,
  /** Terminal: a run succeeded. */
  SUCCEEDED,
  /** Waiting for a human: attempts exhausted (Q1), blocked, spawn failures, or hand-started (Q8). */
  HELD,
  /** Terminal: a run reported a permanent failure. */
  FAILED,
  /** Terminal: an operator cancelled it. */
  CANCELLED;

  /** True for states no verb leaves. */
  public boolean terminal() {
    return this == SUCCEEDED || this == FAILED || this == CANCELLED;
  }
}
