package dev.vigil.supervisor.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.supervisor.RevivalGate;
import dev.vigil.supervisor.StopKind;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.engine.port.Signal;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Services: restart budget (S1), revival (S3), adoption by build and the survivor rule (S6). */
class ServiceExamplesTest {
  private static final ServiceSpec IDX = new ServiceSpec("idx", "cmd", "{}", ServiceSpec.Activation.ALWAYS);
  private static final ServiceSpec CHAT = new ServiceSpec("chat", "py", "{}", ServiceSpec.Activation.ON_DEMAND);

  private final Bench b = new Bench();

  private long liveWorkers(String service) {
    return b.serviceWorkers(service).stream().filter(w -> w.alive).count();
  }

  private void upWithin(String service, long ms) {
    b.until(service + " serves", () -> b.serviceStatus(service).state() == Status.ServiceState.UP, ms);
  }

  @Test
  void aCrashLoopingServiceBacksOffDoublingAndIsGivenUpAfterFiveFailuresThenAnOperatorStartsItAfresh() {
    for (int i = 0; i < 6; i++) {
      b.scripts.add(Bench.service().crashPerMille(1_000).build());
    }
    b.services(IDX).boot();
    b.until("given up", () -> b.serviceStatus("idx").state() == Status.ServiceState.GIVEN_UP, 30_000);
    List<Long> pauses = b.events(EngineEvent.ServiceRestartScheduled.class).stream()
        .map(EngineEvent.ServiceRestartScheduled::delayMs).toList();
    assertEquals(List.of(250L, 500L, 1_000L, 2_000L, 4_000L), pauses, "S1: 250 ms doubling, capped at 4 s here");
    assertEquals(6, b.serviceWorkers("idx").size(), "five restarts, then no more");
    assertTrue(b.serviceStatus("idx").note().contains("): given up"), b.serviceStatus("idx").note());
    b.run(10_000);
    assertEquals(6, b.serviceWorkers("idx").size(), "a given-up service is not launched again");

    assertInstanceOf(Reply.Acknowledged.class, b.command(new Command.StartService("idx")));
    upWithin("idx", 2_000);
    assertEquals(0, b.serviceStatus("idx").failuresInWindow(), "a fresh budget");
  }

  @Test
  void aServiceWorkerFoundAliveAtBootIsAdoptedOnItsHelloUntouched() {
    b.services(IDX).boot();
    upWithin("idx", 2_000);
    SimWorld.ServiceProc worker = b.serviceWorker("idx");
    b.crash();
    b.run(1_000);
    b.boot();
    assertEquals(Status.ServiceState.ADOPTING, b.serviceStatus("idx").state());
    upWithin("idx", 2_000);
    assertTrue(b.events(EngineEvent.ServiceUp.class).stream().anyMatch(EngineEvent.ServiceUp::adopted));
    assertEquals(1, b.serviceWorkers("idx").size(), "D4: no second worker");
    assertTrue(worker.alive);
    assertTrue(b.events(EngineEvent.StopBegun.class).isEmpty());
  }

  @Test
  void aServiceWorkerOfAnotherBuildStopsAsLostAndItsSessionStartsAgainOnThisBuild() {
    b.services(IDX).boot();
    upWithin("idx", 2_000);
    SimWorld.ServiceProc old = b.serviceWorker("idx");
    b.world.sessionInbox.computeIfAbsent("idx", k -> new java.util.ArrayDeque<>()).add(60_000L);
    b.until("it has work", () -> old.work().isBusy(), 2_000);
    b.crash();
    b.boot("b2");
    b.until("a worker of b2 serves", () -> b.serviceStatus("idx").state() == Status.ServiceState.UP
        && "b2".equals(b.serviceStatus("idx").build()), 5_000);
    assertFalse(old.alive);
    assertTrue(b.world.directories.latestBusy(new WorkerKey.Service("idx")).isPresent());
    assertEquals(1, liveWorkers("idx"));
    assertTrue(b.serviceWorker("idx").work().isBusy(), "the resumable work is picked up by the new worker");
    assertEquals(StopKind.LOST, b.events(EngineEvent.StopBegun.class).get(0).kind());
  }

  @Test
  void anUnreachableServiceWorkerIsStoppedOneHandoffAfterBootAndReplaced() {
    b.services(IDX).boot();
    upWithin("idx", 2_000);
    SimWorld.ServiceProc old = b.serviceWorker("idx");
    b.crash();
    old.mute = true;
    b.boot();
    b.run(Bench.ms(Timeout.LAUNCH_HANDOFF) - Bench.TICK_MS);
    assertEquals(Status.ServiceState.ADOPTING, b.serviceStatus("idx").state(), "waits one handoff for its hello");
    b.until("replaced", () -> !old.alive && b.serviceStatus("idx").state() == Status.ServiceState.UP, 5_000);
    assertEquals(Signal.TERM, b.events(EngineEvent.Signalled.class).get(0).signal());
    assertEquals(1, liveWorkers("idx"));
  }

  @Test
  void aServiceWorkerThatSurvivesItsStopIsStoppedAgainBeforeEachRetryAndNeverHasANeighbour() {
    b.scripts.add(Bench.service().ignoresSignals(3).stopReact(-1).build());
    b.services(IDX).boot();
    upWithin("idx", 2_000);
    SimWorld.ServiceProc survivor = b.serviceWorker("idx");
    b.crash();
    survivor.mute = true;
    b.boot("b2");
    for (int i = 0; i < 80 && survivor.alive; i++) {
      b.tick();
      assertTrue(liveWorkers("idx") <= 1, "S6: a launch never happens beside a survivor");
    }
    assertFalse(survivor.alive, "stopped again until it was gone");
    assertTrue(b.events(EngineEvent.ServiceRestartScheduled.class).stream().anyMatch(e -> e.why().contains("survivor")),
        "S6: the survivor counted as a failure: " + b.events);
    upWithin("idx", 10_000);
    assertEquals(1, liveWorkers("idx"));
  }

