package dev.vigil.worker.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.TicketId;
import dev.vigil.supervisor.WorkGate;
import dev.vigil.supervisor.WorkSet;
import dev.vigil.worker.Outcome;
import dev.vigil.worker.WorkContext;
import dev.vigil.worker.WorkerType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fake context keeps the worker host's rules (S5 run gate, stops, outcomes) where a worker type can tell. */
class FakeWorkContextTest {
  private static final Duration PATIENCE = Duration.ofSeconds(20);
  private static final WorkSet.Item RUN_1 = new WorkSet.Item(WorkSet.Kind.RUN, "t-1.1");

  @TempDir
  Path tmp;

  /** A type written as a lambda: its name is {@code probe}. */
  private interface Probe extends WorkerType {
    @Override
    default String name() {
      return "probe";
    }
  }

  /** Records what listeners hear, in order. */
  private static final class Heard implements WorkContext.Listener {
    final List<String> heard = new CopyOnWriteArrayList<>();

    @Override
    public void quiesced() {
      heard.add("quiesced");
    }

    @Override
    public void released() {
      heard.add("released");
    }

    @Override
    public void stopRequested(long graceMs) {
      heard.add("stop " + graceMs);
    }
  }

  @Test
  void aTaskRunIsWorkForItsWholeLength_soAQuiesceDuringItAnswersBusy() throws Exception {
    FakeWorkContext ctx = FakeWorkContext.task().build();
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    FakeWorkContext.Running r = ctx.start((Probe) c -> {
      inside.countDown();
      finish.await();
      return c.succeeded("done");
    });
    assertTrue(inside.await(20, TimeUnit.SECONDS));
    assertEquals(WorkSet.EMPTY.plus(RUN_1.kind(), RUN_1.id()), ctx.work());
    assertEquals(new WorkGate.Answer.Busy(ctx.work()), ctx.requestQuiesce(), "S5: a running task answers busy");
    assertFalse(ctx.quiesced(), "a busy worker's gate stays open");
    assertInstanceOf(WorkGate.StopAnswer.Refuse.class, ctx.requestIdleStop(), "S5: the idle stop never stops work");
    assertFalse(ctx.stopRequested());
    finish.countDown();
    assertEquals(new Outcome.Succeeded("done"), r.await(PATIENCE));
    assertEquals(WorkSet.EMPTY, ctx.work(), "the run's work ends with the run");
    assertEquals(List.of(WorkSet.EMPTY.plus(RUN_1.kind(), RUN_1.id()), WorkSet.EMPTY), ctx.workReports());
  }

  @Test
  void S5_anIdleWorkerQuiesces_itsNewWorkWaitsUntilRelease_andTheListenersAreTold() throws Exception {
    FakeWorkContext ctx = FakeWorkContext.service("indexer").manualClock().build();
    Heard heard = new Heard();
    ctx.addListener(heard);
    assertEquals(new WorkGate.Answer.Quiesced(), ctx.requestQuiesce());
    assertTrue(ctx.quiesced());
    assertEquals(List.of("quiesced"), heard.heard);

    FakeWorkContext.Running r = ctx.start((Probe) c -> {
      Optional<WorkContext.Work> job = c.busy("job");
      c.progress("admitted");
      job.orElseThrow().close();
      return c.succeeded();
    });
    ctx.awaitWaiting(PATIENCE);
    assertTrue(ctx.progress().isEmpty() && ctx.work().isIdle(), "a quiesced worker admits no new work");
    assertEquals(List.of(), ctx.workReports());
    ctx.release();
    assertEquals(new Outcome.Succeeded(""), r.await(PATIENCE));
    assertEquals(List.of("quiesced", "released"), heard.heard);
    assertEquals(List.of(WorkSet.EMPTY.plus(WorkSet.Kind.BACKGROUND_JOB, "job"), WorkSet.EMPTY), ctx.workReports());
    assertFalse(ctx.quiesced());
  }

