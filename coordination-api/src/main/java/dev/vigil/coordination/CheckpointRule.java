package dev.vigil.coordination;

import java.util.Objects;
import java.util.Optional;

/**
 * Q17, the pure rule of {@code keepCheckpoint}, which the reference model and the H2 store both apply
 * inside the verb's transaction: an offered checkpoint becomes its ticket's latest only when
 *
 * <ol>
 *   <li>the store has the run that offers it ({@link Checkpointing.Reason#UNKNOWN_RUN}),
 *   <li>that run is not settled, so it is its ticket's one live run (C1) and no later attempt exists
 *       ({@link Checkpointing.Reason#RUN_SETTLED}), and
 *   <li>the ticket keeps no checkpoint as new: none, one of an earlier run, or one of this run with a
 *       lower number ({@link Checkpointing.Reason#NOT_NEWER}).
 * </ol>
 *
 * A checkpoint is kept per ticket, so one ticket's never replaces or becomes another's.
 */
public final class CheckpointRule {
  private CheckpointRule() {}

  /**
   * Why the offer of checkpoint {@code seq} by {@code offering} must be refused, or empty when it is
   * to be kept.
   *
   * @param run    the store's row of the offering run, empty when it has none
   * @param stored the checkpoint the run's ticket keeps now, if any
   */
  public static Optional<Checkpointing.Reason> refusal(RunId offering, long seq, Optional<Run> run,
                                                       Optional<Checkpoint> stored) {
    Objects.requireNonNull(offering, "offering");
    if (run.isEmpty()) {
      return Optional.of(Checkpointing.Reason.UNKNOWN_RUN);
    }
    if (!run.get().id().equals(offering)) {
      throw new IllegalArgumentException("the row of run " + run.get().id() + " given for an offer by " + offering);
    }
    if (run.get().state() == RunState.SETTLED) {
      return Optional.of(Checkpointing.Reason.RUN_SETTLED);
    }
    if (stored.isPresent()) {
      Checkpoint s = stored.get();
      if (!s.ticket().equals(offering.ticket())) {
        throw new IllegalArgumentException("ticket " + offering.ticket() + " given the checkpoint of " + s.ticket());
      }
      int byRun = s.run().compareTo(offering);
      if (byRun > 0 || byRun == 0 && s.seq() >= seq) {
        return Optional.of(Checkpointing.Reason.NOT_NEWER);
      }
    }
    return Optional.empty();
  }
}
