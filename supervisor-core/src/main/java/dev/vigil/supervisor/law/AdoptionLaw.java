package dev.vigil.supervisor.law;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.supervisor.Adoption.Relaunch.Retry;
import dev.vigil.supervisor.Adoption.Verdict;
import dev.vigil.supervisor.RestartBudget;
import java.util.Optional;

/**
 * S6 as written. A new supervisor adopts a live worker only when the worker reports the same
 * build; another build's worker (or one that never says hello within the handoff) stops as a lost
 * worker does. A failed boot launch is retried under the restart budget ({@link RestartBudgetLaw});
 * before each retry a survivor is stopped again; a launch never happens beside a survivor; a
 * survivor that lives on counts as one more failure.
 */
public final class AdoptionLaw {
  private final String ownBuild;
  private final long handoffMs;
  private final RestartBudgetLaw budget;
  private ProcessIdentity survivor;
  private RestartBudget.Restart.GiveUp givenUp;

  public AdoptionLaw(String ownBuild, long handoffMs, RestartBudget.Policy policy) {
    this.ownBuild = ownBuild;
    this.handoffMs = handoffMs;
    this.budget = new RestartBudgetLaw(policy);
  }

  /** The adoption verdict. */
  public Verdict verdict(boolean alive, Optional<String> helloBuild, long bootAtMonoMs, long nowMonoMs) {
    if (!alive) {
      return new Verdict.NotAlive();
    }
    if (helloBuild.isPresent() && helloBuild.get().equals(ownBuild)) {
      return new Verdict.Adopt();
    }
    if (helloBuild.isPresent()) {
      return new Verdict.StopAsLost(Verdict.Reason.OTHER_BUILD, helloBuild);
    }
    boolean handoffOver = nowMonoMs - bootAtMonoMs >= handoffMs;
    return handoffOver ? new Verdict.StopAsLost(Verdict.Reason.UNREACHABLE, Optional.empty())
        : new Verdict.AwaitHello(bootAtMonoMs + handoffMs);
  }

  /** A launch failed; its process may survive. */
  public Retry onLaunchFailed(Optional<ProcessIdentity> launched, long nowMonoMs) {
    if (launched.isPresent()) {
      survivor = launched.get();
    }
    RestartBudget.Restart r = budget.onFailure(nowMonoMs);
    if (r instanceof RestartBudget.Restart.GiveUp g) {
      givenUp = g;
      return new Retry.GiveUp(g, Optional.ofNullable(survivor));
    } else if (r instanceof RestartBudget.Restart.After a) {
      return new Retry.RetryAfter(a.delayMs());
    } else {
      throw new AssertionError(r);
    }
  }

  /** A retry is due; the caller says whether the survivor lives on. */
  public Retry onRetryDue(boolean survivorAlive, long nowMonoMs) {
    if (survivor != null && survivorAlive) {
      RestartBudget.Restart r = budget.onFailure(nowMonoMs);
      if (r instanceof RestartBudget.Restart.GiveUp g) {
        givenUp = g;
        return new Retry.GiveUp(g, Optional.of(survivor));
      } else if (r instanceof RestartBudget.Restart.After a) {
        return new Retry.StopAgain(survivor, a.delayMs());
      } else {
        throw new AssertionError(r);
      }
    }
    survivor = null;
    if (givenUp != null) {
      return new Retry.GiveUp(givenUp, Optional.empty());
    }
    return new Retry.Launch();
  }

  /** The survivor remembered, if any. */
  public Optional<ProcessIdentity> survivor() {
    return Optional.ofNullable(survivor);
  }

  /** The failures counted so far. */
  public int failuresCounted() {
    return budget.failures().size();
  }
}
