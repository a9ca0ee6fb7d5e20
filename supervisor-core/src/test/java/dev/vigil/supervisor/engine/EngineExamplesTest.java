package dev.vigil.supervisor.engine;

import static dev.vigil.supervisor.engine.Simulation.LANE_A;
import static dev.vigil.supervisor.engine.Simulation.LANE_B;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunQuery;
import dev.vigil.coordination.RunState;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketQuery;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.Verdict;
import dev.vigil.supervisor.StopKind;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.TimeoutLattice;
import dev.vigil.supervisor.engine.port.Signal;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The handoff, the scheduler, client commands, idle shutdown and status, as named examples. */
class EngineExamplesTest {
  private final Bench b = new Bench();

  private RunId running(Bench.TaskBuilder script, Lane lane) {
    b.scripts.add(script.build());
    RunId run = b.firstRun(b.submit(lane));
    b.until("the worker is told go", () -> !b.world.tasksOf(run).isEmpty() && b.worker(run).gotGo, 3_000);
    return run;
  }

  // ---- the reservation handoff (Q3) ----

  @Test
  void aRunStartsOnlyOnceItsWorkerHoldsItsReservationEvenIfItSaidHelloBefore() {
    b.boot();
    b.scripts.add(Bench.task().lockLag(1_500).build());
    RunId run = b.firstRun(b.submit(LANE_A));
    b.run(1_000);
    assertTrue(b.worker(run).connected, "the worker said hello and was welcomed");
    assertFalse(b.worker(run).gotGo, "but not told go");
    assertEquals(RunState.CLAIMED, b.run(run).state());
    b.until("started once the lock is held", () -> b.run(run).state() == RunState.RUNNING, 2_000);
    b.until("then told go", () -> b.worker(run).gotGo, 1_000);
  }

  @Test
  void aHandoffThatTimesOutKillsTheWorkerIdentityGatedAndRollsTheClaimBack() {
    b.boot();
    b.scripts.add(Bench.task().reserveAfter(60_000).build());
    RunId run = b.firstRun(b.submit(LANE_A));
    b.run(Bench.ms(Timeout.LAUNCH_HANDOFF) - Bench.TICK_MS);
    assertTrue(b.events(EngineEvent.HandoffTimedOut.class).isEmpty());
    b.until("rolled back", () -> b.run(run).state() == RunState.SETTLED, 1_000);
    assertEquals(1, b.events(EngineEvent.HandoffTimedOut.class).size());
    EngineEvent.Signalled kill = b.events(EngineEvent.Signalled.class).get(0);
    assertEquals(Signal.KILL, kill.signal());
    assertFalse(b.worker(run).alive);
    assertEquals(Verdict.ABANDONED, b.run(run).verdict());
    assertEquals(1, b.ticket(run.ticket()).spawnFailures());
    assertEquals(0, b.ticket(run.ticket()).attemptsUsed());
  }

  @Test
  void aWorkerThatDiesBeforeItsReservationIsRolledBackAtOnceAndThreeSuchStartsHoldTheTicket() {
    b.boot();
    for (int i = 0; i < 3; i++) {
      b.scripts.add(Bench.task().reserveAfter(400).diesBeforeReserving().build());
    }
    TicketId t = b.submit(LANE_A);
    b.until("held after three failed starts", () -> b.ticket(t).state() == TicketState.HELD, 3_000);
    assertTrue(b.events(EngineEvent.HandoffTimedOut.class).isEmpty(), "no wait for the timeout: the worker was dead");
    assertEquals(3, b.ticket(t).spawnFailures());
    assertTrue(b.ticket(t).holdReason().contains("failed to start 3 times"), b.ticket(t).holdReason());
    RunId last = new RunId(t, 3);
    String said = SimWorld.lastWordsOf(new WorkerKey.Task(last));
    assertTrue(b.ticket(t).holdReason().endsWith("its stderr ends: " + said), "the hold names what the worker said: "
        + b.ticket(t).holdReason());
    assertTrue(b.run(last).diagnosis().contains(said), "so does the run's diagnosis: " + b.run(last).diagnosis());
  }

