package dev.vigil.supervisor.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The engine's laws as properties of the deterministic {@link Simulation}: QuickTheories draws the
 * seeds, each seed is a whole daemon history (faults, then quiet until every ticket settles), and
 * every step of every history is checked against all of the simulation's invariants. Each property
 * leans its generator towards the laws in its name and then requires that the decisions and events
 * those laws are about actually occurred (no vacuous pass). A failure prints the seed and the one
 * line that replays it.
 */
@Execution(ExecutionMode.CONCURRENT) // each property simulates on its own; they share nothing
class EnginePropertiesTest {
  private static Tally simulate(String law, Simulation.Profile profile, int seeds) {
    Tally tally = new Tally(law);
    long t0 = System.nanoTime();
    qt().withExamples(seeds).withShrinkCycles(0).forAll(longs().all())
        .checkAssert(seed -> tally.add(Simulation.run(profile, seed).seen()));
    System.out.printf("%s: %d histories of profile %s (%d daemon incarnations, %d settlements) in %d ms%n", law,
        tally.count("every ticket settled"), profile.name(), tally.count("Booted"), tally.count("Settled"),
        (System.nanoTime() - t0) / 1_000_000);
    return tally;
  }

  @Test
  void C1_noDoubleSpawnAcrossDaemonCrashes() {
    simulate("C1", Simulation.Profile.MIXED, 700).assertSaw(
        "daemon crash", "verb crash armed", "crash after launch", "kill -9 a worker", "task worker forked",
        "recovered READOPT", "recovered ADOPT_CLAIM", "recovered ABORT_CLAIM", "recovered SETTLE_DEAD",
        "recovered FINISH_FOR_DEAD_EXIT_OWNER", "go", "every ticket settled", "verb crash armed at boot",
        "batch accepted", "batch refused", "store outage", "store back: new incarnation on the same process");
  }

  @Test
  void Q17_anAttemptResumesFromTheLatestCheckpoint_amongCrashes() {
    simulate("Q17", Simulation.Profile.CRASHES, 400).assertSaw(
        "checkpoint saved", "checkpoint kept before settlement by daemon", "resumed from a checkpoint",
        "started over past a checkpoint: not resumable", "daemon crash", "verb crash at keepCheckpoint before commit",
        "verb crash at keepCheckpoint after commit", "kill -9 a worker", "exit taken as RECOVERY");
    // the hand starts of a mixed history: a resume that is granted is rare there (HandStartExamplesTest names one)
    simulate("Q17 Q8", Simulation.Profile.MIXED, 200).assertSaw("hand start refused: would start over",
        "resumed from a checkpoint");
  }

  @Test
  void Q11_oneWorkerStartingAtATime_keepsEveryLaw_andEveryTicketSettles() {
    simulate("Q11 maxStarting", Simulation.Profile.STARTS, 250).assertSaw(
        "a worker starting while work waits and a slot is free", "every ticket settled", "daemon crash",
        "crash after launch", "recovered ADOPT_CLAIM", "recovered READOPT", "welcomed with go", "store outage");
  }

  @Test
  void Q11_D4_restartKeepsLiveWorkers() {
    simulate("Q11 D4", Simulation.Profile.CRASHES, 1000).assertSaw(
        "daemon crash", "verb crash armed", "crash after launch", "recovered READOPT",
        "D4: a readopted worker settled by its own outcome", "service adopted", "welcomed with go",
        "exit taken as RECOVERY", "exit taken as SUPERVISOR", "reservation lost while the worker lives",
        "verb crash at adoptClaim before commit", "verb crash at adoptClaim after commit",
        "verb crash at abortClaim before commit", "verb crash at abortClaim after commit",
        "verb crash at readopt before commit", "verb crash at readopt after commit", "store outage",
        "store back: new incarnation on the same process", "recovered after an outage: READOPT",
        "readoptAll of several runs in one pass");
  }