  @Test
  void aDeadOnDemandServiceWithFreshBusyEvidenceIsRevivedAtBoot() {
    b.services(CHAT).boot();
    assertEquals(Status.ServiceState.DOWN, b.serviceStatus("chat").state(), "on demand: no busy record, no worker");
    b.command(new Command.StartService("chat"));
    upWithin("chat", 2_000);
    b.world.sessionInbox.computeIfAbsent("chat", k -> new java.util.ArrayDeque<>()).add(60_000L);
    b.until("busy evidence recorded", () -> b.world.directories.latestBusy(new WorkerKey.Service("chat"))
        .map(RevivalGate.BusyRecord::busy).orElse(false), 2_000);
    b.crash();
    b.world.end(b.serviceWorker("chat"), null, 9);
    b.run(5_000);
    b.boot();
    EngineEvent.ServiceRevival revival = b.events(EngineEvent.ServiceRevival.class).get(1);
    assertTrue(revival.revived(), "S3: died with work within the revival window: " + revival);
    upWithin("chat", 2_000);
  }

  @Test
  void aDeadOnDemandServiceIsNotRevivedWhenIdleOrWhenItsBusyRecordIsStale() {
    b.services(CHAT).boot();
    b.crash();
    WorkerKey key = new WorkerKey.Service("chat");
    b.world.directories.prepare(key);
    b.world.dirs.get(key).busy = Optional.of(new RevivalGate.BusyRecord(false, b.world.wallMs));
    b.boot();
    assertEquals(Status.ServiceState.DOWN, b.serviceStatus("chat").state());
    b.crash();
    b.world.dirs.get(key).busy = Optional.of(new RevivalGate.BusyRecord(true,
        b.world.wallMs - Bench.ms(Timeout.BUSY_FRESHNESS) - Bench.ms(Timeout.REVIVAL_CLOCK_SKEW)));
    b.boot();
    assertEquals(Status.ServiceState.DOWN, b.serviceStatus("chat").state());
    List<EngineEvent.ServiceRevival> verdicts = b.events(EngineEvent.ServiceRevival.class);
    assertEquals("IDLE", verdicts.get(1).why());
    assertEquals("STALE", verdicts.get(2).why());
  }

  @Test
  void anOperatorStopLeavesTheSessionDownUntilStartedAgain() {
    b.services(IDX).boot();
    upWithin("idx", 2_000);
    b.command(new Command.StopService("idx"));
    b.until("down", () -> b.serviceStatus("idx").state() == Status.ServiceState.DOWN, 5_000);
    b.run(3_000);
    assertEquals(0, liveWorkers("idx"));
    assertInstanceOf(Reply.NotFound.class, b.command(new Command.StartService("nope")));
    b.command(new Command.StartService("idx"));
    upWithin("idx", 2_000);
  }

  /**
   * Regression: an idle shutdown's stop replaced an operator's stop in progress, so the worker was
   * no longer signalled and, once the shutdown was abandoned, was left stopping forever.
   */
  @Test
  void S5_anIdleShutdownNeverSoftensAnOperatorsStopInProgress() {
    b.scripts.add(Bench.service().stopReact(-1).build()); // ignores the stop frame: only a signal ends it
    b.services(IDX).boot();
    upWithin("idx", 2_000);
    SimWorld.ServiceProc worker = b.serviceWorker("idx");
    b.command(new Command.StopService("idx"));
    List<Reply> answer = b.send(new Command.Shutdown(Command.Shutdown.Mode.IF_IDLE));
    b.until("the shutdown is answered", () -> !answer.isEmpty(), 10_000);
    b.until("the session is down", () -> b.serviceStatus("idx").state() == Status.ServiceState.DOWN, 5_000);
    assertEquals(List.of(StopKind.OPERATOR), b.events(EngineEvent.StopBegun.class).stream()
        .map(EngineEvent.StopBegun::kind).toList(), "a stop in progress is replaced only by a harder one");
    assertFalse(worker.alive);
    assertEquals(Signal.TERM, b.events(EngineEvent.Signalled.class).get(0).signal());
  }

  /** Regression: while a service's worker was being stopped, a hello with its pid was welcomed whatever its token. */
  @Test
  void C9_aHelloWithAnotherTokenIsRefusedWhileAServiceWorkerIsBeingStopped() {
    b.scripts.add(Bench.service().stopReact(-1).build());
    b.services(IDX).boot();
    upWithin("idx", 2_000);
    SimWorld.ServiceProc worker = b.serviceWorker("idx");
    b.command(new Command.StopService("idx"));
    assertEquals(Status.ServiceState.STOPPING, b.serviceStatus("idx").state());
    WorkerKey key = new WorkerKey.Service("idx");
    String forged = worker.tokenHash.equals("ab".repeat(32)) ? "cd".repeat(32) : "ab".repeat(32);
    assertInstanceOf(ToWorker.AdoptDenied.class, b.engine.onHello(
        new WorkerMessage.Hello(key, forged, worker.build, worker.identity.pid()), b.world.monoMs, b.world.wallMs));
    assertEquals(new ToWorker.Welcome(worker.build, false), b.engine.onHello(
        new WorkerMessage.Hello(key, worker.tokenHash, worker.build, worker.identity.pid()), b.world.monoMs,
        b.world.wallMs), "its own worker is welcomed without go and gets the stop again");
  }
}
