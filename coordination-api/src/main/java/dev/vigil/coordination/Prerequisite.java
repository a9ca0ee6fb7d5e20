package dev.vigil.coordination;

import java.util.Objects;

/**
 * A ticket a submission waits for (Q14): one queued before, or one queued earlier in the same
 * batch ({@link Coordination#submitAll}), named by its place in the batch because its id is not
 * known when the batch is written.
 */
public sealed interface Prerequisite {
  /** A ticket queued before; when it did not succeed and was retried, its newest retry stands for it. */
  record Existing(TicketId ticket) implements Prerequisite {
    public Existing {
      Objects.requireNonNull(ticket, "ticket");
    }
  }

  /** The ticket of an earlier submission of the same batch, by its 0-based index in the batch. */
  record Earlier(int index) implements Prerequisite {
    public Earlier {
      if (index < 0) {
        throw new IllegalArgumentException("index (" + index + ") must be >= 0");
      }
    }
  }
}
