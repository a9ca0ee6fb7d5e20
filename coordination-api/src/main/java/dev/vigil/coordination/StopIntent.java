package dev.vigil.coordination;

/**
 * Why the daemon stops a live run on purpose, recorded on the run ({@code requestStop}) before its
 * first signal, so that a daemon that dies in the middle of the stop is followed by one that
 * settles the run the same way (Q12, Q13).
 */
public enum StopIntent {
  /** Past its time limit (Q12): the run settles FAILED ("timed out after …") and spends an attempt. */
  TIMEOUT,
  /** An operator's kill (Q13): the run settles KILLED, no attempt spent; the ticket is CANCELLED. */
  KILL,
  /** An operator's kill (Q13) that queues the ticket again: READY, no attempt spent. */
  KILL_RETRY,
  /** An operator's kill (Q13) that holds the ticket: HELD, no attempt spent. */
  KILL_HOLD;

  /** Whether this is an operator's kill (any of its three ends). */
  public boolean kill() {
    return this != TIMEOUT;
  }

  /**
   * The intent on record after {@code next} is asked for a run that already has {@code this}: a kill
   * replaces a time-out and an earlier kill (the operator's latest word counts); a time-out never
   * replaces a kill.
   */
  public StopIntent then(StopIntent next) {
    return kill() && next == TIMEOUT ? this : next;
  }
}
