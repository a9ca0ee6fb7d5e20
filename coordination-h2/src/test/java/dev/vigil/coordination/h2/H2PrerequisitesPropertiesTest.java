package dev.vigil.coordination.h2;

import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.vigil.coordination.RetryPolicy;
import dev.vigil.coordination.law.Coverage;
import dev.vigil.coordination.law.LeaseLaw;
import dev.vigil.coordination.law.Q14Check;
import dev.vigil.coordination.law.RandomSteps;
import dev.vigil.coordination.law.Step;
import dev.vigil.coordination.law.Trace;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Q14, prerequisites first, on a real H2 file database: random step sequences (submissions that wait
 * for tickets in every state and for earlier ones of their batch, claims by many owners, failures,
 * holds, releases, cancels, retries) applied to a fresh store, every transition checked by
 * {@link Q14Check} and by the invariants, with every case required to occur.
 */
class H2PrerequisitesPropertiesTest {
  private static final int SEQUENCES = 120;
  private static final RetryPolicy POLICY = new RetryPolicy(1_000, 60_000);

  @TempDir
  Path dir;

  @Test
  void Q14_neverClaimedBeforeEveryPrerequisiteSucceeded_andAnEndOtherwiseHoldsItsDependents_onH2() {
    Coverage cov = new Coverage("Q14 H2");
    AtomicInteger sequences = new AtomicInteger();
    qt().withExamples(SEQUENCES).withShrinkCycles(0)
        .forAll(longs().all(), integers().between(60, 120))
        .checkAssert((seed, length) -> {
          List<Step> steps = RandomSteps.generate(seed, length, new LeaseLaw(POLICY));
          Path file = dir.resolve("q14-" + sequences.incrementAndGet() + ".mv.db");
          try (H2Coordination h2 = H2Coordination.open(file, H2Options.defaults().withRetryPolicy(POLICY))) {
            for (Trace t : Trace.record(h2, steps, seed)) {
              Q14Check.step(seed, t, cov);
            }
          }
        });
    cov.assertSaw(Q14Check.CASES);
  }
}
