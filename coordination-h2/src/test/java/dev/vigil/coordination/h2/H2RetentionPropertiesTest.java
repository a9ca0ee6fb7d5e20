package dev.vigil.coordination.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.vigil.coordination.Pruning;
import dev.vigil.coordination.Retention;
import dev.vigil.coordination.RetryPolicy;
import dev.vigil.coordination.Snapshot;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.law.CoordinationInvariants;
import dev.vigil.coordination.law.Coverage;
import dev.vigil.coordination.law.LeaseLaw;
import dev.vigil.coordination.law.RandomSteps;
import dev.vigil.coordination.law.Step;
import dev.vigil.coordination.law.Transcript;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Q18 on H2 against the model: the random step sequences of the differential test, with prunes (dry and
 * real, at cutoffs around the tickets' own times) among the steps. Every prune decides the same on both
 * stores, the stores hold the same snapshot after it and after every later step (a step that names a pruned
 * ticket is refused the same way by both), the directories left to remove are the same, and the invariants
 * hold.
 */
class H2RetentionPropertiesTest {
  private static final int SEQUENCES = 60;
  private static final RetryPolicy POLICY = new RetryPolicy(1_000, 60_000);

  @TempDir
  Path dir;

  @Test
  void Q18_h2PrunesAsLeaseLaw_amongRandomSteps() {
    Coverage cov = new Coverage("Q18 H2 = LeaseLaw");
    AtomicInteger sequences = new AtomicInteger();
    AtomicInteger prunes = new AtomicInteger();
    qt().withExamples(SEQUENCES).withShrinkCycles(0)
        .forAll(longs().all(), integers().between(50, 90))
        .checkAssert((seed, length) -> {
          Path file = dir.resolve("prune-" + sequences.incrementAndGet() + ".mv.db");
          List<Step> script = RandomSteps.generate(seed, length, new LeaseLaw(POLICY));
          Random rng = new Random(seed);
          LeaseLaw model = new LeaseLaw(POLICY);
          try (H2Coordination h2 = H2Coordination.open(file, H2Options.defaults().withRetryPolicy(POLICY))) {
            for (int i = 0; i < script.size(); i++) {
              Step step = script.get(i);
              String where = "seed " + seed + " (length " + length + "), step " + (i + 1);
              assertEquals(line(i, step, model), line(i, step, h2), where);
              if (rng.nextInt(6) == 0) {
                Pruning.Request r = request(model.snapshot(), rng);
                long now = r.cutoffMs() + 1 + rng.nextInt(1_000);
                Pruning expected = model.prune(r, now);
                Pruning actual = h2.prune(r, now);
                assertEquals(expected, actual, where + ": the prune " + r);
                assertEquals(model.maintenanceRecords(), h2.maintenanceRecords(), where);
                if (!r.dryRun() && !actual.directories().isEmpty() && rng.nextBoolean()) {
                  List<dev.vigil.coordination.RunId> some = actual.directories().subList(0,
                      rng.nextInt(actual.directories().size()) + 1);
                  assertEquals(model.directoriesRemoved("retention", some, "removed", now),
                      h2.directoriesRemoved("retention", some, "removed", now), where);
                  cov.saw("directories recorded removed");
                }
                prunes.incrementAndGet();
                cov.saw(r.dryRun() ? "dry run" : actual.tickets().isEmpty() ? "nothing pruned" : "pruned");
                actual.kept().forEach((reason, n) -> {
                  if (n > 0) {
                    cov.saw("kept " + reason);
                  }
                });
              }
              Snapshot after = h2.store().snapshot();
              assertEquals(model.snapshot(), after, where + ": the stores differ after " + step);
              List<String> broken = CoordinationInvariants.violations(after);
              assertTrue(broken.isEmpty(), where + ": " + broken);
            }
          }
          try {
            Files.deleteIfExists(file);
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
    assertTrue(prunes.get() >= SEQUENCES * 5, prunes + " prunes");
    cov.assertSaw("dry run", "nothing pruned", "pruned", "directories recorded removed",
        "kept " + Retention.Reason.NOT_FINISHED, "kept " + Retention.Reason.TOO_RECENT,
        "kept " + Retention.Reason.LINKED);
    System.out.println(cov + " over " + sequences + " sequences, " + prunes + " prunes");
  }

  /**
   * The step's transcript line, or the refusal it met: a submission that waits for a pruned ticket is refused
   * by both stores with the same one-line reason ({@code no ticket t-5 to wait for}).
   */
  private static String line(int i, Step step, dev.vigil.coordination.Coordination store) {
    try {
      return Transcript.line(i, step, step.apply(store));
    } catch (IllegalArgumentException e) {
      return i + " " + step + " refused: " + e.getMessage();
    }
  }

  /** A prune at a cutoff around one ticket's submission time (or after everything), dry one time in four. */
  private static Pruning.Request request(Snapshot s, Random rng) {
    long cutoff;
    if (s.tickets().isEmpty() || rng.nextInt(4) == 0) {
      cutoff = Long.MAX_VALUE / 4;
    } else {
      Ticket t = s.tickets().get(rng.nextInt(s.tickets().size()));
      cutoff = t.createdAtMs() + List.of(-1L, 0L, 1L, 60_000L, 600_000L).get(rng.nextInt(5));
    }
    return new Pruning.Request(rng.nextBoolean() ? "retention" : "prune", cutoff, rng.nextInt(4) == 0);
  }
}