  @Test
  void aHelloWithAnotherRunsTokenOrAnUnknownRunIsDenied() {
    b.boot();
    RunId run = running(Bench.task().work(10_000), LANE_A);
    SimWorld.TaskProc w = b.worker(run);
    ToWorker wrong = b.engine.onHello(new WorkerMessage.Hello(w.key, "0".repeat(64), w.build, w.identity.pid()),
        b.world.monoMs, b.world.wallMs);
    assertInstanceOf(ToWorker.AdoptDenied.class, wrong);
    ToWorker unknown = b.engine.onHello(new WorkerMessage.Hello(new WorkerKey.Task(new RunId(new TicketId(99), 1)),
        w.tokenHash, w.build, w.identity.pid()), b.world.monoMs, b.world.wallMs);
    assertInstanceOf(ToWorker.AdoptDenied.class, unknown);
    ToWorker right = b.engine.onHello(new WorkerMessage.Hello(w.key, w.tokenHash, w.build, w.identity.pid()),
        b.world.monoMs, b.world.wallMs);
    assertEquals(new ToWorker.Welcome("b1", true), right, "a reconnecting worker of a running run is welcomed with go");
  }

  // ---- the scheduler ----

  @Test
  void laneLimitsHoldAndAfterARestartSlotsAreTheLanesLiveRuns() {
    b.boot();
    b.scripts.add(Bench.task().work(8_000).build());
    TicketId first = b.submit(LANE_B);
    TicketId second = b.submit(LANE_B);
    b.run(1_000);
    assertEquals(RunState.RUNNING, b.run(b.firstRun(first)).state());
    assertTrue(b.law.runsOf(second).isEmpty(), "lane b allows one live run");
    b.crash();
    b.boot();
    b.run(2_000);
    assertEquals(1, b.status().lanes().get(1).occupied(), "Q11: the readopted run occupies the slot");
    assertTrue(b.law.runsOf(second).isEmpty());
    b.until("the second runs once the first settled", () -> b.ticket(second).state() == TicketState.SUCCEEDED, 12_000);
    assertEquals(TicketState.SUCCEEDED, b.ticket(first).state());
  }

  @Test
  void dueTicketsAreClaimedByPriorityThenAge() {
    b.boot();
    b.command(new Command.Pause());
    TicketId old = b.submit(new NewTicket(LANE_B, "cmd", "{}", 3, 0, 0, null));
    TicketId urgent = b.submit(new NewTicket(LANE_B, "cmd", "{}", 3, 5, 0, null));
    TicketId later = b.submit(new NewTicket(LANE_B, "cmd", "{}", 3, 9, b.world.wallMs + 60_000, null));
    b.command(new Command.Resume());
    b.run(500);
    assertFalse(b.law.runsOf(urgent).isEmpty(), "higher priority first");
    assertTrue(b.law.runsOf(old).isEmpty() && b.law.runsOf(later).isEmpty(), "one slot; the not-yet-due waits");
  }

  @Test
  void pauseStopsDispatchButIsNotDurable() {
    b.boot();
    assertInstanceOf(Reply.Acknowledged.class, b.command(new Command.Pause()));
    TicketId t = b.submit(LANE_A);
    b.run(3_000);
    assertTrue(b.law.runsOf(t).isEmpty());
    assertEquals(Status.State.PAUSED, b.status().state());
    b.crash();
    b.boot();
    b.until("a restarted daemon dispatches", () -> !b.law.runsOf(t).isEmpty(), 1_000);
  }

  @Test
  void parkIsDurableAndReachesTheRunningWorkerAtASafePointWithoutSpendingAnAttempt() {
    b.boot();
    RunId run = running(Bench.task().work(60_000).stopReact(700, true), LANE_A);
    Reply parked = b.command(new Command.Park(run.ticket()));
    assertTrue(((Reply.TicketChanged) parked).note().contains("asked to stop where it can stop safely"), parked.toString());
    b.until("the worker stopped at its safe point", () -> b.run(run).state() == RunState.SETTLED, 3_000);
    assertEquals(Verdict.STALLED, b.run(run).verdict(), "the worker's own resumable outcome");
    assertTrue(b.events(EngineEvent.Signalled.class).isEmpty(), "a park never signals: the worker picks its safe point");
    b.crash();
    b.boot();
    b.run(3_000);
    assertEquals(1, b.law.runsOf(run.ticket()).size(), "Q9: still parked after a restart, never claimed");
    b.command(new Command.Unpark(run.ticket()));
    b.until("runs again once unparked", () -> b.ticket(run.ticket()).state() == TicketState.SUCCEEDED, 5_000);
    assertEquals(1, b.ticket(run.ticket()).attemptsUsed(), "the park cost no attempt");
  }

