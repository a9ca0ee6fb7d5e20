package dev.vigil.coordination;

import java.util.Objects;

/** The decision of {@code start}: the reservation handoff's last step (Q3). */
public sealed interface Start {
  /** The run is RUNNING with its identity, build and token hash. */
  record Started(Run run) implements Start {
    public Started {
      Objects.requireNonNull(run, "run");
    }
  }

  /** Nothing changed. */
  record Denied(Reason reason) implements Start {
    public Denied {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** Why a start was refused; checked in this order. */
  enum Reason {
    /** No such run. */
    NOT_FOUND,
    /** The run is already RUNNING, EXITED or settled after running. */
    ALREADY_STARTED,
    /** The run is not CLAIMED (its claim was rolled back). */
    NOT_CLAIMED,
    /** The caller does not hold the run's lease (recovery adopted the claim for another owner). */
    LEASE_LOST
  }
}
