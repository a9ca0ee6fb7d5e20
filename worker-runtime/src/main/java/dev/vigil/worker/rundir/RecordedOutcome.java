package dev.vigil.worker.rundir;

import dev.vigil.coordination.RunExit;
import dev.vigil.worker.Outcome;
import java.util.Objects;

/**
 * An outcome as written to {@code outcome.json}.
 *
 * @param runId     the run it belongs to (must match the directory it is read from)
 * @param outcome   the worker type's outcome
 * @param atWallMs  wall-clock ms at which the worker wrote it
 * @param exit      how the command the run stands for ended (exit code or signal, its {@code atMs}
 *                  unused), or {@code null} when the type reported none
 */
public record RecordedOutcome(String runId, Outcome outcome, long atWallMs, RunExit exit) {
  public RecordedOutcome {
    Objects.requireNonNull(runId, "runId");
    Objects.requireNonNull(outcome, "outcome");
  }

  /** An outcome without the command's exit. */
  public RecordedOutcome(String runId, Outcome outcome, long atWallMs) {
    this(runId, outcome, atWallMs, null);
  }
}
