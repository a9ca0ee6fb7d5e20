package dev.vigil.coordination;

import java.util.Objects;

/**
 * The decision of {@code keepCheckpoint} (Q17): the offered checkpoint is now the ticket's latest, or it
 * was refused and nothing changed.
 */
public sealed interface Checkpointing {
  /** The offer is the ticket's latest checkpoint now (it replaced any earlier one). */
  record Kept(Checkpoint checkpoint) implements Checkpointing {
    public Kept {
      Objects.requireNonNull(checkpoint, "checkpoint");
    }
  }

  /** Nothing changed. */
  record Denied(Reason reason) implements Checkpointing {
    public Denied {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** Why an offer was refused. */
  enum Reason {
    /** The store has no such run. */
    UNKNOWN_RUN,
    /**
     * The run is settled: its ticket may have a later attempt already, whose checkpoints an offer from
     * this one must not replace.
     */
    RUN_SETTLED,
    /**
     * The ticket keeps a checkpoint that is not older: the same run's with this number or a higher one
     * (an offer made again after a restart), or a later run's.
     */
    NOT_NEWER
  }
}
