package dev.vigil.coordination;

import java.util.Objects;

/** The decision of {@code abortClaim}: rolling back a claim whose worker never started. */
public sealed interface AbortClaim {
  /**
   * The lease is gone, the run is SETTLED as ABANDONED, and the ticket is READY again with one
   * more spawn failure, or HELD after the third (or at once for a hand-started claim, Q8).
   */
  record Aborted(Run run, Ticket ticket) implements AbortClaim {
    public Aborted {
      Objects.requireNonNull(run, "run");
      Objects.requireNonNull(ticket, "ticket");
    }
  }

  /** Nothing changed. */
  record Denied(Reason reason) implements AbortClaim {
    public Denied {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** Why an abort was refused. */
  enum Reason {
    /** No such run. */
    NOT_FOUND,
    /** The run is not CLAIMED: it started, or it is settled. */
    NOT_CLAIMED
  }
}
