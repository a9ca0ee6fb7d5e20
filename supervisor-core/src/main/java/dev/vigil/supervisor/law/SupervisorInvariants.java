package dev.vigil.supervisor.law;

import dev.vigil.coordination.Verdict;
import dev.vigil.supervisor.Adoption;
import dev.vigil.supervisor.DaemonLiveness;
import dev.vigil.supervisor.HelloCheck;
import dev.vigil.supervisor.OrphanPolicy.Orphan;
import dev.vigil.supervisor.QuiesceRound.Round;
import dev.vigil.supervisor.Replacement;
import dev.vigil.supervisor.RestartBudget;
import dev.vigil.supervisor.RestartBudget.Restart;
import dev.vigil.supervisor.RestoreNotices.Notice;
import dev.vigil.supervisor.RevivalGate.BusyRecord;
import dev.vigil.supervisor.RevivalGate.Revival;
import dev.vigil.supervisor.StopKind;
import dev.vigil.supervisor.Stopping;
import dev.vigil.supervisor.TimeoutLattice;
import dev.vigil.supervisor.Verdicts;
import dev.vigil.supervisor.Version;
import dev.vigil.supervisor.WorkGate.StopAnswer;
import dev.vigil.supervisor.WorkSet;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The supervisor laws as checks, called by every oracle (properties here, bridge scenarios
 * elsewhere). Each failure states the law in English with its id, then what broke, then the
 * caller's context (e.g. the seed).
 */
public final class SupervisorInvariants {
  private SupervisorInvariants() {}

  private static void check(boolean holds, String law, String what, String context) {
    if (!holds) {
      throw new AssertionError(law + " Broken: " + what + " [" + context + "]");
    }
  }

  private static final String S1 = "S1 restart budget: a worker that fails more than giveUpCount times within the "
      + "restart window is given up; the pause before the k-th restart in the window is base × 2^(k−1), capped.";

  /**
   * S1 over a whole history: decision i answered the failure at {@code failures.get(i)}.
   */
  public static void s1RestartBudget(RestartBudget.Policy policy, List<Long> failures, List<Restart> decisions,
                                     String context) {
    check(failures.size() == decisions.size(), S1, "one decision per failure", context);
    boolean exceeded = false;
    for (int i = 0; i < failures.size(); i++) {
      long now = failures.get(i);
      int k = 0;
      for (int j = 0; j <= i; j++) {
        if (now - failures.get(j) < policy.windowMs()) {
          k++;
        }
      }
      exceeded |= k > policy.giveUpCount();
      Restart d = decisions.get(i);
      if (d instanceof Restart.After a) {
        check(!exceeded, S1, "restarted (failure " + (i + 1) + ") after " + k + " failures within the window", context);
        check(a.delayMs() == RestartBudgetLaw.pause(policy, k), S1,
            "pause " + a.delayMs() + "ms before restart k=" + k, context);
        check(a.delayMs() <= policy.backoffCapMs(), S1, "pause " + a.delayMs() + "ms above the cap", context);
      } else if (d instanceof Restart.GiveUp) {
        check(exceeded, S1, "gave up at failure " + (i + 1) + " with never more than " + policy.giveUpCount()
            + " failures within the window", context);
      } else {
        throw new AssertionError(d);
      }
    }
  }

  /** S2: every configuration in use passes validation. */
  public static void s2LatticeValid(TimeoutLattice t, String context) {
    List<TimeoutLattice.Violation> v = TimeoutLattice.validate(t.millis(), t.restartGiveUpCount());
    check(v.isEmpty(), "S2 timeouts ordered: each timeout is at least the sum of the timeouts it waits for.",
        "violated " + v, context);
  }

  private static final String S3 = "S3 revival: a working worker refreshes busy evidence every busyRefresh; a boot "
      + "within the revival window of a busy worker's crash revives it; a boot never revives a dead worker that has "
      + "no busy record.";

  /** S3: no revival without a busy latest record. */
  public static void s3NoRevivalWithoutBusyRecord(Optional<BusyRecord> latest, Revival verdict, String context) {
    if (verdict instanceof Revival.Revive) {
      check(latest.isPresent() && latest.get().busy(), S3, "revived with latest record " + latest, context);
    }
  }

