package dev.vigil.supervisor;

import dev.vigil.coordination.ProcessIdentity;
import java.util.Objects;
import java.util.Optional;

/**
 * Adoption at boot and the retry of a failed boot launch (S6: adopt same build).
 *
 * <p>{@link #verdict(boolean, Optional, long, long)}, for each worker a booting supervisor finds
 * recorded:
 *
 * <ol>
 *   <li>Not alive by identity: {@link Verdict.NotAlive} (revival decides, {@link RevivalGate}).
 *   <li>Alive and its hello reports this supervisor's build: {@link Verdict.Adopt}.
 *   <li>Alive and its hello reports another build: {@link Verdict.StopAsLost}; it stops as a lost
 *       worker does (its work stays resumable) and its session starts again on this build.
 *   <li>Alive and no hello yet: {@link Verdict.AwaitHello} until {@code launchHandoff} after boot,
 *       then {@link Verdict.StopAsLost} as unreachable (half-open: unreachable at boot +
 *       launchHandoff exactly).
 * </ol>
 *
 * <p>{@link Relaunch} retries a failed boot launch under the session's {@link RestartBudget}.
 *
 * @param ownBuild        this supervisor's build
 * @param launchHandoffMs how long after boot a live worker has to say hello, ms
 */
public record Adoption(String ownBuild, long launchHandoffMs) {
  public Adoption {
    Objects.requireNonNull(ownBuild, "ownBuild");
    if (launchHandoffMs <= 0 || launchHandoffMs > TimeoutLattice.MAX_MS) {
      throw new IllegalArgumentException("launchHandoff (" + Durations.format(launchHandoffMs) + ") must be > 0 and ≤ "
          + Durations.format(TimeoutLattice.MAX_MS));
    }
  }

  /** Adoption for {@code ownBuild} with the lattice's {@code launchHandoff}. */
  public static Adoption of(String ownBuild, TimeoutLattice t) {
    return new Adoption(ownBuild, t.ms(TimeoutLattice.Timeout.LAUNCH_HANDOFF));
  }

  /** The adoption verdict for one recorded worker. */
  public sealed interface Verdict {
    /** Same build, reachable: readopt and reconnect. */
    record Adopt() implements Verdict {}

    /**
     * Stop it as a lost worker (identity-gated; its work stays resumable) and start its session
     * again on this build.
     *
     * @param reason        why
     * @param reportedBuild the build its hello reported, empty when unreachable
     */
    record StopAsLost(Reason reason, Optional<String> reportedBuild) implements Verdict {
      public StopAsLost {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(reportedBuild, "reportedBuild");
      }
    }

    /**
     * Alive but not heard from: wait for its hello.
     *
     * @param untilMonoMs when it counts as unreachable, ms
     */
    record AwaitHello(long untilMonoMs) implements Verdict {}

    /** Dead by identity: nothing to adopt. */
    record NotAlive() implements Verdict {}

    /** Why a live worker is not adopted. */
    enum Reason {
      /** Its hello reported another build. */
      OTHER_BUILD,
      /** It did not say hello within {@code launchHandoff} of boot. */
      UNREACHABLE
    }
  }

  /**
   * Decides adoption of a recorded worker.
   *
   * @param aliveByIdentity whether a live process matches the recorded identity
   * @param helloBuild      the build its hello reported, empty if it has not said hello
   * @param bootAtMonoMs    when this supervisor booted, ms
   * @param nowMonoMs       now, ms
   */
  public Verdict verdict(boolean aliveByIdentity, Optional<String> helloBuild, long bootAtMonoMs, long nowMonoMs) {
    Objects.requireNonNull(helloBuild, "helloBuild");
    if (!aliveByIdentity) {
      return new Verdict.NotAlive();
    }
    if (helloBuild.isPresent()) {
      return helloBuild.get().equals(ownBuild) ? new Verdict.Adopt()
          : new Verdict.StopAsLost(Verdict.Reason.OTHER_BUILD, helloBuild);
    }
    if (nowMonoMs - bootAtMonoMs < launchHandoffMs) {
      return new Verdict.AwaitHello(bootAtMonoMs + launchHandoffMs);
    }
    return new Verdict.StopAsLost(Verdict.Reason.UNREACHABLE, Optional.empty());
  }