  @Test
  void aParkedWorkerThatReachesNoSafePointIsAskedToTerminateButNeverKilled() {
    b.boot();
    RunId run = running(Bench.task().work(20_000).stopReact(-1, false).hangs(), LANE_A);
    b.command(new Command.Park(run.ticket()));
    b.run(4 * Bench.ms(Timeout.STOP_GRACE));
    List<Signal> signals = b.events(EngineEvent.Signalled.class).stream().map(EngineEvent.Signalled::signal).toList();
    assertEquals(List.of(Signal.TERM), signals, "one cooperative TERM after the grace, no KILL");
    assertTrue(b.worker(run).alive, "a worker that cannot stop runs to its end");
    b.until("it ends on its own", () -> b.run(run).state() == RunState.SETTLED, 20_000);
    assertEquals(Verdict.SUCCEEDED, b.run(run).verdict(), "its own outcome counts");
  }

  @Test
  void aStopIsEscalatedFromParkToLostButNeverSoftened() {
    b.boot();
    RunId run = running(Bench.task().work(60_000).stopReact(-1, false), LANE_A);
    b.command(new Command.Park(run.ticket()));
    List<Reply> answer = b.send(new Command.Shutdown(Command.Shutdown.Mode.STOP_WORKERS));
    b.until("answered", () -> !answer.isEmpty(), 3 * Bench.ms(Timeout.STOP_GRACE));
    List<StopKind> kinds = b.events(EngineEvent.StopBegun.class).stream().map(EngineEvent.StopBegun::kind).toList();
    assertEquals(List.of(StopKind.PARK, StopKind.OPERATOR), kinds);
  }

  @Test
  void parkingALaneThatIsNotConfiguredIsRefused_namingTheLanes() {
    b.boot();
    Reply r = b.command(new Command.ParkLane(new dev.vigil.coordination.Lane("nosuchlane")));
    assertTrue(r instanceof Reply.Invalid, "refused: " + r);
    String why = ((Reply.Invalid) r).reason();
    assertTrue(why.startsWith("lane 'nosuchlane' is not configured (lanes: [") && why.contains(LANE_A.toString())
        && why.endsWith("nothing was parked"), why);
    assertTrue(b.status().lanes().stream().noneMatch(l -> l.parked()), "no lane is parked");
  }

  @Test
  void parkingALaneTellsItsWorkersAndClaimsNothingFromIt() {
    b.boot();
    running(Bench.task().work(60_000).stopReact(300, false), LANE_A);
    Reply r = b.command(new Command.ParkLane(LANE_A));
    assertEquals(new Reply.LaneChanged(LANE_A, true, true, 1), r);
    TicketId t = b.submit(LANE_A);
    b.run(4_000);
    assertTrue(b.law.runsOf(t).isEmpty());
    assertTrue(b.status().lanes().get(0).parked());
    assertEquals(new Reply.LaneChanged(LANE_A, false, true, 0), b.command(new Command.UnparkLane(LANE_A)));
    b.until("claimed once the lane is unparked", () -> !b.law.runsOf(t).isEmpty(), 1_000);
  }

  @Test
  void aStallSpendsNoAttemptAndTheTicketIsDueAgainAtItsHint() {
    b.boot();
    RunId run = running(Bench.task().work(500).stallFor(6_000), LANE_A);
    b.until("settled", () -> b.run(run).state() == RunState.SETTLED, 3_000);
    assertEquals(Verdict.STALLED, b.run(run).verdict());
    assertEquals(0, b.ticket(run.ticket()).attemptsUsed(), "Q2");
    b.run(3_000);
    assertEquals(1, b.law.runsOf(run.ticket()).size(), "not due before its hint");
    b.until("claimed after the hint", () -> b.law.runsOf(run.ticket()).size() == 2, 5_000);
  }

  @Test
  void failuresSpendAttemptsUntilTheTicketIsHeldForAHuman() {
    b.boot();
    b.scripts.add(Bench.task().work(300).ending(SimWorld.Ending.FAIL).build());
    b.scripts.add(Bench.task().work(300).ending(SimWorld.Ending.FAIL).build());
    TicketId t = b.submit(new NewTicket(LANE_A, "cmd", "{}", 2, 0, 0, null));
    b.until("held", () -> b.ticket(t).state() == TicketState.HELD, 10_000);
    assertEquals(2, b.ticket(t).attemptsUsed(), "Q1");
    assertInstanceOf(Reply.TicketChanged.class, b.command(new Command.Release(t)));
    b.until("a released ticket runs again", () -> b.ticket(t).state() == TicketState.SUCCEEDED, 5_000);
  }