  /** S3: while working, the latest record is busy and younger than one refresh plus one tick period. */
  public static void s3EvidenceFresh(WorkSet work, Optional<BusyRecord> latest, long nowWallMs, long busyRefreshMs,
                                     long tickPeriodMs, String context) {
    if (work.isBusy()) {
      check(latest.isPresent() && latest.get().busy()
              && nowWallMs - latest.get().atWallMs() < busyRefreshMs + tickPeriodMs, S3,
          "working at " + nowWallMs + " with latest record " + latest, context);
    }
  }

  private static final String S4 = "S4 orphans abort nothing: a worker whose supervisor stays lost exits after the "
      + "lost-exit window (two windows with work in flight); with work it records busy and aborts nothing; without "
      + "work it closes.";

  /** S4 for one decision. */
  public static void s4OrphanAbortsNothing(long lostExitMs, long lostAtMonoMs, WorkSet work, long nowMonoMs,
                                           Orphan d, String context) {
    long lostFor = nowMonoMs - lostAtMonoMs;
    if (d instanceof Orphan.ExitBusy e) {
      check(work.isBusy() && e.work().equals(work), S4, "exit recording busy without the work in flight", context);
      check(lostFor >= 2 * lostExitMs, S4, "exit with work after " + lostFor + "ms lost", context);
    } else if (d instanceof Orphan.Close) {
      check(work.isIdle(), S4, "closed with work in flight " + work.describe(), context);
      check(lostFor >= lostExitMs, S4, "closed after " + lostFor + "ms lost", context);
    } else if (d instanceof Orphan.Wait w) {
      check(lostFor < (work.isBusy() ? 2 : 1) * lostExitMs, S4, "still waiting after " + lostFor + "ms lost", context);
      check(w.untilMonoMs() > nowMonoMs, S4, "waiting until a time already passed", context);
    } else {
      throw new AssertionError(d);
    }
  }

  private static final String S5 = "S5 idle shutdown never aborts: workers are stopped only when every worker "
      + "quiesced within the answer window; otherwise every gate reopens and the client is told busy; no interleaving "
      + "stops a worker with work.";

  /** S5: a worker complies with a stop only without work. */
  public static void s5NoStopWithWork(WorkSet work, StopAnswer answer, String context) {
    if (answer instanceof StopAnswer.Comply) {
      check(work.isIdle(), S5, "stopped a worker with " + work.describe(), context);
    }
  }

  /** S5: a round stops only when every worker quiesced within the window. */
  public static void s5StopOnlyWhenAllQuiesced(Set<String> workers, Set<String> quiescedInWindow, Round d,
                                               String context) {
    if (d instanceof Round.StopAll) {
      check(quiescedInWindow.containsAll(workers), S5, "stopped with only " + quiescedInWindow + " of " + workers
          + " quiesced in the window", context);
    } else if (d instanceof Round.ReleaseAll r) {
      check(r.workers().equals(workers), S5, "released " + r.workers() + ", not every worker " + workers, context);
    }
  }

  private static final String S6 = "S6 adopt same build: a live worker is adopted only when it reports the same build; "
      + "a failed boot launch is retried under the restart budget; a launch never happens beside a survivor.";

  /** S6: adoption only of the same build. */
  public static void s6AdoptOnlySameBuild(String ownBuild, Optional<String> helloBuild, Adoption.Verdict v,
                                          String context) {
    if (v instanceof Adoption.Verdict.Adopt) {
      check(helloBuild.isPresent() && helloBuild.get().equals(ownBuild), S6,
          "adopted a worker reporting " + helloBuild + " into build " + ownBuild, context);
    }
  }

  /** S6: no launch while the survivor lives. */
  public static void s6NoLaunchBesideSurvivor(boolean survivorAlive, Adoption.Relaunch.Retry d, String context) {
    if (d instanceof Adoption.Relaunch.Retry.Launch) {
      check(!survivorAlive, S6, "launched beside a live survivor", context);
    }
  }

  private static final String STOPS = "S5, S6, Q9, Q12, Q13 stops: an idle-shutdown stop never signals; a park stop "
      + "sends TERM and never KILL; every signal comes at least one stop grace after the stop began or after the signal "
      + "before it, but the TERM of a time-out or a kill, which comes at once; only a stop before a relaunch ends with a "
      + "survivor.";

