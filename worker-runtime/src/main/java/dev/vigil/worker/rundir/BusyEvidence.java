package dev.vigil.worker.rundir;

import dev.vigil.supervisor.WorkSet;
import java.util.Objects;

/**
 * The latest busy evidence a worker wrote to {@code busy.json} (S3): busy with the work it had, or
 * idle, at a wall-clock time. A boot revives a dead worker only on fresh busy evidence.
 *
 * @param busy     whether the worker had work
 * @param atWallMs wall-clock ms of the record
 * @param work     the work in flight (empty when idle)
 */
public record BusyEvidence(boolean busy, long atWallMs, WorkSet work) {
  public BusyEvidence {
    Objects.requireNonNull(work, "work");
  }
}
