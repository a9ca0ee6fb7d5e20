package dev.vigil.supervisor.engine;

import static dev.vigil.supervisor.engine.Simulation.LANE_A;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunState;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.Verdict;
import dev.vigil.supervisor.StopKind;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.engine.EngineEvent.RecoveryAction;
import dev.vigil.supervisor.engine.port.IdentityRecord;
import dev.vigil.supervisor.engine.port.Signal;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each branch of recovery at boot (DESIGN.md §7), as a named example. */
class RecoveryExamplesTest {
  private final Bench b = new Bench();

  private RunId runningWorker(Bench.TaskBuilder script) {
    b.scripts.add(script.build());
    TicketId t = b.submit(LANE_A);
    RunId run = b.firstRun(t);
    b.until("the worker is told go", () -> !b.world.tasksOf(run).isEmpty() && b.worker(run).gotGo, 3_000);
    return run;
  }

  @Test
  void aClaimWhoseWorkerHoldsItsReservationIsAdoptedAndStartedByTheNextDaemon() {
    b.boot();
    b.world.crashAfterNextLaunch = true;
    b.send(new Command.Submit(NewTicket.of(LANE_A, "cmd", "{}")));
    assertTrue(b.engine == null, "the daemon died right after the launch");
    RunId run = new RunId(new TicketId(1), 1);
    b.run(1_000);
    assertEquals(RunState.CLAIMED, b.run(run).state());
    assertTrue(b.world.reserved(new WorkerKey.Task(run)), "the orphaned worker holds its reservation");

    b.boot();
    assertEquals(1, b.recovered(RecoveryAction.ADOPT_CLAIM).size());
    b.until("started from the worker's identity record and hello (Q3)",
        () -> b.run(run).state() == RunState.RUNNING, 1_000);
    assertEquals(new OwnerId("d2"), b.run(run).owner(), "the lease moved to the new daemon");
    b.until("the adopted worker is told go", () -> b.worker(run).gotGo, 2_000);
    b.until("the ticket succeeds", () -> b.ticket(run.ticket()).state() == TicketState.SUCCEEDED, 5_000);
    assertEquals(1, b.ticket(run.ticket()).attemptsUsed());
    assertEquals(0, b.ticket(run.ticket()).spawnFailures());
  }

  @Test
  void C3_aDaemonThatDiesAtItsAdoptClaim_beforeOrAfterTheCommit_leavesTheClaimToTheNextDaemonWhichStartsIt() {
    for (boolean afterCommit : new boolean[] {false, true}) {
      Bench b = new Bench();
      b.boot();
      b.world.crashAfterNextLaunch = true;
      b.send(new Command.Submit(NewTicket.of(LANE_A, "cmd", "{}")));
      RunId run = new RunId(new TicketId(1), 1);
      b.run(1_000);
      assertEquals(new OwnerId("d1"), b.run(run).owner());

      b.coordination.arm(2, afterCommit); // registerOwner, then the adoption of d1's claim
      assertThrows(SimulatedCrash.class, b::boot);
      String at = "adoptClaim " + (afterCommit ? "after" : "before") + " commit";
      assertEquals(at, b.coordination.lastCrash());
      b.crash();
      assertEquals(RunState.CLAIMED, b.run(run).state(), at);
      assertEquals(new OwnerId(afterCommit ? "d2" : "d1"), b.run(run).owner(), at + ": the claim is where the store says");
      assertEquals(b.run(run).owner(), b.law.lease(run.ticket()).orElseThrow().owner(), at);

      b.boot();
      assertEquals(1, b.recovered(RecoveryAction.ADOPT_CLAIM).size(), at);
      b.until("started by d3", () -> b.run(run).state() == RunState.RUNNING, 1_000);
      assertEquals(new OwnerId("d3"), b.run(run).owner(), at);
      b.until("the ticket succeeds", () -> b.ticket(run.ticket()).state() == TicketState.SUCCEEDED, 5_000);
      assertEquals(1, b.law.runsOf(run.ticket()).size(), at + ": C1, one run, one worker");
      assertEquals(0, b.ticket(run.ticket()).spawnFailures(), at);
    }
  }

