package dev.vigil.coordination;

import java.util.Objects;

/** The decision of the operator verbs on one ticket: park, unpark, hold, release, cancel. */
public sealed interface Control {
  /** Applied (or already so); {@code ticket} is the ticket after the verb. */
  record Done(Ticket ticket) implements Control {
    public Done {
      Objects.requireNonNull(ticket, "ticket");
    }
  }

  /** Nothing changed. */
  record Denied(Reason reason) implements Control {
    public Denied {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** Why an operator verb was refused; checked in this order (each verb checks the reasons that apply to it). */
  enum Reason {
    /** No such ticket. */
    NOT_FOUND,
    /** The ticket is SUCCEEDED, FAILED or CANCELLED. */
    TERMINAL,
    /** A run holds the ticket: hold and cancel wait for it to settle (park reaches the worker). */
    LEASED,
    /** {@code release} of a ticket that is not HELD. */
    NOT_HELD,
    /** {@code release} would grant more than {@value NewTicket#MAX_ATTEMPTS} attempts in all. */
    ATTEMPTS_LIMIT,
    /**
     * {@code release} of a ticket that a prerequisite holds (Q14): it goes on when that prerequisite
     * is released or retried, not before.
     */
    WAITING
  }
}
