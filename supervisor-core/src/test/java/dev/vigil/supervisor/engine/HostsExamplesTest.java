package dev.vigil.supervisor.engine;

import static dev.vigil.supervisor.engine.Simulation.LANE_A;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.Owner;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunState;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.Verdict;
import dev.vigil.supervisor.StopKind;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * H1 on a store that two hosts share, as named examples: the daemon under test is of host-a; an operator of
 * host-b releases host-a while host-a's daemon still runs (a partition, a frozen machine) or while it is down.
 */
class HostsExamplesTest {
  private final Bench b = new Bench();
  private final OtherHostDaemon hostB = new OtherHostDaemon("host-b", b.law, b.schedules, b.timeouts);

  HostsExamplesTest() {
    b.hostId = "host-a";
  }

  private RunId runningWorker(Bench.TaskBuilder script) {
    b.scripts.add(script.build());
    TicketId t = b.submit(LANE_A);
    RunId run = b.firstRun(t);
    b.until("the worker is told go", () -> !b.world.tasksOf(run).isEmpty() && b.worker(run).gotGo, 3_000);
    return run;
  }

  /** An operator of host-b says host-a is gone: host-b's daemon rolls back host-a's claims and settles its runs LOST. */
  private Reply.HostReleased releaseHostA() {
    hostB.boot(b.world.monoMs, b.world.wallMs);
    Reply r = hostB.command(new Command.ReleaseHost("host-a"), b.world.monoMs, b.world.wallMs);
    assertTrue(r instanceof Reply.HostReleased, "released: " + r);
    return (Reply.HostReleased) r;
  }

  private List<EngineEvent.SettledElsewhere> settledElsewhere(RunId run) {
    return b.events(EngineEvent.SettledElsewhere.class).stream().filter(e -> e.run().equals(run)).toList();
  }

  private boolean settledHere(RunId run) {
    return b.events(EngineEvent.Settled.class).stream().anyMatch(e -> e.run().equals(run))
        || b.events(EngineEvent.SettleDenied.class).stream().anyMatch(e -> e.run().equals(run));
  }

  @Test
  void H1_aRunReleasedByAnotherHostWhileItsDaemonRuns_isStoppedAsALostWorker_andNeverSettledHere() {
    b.boot();
    RunId run = runningWorker(Bench.task().work(60_000).stopReact(-1, false));
    SimWorld.TaskProc worker = b.worker(run);
    b.world.released = run::equals;

    assertEquals(List.of(run), releaseHostA().runs());
    assertEquals(Verdict.LOST, b.run(run).verdict(), "the release settles it as a run without an outcome");
    assertTrue(b.run(run).diagnosis().endsWith("host host-a was released by an operator"), b.run(run).diagnosis());
    int before = b.events.size();

    b.until("the daemon sees it at its next reconcile pass", () -> !settledElsewhere(run).isEmpty(),
        Bench.ms(Timeout.RECONCILE) + Bench.TICK_MS);
    EngineEvent.SettledElsewhere seen = settledElsewhere(run).get(0);
    assertTrue(seen.workerAlive());
    assertTrue(seen.how().startsWith("it was settled LOST by daemon host-b-d1 of host host-b"), seen.how());
    assertTrue(seen.toString().startsWith("run " + run + " is no longer this daemon's: it was settled LOST"),
        "logged in plain words: " + seen);
    assertTrue(b.events.subList(before, b.events.size()).stream().anyMatch(e -> e instanceof EngineEvent.StopBegun s
        && s.kind() == StopKind.LOST && s.key().equals(new WorkerKey.Task(run))), "stopped as a lost worker");
    b.until("the worker is gone: TERM after the stop grace, KILL after another", () -> !b.world.workerLives(worker),
        3 * Bench.ms(Timeout.STOP_GRACE));
    assertFalse(settledHere(run), "the run is never settled here: " + b.events);
    assertTrue(b.events.subList(before, b.events.size()).stream().noneMatch(e -> e instanceof EngineEvent.Welcomed w
        && w.go() && w.key().equals(new WorkerKey.Task(run))), "never told go after the release");
    assertEquals(Verdict.LOST, b.run(run).verdict());
    b.tick();
    assertFalse(b.engine.supervises(run), "supervision ends once the worker is dead");

    b.until("the ticket runs again here and succeeds", () -> b.ticket(run.ticket()).state() == TicketState.SUCCEEDED,
        10_000);
    assertEquals(2, b.ticket(run.ticket()).attemptsUsed(), "the released run spent an attempt, as a LOST run does");
  }