  @Test
  void S5_aClosedGateReopensByItselfWhenTheHoldPasses_onTheManualClock() throws Exception {
    FakeWorkContext ctx = FakeWorkContext.service("indexer").manualClock().quiesceHold(Duration.ofSeconds(30)).build();
    Heard heard = new Heard();
    ctx.addListener(heard);
    ctx.requestQuiesce();
    FakeWorkContext.Running r = ctx.start((Probe) c -> {
      c.busy("job").orElseThrow().close();
      return c.succeeded("in");
    });
    ctx.awaitWaiting(PATIENCE);
    ctx.advance(Duration.ofMillis(29_999));
    ctx.awaitWaiting(PATIENCE);
    assertTrue(ctx.quiesced() && !r.done(), "the gate holds until the hold has passed");
    ctx.advance(Duration.ofMillis(1));
    assertEquals(new Outcome.Succeeded("in"), r.await(PATIENCE));
    assertEquals(List.of("quiesced", "released"), heard.heard);
  }

  @Test
  void S5_aClosedGateReopensByItselfWhenTheHoldPasses_onTheSystemClock() throws Exception {
    FakeWorkContext ctx = FakeWorkContext.service("indexer").quiesceHold(Duration.ofMillis(300)).build();
    CountDownLatch released = new CountDownLatch(1);
    ctx.addListener(new WorkContext.Listener() {
      @Override
      public void released() {
        released.countDown();
      }
    });
    ctx.requestQuiesce();
    assertTrue(ctx.quiesced());
    assertTrue(released.await(20, TimeUnit.SECONDS), "the listeners hear the gate reopen without any call");
    assertFalse(ctx.quiesced());
    assertThrows(IllegalStateException.class, () -> ctx.advance(Duration.ofSeconds(1)), "no manual clock here");
    assertThrows(IllegalStateException.class, () -> ctx.awaitWaiting(PATIENCE));
  }

  @Test
  void theIdleStopStopsAWorkerWithoutWork_afterWhichNoWorkEnters_andALateListenerIsToldAtOnce() throws Exception {
    FakeWorkContext ctx = FakeWorkContext.service("indexer").build();
    Heard early = new Heard();
    ctx.addListener(early);
    Optional<WorkContext.Work> job = ctx.busy("job");
    assertEquals(new WorkGate.StopAnswer.Refuse(ctx.work()), ctx.requestIdleStop());
    job.orElseThrow().close();
    assertEquals(new WorkGate.StopAnswer.Comply(), ctx.requestIdleStop());
    assertTrue(ctx.stopRequested());
    assertTrue(ctx.awaitStop(60_000), "a stop has come: no wait");
    assertEquals(Optional.empty(), ctx.busy("later"), "no new work after a stop");
    assertTrue(ctx.quiesced(), "the gate stays shut after the idle stop");
    assertEquals(new WorkGate.Answer.Quiesced(), ctx.requestQuiesce(), "a stopping worker without work answers quiesced");
    Heard late = new Heard();
    ctx.addListener(late);
    assertEquals(List.of("stop 10000", "quiesced"), early.heard, "the idle stop gives the stop grace");
    assertEquals(List.of("stop 10000"), late.heard, "a listener added after the stop is told at once");
    ctx.requestStop();
    assertEquals(List.of("stop 10000", "quiesced"), early.heard, "a stop is told once");
  }

  @Test
  void aStopMidRun_reachesTheTypesListenerAndAwaitStop_andItsOutcomeIsTheRunsOutcome() throws Exception {
    FakeWorkContext ctx = FakeWorkContext.task().build();
    List<Long> graces = new CopyOnWriteArrayList<>();
    FakeWorkContext.Running r = ctx.start((Probe) c -> {
      c.addListener(new WorkContext.Listener() {
        @Override
        public void stopRequested(long graceMs) {
          graces.add(graceMs);
        }
      });
      c.progress("waiting", 0.5);
      return c.awaitStop(600_000) ? c.failed("stopped") : c.succeeded("no stop");
    });
    assertEquals(List.of(new FakeWorkContext.Progress("waiting", OptionalDouble.of(0.5))), ctx.awaitProgress(1, PATIENCE));
    ctx.requestStop(Duration.ofSeconds(3));
    assertEquals(new Outcome.Failed("stopped"), r.await(PATIENCE));
    assertEquals(List.of(3_000L), graces);
  }

