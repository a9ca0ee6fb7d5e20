package dev.vigil.supervisor.law;

/**
 * Q12 as written: a run's time is up once {@code timeoutMs} of its run time have passed, where its
 * run time is the monotonic time since its start for the daemon that started it, and, for a daemon
 * that took it over later, the wall time from its recorded start to the takeover plus the monotonic
 * time since. No limit is never up. The decision is only that time is up.
 */
public final class TimeLimitLaw {
  private final long timeoutMs;
  private final long runTimeAtTakeoverMs;
  private final long takeoverMonoMs;

  private TimeLimitLaw(long timeoutMs, long runTimeAtTakeoverMs, long takeoverMonoMs) {
    this.timeoutMs = timeoutMs;
    this.runTimeAtTakeoverMs = runTimeAtTakeoverMs;
    this.takeoverMonoMs = takeoverMonoMs;
  }

  /** A run started at {@code startMonoMs} by the daemon that asks. */
  public static TimeLimitLaw started(long timeoutMs, long startMonoMs) {
    return new TimeLimitLaw(timeoutMs, 0, startMonoMs);
  }

  /** A run started at {@code startedAtWallMs}, taken over at ({@code nowMonoMs}, {@code nowWallMs}). */
  public static TimeLimitLaw takenOver(long timeoutMs, long startedAtWallMs, long nowMonoMs, long nowWallMs) {
    return new TimeLimitLaw(timeoutMs, nowWallMs - startedAtWallMs, nowMonoMs);
  }

  /** Whether its time is up at {@code nowMonoMs}. */
  public boolean up(long nowMonoMs) {
    return timeoutMs > 0 && runTimeAtTakeoverMs + (nowMonoMs - takeoverMonoMs) >= timeoutMs;
  }
}