  @Test
  void anAdoptedClaimWhoseIdentityRecordCarriesBuildAndTokenStartsAtBootBeforeAnyHello() {
    b.boot();
    b.world.crashAfterNextLaunch = true;
    b.send(new Command.Submit(NewTicket.of(LANE_A, "cmd", "{}")));
    RunId run = new RunId(new TicketId(1), 1);
    b.run(1_000);
    SimWorld.TaskProc w = b.worker(run);
    b.world.dirs.get(w.key).identity = new IdentityRecord.Written(w.identity, w.build, w.tokenHash);
    w.mute = true;
    b.boot();
    assertEquals(RunState.RUNNING, b.run(run).state(), "Q3: reservation held and identity known");
    assertEquals(w.tokenHash, b.run(run).start().tokenHash());
    assertFalse(w.gotGo, "go waits for the worker's connection");
    w.mute = false;
    b.until("told go once it says hello", () -> w.gotGo, 2_000);
  }

  @Test
  void Q4_aClaimWithNoWorkerHoldingItsReservationIsRolledBackAtBoot() {
    b.boot();
    b.coordination.arm(2, true); // submit, then claimNext commits and the daemon dies before launching
    b.send(new Command.Submit(NewTicket.of(LANE_A, "cmd", "{}")));
    assertTrue(b.engine == null);
    RunId run = new RunId(new TicketId(1), 1);
    assertEquals(RunState.CLAIMED, b.run(run).state());

    b.boot();
    assertEquals(1, b.recovered(RecoveryAction.ABORT_CLAIM).size());
    assertEquals(Verdict.ABANDONED, b.run(run).verdict());
    assertEquals(1, b.ticket(run.ticket()).spawnFailures(), "a rolled-back claim is a spawn failure, not an attempt");
    b.until("the ticket runs again and succeeds", () -> b.ticket(run.ticket()).state() == TicketState.SUCCEEDED, 5_000);
    assertEquals(1, b.ticket(run.ticket()).attemptsUsed());
  }

  @Test
  void D4_aLiveWorkerOfTheSameBuildIsReadoptedAndFinishesUntouchedAndUncharged() {
    b.boot();
    RunId run = runningWorker(Bench.task().work(6_000));
    long pid = b.worker(run).identity.pid();
    b.crash();
    b.run(1_000);

    b.boot();
    assertEquals(1, b.recovered(RecoveryAction.READOPT).size());
    assertEquals(new OwnerId("d2"), b.run(run).owner());
    b.until("the ticket succeeds", () -> b.ticket(run.ticket()).state() == TicketState.SUCCEEDED, 8_000);
    assertEquals(1, b.ticket(run.ticket()).attemptsUsed(), "Q11: a restart charges no attempt");
    assertEquals(1, b.law.runsOf(run.ticket()).size(), "D4: the same worker finished, no second run");
    assertEquals(pid, b.run(run).start().identity().pid());
    assertTrue(b.events(EngineEvent.StopBegun.class).isEmpty() && b.events(EngineEvent.Signalled.class).isEmpty(),
        "D4: nothing was stopped or signalled: " + b.events);
  }

  @Test
  void aLiveWorkerOfAnotherBuildIsStoppedAsLostAndItsTicketRunsAgainOnThisBuildWithoutSpendingAnAttempt() {
    b.boot();
    RunId run = runningWorker(Bench.task().work(60_000).stopReact(500, false));
    b.crash();

    b.boot("b2");
    assertEquals(1, b.recovered(RecoveryAction.STOP_OTHER_BUILD).size());
    assertEquals(StopKind.LOST, b.events(EngineEvent.StopBegun.class).get(0).kind());
    b.until("the old worker is gone and its run settled", () -> b.run(run).state() == RunState.SETTLED, 8_000);
    assertEquals(Verdict.STALLED, b.run(run).verdict(), "S6: work left resumable, no attempt spent");
    assertTrue(b.run(run).diagnosis().contains("LOST stop"), b.run(run).diagnosis());
    b.until("the ticket succeeds on this build", () -> b.ticket(run.ticket()).state() == TicketState.SUCCEEDED, 8_000);
    Run second = b.run(new RunId(run.ticket(), 2));
    assertEquals("b2", second.start().build());
    assertEquals(1, b.ticket(run.ticket()).attemptsUsed());
  }