  @Test
  void H1_aClaimReleasedDuringItsHandoff_isNeverStartedNorToldGo_andItsWorkerIsStopped() {
    b.boot();
    b.scripts.add(Bench.task().reserveAfter(1_500).build());
    TicketId t = b.submit(LANE_A);
    RunId run = b.firstRun(t);
    b.tick();
    assertEquals(RunState.CLAIMED, b.run(run).state());
    SimWorld.TaskProc worker = b.worker(run);
    b.world.released = run::equals;

    assertEquals(List.of(run), releaseHostA().runs());
    assertEquals(Verdict.ABANDONED, b.run(run).verdict(), "the release rolls the claim back");
    b.until("the worker is gone", () -> !b.world.workerLives(worker), 3 * Bench.ms(Timeout.STOP_GRACE));
    assertFalse(worker.gotGo, "a released claim's worker is never told go");
    assertTrue(b.events(EngineEvent.Started.class).stream().noneMatch(s -> s.run().equals(run)), "never started");
    assertEquals(1, settledElsewhere(run).size(), b.events.toString());
    assertTrue(settledElsewhere(run).get(0).how().startsWith("it was rolled back"), settledElsewhere(run).get(0).how());
    assertFalse(settledHere(run));
    b.until("the ticket runs again and succeeds", () -> b.ticket(t).state() == TicketState.SUCCEEDED, 10_000);
    assertEquals(1, b.ticket(t).attemptsUsed(), "a rolled-back claim spends no attempt");
  }

  @Test
  void H1_aWorkerWhoseRunWasReleasedWhileItsDaemonWasDown_isRefusedAndStoppedByTheNextDaemon() {
    b.boot();
    RunId run = runningWorker(Bench.task().work(60_000).stopReact(-1, false));
    SimWorld.TaskProc worker = b.worker(run);
    b.world.released = run::equals;
    b.crash();
    releaseHostA();

    b.boot();
    b.until("the worker says hello to the new daemon and is refused", () -> !settledElsewhere(run).isEmpty(), 2_000);
    assertTrue(settledElsewhere(run).get(0).workerAlive());
    assertTrue(b.events(EngineEvent.HelloDenied.class).stream().anyMatch(h -> h.key().equals(new WorkerKey.Task(run))
        && h.reason().contains("no longer this daemon's")), b.events.toString());
    b.until("the worker is gone", () -> !b.world.workerLives(worker), 3 * Bench.ms(Timeout.STOP_GRACE));
    assertFalse(settledHere(run));
    assertEquals(Verdict.LOST, b.run(run).verdict());
  }

  @Test
  void H1_aLanesConcurrencyCountsOnlyTheLiveRunsOfItsOwnHost() {
    OwnerId other = new OwnerId("host-b-d0");
    b.law.registerOwner(new Owner(other, "b", new ProcessIdentity(OtherHostDaemon.BOOT, 42, 1, 42), "b1",
        b.world.wallMs, "host-b"));
    for (int i = 0; i < 2; i++) { // lane a allows 2 live runs: host-b's daemon claims two of its tickets
      TicketId t = ((Submission.Accepted) b.law.submit(NewTicket.of(LANE_A, "cmd", "{}"), b.world.wallMs)).ticket().id();
      b.law.claim(t, other, b.world.wallMs, 60_000);
    }
    b.boot();
    TicketId mine = b.submit(LANE_A);
    TicketId mine2 = b.submit(LANE_A);
    b.until("both of this host's tickets run beside host-b's two", () -> b.law.runsOf(mine).size() == 1
        && b.law.runsOf(mine2).size() == 1, 2_000);
    b.run(Bench.ms(Timeout.HEARTBEAT));
    assertEquals(2, b.status().lanes().get(0).occupied(), "the lane's slots are this host's");
    assertEquals(4, b.law.tickets(dev.vigil.coordination.TicketQuery.all().inState(TicketState.LEASED)).size());
    assertTrue(b.recovered(EngineEvent.RecoveryAction.LEAVE_TO_ITS_HOST).size() >= 2, "host-b's claims are its own");
  }
}
