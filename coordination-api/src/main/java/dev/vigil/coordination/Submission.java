package dev.vigil.coordination;

import java.util.Objects;

/**
 * The decision of {@code submit}. A submission that carries an idempotency key already used by an
 * earlier ticket creates nothing and names that ticket, so a client that retries after a lost
 * reply never queues paid work twice.
 */
public sealed interface Submission {
  /** A new READY ticket. */
  record Accepted(Ticket ticket) implements Submission {
    public Accepted {
      Objects.requireNonNull(ticket, "ticket");
    }
  }

  /** The key was used before: nothing changed; {@code existing} is that ticket as it is now. */
  record Duplicate(Ticket existing) implements Submission {
    public Duplicate {
      Objects.requireNonNull(existing, "existing");
    }
  }
}
