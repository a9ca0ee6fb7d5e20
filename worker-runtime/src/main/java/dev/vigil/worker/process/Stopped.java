package dev.vigil.worker.process;

import dev.vigil.coordination.ProcessIdentity;
import java.util.List;
import java.util.Objects;

/** How an identity-gated stop (TERM to the group, KILL after the grace) ended. */
public sealed interface Stopped {
  /** The identity did not match at the first check: nothing was signalled. */
  record Refused(Signalled.Mismatch reason) implements Stopped {
    public Refused {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /**
   * The leader and every group member seen before the TERM are gone.
   *
   * @param killed whether the grace passed and KILL was needed
   */
  record Ended(boolean killed) implements Stopped {}

  /**
   * Processes still alive after KILL and a wait (e.g. in uninterruptible sleep): a launch must not
   * happen beside them (S6); stop them again later.
   */
  record Survived(List<ProcessIdentity> survivors) implements Stopped {
    public Survived {
      survivors = List.copyOf(survivors);
      if (survivors.isEmpty()) {
        throw new IllegalArgumentException("survivors must not be empty");
      }
    }
  }
}