  @Test
  void aWorkerOfAnotherBuildThatIgnoresItsStopIsTerminatedAfterTheGraceIdentityGated() {
    b.boot();
    RunId run = runningWorker(Bench.task().work(60_000).stopReact(-1, false));
    b.crash();
    b.boot("b2");
    b.run(Bench.ms(Timeout.STOP_GRACE) - Bench.TICK_MS);
    assertTrue(b.events(EngineEvent.Signalled.class).isEmpty(), "no signal before the stop grace");
    b.until("TERM after the grace", () -> !b.events(EngineEvent.Signalled.class).isEmpty(), 1_000);
    EngineEvent.Signalled term = b.events(EngineEvent.Signalled.class).get(0);
    assertEquals(Signal.TERM, term.signal());
    assertTrue(term.sent());
    b.until("settled", () -> b.run(run).state() == RunState.SETTLED, 3_000);
    assertEquals(Verdict.STALLED, b.run(run).verdict());
    assertEquals(0, b.ticket(run.ticket()).attemptsUsed());
  }

  @Test
  void aDeadWorkerIsSettledAsRecoveryFromItsOutcomeFile() {
    b.boot();
    RunId run = runningWorker(Bench.task().work(1_000));
    b.crash();
    b.until("the worker finished while no daemon ran", () -> !b.worker(run).alive, 3_000);

    b.boot();
    assertEquals(1, b.recovered(RecoveryAction.SETTLE_DEAD).size());
    EngineEvent.ExitTaken exit = b.events(EngineEvent.ExitTaken.class).get(0);
    assertEquals(ExitOwner.Role.RECOVERY, exit.role());
    assertEquals(Verdict.SUCCEEDED, b.run(run).verdict(), "Q5: the outcome the worker wrote, as a live finish would");
    assertEquals(TicketState.SUCCEEDED, b.ticket(run.ticket()).state());
  }

  @Test
  void aDeadWorkerWithoutAnOutcomeIsSettledLostWithADiagnosis() {
    b.boot();
    RunId run = runningWorker(Bench.task().work(1_000).ending(SimWorld.Ending.CRASH));
    b.crash();
    b.until("the worker crashed", () -> !b.worker(run).alive, 3_000);

    b.boot();
    assertEquals(Verdict.LOST, b.run(run).verdict());
    assertTrue(b.run(run).diagnosis().contains("no outcome.json"), b.run(run).diagnosis());
    assertEquals(1, b.ticket(run.ticket()).attemptsUsed(), "Q1: LOST spends an attempt");
    assertEquals(TicketState.READY, b.ticket(run.ticket()).state());
  }

  @Test
  void aCorruptOutcomeIsSettledLostWithItsDiagnosisNeverAnException() {
    b.boot();
    RunId run = runningWorker(Bench.task().work(1_000).ending(SimWorld.Ending.CORRUPT));
    b.until("settled", () -> b.run(run).state() == RunState.SETTLED, 3_000);
    assertEquals(Verdict.LOST, b.run(run).verdict());
    assertTrue(b.run(run).diagnosis().contains("truncated"), b.run(run).diagnosis());
  }

