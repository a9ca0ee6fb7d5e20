package dev.vigil.coordination;

import java.util.Objects;

/** The decision of {@code claim} and {@code claimByHand} (C1, C2). */
public sealed interface Claim {
  /** The ticket is LEASED to the owner: a CLAIMED run and its lease were created together. */
  record Granted(Run run, Lease lease) implements Claim {
    public Granted {
      Objects.requireNonNull(run, "run");
      Objects.requireNonNull(lease, "lease");
    }
  }

  /** Nothing changed (C2). */
  record Denied(Reason reason) implements Claim {
    public Denied {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** Why a claim was refused; checked in this order. */
  enum Reason {
    /** No such ticket. */
    NOT_FOUND,
    /** Another run holds the ticket's lease. */
    LEASED,
    /** The ticket is HELD or terminal. */
    NOT_READY,
    /** The ticket or its lane is parked (Q9). */
    PARKED,
    /** {@code notBefore} is still in the future. */
    NOT_DUE,
    /** A prerequisite has not SUCCEEDED yet (Q14, {@link Prerequisites#met}). */
    WAITING
  }
}