  // ---- client commands ----

  @Test
  void submitRefusesLanesAndWorkerTypesThisDaemonDoesNotHave() {
    b.boot();
    Reply lane = b.command(new Command.Submit(NewTicket.of(new Lane("gpu"), "cmd", "{}")));
    assertTrue(lane instanceof Reply.Invalid i && i.reason().contains("lane 'gpu'"), lane.toString());
    Reply type = b.command(new Command.Submit(NewTicket.of(LANE_A, "ruby", "{}")));
    assertTrue(type instanceof Reply.Invalid i && i.reason().contains("worker type 'ruby'"), type.toString());
    assertTrue(b.law.tickets(TicketQuery.all()).isEmpty(), "a refused submission changes nothing");
  }

  @Test
  void aSecondSubmissionWithTheSameKeyNamesTheFirstTicket() {
    b.boot();
    NewTicket n = new NewTicket(LANE_A, "cmd", "{}", 3, 0, 0, "job-7");
    Reply first = b.command(new Command.Submit(n));
    Reply again = b.command(new Command.Submit(n));
    assertEquals(((Reply.Submitted) first).ticket().id(), ((Reply.Submitted) again).ticket().id());
    assertTrue(((Reply.Submitted) again).duplicate());
  }

  @Test
  void submitAllQueuesEveryTicketInOrder_namingDuplicates_andDispatchesThem() {
    b.boot();
    Reply r = b.command(new Command.SubmitAll(List.of(NewTicket.of(LANE_A, "cmd", "{\"n\":1}"),
        new NewTicket(LANE_B, "py", "{\"n\":2}", 2, 0, 0, "job-1"), new NewTicket(LANE_A, "cmd", "{}", 3, 0, 0, "job-1"))));
    List<Reply.Submitted> got = assertInstanceOf(Reply.SubmittedAll.class, r).tickets();
    assertEquals(List.of(new TicketId(1), new TicketId(2), new TicketId(2)), got.stream().map(s -> s.ticket().id()).toList());
    assertEquals(List.of(false, false, true), got.stream().map(Reply.Submitted::duplicate).toList());
    assertEquals(2, b.law.tickets(TicketQuery.all()).size());
    b.until("both are dispatched", () -> !b.law.runsOf(new TicketId(1)).isEmpty() && !b.law.runsOf(new TicketId(2)).isEmpty(),
        1_000);
  }

  @Test
  void submitAllWithOneTicketThisDaemonCannotRun_isRefusedWhole_andQueuesNothing() {
    b.boot();
    Reply lane = b.command(new Command.SubmitAll(List.of(NewTicket.of(LANE_A, "cmd", "{}"),
        NewTicket.of(new Lane("gpu"), "cmd", "{}"))));
    assertTrue(lane instanceof Reply.Invalid i && i.reason().contains("lane 'gpu'") && i.reason().endsWith("nothing was queued"),
        lane.toString());
    Reply type = b.command(new Command.SubmitAll(List.of(NewTicket.of(LANE_A, "ruby", "{}"), NewTicket.of(LANE_A, "cmd", "{}"))));
    assertTrue(type instanceof Reply.Invalid i && i.reason().contains("worker type 'ruby'"), type.toString());
    assertTrue(b.law.tickets(TicketQuery.all()).isEmpty(), "a refused batch changes nothing");
    assertEquals(List.of(), assertInstanceOf(Reply.SubmittedAll.class, b.command(new Command.SubmitAll(List.of()))).tickets());
  }

  @Test
  void queriesAnswerTicketsRunsAndNotFound() {
    b.boot();
    RunId run = running(Bench.task().work(10_000), LANE_A);
    Reply show = b.command(new Command.Show(run.ticket()));
    assertEquals(1, ((Reply.TicketDetail) show).runs().size());
    assertInstanceOf(Reply.NotFound.class, b.command(new Command.Show(new TicketId(404))));
    assertEquals(List.of(b.run(run)), ((Reply.RunList) b.command(new Command.ListRuns(RunQuery.all().live()))).runs());
    assertEquals(1, ((Reply.TicketList) b.command(new Command.ListTickets(TicketQuery.all()))).tickets().size());
  }

