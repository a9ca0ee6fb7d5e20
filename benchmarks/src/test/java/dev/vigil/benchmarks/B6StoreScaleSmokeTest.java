package dev.vigil.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** B6 at its smallest size builds a store of settled tickets and cycles on it. */
class B6StoreScaleSmokeTest {
  @TempDir
  Path tmp;

  @Test
  void b6_buildsAStoreOfSettledTickets_andCyclesOnIt() throws Exception {
    Options o = Options.smoke(tmp);
    B6StoreScale.Result r = B6StoreScale.measure(o);
    assertEquals(1, r.sizes().size());
    B6StoreScale.Size s = r.sizes().get(0);
    assertEquals(1_000, s.settled());
    assertTrue(s.fileBytes() > 0, "the store was written");
    assertTrue(s.cycles() > 0 && Double.isFinite(s.cycles()), "cycles/s: " + s.cycles());
    assertTrue(s.claimNextMicros() > 0, "claimNext was timed: " + s.claimNextMicros());
    assertTrue(s.appendedPerCycle() > 0, "the cycles appended to the file: " + s.appendedPerCycle());
    double amortised = s.amortised(0);
    assertTrue(amortised > 0 && Double.isFinite(amortised), "the rate with compaction amortised: " + amortised);
    assertEquals(1, B6StoreScale.report(r, o).get(0).rows().size());
  }
}
