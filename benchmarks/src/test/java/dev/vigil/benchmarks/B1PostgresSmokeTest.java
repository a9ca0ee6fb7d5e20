package dev.vigil.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * B1 on PostgreSQL at its smallest size, on an embedded server (or the one {@code VIGIL_PG_URL}
 * names), produces sane figures (a smoke test: no speed is asserted).
 */
class B1PostgresSmokeTest {
  @TempDir
  Path tmp;

  @Test
  void b1OnPostgres_measuresVigilAndDbSchedulerWithOneAndTwoInstances_everyTaskSettledOnce() throws Exception {
    Options o = Options.smoke(tmp);
    B1Postgres.Result r = B1Postgres.measure(o);
    for (double rate : new double[] {r.vigil1(), r.vigil2(), r.peer1(), r.peer2(), r.commits()}) {
      assertTrue(rate > 0 && Double.isFinite(rate), "a positive, finite rate: " + rate);
    }
    B1Postgres.Rep rep = r.reps().get(0);
    for (B1Postgres.Vigil v : List.of(rep.one(), rep.two())) {
      VigilCycles.Result c = v.cycles();
      assertTrue(c.cycles() >= VigilCycles.BATCH, "at least one batch settled: " + c.cycles());
      long submitted = c.verbNanos().get(VigilCycles.Verb.SUBMIT).size();
      if (v == rep.one()) {
        assertEquals(submitted, c.cycles(), "one daemon settles every ticket it submits");
      } else {
        assertTrue(c.cycles() <= submitted, "no ticket settled twice: " + c.cycles() + " of " + submitted);
      }
      assertTrue(v.load().commits() > 0 && v.load().walSyncs() > 0, "the server counted commits: " + v.load());
    }
    for (DbSchedulerPostgres.Result p : List.of(rep.peerOne(), rep.peerTwo())) {
      assertEquals(0, p.duplicates(), "db-scheduler ran no task twice");
      assertEquals(p.tasks(), p.perInstance().stream().mapToInt(Integer::intValue).sum(), "every task ran");
    }
    assertEquals(2, rep.peerTwo().perInstance().size());
    if (System.getenv("VIGIL_PG_URL") == null) {
      assertEquals("on", r.settings().get("fsync"), "the embedded server forces its WAL");
      assertEquals("on", r.settings().get("synchronous_commit"));
      assertTrue(rep.one().load().serverTicks() >= 0, "the embedded server's CPU is known");
    }
    List<Report> reports = B1Postgres.report(r, o);
    assertEquals(3, reports.size());
    reports.forEach(t -> assertFalse(t.rows().isEmpty()));
  }
}
