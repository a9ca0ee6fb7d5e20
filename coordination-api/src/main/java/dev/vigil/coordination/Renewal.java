package dev.vigil.coordination;

import java.util.Objects;

/**
 * The decision of {@code renew} (C3). A denial is a fact to log, never a scheduling decision (C4).
 */
public sealed interface Renewal {
  /** The lease's expiry moved to {@code nowMs + ttlMs}. */
  record Renewed(Lease lease) implements Renewal {
    public Renewed {
      Objects.requireNonNull(lease, "lease");
    }
  }

  /** Nothing changed. */
  record Denied(Reason reason) implements Renewal {
    public Denied {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** Why a renewal was refused; checked in this order. */
  enum Reason {
    /** The run holds no lease (settled, aborted or unknown). */
    GONE,
    /** Another owner holds the lease. */
    NOT_OWNER,
    /** {@code expiresAt <= now}: an expired lease is never renewed, only readopted or adopted (C3). */
    EXPIRED
  }
}