  @Test
  void aThrownException_orNoOutcome_isAFailedOutcome_asTheHostSettlesIt() {
    assertEquals(new Outcome.Failed("worker type probe threw java.lang.IllegalStateException: boom"),
        FakeWorkContext.task().build().run((Probe) c -> {
          throw new IllegalStateException("boom");
        }));
    assertEquals(new Outcome.Failed("worker type probe returned no outcome"),
        FakeWorkContext.task().build().run((Probe) c -> null));
    FakeWorkContext once = FakeWorkContext.task().build();
    once.run((Probe) WorkContext::succeeded);
    assertThrows(IllegalStateException.class, () -> once.run((Probe) WorkContext::succeeded), "one run per context");
  }

  @Test
  void aTaskStoppedBeforeItBegins_neverCallsTheType_andStallsSpendingNothing() {
    FakeWorkContext ctx = FakeWorkContext.task().build();
    ctx.requestStop();
    Outcome o = ctx.run((Probe) c -> {
      throw new AssertionError("the type ran");
    });
    assertInstanceOf(Outcome.Stalled.class, o);
    assertEquals(List.of(), ctx.workReports());
  }

  /** A typed payload for {@link FakeWorkContext.Builder#payloadOf}. */
  public record Report(String name, int pages) {}

  @Test
  void theContextCarriesIdsPayloadAndPlace_asGiven() throws Exception {
    Path dir = Files.createDirectory(tmp.resolve("run"));
    FakeWorkContext ctx = FakeWorkContext.task().ticket(7).attempt(2).payload("{\"below\": 100}").runDirectory(dir)
        .workingDirectory(tmp).environment(Map.of("A", "b")).build();
    assertEquals("t-7.2", ctx.runId());
    assertEquals(Optional.of(new TicketId(7)), ctx.ticketId());
    assertEquals(Optional.empty(), ctx.session());
    assertEquals(2, ctx.attempt());
    assertEquals(100, ctx.payload().get("below").asInt());
    assertEquals(dir, ctx.runDirectory());
    assertEquals(Optional.of(tmp), ctx.workingDirectory());
    assertEquals(Optional.of(Map.of("A", "b")), ctx.environment());

    FakeWorkContext svc = FakeWorkContext.service("indexer").payloadOf(new Report("q3", 12)).build();
    assertEquals("s-indexer", svc.runId(), "as the daemon names a service's run directory");
    assertEquals(Optional.empty(), svc.ticketId());
    assertEquals(Optional.of("indexer"), svc.session());
    assertEquals("{\"name\":\"q3\",\"pages\":12}", svc.payload().toString());
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(svc.runDirectory())),
        "a run directory of its own, 0700, as the host's");
    assertEquals("{}", FakeWorkContext.task().build().payload().toString(), "no payload: an empty object");
    assertEquals(Optional.empty(), svc.workingDirectory());

    IllegalArgumentException dup = assertThrows(IllegalArgumentException.class,
        () -> FakeWorkContext.task().payload("{\"a\": 1, \"a\": 2}"));
    assertTrue(dup.getMessage().startsWith("payload is not JSON: ") && dup.getMessage().contains("'a'"), dup.getMessage());
    assertThrows(IllegalArgumentException.class, () -> FakeWorkContext.task().payload("{} []"));
    assertThrows(IllegalArgumentException.class, () -> FakeWorkContext.service("Not A Name"));
    assertThrows(IllegalStateException.class, () -> FakeWorkContext.service("indexer").ticket(3));
    assertThrows(IllegalArgumentException.class, () -> FakeWorkContext.task().attempt(0));
    assertThrows(IllegalArgumentException.class, () -> FakeWorkContext.task().quiesceHold(Duration.ZERO));
  }

  @Test
  void progressAndTheProcessEndAreRecorded_andCheckedAsTheHostChecksThem() {
    FakeWorkContext ctx = FakeWorkContext.task().build();
    ctx.progress("a");
    ctx.progress("b", 1.0);
    assertThrows(IllegalArgumentException.class, () -> ctx.progress("c", 1.5));
    assertEquals(List.of(new FakeWorkContext.Progress("a", OptionalDouble.empty()),
        new FakeWorkContext.Progress("b", OptionalDouble.of(1.0))), ctx.progress());
    assertEquals(Optional.empty(), ctx.processEnd());
    ctx.processEnded(3, null);
    RunExit end = ctx.processEnd().orElseThrow();
    assertEquals(3, end.exitCode());
    assertThrows(IllegalArgumentException.class, () -> ctx.processEnded(1, 9), "a code or a signal, not both");
  }

  @Test
  void onTheManualClock_awaitStopReturnsFalseOnlyOnceTheClockPassedItsTime() throws Exception {
    FakeWorkContext ctx = FakeWorkContext.service("poller").manualClock().build();
    FakeWorkContext.Running r = ctx.start((Probe) c -> {
      int rounds = 0;
      while (!c.awaitStop(60_000)) {
        c.progress("round " + ++rounds);
      }
      return c.succeeded(rounds + " rounds");
    });
    ctx.awaitWaiting(PATIENCE);
    assertEquals(List.of(), ctx.progress(), "no time passed: no round");
    ctx.advance(Duration.ofSeconds(59));
    ctx.awaitWaiting(PATIENCE);
    assertEquals(List.of(), ctx.progress(), "the wait is not over yet");
    ctx.advance(Duration.ofSeconds(1));
    ctx.awaitProgress(1, PATIENCE);
    ctx.awaitWaiting(PATIENCE);
    ctx.advance(Duration.ofSeconds(60));
    ctx.awaitProgress(2, PATIENCE);
    ctx.requestStop();
    assertEquals(new Outcome.Succeeded("2 rounds"), r.await(PATIENCE));
    assertThrows(IllegalArgumentException.class, () -> ctx.advance(Duration.ofMillis(-1)));
  }

  @Test
  void aTypeThatDoesNotReturn_failsTheAwaitNamingWhereItIs() throws Exception {
    FakeWorkContext ctx = FakeWorkContext.task().build();
    FakeWorkContext.Running r = ctx.start((Probe) c -> c.awaitStop(600_000) ? c.failed("stopped") : c.succeeded());
    TimeoutException e = assertThrows(TimeoutException.class, () -> r.await(Duration.ofMillis(200)));
    assertTrue(e.getMessage().contains("awaitStop"), e.getMessage());
    TimeoutException w = assertThrows(TimeoutException.class,
        () -> ctx.awaitWork(WorkSet::isIdle, Duration.ofMillis(100)));
    assertTrue(w.getMessage().contains("the work is"), w.getMessage());
    ctx.requestStop();
    assertEquals(new Outcome.Failed("stopped"), r.await(PATIENCE));
  }

  @Test
  void aListenerThatThrows_isReportedToTheRequest_afterEveryListenerWasTold() {
    FakeWorkContext ctx = FakeWorkContext.service("indexer").build();
    ctx.addListener(new WorkContext.Listener() {
      @Override
      public void stopRequested(long graceMs) {
        throw new IllegalStateException("listener broke");
      }
    });
    Heard after = new Heard();
    ctx.addListener(after);
    IllegalStateException e = assertThrows(IllegalStateException.class, ctx::requestStop);
    assertEquals("listener broke", e.getMessage());
    assertEquals(List.of("stop 5000"), after.heard, "a TERM gives the worker teardown; every listener is told");
  }

  /** S7: a service's worker says which snapshot it started over, once; a task's cannot. */
  @Test
  void aServiceWorkerSaysItStartedOverASnapshot_onceAndOnlyOne() {
    FakeWorkContext svc = FakeWorkContext.service("counter").build();
    assertEquals(java.util.Optional.empty(), svc.restoredFrom());
    svc.restored("counter-7");
    svc.restored("counter-7");
    assertEquals(java.util.Optional.of("counter-7"), svc.restoredFrom());
    assertThrows(IllegalStateException.class, () -> svc.restored("counter-8"));
    assertThrows(IllegalArgumentException.class,
        () -> FakeWorkContext.service("counter").build().restored(""));
    assertThrows(UnsupportedOperationException.class,
        () -> FakeWorkContext.task().build().restored("counter-7"));
  }
}