  /**
   * S5, S6, Q9: one decision of a stop in progress.
   *
   * @param previousMarkMonoMs when the stop (or the harder stop replacing it) began, or its last signal
   */
  public static void stopEscalates(StopKind kind, boolean beforeRelaunch, Stopping.Action action, long nowMonoMs,
                                   long previousMarkMonoMs, long graceMs, String context) {
    boolean signal = action instanceof Stopping.Action.Term || action instanceof Stopping.Action.Kill;
    check(!signal || kind.escalates(), STOPS, "an " + kind + " stop decided " + action, context);
    check(!(action instanceof Stopping.Action.Kill) || kind.kills(), STOPS, "a " + kind + " stop decided " + action,
        context);
    boolean termAtOnce = action instanceof Stopping.Action.Term && kind.termsAtOnce();
    check(!signal || termAtOnce || nowMonoMs - previousMarkMonoMs >= graceMs, STOPS, action + " at " + nowMonoMs + ", only "
        + (nowMonoMs - previousMarkMonoMs) + " ms after " + previousMarkMonoMs + " (grace " + graceMs + " ms)", context);
    check(!(action instanceof Stopping.Action.Survivor) || beforeRelaunch, STOPS,
        "a survivor of a stop that no relaunch follows", context);
  }

  private static final String C9 = "C9 workers hold no leases: a worker's hello is accepted only from the process the "
      + "supervisor knows as that worker, with its token and its build where they are known.";

  /** C9, Q3, S6: what an accepted hello must have shown. */
  public static void c9HelloFromTheWorker(HelloCheck.Expected expected, HelloCheck.Presented hello,
                                          HelloCheck.Result result, String context) {
    if (result instanceof HelloCheck.Result.Accepted a) {
      check(expected.identity() != null && hello.process().equals(Optional.of(expected.identity()))
          && a.identity().equals(expected.identity()), C9, "accepted process " + hello.process() + " as "
          + expected.identity(), context);
      check(expected.tokenHash() == null || expected.tokenHash().equals(hello.tokenHash()), C9,
          "accepted a hello with another token", context);
      check(expected.build() == null || expected.build().equals(hello.build()), C9,
          "accepted build " + hello.build() + " where " + expected.build() + " was expected", context);
    }
  }

  private static final String Q1_Q2 = "Q1, Q2, Q5 one policy: a worker's own outcome is its run's verdict; without one, "
      + "a run this daemon stopped (other than idle) or never told to go settles STALLED and spends no attempt; any "
      + "other run without an outcome settles LOST.";

  /** Q1, Q2, Q5: the verdict of one ended run. */
  public static void q1q2VerdictOfAnEndedRun(Verdicts.Ending ending, Verdicts.Judgement j, String context) {
    if (ending.intent() != null) {
      Verdict expected = ending.intent().kill() ? Verdict.KILLED : Verdict.FAILED;
      check(j.verdict() == expected, Q12_Q13, "a run stopped by " + ending.intent() + " settled " + j.verdict(), context);
    } else if (ending.outcome() instanceof Verdicts.Outcome.Written w) {
      check(j.verdict() == w.verdict(), Q1_Q2, "the worker wrote " + w.verdict() + " but the verdict is " + j.verdict(),
          context);
    } else {
      boolean free = (ending.stoppedBy() != null && ending.stoppedBy() != StopKind.IDLE_SHUTDOWN)
          || ending.neverToldToGo();
      check(j.verdict() == (free ? Verdict.STALLED : Verdict.LOST), Q1_Q2, "no outcome, stopped by "
          + ending.stoppedBy() + ", never told to go " + ending.neverToldToGo() + ": verdict " + j.verdict(), context);
      check(j.diagnosis() != null && j.diagnosis().contains(((Verdicts.Outcome.Missing) ending.outcome()).diagnosis()),
          Q1_Q2, "the diagnosis " + j.diagnosis() + " does not say what was found", context);
    }
  }

  private static final String Q12_Q13 = "Q12/Q13: a run stopped for its time limit settles FAILED (an attempt spent); a "
      + "killed run settles KILLED (none spent), whatever it wrote.";

