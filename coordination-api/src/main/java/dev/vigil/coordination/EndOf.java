package dev.vigil.coordination;

import java.util.Objects;

/**
 * One end of a {@code takeExitAndFinishAll}: the exit the supervisor saw and the finish it gives it,
 * as the arguments of {@code takeExitAndFinish}.
 *
 * @param run      the run whose exit is taken
 * @param claimant who takes the exit (the supervisor of the run)
 * @param exit     the exit's facts
 * @param finish   the settlement asked for once the exit is taken; names {@code run} and {@code claimant}
 */
public record EndOf(RunId run, ExitOwner claimant, RunExit exit, Finish finish) {
  /** @throws IllegalArgumentException when {@code finish} names another run or another claimant */
  public EndOf {
    ExitAndFinish.check(run, claimant, finish);
    Objects.requireNonNull(exit, "exit");
  }
}