  @Test
  void anExitTakenByADaemonThatDiedBeforeFinishingIsSettledWithTheRecordedFacts() {
    b.boot();
    RunId run = runningWorker(Bench.task().work(1_000));
    b.crash();
    b.until("the worker finished", () -> !b.worker(run).alive, 3_000);
    b.law.takeExit(run, ExitOwner.supervisor(new OwnerId("d1")), RunExit.code(0, b.world.wallMs)); // d1's last act

    b.boot();
    assertEquals(1, b.recovered(RecoveryAction.FINISH_FOR_DEAD_EXIT_OWNER).size());
    Run settled = b.run(run);
    assertEquals(Verdict.SUCCEEDED, settled.verdict());
    assertEquals(ExitOwner.supervisor(new OwnerId("d1")), settled.exitOwner(), "the recorded facts are kept");
    assertEquals(Integer.valueOf(0), settled.exit().exitCode());
  }

  @Test
  void Q4_aClaimOfALiveOwnerIsLeftAloneUntilThatOwnerIsProvablyDead() {
    OwnerId client = new OwnerId("client-1");
    SimWorld.DaemonProc clientProcess = b.liveClient(client);
    TicketId t = ((dev.vigil.coordination.Submission.Accepted) b.law.submit(NewTicket.of(LANE_A, "cmd", "{}"),
        b.world.wallMs)).ticket().id();
    b.law.claimByHand(t, client, b.world.wallMs, 5_000);
    RunId run = b.firstRun(t);

    b.boot();
    assertEquals(1, b.recovered(RecoveryAction.LEAVE_TO_LIVE_OWNER).size());
    b.run(5_000);
    assertEquals(RunState.CLAIMED, b.run(run).state(), "a hand-started claim of a live client is not touched");
    assertEquals(Status.Supervision.OTHER, b.status().runs().get(0).supervision());
    assertEquals(1, b.status().lanes().get(0).occupied(), "Q11: it occupies a slot of its lane");

    b.world.end(clientProcess, null, 9);
    b.until("the claim of the dead client is rolled back", () -> b.run(run).state() == RunState.SETTLED, 3_000);
    assertEquals(TicketState.HELD, b.ticket(t).state(), "Q8: a hand-started claim rolled back holds its ticket");
  }

  @Test
  void Q10_aStaleClaimOfALiveOwnerIsSweptOnlyAtStartupAndOnlyWithItsReservationFree() {
    OwnerId client = new OwnerId("client-1");
    b.liveClient(client);
    TicketId t = ((dev.vigil.coordination.Submission.Accepted) b.law.submit(NewTicket.of(LANE_A, "cmd", "{}"),
        b.world.wallMs)).ticket().id();
    b.law.claimByHand(t, client, b.world.wallMs, 5_000);
    b.boot();
    b.world.wallMs += Bench.ms(Timeout.STALE_CLAIM) + 60_000;
    b.run(5_000);
    assertEquals(RunState.CLAIMED, b.run(b.firstRun(t)).state(), "Q10: only a startup sweeps stale claims");

    b.crash();
    b.boot();
    EngineEvent.Recovered swept = b.recovered(RecoveryAction.ABORT_CLAIM).get(0);
    assertTrue(swept.detail().startsWith("stale claim: claimed "), swept.detail());
    assertEquals(RunState.SETTLED, b.run(b.firstRun(t)).state());
  }

  @Test
  void Q6_aLiveWorkerWhoseLeaseExpiredIsNotDeadAndItsLeaseIsRearmed() {
    b.boot();
    RunId run = runningWorker(Bench.task().work(8_000));
    b.world.wallMs += 10L * 86_400_000; // the wall clock leaps ten days: every lease has expired
    b.run(Bench.ms(Timeout.RECONCILE) + Bench.TICK_MS);
    assertEquals(dev.vigil.coordination.Renewal.Reason.EXPIRED,
        b.events(EngineEvent.RenewalDenied.class).get(0).reason(), "C4: the denial is recorded");
    assertEquals(1, b.events(EngineEvent.LeaseRearmed.class).size(), "C3: a live worker's lapsed lease is re-armed");
    assertEquals(RunState.RUNNING, b.run(run).state(), "C5: an expired lease is no evidence of death");
    b.until("the ticket succeeds", () -> b.ticket(run.ticket()).state() == TicketState.SUCCEEDED, 10_000);
    assertEquals(1, b.ticket(run.ticket()).attemptsUsed());
  }

