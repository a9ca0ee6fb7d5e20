package dev.vigil.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** B1 at its smallest size produces sane figures (a smoke test: no speed is asserted). */
class B1CoordinationSmokeTest {
  @TempDir
  Path tmp;

  @Test
  void b1_measuresVigilAndItsPeers_withEveryCycleSettledAndNoDuplicate() throws Exception {
    Options o = Options.smoke(tmp);
    B1Coordination.Result r = B1Coordination.measure(o);
    B1Coordination.Rep rep = r.reps().get(0);
    for (double rate : new double[] {r.vigil1(), r.vigil2(), r.peer(), r.commits()}) {
      assertTrue(rate > 0 && Double.isFinite(rate), "a positive, finite rate: " + rate);
    }
    assertTrue(rep.one().cycles() >= VigilCycles.BATCH, "at least one batch settled: " + rep.one().cycles());
    assertEquals(rep.one().verbNanos().get(VigilCycles.Verb.TAKE_EXIT_AND_FINISH_ALL).size() * VigilCycles.BATCH,
        rep.one().cycles(), "one settling transaction per batch of claims, and every claim settled");
    assertEquals(rep.one().verbNanos().get(VigilCycles.Verb.START_ALL).size(),
        rep.one().verbNanos().get(VigilCycles.Verb.TAKE_EXIT_AND_FINISH_ALL).size(), "one start per batch too");
    assertEquals(0, rep.peer().duplicates(), "db-scheduler ran no task twice");
    List<Report> reports = B1Coordination.report(r, o);
    assertEquals(3, reports.size());
    reports.forEach(t -> assertFalse(t.rows().isEmpty()));
  }
}
