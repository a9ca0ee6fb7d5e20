package dev.vigil.coordination;

/** The verb of checkpoints (Q17), part of {@link Coordination}: one transaction returning a decision. */
public interface CheckpointVerbs {
  /**
   * Keeps the {@code seq}-th checkpoint of {@code run} ({@code value}, JSON text) as its ticket's latest, when
   * {@link CheckpointRule} allows; a denial changes nothing. Offering the same checkpoint again (after a
   * restart) is denied as not newer, so the verb may be repeated safely.
   *
   * @throws IllegalArgumentException when the value is blank or over {@link Checkpoint#MAX_BYTES}
   */
  Checkpointing keepCheckpoint(RunId run, long seq, String value, long nowMs);
}
