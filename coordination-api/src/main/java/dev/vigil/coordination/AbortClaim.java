package dev.vigil.coordination;

import java.util.Objects;

/**
 * The decision of {@code abortClaim}: rolling back a claim whose worker never started. The verb is a
 * compare-and-set on the lease's owner, so a claim that another daemon adopted meanwhile is never
 * aborted by a daemon acting for the claim's former owner.
 */
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

  /** Why an abort was refused; checked in this order. */
  enum Reason {
    /** No such run. */
    NOT_FOUND,
    /** The run is not CLAIMED: it started, or it is settled. */
    NOT_CLAIMED,
    /** The owner named by the caller does not hold the run's lease (another daemon adopted it). */
    NOT_OWNER
  }
}
