package dev.vigil.coordination;

import java.util.Objects;

/**
 * The decision of {@code readopt}, and of each run of {@code readoptAll}: the way to re-arm a lapsed lease of a RUNNING run whose worker
 * the caller found alive by identity (C3, S6); a CLAIMED run's lease is moved by {@code adoptClaim}.
 */
public sealed interface Readopt {
  /** The run and its lease now belong to the caller, expiring at {@code nowMs + ttlMs}. */
  record Readopted(Run run, Lease lease) implements Readopt {
    public Readopted {
      Objects.requireNonNull(run, "run");
      Objects.requireNonNull(lease, "lease");
    }
  }

  /** Nothing changed. */
  record Denied(Reason reason) implements Readopt {
    public Denied {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** Why a readoption was refused; checked in this order. */
  enum Reason {
    /** No such run, or it holds no lease. */
    GONE,
    /** The run is not RUNNING. */
    NOT_RUNNING
  }
}
