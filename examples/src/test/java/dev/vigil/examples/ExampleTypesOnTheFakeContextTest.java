package dev.vigil.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.supervisor.WorkGate;
import dev.vigil.supervisor.WorkSet;
import dev.vigil.worker.Outcome;
import dev.vigil.worker.testing.FakeWorkContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example worker types in plain unit tests: {@link FakeWorkContext} runs each in this JVM, the
 * test playing the daemon (payload, quiesce, release, stops, the clock). What a user writes for a
 * type of their own.
 */
class ExampleTypesOnTheFakeContextTest {
  private static final Duration PATIENCE = Duration.ofSeconds(20);

  @TempDir
  Path tmp;

  @Test
  void primeCount_countsAndReportsProgress() {
    FakeWorkContext ctx = FakeWorkContext.task().payload("{\"below\": 100}").build();
    assertEquals(new Outcome.Succeeded("25 primes below 100"), ctx.run(new PrimeCountWorker()));
    List<FakeWorkContext.Progress> progress = ctx.progress();
    assertEquals(9, progress.size(), "a report every tenth of the way: " + progress);
    assertEquals("checked 10 of 100", progress.get(0).message());
    assertEquals(0.9, progress.get(8).fraction().getAsDouble(), 1e-9);
  }

  @Test
  void primeCount_stopsAtTheNextSafePoint_whenAStopComesMidRun() throws Exception {
    FakeWorkContext ctx = FakeWorkContext.task().payload("{\"below\": 20000000}").build();
    FakeWorkContext.Running run = ctx.start(new PrimeCountWorker());
    ctx.awaitProgress(1, PATIENCE);
    ctx.requestStop();
    Outcome o = run.await(PATIENCE);
    assertInstanceOf(Outcome.Failed.class, o);
    assertTrue(o.detail().startsWith("stopped at "), o.detail());
  }

  @Test
  void primeCount_aPayloadThatCanNeverWork_isAPermanentFailure() {
    for (String bad : List.of("{}", "{\"below\": \"lots\"}", "{\"below\": 1}", "{\"below\": 2.5}", "{\"below\": 50000001}")) {
      assertInstanceOf(Outcome.PermanentFailure.class,
          FakeWorkContext.task().payload(bad).build().run(new PrimeCountWorker()), bad);
    }
  }

  @Test
  void ticker_ticksOnItsClock_holdsItsNextTickWhileQuiesced_andAnIdleStopEndsIt() throws Exception {
    Path file = tmp.resolve("ticks.txt");
    FakeWorkContext ctx = FakeWorkContext.service("ticker").payloadOf(Map.of("file", file.toString(), "everyMs", 200))
        .manualClock().build();
    FakeWorkContext.Running run = ctx.start(new TickerService());
    ctx.awaitWaiting(PATIENCE);
    ctx.advance(Duration.ofMillis(200));
    ctx.awaitProgress(1, PATIENCE);
    assertEquals(List.of("tick 1"), Files.readAllLines(file));

    ctx.awaitWaiting(PATIENCE);
    assertEquals(new WorkGate.Answer.Quiesced(), ctx.requestQuiesce(), "between ticks the ticker is idle (S5)");
    ctx.advance(Duration.ofMillis(200));
    ctx.awaitWaiting(PATIENCE);
    assertEquals(1, ctx.progress().size(), "a quiesced ticker holds its next tick");
    ctx.release();
    ctx.awaitProgress(2, PATIENCE);
    assertEquals(List.of("tick 1", "tick 2"), Files.readAllLines(file));

    ctx.awaitWaiting(PATIENCE);
    assertEquals(new WorkGate.StopAnswer.Comply(), ctx.requestIdleStop());
    assertEquals(new Outcome.Succeeded("2 ticks"), run.await(PATIENCE));
    WorkSet tick1 = WorkSet.EMPTY.plus(WorkSet.Kind.BACKGROUND_JOB, "tick-1");
    WorkSet tick2 = WorkSet.EMPTY.plus(WorkSet.Kind.BACKGROUND_JOB, "tick-2");
    assertEquals(List.of(tick1, WorkSet.EMPTY, tick2, WorkSet.EMPTY), ctx.workReports(), "each tick is work while it runs");
  }

  @Test
  void ticker_aPayloadWithoutFileOrPeriod_isAPermanentFailure() {
    assertInstanceOf(Outcome.PermanentFailure.class,
        FakeWorkContext.service("ticker").payload("{\"everyMs\": 0}").build().run(new TickerService()));
  }
}
