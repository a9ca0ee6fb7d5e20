package dev.vigil.supervisor.law;

import dev.vigil.supervisor.RestartBudget.Policy;
import dev.vigil.supervisor.RestartBudget.Restart;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * S1 as written: keep every failure time; at each failure count those within the window (younger
 * than it); more than the give-up count gives the worker up, for good; otherwise the pause is
 * {@code base × 2^(k−1)} capped, computed without overflow.
 */
public final class RestartBudgetLaw {
  private final Policy policy;
  private final List<Long> failures = new ArrayList<>();
  private Restart.GiveUp givenUp;

  public RestartBudgetLaw(Policy policy) {
    this.policy = Objects.requireNonNull(policy, "policy");
  }

  /** A failure at {@code nowMonoMs}. */
  public Restart onFailure(long nowMonoMs) {
    failures.add(nowMonoMs);
    if (givenUp != null) {
      return givenUp;
    }
    int k = failuresInWindow(nowMonoMs);
    if (k > policy.giveUpCount()) {
      givenUp = new Restart.GiveUp(k, policy.giveUpCount(), policy.windowMs());
      return givenUp;
    }
    return new Restart.After(pause(policy, k), k);
  }

  /** The failures younger than the window at {@code nowMonoMs}, among all ever seen. */
  public int failuresInWindow(long nowMonoMs) {
    int k = 0;
    for (long t : failures) {
      if (nowMonoMs - t < policy.windowMs() && t <= nowMonoMs) {
        k++;
      }
    }
    return k;
  }

  /** Every failure seen. */
  public List<Long> failures() {
    return List.copyOf(failures);
  }

  /** {@code min(cap, base × 2^(k−1))}, exactly. */
  public static long pause(Policy policy, int k) {
    BigInteger raw = BigInteger.valueOf(policy.backoffBaseMs()).shiftLeft(k - 1);
    return raw.min(BigInteger.valueOf(policy.backoffCapMs())).longValueExact();
  }
}