  /**
   * The retries of a failed boot launch (S6), under the session's restart budget (S1).
   *
   * <ol>
   *   <li>A failed launch counts one failure; its process, if it may still live, is remembered as a
   *       possible survivor (the caller has stopped it). The budget says when to retry, or gives up.
   *   <li>When a retry is due, the caller reports whether the survivor is alive by identity. If it
   *       is, it is stopped again (identity-gated), it counts as one more failure, and no launch
   *       happens beside it; the retry moves to the budget's next pause. If not, launch.
   *   <li>A given-up relaunch never launches; a survivor it still knows of is named for a last stop.
   * </ol>
   *
   * <p>An immutable value on the supervisor's monotonic clock.
   */
  public static final class Relaunch {
    /** What to do about a failed boot launch. */
    public sealed interface Retry {
      /** No survivor: launch now. */
      record Launch() implements Retry {}

      /**
       * Retry later.
       *
       * @param delayMs the pause before the retry, ms
       */
      record RetryAfter(long delayMs) implements Retry {}

      /**
       * A survivor lives on: stop it again (identity-gated), launch nothing, retry later; this
       * counted one more failure.
       *
       * @param survivor     the earlier process to stop again
       * @param retryAfterMs the pause before the next retry, ms
       */
      record StopAgain(ProcessIdentity survivor, long retryAfterMs) implements Retry {
        public StopAgain {
          Objects.requireNonNull(survivor, "survivor");
        }
      }

      /**
       * The budget gave up: launch no more.
       *
       * @param why      the budget's decision
       * @param survivor a process that may still live, to stop (identity-gated)
       */
      record GiveUp(RestartBudget.Restart.GiveUp why, Optional<ProcessIdentity> survivor) implements Retry {
        public GiveUp {
          Objects.requireNonNull(why, "why");
          Objects.requireNonNull(survivor, "survivor");
        }
      }
    }

    private final RestartBudget budget;
    private final Optional<ProcessIdentity> survivor;

    private Relaunch(RestartBudget budget, Optional<ProcessIdentity> survivor) {
      this.budget = budget;
      this.survivor = survivor;
    }

    /** Relaunches under the session's budget. */
    public static Relaunch start(RestartBudget budget) {
      return new Relaunch(Objects.requireNonNull(budget, "budget"), Optional.empty());
    }

    /**
     * A launch failed at {@code nowMonoMs}.
     *
     * @param launched the launched process if it may still live (the caller has stopped it), else
     *                 empty
     */
    public Step<Relaunch, Retry> onLaunchFailed(Optional<ProcessIdentity> launched, long nowMonoMs) {
      Objects.requireNonNull(launched, "launched");
      Optional<ProcessIdentity> s = launched.isPresent() ? launched : survivor;
      Step<RestartBudget, RestartBudget.Restart> b = budget.onFailure(nowMonoMs);
      Relaunch next = new Relaunch(b.next(), s);
      if (b.decision() instanceof RestartBudget.Restart.After a) {
        return new Step<>(next, new Retry.RetryAfter(a.delayMs()));
      } else if (b.decision() instanceof RestartBudget.Restart.GiveUp g) {
        return new Step<>(next, new Retry.GiveUp(g, s));
      } else {
        throw new AssertionError(b.decision());
      }
    }

    /**
     * A retry is due at {@code nowMonoMs}.
     *
     * @param survivorAlive whether the remembered survivor is alive by identity (ignored when none
     *                      is remembered)
     */
    public Step<Relaunch, Retry> onRetryDue(boolean survivorAlive, long nowMonoMs) {
      if (survivor.isPresent() && survivorAlive) {
        Step<RestartBudget, RestartBudget.Restart> b = budget.onFailure(nowMonoMs);
        Relaunch next = new Relaunch(b.next(), survivor);
        if (b.decision() instanceof RestartBudget.Restart.After a) {
          return new Step<>(next, new Retry.StopAgain(survivor.get(), a.delayMs()));
        } else if (b.decision() instanceof RestartBudget.Restart.GiveUp g) {
          return new Step<>(next, new Retry.GiveUp(g, survivor));
        } else {
          throw new AssertionError(b.decision());
        }
      }
      Relaunch next = new Relaunch(budget, Optional.empty());
      if (budget.givenUp()) {
        RestartBudget.Restart d = budget.onFailure(nowMonoMs).decision();
        if (d instanceof RestartBudget.Restart.GiveUp g) {
          return new Step<>(next, new Retry.GiveUp(g, Optional.empty()));
        } else {
          throw new AssertionError(d);
        }
      }
      return new Step<>(next, new Retry.Launch());
    }

    /** The session's budget after these retries. */
    public RestartBudget budget() {
      return budget;
    }

    /** The earlier process that may have survived its stop. */
    public Optional<ProcessIdentity> survivor() {
      return survivor;
    }

    @Override
    public String toString() {
      return "Relaunch[" + budget + ", survivor " + survivor.map(ProcessIdentity::toString).orElse("none") + "]";
    }
  }
}
