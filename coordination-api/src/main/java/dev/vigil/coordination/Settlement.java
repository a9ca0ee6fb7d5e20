package dev.vigil.coordination;

import java.util.List;
import java.util.Objects;

/** The decision of {@code finish}: a run is settled once (C8) through {@link RetryPolicy} (Q5). */
public sealed interface Settlement {
  /**
   * The run is SETTLED, its lease deleted (C7), its ticket moved by the policy.
   *
   * @param run        the settled run
   * @param ticket     the ticket after the move
   * @param superseded earlier BLOCKED or STALLED runs rewritten to SUPERSEDED (Q7), in order
   */
  record Settled(Run run, Ticket ticket, List<RunId> superseded) implements Settlement {
    public Settled {
      Objects.requireNonNull(run, "run");
      Objects.requireNonNull(ticket, "ticket");
      superseded = List.copyOf(superseded);
    }
  }

  /** Nothing changed. */
  record Denied(Reason reason) implements Settlement {
    public Denied {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** Why a settlement was refused; checked in this order. */
  enum Reason {
    /** No such run. */
    NOT_FOUND,
    /** The run is settled already (C8). */
    ALREADY_SETTLED,
    /** Nobody took the run's exit checkpoint yet (it is CLAIMED or RUNNING). */
    NOT_EXITED,
    /** The claimant is not the exit owner and did not prove the exit owner dead. */
    NOT_EXIT_OWNER,
    /**
     * Q13: KILLED is the verdict of exactly the runs whose kill was requested: a killed run was
     * offered another verdict, or a run nobody killed was offered KILLED.
     */
    KILL_MISMATCH
  }
}
