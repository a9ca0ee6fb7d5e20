package dev.vigil.coordination;

import java.util.Objects;

/**
 * The decision of {@link TranscriptVerbs#restored} (S7): a restore's notice is stored once, under its
 * restore id; reporting the same restore again (a worker that says it again to the next daemon) stores nothing.
 */
public sealed interface Restore {
  /** The service's notice of this restore, as stored. */
  TranscriptEntry entry();

  /**
   * The notice was stored now.
   *
   * @param entry the new RESTORED entry
   */
  record Added(TranscriptEntry entry) implements Restore {
    public Added {
      Objects.requireNonNull(entry, "entry");
    }
  }

  /**
   * This restore already has its notice; nothing was stored.
   *
   * @param entry the notice stored earlier
   */
  record AlreadyStored(TranscriptEntry entry) implements Restore {
    public AlreadyStored {
      Objects.requireNonNull(entry, "entry");
    }
  }
}
