package dev.vigil.worker.rundir;

import dev.vigil.worker.Outcome;
import java.util.Objects;

/**
 * An outcome as written to {@code outcome.json}.
 *
 * @param runId     the run it belongs to (must match the directory it is read from)
 * @param outcome   the worker type's outcome
 * @param atWallMs  wall-clock ms at which the worker wrote it
 */
public record RecordedOutcome(String runId, Outcome outcome, long atWallMs) {
  public RecordedOutcome {
    Objects.requireNonNull(runId, "runId");
    Objects.requireNonNull(outcome, "outcome");
  }
}