  @Test
  void holdAndCancelOfALeasedTicketAreDeniedButWorkOnceItSettled() {
    b.boot();
    RunId run = running(Bench.task().work(1_500).ending(SimWorld.Ending.FAIL), LANE_A);
    assertInstanceOf(Reply.Denied.class, b.command(new Command.Hold(run.ticket(), "wait")));
    assertInstanceOf(Reply.Denied.class, b.command(new Command.Cancel(run.ticket())));
    b.until("settled", () -> b.run(run).state() == RunState.SETTLED, 3_000);
    b.command(new Command.Pause());
    Reply held = b.command(new Command.Hold(run.ticket(), "wait"));
    assertEquals(TicketState.HELD, ((Reply.TicketChanged) held).ticket().state());
    assertEquals(TicketState.CANCELLED, ((Reply.TicketChanged) b.command(new Command.Cancel(run.ticket()))).ticket().state());
    assertInstanceOf(Reply.NotFound.class, b.command(new Command.Hold(new TicketId(77), "x")));
  }

  // ---- idle shutdown (S5) ----

  @Test
  void idleShutdownWithABusyWorkerReleasesEveryGateAndAnswersBusy() {
    b.services(new ServiceSpec("idx", "cmd", "{}", ServiceSpec.Activation.ALWAYS)).boot();
    RunId run = running(Bench.task().work(20_000), LANE_A);
    b.until("the service serves", () -> b.serviceStatus("idx").state() == Status.ServiceState.UP, 2_000);
    List<Reply> answer = b.send(new Command.Shutdown(Command.Shutdown.Mode.IF_IDLE));
    b.until("answered", () -> !answer.isEmpty(), 3_000);
    Reply.Busy busy = assertInstanceOf(Reply.Busy.class, answer.get(0));
    assertTrue(busy.message().startsWith("busy: 1 worker has work: " + run + " (1 run)"), busy.message());
    b.run(Bench.TICK_MS);
    assertTrue(b.serviceWorker("idx").gate.isOpen(), "the quiesced service's gate was released");
    assertTrue(b.worker(run).alive && b.serviceWorker("idx").alive, "nothing was stopped");
    assertTrue(b.events(EngineEvent.StopBegun.class).isEmpty());
    TicketId next = b.submit(LANE_A);
    b.until("dispatch resumed", () -> !b.law.runsOf(next).isEmpty(), 1_000);
  }

  @Test
  void idleShutdownStopsQuiescedServicesWithoutASignalAndShutsDown() {
    b.services(new ServiceSpec("idx", "cmd", "{}", ServiceSpec.Activation.ALWAYS)).boot();
    b.until("the service serves", () -> b.serviceStatus("idx").state() == Status.ServiceState.UP, 2_000);
    b.submit(LANE_A);
    b.until("the task is done", () -> b.law.liveRuns().isEmpty() && !b.law.runs().isEmpty(), 5_000);
    List<Reply> answer = b.send(new Command.Shutdown(Command.Shutdown.Mode.IF_IDLE));
    b.until("answered", () -> !answer.isEmpty(), 3_000);
    assertInstanceOf(Reply.ShuttingDown.class, answer.get(0));
    assertTrue(b.engine.stopped());
    assertFalse(b.serviceWorker("idx").alive);
    assertEquals(Integer.valueOf(0), b.serviceWorker("idx").exitCode);
    assertTrue(b.events(EngineEvent.Signalled.class).isEmpty(), "S5: an idle stop is never a signal");
    assertEquals(Status.State.STOPPED, b.statuses.get(b.statuses.size() - 1).state());
    assertInstanceOf(Reply.Denied.class, b.command(new Command.Submit(NewTicket.of(LANE_A, "cmd", "{}"))));
  }

  private record Late(SimWorld.ServiceProc worker, List<Reply> answer) {}