  /** S7: after an attach a view has shown exactly one notice per stored restore. */
  public static void s7OneNoticePerRestore(List<Notice> everShown, List<Notice> stored, String context) {
    Set<String> shownIds = new HashSet<>();
    for (Notice n : everShown) {
      check(shownIds.add(n.restoreId()),
          "S7 restore notices: a view shows each notice once and, after an attach, exactly one notice per restore.",
          "notice of restore " + n.restoreId() + " shown twice", context);
    }
    Set<String> storedIds = new HashSet<>();
    for (Notice n : stored) {
      storedIds.add(n.restoreId());
    }
    check(storedIds.size() == stored.size() && shownIds.equals(storedIds),
        "S7 restore notices: a view shows each notice once and, after an attach, exactly one notice per restore.",
        "shown " + shownIds + " but stored " + stored, context);
  }

  private static final String S8 = "S8 replacement: only an interactive start replaces a daemon, only one of a lower "
      + "version, only by idle shutdown; so the daemon never goes back to a lower version and k builds cause at most "
      + "k − 1 replacements.";

  /** S8: a replacement never lowers the daemon's version. */
  public static void s8NeverDowngrades(Version before, Version after, String context) {
    check(after.compareTo(before) >= 0, S8, "daemon went from v" + before + " to v" + after, context);
  }

  /** S8: at most k − 1 replacements for k builds. */
  public static void s8ReplacementsBounded(int builds, int replacements, String context) {
    check(replacements <= Math.max(0, builds - 1), S8, replacements + " replacements for " + builds + " builds", context);
  }

  /** S8 for one verdict. */
  public static void s8OnlyInteractiveReplacesLower(Replacement.Client c, Optional<Replacement.Daemon> d,
                                                    Replacement.Verdict v, String context) {
    if (v instanceof Replacement.Verdict.ReplaceIfIdle) {
      check(d.isPresent() && c.interactive() && c.version().compareTo(d.get().version()) > 0
              && d.get().capabilities().contains(Replacement.IDLE_SHUTDOWN), S8,
          "client " + c + " replaces " + d, context);
    }
  }

  /** S9: a client older than the daemon uses it or stops, with the law's message. */
  public static void s9OlderClientTold(Replacement.Client c, Replacement.Daemon d, Replacement.Verdict v,
                                       String context) {
    if (c.version().compareTo(d.version()) < 0) {
      String m = "this vigil (v" + c.version() + ") is older than the running daemon (v" + d.version()
          + "): update or run vigil down";
      String law = "S9 relaunch and compatibility: a client older than the daemon uses it when the protocol agrees "
          + "and says \"" + m + "\"; when the protocol does not agree it stops with that message.";
      boolean agree = c.protocol() == d.protocol();
      check(agree ? v.equals(new Replacement.Verdict.UseAndTell(m)) : v.equals(new Replacement.Verdict.Refuse(m)),
          law, "verdict " + v, context);
    }
  }

  /** D1: a reader calls the daemon dead when its heartbeat is 6 beats old. */
  public static void d1StaleIsDead(DaemonLiveness liveness, Optional<DaemonLiveness.Status> status, long nowWallMs,
                                   DaemonLiveness.Reading r, String context) {
    boolean dead = DaemonStatusLaw.dead(status, liveness.heartbeatMs(), nowWallMs);
    check(dead == r instanceof DaemonLiveness.Reading.NoDaemon,
        "D1 heartbeat: a reader calls the daemon dead when daemon.json is older than 6 beats.",
        "status " + status + " at " + nowWallMs + " read as " + r, context);
  }

  /** D2: a start refuses exactly when another live pid heartbeats freshly, and names it. */
  public static void d2RefusesFreshForeign(DaemonLiveness liveness, Optional<DaemonLiveness.Status> status, long ownPid,
                                           boolean alive, long nowWallMs, DaemonLiveness.Singleton s, String context) {
    boolean refuses = DaemonStatusLaw.refuses(status, ownPid, alive, liveness.heartbeatMs(), nowWallMs);
    String law = "D2 singleton: a start that finds a fresh heartbeat from another live pid refuses and names that pid.";
    check(refuses == s instanceof DaemonLiveness.Singleton.Refuse, law, "status " + status + ", own pid " + ownPid
        + ", alive " + alive + " decided " + s, context);
    if (s instanceof DaemonLiveness.Singleton.Refuse r) {
      check(r.message().contains("pid " + status.get().pid()), law, "message " + r.message(), context);
    }
  }
}