  @Test
  void C5_Q6_livenessIgnoresTheClock() {
    simulate("C5 Q6", Simulation.Profile.CLOCKS, 1000).assertSaw(
        "leap: wall clock days ahead", "leap: monotonic clock minutes ahead", "leap verdict: alive",
        "C5: alive run with an expired lease at a leap", "Q6: silent hung worker alive at a leap",
        "renewal denied EXPIRED", "LeaseRearmed", "reservation lost while the worker lives", "wall clock jumped ahead",
        "wall clock jumped back", "monotonic clock jumped (suspend)", "host reboot");
  }

  @Test
  void Q1_Q2_everyTicketSettlesWithExactAttempts() {
    Tally q1 = simulate("Q1 Q2", Simulation.Profile.MIXED, 700);
    // a hand-started last attempt that fails (its ticket HELD) comes in about one history of a hundred: these
    // histories hold one each, so that no run of the property misses it
    for (long seed : new long[] {90, 95, 227}) {
      q1.add(Simulation.run(Simulation.Profile.MIXED, seed).seen());
    }
    q1.assertSaw(
        "every ticket settled", "settled SUCCEEDED", "settled FAILED", "settled LOST", "settled STALLED",
        "settled BLOCKED", "settled PERMANENT_FAILURE", "verdict from the worker's outcome",
        "a worker's result stored with its run", "hand start HandStarted",
        "hand start Denied", "hand start refused: lane full", "hand-started run settled: ticket HELD",
        "stopped by this daemon: no attempt spent", "no outcome: LOST", "corrupt outcome: LOST",
        "takeExitAndFinishAll of several runs in one pass", "startAll of several runs in one pass");
  }

  @Test
  void Q3_Q9_workBeginsOnlyAfterTheHandoffAndParksReachWorkersAtASafePoint() {
    simulate("Q3 Q9", Simulation.Profile.MIXED, 400).assertSaw(
        "HandoffTimedOut", "handoff kill", "welcomed without go", "welcomed with go",
        "task worker announced itself before it held its lock", "task worker died before its reservation",
        "stop PARK task", "park reached a live worker", "task worker stopped at a safe point", "launch failed");
  }

  @Test
  void S5_idleShutdownNeverStopsWork() {
    simulate("S5", Simulation.Profile.SHUTDOWNS, 1000).assertSaw(
        "round: busy", "round: every worker quiesced", "shutdown IF_IDLE -> Busy", "shutdown IF_IDLE -> ShuttingDown",
        "stop IDLE_SHUTDOWN service", "service worker complied with idle stop", "ShutdownComplete",
        "daemon exited after shutdown", "shutdown STOP_WORKERS -> ShuttingDown");
  }

  @Test
  void D4_aRestartLeavesEveryWorkerRunningAndTheNextDaemonTakesThemOver() {
    simulate("D4", Simulation.Profile.SHUTDOWNS, 1000).assertSaw(
        "shutdown LEAVE_WORKERS -> ShuttingDown", "restart: a task worker left running",
        "restart: a service worker left running", "recovered after a restart: READOPT", "daemon exited after shutdown",
        "service adopted");
  }

  @Test
  void S6_otherBuildsStopAsLostAndRestartOnThisBuild() {
    simulate("S6", Simulation.Profile.BUILDS, 800).assertSaw(
        "boot on a new build", "recovered STOP_OTHER_BUILD", "stop LOST task", "stop LOST service",
        "stopped by this daemon: no attempt spent", "service adopted", "hello denied service", "signal TERM sent",
        "hung task worker ignored TERM", "signal KILL sent");
  }

  @Test
  void S1_S3_servicesRestartUnderTheirBudgetAndReviveWithWork() {
    simulate("S1 S3", Simulation.Profile.SERVICES, 1000).assertSaw(
        "ServiceRestartScheduled", "ServiceGivenUp", "service status BACKOFF", "service status GIVEN_UP",
        "service revived", "service not revived", "service worker survived a signal", "launch failed",
        "service worker crashed");
  }