  /** An idle service whose idle stop is {@code delayMs} late on the wire, with work waiting for it. */
  private static Late idleStopArrivesLate(Bench b, long delayMs) {
    b.services(new ServiceSpec("idx", "cmd", "{}", ServiceSpec.Activation.ALWAYS)).boot();
    b.until("the service serves", () -> b.serviceStatus("idx").state() == Status.ServiceState.UP, 2_000);
    SimWorld.ServiceProc w = b.serviceWorker("idx");
    List<Reply> answer = b.send(new Command.Shutdown(Command.Shutdown.Mode.IF_IDLE));
    w.extraInboxDelayMs = delayMs; // the quiesce is on its way; what follows it is late
    b.until("every worker quiesced", () -> !b.events(EngineEvent.QuiesceDecided.class).isEmpty(), 2_000);
    assertTrue(b.events(EngineEvent.QuiesceDecided.class).get(0).stopAll());
    assertFalse(w.gate.isOpen(), "its gate is closed");
    b.world.sessionInbox.computeIfAbsent("idx", k -> new java.util.ArrayDeque<>()).add(60_000L);
    return new Late(w, answer);
  }

  @Test
  void aServiceThatTookWorkAfterItsGateReopenedRefusesTheIdleStopAndTheShutdownIsAbandoned() {
    java.util.Map<Timeout, Long> m = new java.util.EnumMap<>(Simulation.TIMEOUTS.millis());
    m.put(Timeout.STOP_GRACE, 5_000L); // a stop grace longer than the quiesce hold: the race below can happen
    m.put(Timeout.LAUNCHER_WAIT, 8_000L);
    Bench slow = new Bench(new TimeoutLattice(m, 5));
    Late late = idleStopArrivesLate(slow, Bench.ms(Timeout.QUIESCE_HOLD) + 500);
    SimWorld.ServiceProc w = late.worker();
    List<Reply> answer = late.answer();
    slow.until("answered", () -> !answer.isEmpty(), 6_000);
    Reply.Busy busy = assertInstanceOf(Reply.Busy.class, answer.get(0));
    assertTrue(busy.message().startsWith("busy: 1 worker has work: ") && busy.message().endsWith(
        " (1 run, refused the idle stop)"), busy.message());
    assertTrue(w.alive && w.work().isBusy(), "S5: the worker with work was not stopped");
    assertFalse(slow.engine.stopped());
    assertEquals(Status.ServiceState.UP, slow.serviceStatus("idx").state());
  }

  @Test
  void anIdleStopThatIsNotDoneWithinTheStopGraceAbandonsTheShutdown() {
    Late late = idleStopArrivesLate(b, Bench.ms(Timeout.QUIESCE_HOLD) + 500);
    SimWorld.ServiceProc w = late.worker();
    List<Reply> answer = late.answer();
    b.until("answered", () -> !answer.isEmpty(), 4_000);
    Reply.Busy busy = assertInstanceOf(Reply.Busy.class, answer.get(0));
    assertTrue(busy.message().contains("within stopGrace"), busy.message());
    b.run(3_000);
    assertTrue(w.alive && w.work().isBusy(), "S5: the late stop reached a worker with work, which refused it");
    assertFalse(b.engine.stopped());
  }

  @Test
  void aShutdownThatStopsWorkersSettlesTheirRunsWithoutSpendingAttempts() {
    b.boot();
    RunId run = running(Bench.task().work(60_000).stopReact(-1, false), LANE_A);
    List<Reply> answer = b.send(new Command.Shutdown(Command.Shutdown.Mode.STOP_WORKERS));
    assertInstanceOf(Reply.Denied.class, b.command(new Command.Shutdown(Command.Shutdown.Mode.IF_IDLE)),
        "one shutdown at a time");
    b.until("answered", () -> !answer.isEmpty(), 2 * Bench.ms(Timeout.STOP_GRACE) + 1_000);
    assertInstanceOf(Reply.ShuttingDown.class, answer.get(0));
    assertEquals(Verdict.STALLED, b.run(run).verdict());
    assertEquals(0, b.ticket(run.ticket()).attemptsUsed());
    assertEquals(TicketState.READY, b.ticket(run.ticket()).state(), "its ticket waits for the next daemon");
    assertFalse(b.ticket(run.ticket()).parked(), "Q9: a shutdown never parks");
  }

  // ---- status (D1) ----

