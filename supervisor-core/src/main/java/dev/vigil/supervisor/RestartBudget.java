package dev.vigil.supervisor;

import java.util.Arrays;
import java.util.Objects;

/**
 * The restart budget of one worker (S1): a worker that fails more than {@code giveUpCount} times
 * within {@code windowMs} on a monotonic clock is given up; the pause before the k-th restart in
 * the window is {@code backoffBase × 2^(k−1)}, capped at {@code backoffCap}. Failures older than the
 * window are forgotten.
 *
 * <p>Windows are half-open: a failure is within the window at {@code nowMonoMs} while
 * {@code nowMonoMs − failure < windowMs}; a failure exactly one window old is forgotten. So with the
 * defaults the 6th failure 14:59.999 after the first gives up and the 6th at 15:00.000 restarts
 * after the 5th pause.
 *
 * <p>An immutable value: {@link #onFailure(long)} returns the decision and the next budget. It keeps
 * at most {@code giveUpCount} failure times, however many failures it sees, and none once given up.
 * Giving up is final; a fresh budget ({@link #fresh(Policy)}) is the caller's explicit reset. The
 * times belong to one process's monotonic clock: a new daemon starts fresh budgets.
 */
public final class RestartBudget {
  /**
   * The budget's configuration.
   *
   * @param windowMs      the monotonic window in which failures count, ms
   * @param backoffBaseMs the pause before the first restart in the window, ms
   * @param backoffCapMs  the longest pause, ms
   * @param giveUpCount   the most failures within the window that are still restarted
   */
  public record Policy(long windowMs, long backoffBaseMs, long backoffCapMs, int giveUpCount) {
    /** 15 min window, 250 ms doubling to 30 s, give up after more than 5 failures. */
    public static final Policy DEFAULT = from(TimeoutLattice.defaults());

    public Policy {
      if (windowMs <= 0 || windowMs > TimeoutLattice.MAX_MS) {
        throw new IllegalArgumentException("restartWindow (" + Durations.format(windowMs) + ") must be > 0 and ≤ "
            + Durations.format(TimeoutLattice.MAX_MS));
      }
      if (backoffBaseMs <= 0) {
        throw new IllegalArgumentException("restartBackoffBase (" + Durations.format(backoffBaseMs) + ") must be > 0");
      }
      if (backoffCapMs > TimeoutLattice.MAX_MS) {
        throw new IllegalArgumentException("restartBackoffCap (" + Durations.format(backoffCapMs) + ") must be ≤ "
            + Durations.format(TimeoutLattice.MAX_MS));
      }
      if (backoffCapMs < backoffBaseMs) {
        throw new IllegalArgumentException("restartBackoffCap (" + Durations.format(backoffCapMs)
            + ") must be ≥ restartBackoffBase (" + Durations.format(backoffBaseMs) + ")");
      }
      if (giveUpCount < 0 || giveUpCount > TimeoutLattice.MAX_GIVE_UP_COUNT) {
        throw new IllegalArgumentException("restartGiveUpCount (" + giveUpCount + ") must be ≥ 0 and ≤ "
            + TimeoutLattice.MAX_GIVE_UP_COUNT);
      }
      long backoffs = TimeoutLattice.backoffSumMs(backoffBaseMs, backoffCapMs, giveUpCount);
      if (windowMs < backoffs) {
        throw new IllegalArgumentException("restartWindow (" + Durations.format(windowMs) + ") must be ≥ the sum of the "
            + giveUpCount + " backoffs before give-up (" + Durations.format(backoffs) + ")");
      }
    }

    /** The restart timeouts of a lattice. */
    public static Policy from(TimeoutLattice t) {
      return new Policy(t.ms(TimeoutLattice.Timeout.RESTART_WINDOW), t.ms(TimeoutLattice.Timeout.RESTART_BACKOFF_BASE),
          t.ms(TimeoutLattice.Timeout.RESTART_BACKOFF_CAP), t.restartGiveUpCount());
    }