  /**
   * S7: a service worker that starts over a snapshot says so after every welcome, to its daemon and to the next
   * one after a crash; the store keeps one notice per restore whatever crashes fall between (checked at the store
   * by every history: no restore is stored twice).
   */
  @Test
  void S7_restoreNoticesAreStoredOnceAcrossDaemonCrashes() {
    simulate("S7", Simulation.Profile.CRASHES, 600).assertSaw(
        "restore notice stored", "restore notice already stored", "a restore said again to a later daemon",
        "daemon crash", "service adopted", "verb crash at transcribe before commit", "verb crash at transcribe after commit");
  }

  @Test
  void Q12_Q13_timeLimitsAndKillsAmongCrashes_stopOnce_settleOnce_andNeverDoubleSpawn() {
    simulate("Q12 Q13", Simulation.Profile.STOPS, 600).assertSaw(
        "every ticket settled", "stop requested TIMEOUT", "stop requested KILL", "stop requested KILL_RETRY",
        "stop requested KILL_HOLD", "stop TIMEOUT task", "stop KILL task", "timed-out run settled FAILED",
        "settled KILLED", "killed run settled: ticket CANCELLED", "killed run settled: ticket READY",
        "killed run settled: ticket HELD", "kill Killing", "kill Denied", "killed while claimed", "killed while RUNNING",
        "verb crash at requestStop before commit", "verb crash at requestStop after commit", "daemon crash",
        "a kill resumed by a later daemon", "a time-out resumed by a later daemon",
        "Q13: a kill settled by a later daemon than the one that started the run",
        "Q12: a time-out settled by a later daemon than the one that started the run", "hung task worker ignored TERM",
        "signal KILL sent", "go");
  }

  @Test
  void D5_storeOutages_keepEveryWorker_andRecoverLikeARestart() {
    simulate("D5", Simulation.Profile.OUTAGES, 1000).assertSaw(
        "store outage", "outage across a launch handoff", "outage while a worker works", "reopen attempt failed",
        "reopen attempt failed: the store did not open", "reopen attempt failed at the registration",
        "store back: new incarnation on the same process", "exit during an outage", "recovered after an outage",
        "recovered after an outage: READOPT", "recovered after an outage: SETTLE_DEAD",
        "recovered after an outage: ADOPT_CLAIM", "store failure armed at boot", "store failed at a start: the daemon exits",
        "daemon crash during a store outage", "D4: a readopted worker settled by its own outcome", "welcomed with go",
        "every ticket settled");
  }

  @Test
  void Q14_chainsAmongCrashes_neverStartBeforeTheirPrerequisitesSucceeded_andAFailedLinkHoldsTheRest() {
    simulate("Q14", Simulation.Profile.CHAINS, 500).assertSaw(
        "every ticket settled", "submission waits for others", "submission waiting for no ticket refused",
        "batch with a ticket that waits for an earlier one", "batch accepted", "batch refused",
        "Q14: a dependent ran after its prerequisites succeeded", "Q14: a dependent held for a prerequisite that is held",
        "Q14: a dependent held for a prerequisite that failed",
        "Q14: a dependent held for a prerequisite that was cancelled", "hand start refused: waits for others",
        "daemon crash", "verb crash armed", "crash after launch", "verb crash at finish before commit",
        "verb crash at finish after commit", "settled KILLED", "timed-out run settled FAILED", "control Denied");
  }

  @Test
  void Q15_oneTicketPerFire_acrossDaemonCrashesAtLooksAndClockJumps() {
    simulate("Q15", Simulation.Profile.SCHEDULES, 80).assertSaw(
        "schedule Submit", "schedule Wait", "schedule skip STILL_LIVE", "schedule skip MISSED",
        "crash armed at a look at the schedules after it commits", "crash armed at a look at the schedules before it",
        "wall clock jumped ahead", "wall clock jumped back", "daemon crash", "Q15 a fire of every2s checked",
        "every ticket settled");
  }

