package dev.vigil.supervisor;

/**
 * Q12, a time limit stops, never declares dead: when a run's time is up, on the monotonic clock of
 * the daemon that supervises it. The limit is durable: a run's start records its limit and the
 * wall-clock ms of its start, so its deadline is {@code startedAtWallMs + timeoutMs}; the daemon that
 * started the run counts from its own start on its monotonic clock (a wall clock that jumps does not
 * move it), and a daemon that readopts a run after a restart takes the wall time left until that
 * deadline, once, onto its own monotonic clock.
 *
 * <p>The decision is only that the time is up ({@link Check.Expired}): the caller records a stop
 * intent and stops the run; whether the run is dead is still decided by identity and reservation
 * alone (C5), and the run settles once it is.
 *
 * @param timeoutMs      the limit, ms; 0 for none
 * @param deadlineMonoMs when it is up, on this daemon's monotonic clock ({@link Long#MAX_VALUE} for none)
 */
public record TimeLimit(long timeoutMs, long deadlineMonoMs) {
  /** No limit. */
  public static final TimeLimit NONE = new TimeLimit(0, Long.MAX_VALUE);

  public TimeLimit {
    if (timeoutMs < 0) {
      throw new IllegalArgumentException("timeoutMs (" + timeoutMs + ") must be >= 0");
    }
    if ((timeoutMs == 0) != (deadlineMonoMs == Long.MAX_VALUE)) {
      throw new IllegalArgumentException("a deadline exactly when there is a limit");
    }
  }

  /** The limit of a run: its ticket's own when it has one, else its lane's (0 for none). */
  public static long effective(long ticketTimeoutMs, long laneTimeoutMs) {
    if (ticketTimeoutMs < 0 || laneTimeoutMs < 0) {
      throw new IllegalArgumentException("a time limit is never negative");
    }
    return ticketTimeoutMs > 0 ? ticketTimeoutMs : laneTimeoutMs;
  }

  /** A run this daemon starts now: its time is up {@code timeoutMs} from now. */
  public static TimeLimit startedNow(long timeoutMs, long nowMonoMs) {
    return timeoutMs == 0 ? NONE : new TimeLimit(timeoutMs, saturatedAdd(nowMonoMs, timeoutMs));
  }

  /**
   * A run this daemon took over (readopted after a restart): its time is up when its durable
   * deadline passes on the wall clock as read now; from then on this daemon's monotonic clock counts.
   */
  public static TimeLimit resumed(long timeoutMs, long startedAtWallMs, long nowMonoMs, long nowWallMs) {
    if (timeoutMs == 0) {
      return NONE;
    }
    long leftMs = saturatedAdd(startedAtWallMs, timeoutMs) - nowWallMs;
    return new TimeLimit(timeoutMs, saturatedAdd(nowMonoMs, Math.max(0, leftMs)));
  }

  /** What the caller does at {@code nowMonoMs}. */
  public sealed interface Check {
    /** No limit. */
    record Unlimited() implements Check {}

    /** Not yet: look again at {@code untilMonoMs}. */
    record Within(long untilMonoMs) implements Check {}

    /** The time is up: record the intent and stop the run (TERM now, KILL after the grace). */
    record Expired(long timeoutMs) implements Check {}
  }

  /** The decision at {@code nowMonoMs}. */
  public Check check(long nowMonoMs) {
    if (timeoutMs == 0) {
      return new Check.Unlimited();
    }
    return nowMonoMs >= deadlineMonoMs ? new Check.Expired(timeoutMs) : new Check.Within(deadlineMonoMs);
  }

  private static long saturatedAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? (b > 0 ? Long.MAX_VALUE - 1 : Long.MIN_VALUE) : Math.min(r, Long.MAX_VALUE - 1);
  }
}
