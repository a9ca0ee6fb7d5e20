package dev.vigil.worker.host;

import java.util.OptionalLong;

/**
 * When a worker host tries again to write {@code outcome.json} after a write failed (a full disk, a
 * transient I/O error), and when it gives up ({@link Host}, step Outcome). Pure: the caller passes
 * its monotonic clock and says what happened.
 *
 * <ul>
 *   <li>Pauses start at {@value #FIRST_PAUSE_MS} ms and double after each failed try, up to
 *       {@value #MAX_PAUSE_MS} ms: a disk that gets room is seen within 5 s, and a disk that stays
 *       full costs one try per 5 s.
 *   <li>Tries end at the earlier of {@code boundMs} after the first failure and {@code graceMs}
 *       after the first stop request. A pause never reaches past that end, so the last try falls on
 *       it; asked again at or after it, the answer is {@link Next.GiveUp}. A stop only brings the end
 *       forward, never back.
 * </ul>
 *
 * @param sinceMonoMs     when the first try failed, monotonic ms
 * @param boundMs         how long after the first failure tries go on, ms (&gt; 0)
 * @param graceMs         how long after a stop request tries go on, ms (&ge; 0)
 * @param failures        failed tries so far, &ge; 1
 * @param stoppedAtMonoMs when a stop was first requested, empty before
 */
record OutcomeRetry(long sinceMonoMs, long boundMs, long graceMs, int failures, OptionalLong stoppedAtMonoMs) {
  /** The pause after the first failed try, ms. */
  static final long FIRST_PAUSE_MS = 100;
  /** The longest pause between two tries, ms. */
  static final long MAX_PAUSE_MS = 5_000;

  OutcomeRetry {
    if (boundMs <= 0 || graceMs < 0 || failures < 1) {
      throw new IllegalArgumentException("bound " + boundMs + " ms, grace " + graceMs + " ms, failures " + failures);
    }
  }

  /** What to do after the latest failed try. */
  sealed interface Next {
    /** Try again after {@code ms} (&ge; 1). */
    record Pause(long ms) implements Next {}

    /**
     * Give up: no outcome is written.
     *
     * @param stopped whether the stop request's grace ended the tries (else the bound did)
     */
    record GiveUp(boolean stopped) implements Next {}
  }

  /** After the first try failed at {@code nowMonoMs}. */
  static OutcomeRetry afterFirstFailure(long nowMonoMs, long boundMs, long graceMs) {
    return new OutcomeRetry(nowMonoMs, boundMs, graceMs, 1, OptionalLong.empty());
  }

  /** One more try failed. */
  OutcomeRetry failedAgain() {
    return new OutcomeRetry(sinceMonoMs, boundMs, graceMs, failures + 1, stoppedAtMonoMs);
  }

  /** A stop was requested at {@code nowMonoMs}; only the first request counts. */
  OutcomeRetry stopped(long nowMonoMs) {
    return stoppedAtMonoMs.isPresent() ? this
        : new OutcomeRetry(sinceMonoMs, boundMs, graceMs, failures, OptionalLong.of(nowMonoMs));
  }

  /** When tries end, monotonic ms. */
  long endMonoMs() {
    long bounded = sinceMonoMs + boundMs;
    return stoppedAtMonoMs.isPresent() ? Math.min(bounded, stoppedAtMonoMs.getAsLong() + graceMs) : bounded;
  }

  /** The pause the backoff asks for after {@link #failures()} failed tries, before the end cuts it. */
  long backoffMs() {
    int doublings = Math.min(failures - 1, 16);
    return Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS << doublings);
  }

  /** The decision at {@code nowMonoMs}, after the latest failed try. */
  Next next(long nowMonoMs) {
    long end = endMonoMs();
    if (nowMonoMs >= end) {
      return new Next.GiveUp(end < sinceMonoMs + boundMs);
    }
    return new Next.Pause(Math.min(backoffMs(), end - nowMonoMs));
  }
}