  @Test
  void aForkThatHoldsTheReservationKeepsTheRunAliveAfterItsLeaderExited() {
    b.boot();
    RunId run = runningWorker(Bench.task().work(1_500).forkOutliving(4_000));
    b.until("the leader exited", () -> !b.worker(run).alive, 3_000);
    b.run(2_000);
    assertEquals(RunState.RUNNING, b.run(run).state(), "C5: a held reservation is life, whatever the leader did");
    b.until("settled once the fork is gone", () -> b.run(run).state() == RunState.SETTLED, 5_000);
    assertEquals(Verdict.SUCCEEDED, b.run(run).verdict());
    assertFalse(b.world.workerLives(b.worker(run)));
  }

  /** A live run of host-b, started by its daemon {@code host-b-d0} (of another boot: never alive to this host). */
  private RunId runOfHostB() {
    OwnerId other = new OwnerId("host-b-d0");
    b.law.registerOwner(new dev.vigil.coordination.Owner(other, "b", new ProcessIdentity(OtherHostDaemon.BOOT, 42, 1, 42),
        "b1", b.world.wallMs, "host-b"));
    TicketId t = ((dev.vigil.coordination.Submission.Accepted) b.law.submit(NewTicket.of(LANE_A, "cmd", "{}"),
        b.world.wallMs)).ticket().id();
    b.law.claim(t, other, b.world.wallMs, 60_000);
    RunId run = b.firstRun(t);
    b.law.start(run, other, new dev.vigil.coordination.RunStart(new ProcessIdentity(OtherHostDaemon.BOOT, 5_001, 9,
        5_001), "b1", "ab".repeat(32), b.world.wallMs));
    return run;
  }

  private long settlements(RunId run, List<EngineEvent> events) {
    return events.stream().filter(e -> e instanceof EngineEvent.Settled s && s.run().equals(run)).count();
  }

  @Test
  void H1_aReleaseCutShortAfterItTookAnExit_isFinishedByTheNextDaemon_andTheRunIsSettledOnce() {
    b.hostId = "host-a";
    RunId run = runOfHostB();
    b.boot();
    assertEquals(1, b.recovered(RecoveryAction.LEAVE_TO_ITS_HOST).size());

    b.coordination.arm(1, true); // the release takes the run's exit, commits, and the daemon dies before it settles
    assertNull(b.command(new Command.ReleaseHost("host-b")));
    assertNull(b.engine, "the daemon died in the middle of the release");
    assertEquals(RunState.EXITED, b.run(run).state());
    assertEquals(ExitOwner.recovery(new OwnerId("d1")), b.run(run).exitOwner());

    b.boot();
    assertEquals(1, b.recovered(RecoveryAction.FINISH_RELEASE).size(), b.events.toString());
    assertEquals(Verdict.LOST, b.run(run).verdict(), "settled as the release would have");
    assertTrue(b.run(run).diagnosis().endsWith("host host-b was released by an operator"), b.run(run).diagnosis());
    assertEquals(TicketState.READY, b.ticket(run.ticket()).state());
    assertEquals(1, b.ticket(run.ticket()).attemptsUsed());

    Reply again = b.command(new Command.ReleaseHost("host-b")); // the operator asks again: nothing is left
    assertEquals(List.of(), ((Reply.HostReleased) again).runs());
    assertEquals(1, settlements(run, b.events), "settled once");
    assertTrue(b.events(EngineEvent.SettleDenied.class).isEmpty(), b.events.toString());
  }