    /** The pause before the k-th restart in the window, ms: {@code min(cap, base × 2^(k−1))}, k ≥ 1. */
    public long backoffMs(int k) {
      if (k < 1) {
        throw new IllegalArgumentException("k (" + k + ") must be ≥ 1");
      }
      long delay = backoffBaseMs;
      for (int i = 1; i < k && delay < backoffCapMs; i++) {
        delay = Math.multiplyExact(delay, 2);
      }
      return Math.min(delay, backoffCapMs);
    }
  }

  /** What to do after a failure (S1). */
  public sealed interface Restart {
    /**
     * Restart after a pause.
     *
     * @param delayMs          the pause before the restart, ms
     * @param failuresInWindow k: the failures within the window, this one included
     */
    record After(long delayMs, int failuresInWindow) implements Restart {}

    /**
     * Give the worker up: more than {@code giveUpCount} failures within {@code windowMs}.
     *
     * @param failuresInWindow the failures within the window when the budget gave up
     * @param giveUpCount      the budget's give-up count
     * @param windowMs         the budget's window, ms
     */
    record GiveUp(int failuresInWindow, int giveUpCount, long windowMs) implements Restart {
      /** Why, for the session's diagnosis. */
      public String why() {
        return failuresInWindow + " failures within " + Durations.format(windowMs) + " (more than " + giveUpCount
            + "): given up";
      }
    }
  }

  private static final long[] NONE = new long[0];

  private final Policy policy;
  /** The failure times still within the window, oldest first, at most {@code giveUpCount}, ms. */
  private final long[] recentMonoMs;
  /** The decision that gave up, or null while the budget lasts. */
  private final Restart.GiveUp givenUp;

  private RestartBudget(Policy policy, long[] recentMonoMs, Restart.GiveUp givenUp) {
    this.policy = policy;
    this.recentMonoMs = recentMonoMs;
    this.givenUp = givenUp;
  }

  /** A budget with no failures. */
  public static RestartBudget fresh(Policy policy) {
    return new RestartBudget(Objects.requireNonNull(policy, "policy"), NONE, null);
  }

  /**
   * Decides a failure at {@code nowMonoMs}.
   *
   * @throws IllegalArgumentException when {@code nowMonoMs} is before a failure already counted
   *                                  (a monotonic clock never goes back)
   */
  public Step<RestartBudget, Restart> onFailure(long nowMonoMs) {
    if (givenUp != null) {
      return new Step<>(this, givenUp);
    }
    if (recentMonoMs.length > 0 && nowMonoMs < recentMonoMs[recentMonoMs.length - 1]) {
      throw new IllegalArgumentException("nowMonoMs (" + nowMonoMs + ") is before the last failure ("
          + recentMonoMs[recentMonoMs.length - 1] + "): a monotonic clock never goes back");
    }
    long[] kept = within(nowMonoMs);
    int k = kept.length + 1;
    if (k > policy.giveUpCount()) {
      Restart.GiveUp giveUp = new Restart.GiveUp(k, policy.giveUpCount(), policy.windowMs());
      return new Step<>(new RestartBudget(policy, NONE, giveUp), giveUp);
    }
    long[] next = Arrays.copyOf(kept, k);
    next[k - 1] = nowMonoMs;
    return new Step<>(new RestartBudget(policy, next, null), new Restart.After(policy.backoffMs(k), k));
  }

  /** The failures within the window at {@code nowMonoMs} (0 once given up). */
  public int failuresInWindow(long nowMonoMs) {
    return within(nowMonoMs).length;
  }

  /** Whether the budget gave up. */
  public boolean givenUp() {
    return givenUp != null;
  }

  /** The budget's policy. */
  public Policy policy() {
    return policy;
  }

  /** How many failure times this value holds (≤ giveUpCount): the O(1) memory bound of S1. */
  int retained() {
    return recentMonoMs.length;
  }

  private long[] within(long nowMonoMs) {
    int from = 0;
    while (from < recentMonoMs.length && nowMonoMs - recentMonoMs[from] >= policy.windowMs()) {
      from++;
    }
    return from == 0 ? recentMonoMs : Arrays.copyOfRange(recentMonoMs, from, recentMonoMs.length);
  }

  @Override
  public String toString() {
    return givenUp != null ? "RestartBudget[given up: " + givenUp.why() + "]"
        : "RestartBudget[recent " + Arrays.toString(recentMonoMs) + "]";
  }
}
