package dev.vigil.coordination;

import java.util.Objects;

/** The decision of {@code requestStop}: why the daemon stops a live run, on record before any signal (Q12, Q13). */
public sealed interface StopRequest {
  /**
   * The intent is on the run ({@link StopIntent#then}: a kill replaces a time-out).
   *
   * @param run     the run as it is after the verb
   * @param changed whether the intent on record changed (a repeated request, or a time-out after a
   *                kill, changes nothing and reports no event)
   */
  record Recorded(Run run, boolean changed) implements StopRequest {
    public Recorded {
      Objects.requireNonNull(run, "run");
    }
  }

  /** Nothing changed. */
  record Denied(Reason reason) implements StopRequest {
    public Denied {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** Why a stop request was refused; checked in this order. */
  enum Reason {
    /** No such run. */
    NOT_FOUND,
    /** Its exit was taken already (EXITED or SETTLED): there is nothing left to stop. */
    ENDED,
    /** A time-out of a run that never started (CLAIMED): its time has not begun. */
    NOT_STARTED
  }
}