  @Test
  void H1_aReleaseOfThisHostCutShortByTheOtherHost_isLeftToThatHost_whoseNextDaemonFinishesIt() {
    b.hostId = "host-a";
    CrashingCoordination atHostB = new CrashingCoordination(b.law);
    OtherHostDaemon hostB = new OtherHostDaemon("host-b", atHostB, b.schedules, b.timeouts);
    b.boot();
    RunId run = runningWorker(Bench.task().work(60_000).stopReact(-1, false));
    SimWorld.TaskProc worker = b.worker(run);
    b.world.released = run::equals;

    hostB.boot(b.world.monoMs, b.world.wallMs);
    atHostB.arm(1, true); // host-b's release takes the exit of host-a's run and its daemon dies
    assertThrows(SimulatedCrash.class, () -> hostB.command(new Command.ReleaseHost("host-a"), b.world.monoMs,
        b.world.wallMs));
    assertEquals(RunState.EXITED, b.run(run).state());

    b.until("host-a's daemon sees its run taken", () -> !b.events(EngineEvent.SettledElsewhere.class).isEmpty(),
        Bench.ms(Timeout.RECONCILE) + Bench.TICK_MS);
    assertTrue(b.events(EngineEvent.SettledElsewhere.class).get(0).how().startsWith("its exit was taken by daemon "
        + "host-b-d1 of host host-b"), b.events(EngineEvent.SettledElsewhere.class).get(0).how());
    b.until("its worker is stopped", () -> !b.world.workerLives(worker), 3 * Bench.ms(Timeout.STOP_GRACE));
    b.run(2 * Bench.ms(Timeout.RECONCILE));
    assertEquals(RunState.EXITED, b.run(run).state(), "host-a leaves it: its exit is host-b's");
    assertEquals(1, b.recovered(RecoveryAction.LEAVE_TO_ITS_HOST).size(), b.events.toString());

    hostB.boot(b.world.monoMs, b.world.wallMs); // host-b's next daemon finishes what its release began
    assertEquals(1, hostB.events(EngineEvent.Recovered.class).stream()
        .filter(r -> r.action() == RecoveryAction.FINISH_RELEASE).count(), hostB.events.toString());
    assertEquals(Verdict.LOST, b.run(run).verdict());
    assertEquals(1, settlements(run, hostB.events) + settlements(run, b.events), "settled once");
    assertTrue(b.events(EngineEvent.SettleDenied.class).isEmpty(), b.events.toString());
  }

  @Test
  void H1_aReleaseOfThisHostCutShortByAHostThatNeverComesBack_isFinishedByReleasingThatHost() {
    b.hostId = "host-a";
    CrashingCoordination atHostB = new CrashingCoordination(b.law);
    OtherHostDaemon hostB = new OtherHostDaemon("host-b", atHostB, b.schedules, b.timeouts);
    b.boot();
    RunId run = runningWorker(Bench.task().work(60_000).stopReact(-1, false));
    b.world.released = run::equals;
    hostB.boot(b.world.monoMs, b.world.wallMs);
    atHostB.arm(1, true);
    assertThrows(SimulatedCrash.class, () -> hostB.command(new Command.ReleaseHost("host-a"), b.world.monoMs,
        b.world.wallMs));
    b.until("its worker is stopped", () -> !b.world.workerLives(b.worker(run)), 4 * Bench.ms(Timeout.STOP_GRACE));

    Reply r = b.command(new Command.ReleaseHost("host-b")); // host-b is gone for good: host-a's operator releases it
    assertEquals(List.of(run), ((Reply.HostReleased) r).runs());
    assertEquals(Verdict.LOST, b.run(run).verdict());
    assertTrue(b.run(run).diagnosis().endsWith("host host-b was released by an operator"), b.run(run).diagnosis());
    assertEquals(1, settlements(run, b.events), "settled once");
    b.until("the ticket runs again and succeeds", () -> b.ticket(run.ticket()).state() == TicketState.SUCCEEDED, 10_000);
  }

  @Test
  void Q6_C5_aSilentHungWorkerIsNeverDeclaredDead() {
    b.boot();
    RunId run = runningWorker(Bench.task().work(120_000).hangs());
    b.run(60_000);
    assertEquals(RunState.RUNNING, b.run(run).state(), "Q6: no heartbeat for a minute is not a death");
    assertNotNull(b.worker(run));
    assertTrue(b.worker(run).alive);
  }
}
