package dev.vigil.coordination;

import java.util.Objects;

/** The decision of {@code takeExit}: exactly one claimant wins a run's exit checkpoint (C6). */
public sealed interface Exit {
  /** The caller won: the run is EXITED with the caller as its exit owner. */
  record Taken(Run run) implements Exit {
    public Taken {
      Objects.requireNonNull(run, "run");
    }
  }

  /**
   * Nothing changed.
   *
   * @param reason why
   * @param winner who took the exit, exactly when the reason is {@link Reason#ALREADY_TAKEN}
   */
  record Denied(Reason reason, ExitOwner winner) implements Exit {
    public Denied {
      Objects.requireNonNull(reason, "reason");
      if ((reason == Reason.ALREADY_TAKEN) != (winner != null)) {
        throw new IllegalArgumentException("a winner is named exactly when the exit was already taken");
      }
    }
  }

  /** Why an exit was refused; checked in this order. */
  enum Reason {
    /** No such run. */
    NOT_FOUND,
    /** Another claimant took it first (the denial names the winner). */
    ALREADY_TAKEN,
    /** The run never started (CLAIMED, or abandoned). */
    NOT_RUNNING
  }
}
