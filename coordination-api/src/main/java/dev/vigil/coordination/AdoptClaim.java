package dev.vigil.coordination;

import java.util.Objects;

/**
 * The decision of {@code adoptClaim}: recovery takes over a CLAIMED run whose owner it proved dead
 * by process identity (C5), so that it can start the run as itself. The verb is a compare-and-set
 * on the lease's owner: the store cannot know that the named owner is dead, only that it still
 * holds the lease.
 */
public sealed interface AdoptClaim {
  /** The run and its lease now belong to the new owner, the lease expiring at {@code nowMs + ttlMs}. */
  record Adopted(Run run, Lease lease) implements AdoptClaim {
    public Adopted {
      Objects.requireNonNull(run, "run");
      Objects.requireNonNull(lease, "lease");
    }
  }

  /** Nothing changed. */
  record Denied(Reason reason) implements AdoptClaim {
    public Denied {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** Why an adoption was refused; checked in this order. */
  enum Reason {
    /** No such run. */
    NOT_FOUND,
    /** The run is not CLAIMED: it started, or it is settled. */
    NOT_CLAIMED,
    /** The named dead owner does not hold the run's lease (another daemon adopted it meanwhile). */
    NOT_OWNER
  }
}
