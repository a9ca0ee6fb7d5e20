package dev.vigil.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.vigil.coordination.RetryPolicy;
import dev.vigil.coordination.h2.H2Coordination;
import dev.vigil.coordination.h2.H2Options;
import dev.vigil.coordination.law.CoordinationInvariants;
import dev.vigil.coordination.law.LeaseLaw;
import dev.vigil.coordination.law.RandomSteps;
import dev.vigil.coordination.law.Step;
import dev.vigil.coordination.law.Transcript;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bridge for coordination: each named scenario (and generated ones) runs on the reference
 * model and on the real H2 store in a file; the transcripts must be equal line for line, the
 * final snapshots equal, and the invariants must hold on both after every step.
 */
class CoordinationBridgeTest {
  @TempDir Path dir;

  private Transcript onH2(String name, List<Step> steps) {
    Path file = dir.resolve(name.replaceAll("[^A-Za-z0-9]", "_") + ".mv.db");
    try (H2Coordination h2 = H2Coordination.open(file, H2Options.defaults())) {
      Transcript t = Transcript.of(h2, steps, CoordinationInvariants::check);
      LeaseLaw model = new LeaseLaw(RetryPolicy.DEFAULT);
      Transcript.of(model, steps);
      assertEquals(model.snapshot(), h2.store().snapshot(), name + ": final snapshots differ");
      return t;
    }
  }

  @TestFactory
  Stream<DynamicTest> namedScenarios_giveTheSameTranscriptOnTheModelAndOnH2() {
    Map<String, List<Step>> all = CoordinationScenarios.all();
    return all.entrySet().stream().map(e -> DynamicTest.dynamicTest(e.getKey(), () -> {
      Transcript model = Transcript.of(new LeaseLaw(RetryPolicy.DEFAULT), e.getValue(), CoordinationInvariants::check);
      Transcript real = onH2(e.getKey(), e.getValue());
      assertNull(model.firstDifference(real), e.getKey() + "\n" + model);
    }));
  }

  @Test
  void C1_C2_C3_C6_C7_C8_Q1_Q2_Q5_Q7_Q8_Q9_generatedScenarios_matchLineForLine() throws Exception {
    AtomicInteger n = new AtomicInteger();
    Path db = dir.resolve("generated");
    Files.createDirectories(db);
    qt().withExamples(40).withShrinkCycles(0).forAll(longs().all()).checkAssert(seed -> {
      List<Step> steps = RandomSteps.generate(seed, 60, new LeaseLaw(RetryPolicy.DEFAULT));
      Transcript model = Transcript.of(new LeaseLaw(RetryPolicy.DEFAULT), steps);
      Transcript real;
      try (H2Coordination h2 = H2Coordination.open(db.resolve("s" + n.incrementAndGet() + ".mv.db"),
          H2Options.defaults())) {
        real = Transcript.of(h2, steps);
      }
      assertNull(model.firstDifference(real), "seed " + seed);
    });
    assertEquals(40, n.get());
  }
}