  @Test
  void Q18_prunesAmongCrashes_deleteOnlyFinishedTickets_andNeverALiveRun() {
    simulate("Q18", Simulation.Profile.PRUNES, 150).assertSaw(
        "prune deleted tickets", "prune dry run", "prune kept a linked ticket", "prune directories recorded removed",
        "daemon crash between a prune and its directories' removal", "compacted", "daemon crash", "verb crash armed",
        "every ticket settled");
  }

  @Test
  void H1_aDaemonRecoversOnlyTheRunsOfItsOwnHost_andAnotherHostsOnlyWhenReleased() {
    simulate("H1", Simulation.Profile.HOSTS, 150).assertSaw(
        "H1 the other host claimed", "H1 the other host started", "H1 the other host took an exit",
        "H1 the other host settled", "H1 another host's live runs checked", "recovered LEAVE_TO_ITS_HOST",
        "H1 released a host", "H1 release rolled back a claim", "H1 release settled a RUNNING run LOST",
        "H1 release settled a EXITED run LOST", "recovered RELEASED_WITH_ITS_HOST", "daemon crash",
        "recovered SETTLE_DEAD", "every ticket settled",
        // a lane both hosts serve, each counting only its own host's live runs
        "H1 the other host claimed in a lane of this host",
        // the other host's operator releases this host: while its daemon supervises the run, or while it is down
        "H1 released this host while its daemon supervised the run, its worker working",
        "H1 released this host while its daemon was down, its worker working",
        "H1 SettledElsewhere with its worker alive", "H1 SettledElsewhere after its worker ended",
        "H1 a released run's working worker was refused and left",
        "H1 a released worker was still stopping when its ticket ran again", "H1 a released run's checkpoints were lost",
        // releases cut short: by this host's daemon (its next daemon finishes), by the other host's (its next does)
        "H1 a release was cut short by a daemon crash", "recovered FINISH_RELEASE",
        "H1 a release of this host was cut short by its daemon's crash",
        "H1 the other host's daemon recovered FINISH_RELEASE",
        "H1 SettledElsewhere with its worker alive, its exit taken by a release cut short");
  }

  @Test
  void aSimulationIsDeterministicForItsSeed() {
    for (long seed : new long[] {1, -7, 424_242}) {
      assertEquals(Simulation.replay("MIXED", seed).seen().snapshot(), Simulation.replay("MIXED", seed).seen().snapshot());
    }
  }

  /** A failing seed is replayed by one line like this one (the failure message prints it). */
  @Test
  void aSeedReplaysFromOneLine() {
    Simulation.replay("MIXED", 20_260_130L);
  }

  /**
   * Regression (of the checker): a service worker launched just before a daemon crash, unknown to
   * the next daemon, lives beside the one that daemon launched; the idle stop goes to the one it
   * welcomed, which quiesced.
   */
  @Test
  void S5_S6_anIdleStopGoesToTheWelcomedWorkerWhileAnUnknownEarlierOneStillStarts() {
    Simulation.replay("SHUTDOWNS", -51363273340986981L);
  }

  /** Regression: a hand start during an idle-shutdown round, of a ticket that does not exist, is refused as shutting down. */
  @Test
  void Q8_S5_aHandStartDuringAQuiesceRoundIsRefused() {
    Simulation.replay("SHUTDOWNS", -593871621207190769L);
  }

  /** Regression: a service whose worker exited while the daemon stopped every worker was restarted, so the shutdown never completed. */
  @Test
  void S1_S5_aServiceThatExitsWhileTheDaemonStopsItsWorkersIsNotRestarted() {
    Simulation.replay("SERVICES", -4509533495954158724L);
  }

  /**
   * Regression (of the checker): a daemon launched a worker and died before the worker held its lock; the next
   * daemon aborted that claim, the ticket finished and was pruned while the worker, never told to go, still lived.
   */
  @Test
  void Q18_aWorkerNeverToldToGoMayOutliveItsPrunedTicket() {
    Simulation.Report r = Simulation.replay("PRUNES", 6636792246297513642L);
    assertTrue(r.seen().count("a worker never told to go outlived its pruned ticket") > 0, r.seen().snapshot()::toString);
  }
}
