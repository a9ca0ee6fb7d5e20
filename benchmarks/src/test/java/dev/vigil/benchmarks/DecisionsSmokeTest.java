package dev.vigil.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collection;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/** B2: every JMH benchmark runs one short iteration in this JVM and reports a positive time per call. */
class DecisionsSmokeTest {
  @Test
  void b2_everyBenchmarkRunsOnce_andReportsAPositiveTimePerCall() throws Exception {
    Collection<RunResult> results = new Runner(new OptionsBuilder()
        .include("dev\\.vigil\\.benchmarks\\.Decisions\\..*")
        .include("dev\\.vigil\\.supervisor\\.engine\\.EngineTick\\..*")
        .forks(0).warmupIterations(0).measurementIterations(1).measurementTime(TimeValue.milliseconds(200))
        .shouldFailOnError(true).build()).run();
    assertEquals(7, results.size(), "five decisions and two engine ticks");
    for (RunResult r : results) {
      double score = r.getPrimaryResult().getScore();
      assertTrue(score > 0 && Double.isFinite(score), r.getParams().getBenchmark() + ": " + score);
    }
  }
}
