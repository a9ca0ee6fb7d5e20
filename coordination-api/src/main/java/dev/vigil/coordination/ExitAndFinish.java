package dev.vigil.coordination;

import java.util.Objects;
import java.util.Optional;

/**
 * The decision of {@code takeExitAndFinish}: the exit checkpoint (C6), then, only when the caller
 * took it, the settlement (C7, C8).
 *
 * @param exit       what {@code takeExit} decided
 * @param settlement what {@code finish} decided, present exactly when the exit was taken
 */
public record ExitAndFinish(Exit exit, Optional<Settlement> settlement) {
  public ExitAndFinish {
    Objects.requireNonNull(exit, "exit");
    Objects.requireNonNull(settlement, "settlement");
    if ((exit instanceof Exit.Taken) != settlement.isPresent()) {
      throw new IllegalArgumentException("a settlement is decided exactly when the exit was taken");
    }
  }

  /** The finish of a {@code takeExitAndFinish} names the run and the claimant of its exit. */
  public static void check(RunId run, ExitOwner claimant, Finish finish) {
    Objects.requireNonNull(run, "run");
    Objects.requireNonNull(claimant, "claimant");
    Objects.requireNonNull(finish, "finish");
    if (!finish.run().equals(run) || !finish.claimant().equals(claimant)) {
      throw new IllegalArgumentException("the finish (" + finish.run() + " by " + finish.claimant()
          + ") must name the run and the claimant of the exit (" + run + " by " + claimant + ")");
    }
  }
}