  @Test
  void statusCarriesTheLatestTenSettlementsOfThisIncarnation_oldestFirst() {
    b.boot();
    List<TicketId> tickets = new java.util.ArrayList<>();
    for (int i = 0; i < 12; i++) {
      b.scripts.add(Bench.task().work(100).build());
      tickets.add(b.submit(LANE_A));
    }
    b.until("all settled", () -> tickets.stream().allMatch(t -> b.ticket(t).state() == TicketState.SUCCEEDED), 20_000);
    List<EngineEvent.Settled> recent = b.status().recentSettlements();
    assertEquals(Status.RECENT_SETTLEMENTS, recent.size());
    List<EngineEvent.Settled> all = b.events(EngineEvent.Settled.class);
    assertEquals(all.subList(all.size() - 10, all.size()), recent, "the last ten, in the order they settled");
    assertTrue(recent.stream().allMatch(s -> s.verdict() == Verdict.SUCCEEDED && s.ticketState() == TicketState.SUCCEEDED));
    b.crash();
    b.boot();
    assertTrue(b.status().recentSettlements().isEmpty(), "a new incarnation starts its own list");
  }

  @Test
  void statusIsPublishedEveryHeartbeatWithLanesRunsAndServices() {
    b.services(new ServiceSpec("idx", "cmd", "{}", ServiceSpec.Activation.ALWAYS)).boot();
    assertEquals(1, b.statuses.size(), "published at boot");
    RunId run = running(Bench.task().work(10_000), LANE_A);
    int before = b.statuses.size();
    b.run(5 * Bench.ms(Timeout.HEARTBEAT));
    assertTrue(b.statuses.size() - before >= 5, "one status per heartbeat");
    Status s = b.statuses.get(b.statuses.size() - 1);
    assertEquals(Status.SCHEMA, s.schema());
    assertEquals(b.daemon.identity.pid(), s.pid());
    assertEquals("b1", s.build());
    assertTrue(b.world.wallMs - s.heartbeatAtWallMs() < Bench.ms(Timeout.HEARTBEAT), "D1: fresh");
    assertEquals(new Status.LaneStatus(LANE_A, 2, 1, 0, 0, false), s.lanes().get(0));
    Status.RunStatus r = s.runs().get(0);
    assertEquals(run, r.run());
    assertEquals(Status.Supervision.RUNNING, r.supervision());
    assertEquals(b.worker(run).identity.pid(), r.pid().longValue());
    assertEquals(Status.ServiceState.UP, s.services().get(0).state());
    assertEquals(0, s.services().get(0).failuresInWindow());
  }

  // ---- configuration and clock ----

  @Test
  void configurationRejectsBadValuesNamingTheField() {
    WorkerTypes types = WorkerTypes.of(WorkerTypeSpec.declared("cmd", "sim.Cmd", List.of()));
    OwnerId owner = new OwnerId("d1");
    TimeoutLattice t = TimeoutLattice.defaults();
    IllegalArgumentException twice = assertThrows(IllegalArgumentException.class, () -> new EngineConfig(owner, "h", "b1",
        "1.0", 1, new Workload(List.of(new EngineConfig.LaneLimit(LANE_A, 1), new EngineConfig.LaneLimit(LANE_A, 2)), types,
        List.of()), t));
    assertTrue(twice.getMessage().contains("lane 'a' is configured twice"), twice.getMessage());
    IllegalArgumentException type = assertThrows(IllegalArgumentException.class, () -> new EngineConfig(owner, "h", "b1",
        "1.0", 1, new Workload(List.of(), types, List.of(new ServiceSpec("idx", "py", "{}", ServiceSpec.Activation.ALWAYS))),
        t));
    assertTrue(type.getMessage().contains("services.idx.type 'py'"), type.getMessage());
    IllegalArgumentException limit = assertThrows(IllegalArgumentException.class,
        () -> new EngineConfig.LaneLimit(LANE_A, 0));
    assertTrue(limit.getMessage().contains("lanes.a.concurrency (0)"), limit.getMessage());
    assertThrows(NullPointerException.class, () -> new EngineConfig(owner, "h", null, "1.0", 1,
        new Workload(List.of(), types, List.of()), t));
  }

  @Test
  void aMonotonicClockGoingBackIsAProgrammingError() {
    Engine e = b.boot();
    assertThrows(IllegalArgumentException.class, () -> e.tick(b.world.monoMs - 1, b.world.wallMs));
  }

  @Test
  void aSecondBootWithTheSameOwnerIdIsRefused() {
    b.boot();
    b.crash();
    b.incarnation = 0;
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, b::boot);
    assertTrue(e.getMessage().contains("needs a new owner id"), e.getMessage());
  }
}
