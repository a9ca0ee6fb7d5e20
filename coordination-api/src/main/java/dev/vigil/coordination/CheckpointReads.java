package dev.vigil.coordination;

import java.util.Optional;

/** Read-only query of checkpoints (Q17), part of {@link Store}. */
public interface CheckpointReads {
  /** The latest checkpoint {@code ticket} keeps, if any. */
  Optional<Checkpoint> checkpoint(TicketId ticket);
}
