package dev.vigil.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded generated scenarios ({@link GeneratedScenarios}): many on the simulation, where each must
 * run to its end (every await met, the simulation's law checks and the store's invariants holding)
 * and give the same transcript twice; a handful on the real stack, whose transcript must equal the
 * simulation's line for line. A failing seed is printed with the one line that replays it; the
 * decisions the seeds produced are counted, and every kind must have occurred.
 */
class GeneratedScenarioBridgeTest {
  private static final Long SEED = Long.getLong("vigil.bridge.seed");
  private static final int SIMULATED = Integer.getInteger("vigil.bridge.simulated", 150);
  private static final int REAL = Integer.getInteger("vigil.bridge.real", 4);
  private static final Pattern DECISION = Pattern.compile(
      "^  [a-z0-9.]+ (claimed|recovered: [A-Z_]+|settled [A-Z_]+ \\([a-z A-Z_]+\\)|stop: [A-Z_]+|claim rolled back)");

  @TempDir
  Path tmp;

  static String replay(long seed) {
    return "replay with: mvn -B -q -pl bridge-tests -am verify -Dsurefire.failIfNoSpecifiedTests=false "
        + "-Dtest=GeneratedScenarioBridgeTest -Dvigil.bridge.seed=" + seed;
  }

  private static void tally(Map<String, Integer> seen, List<String> transcript) {
    for (String l : transcript) {
      Matcher m = DECISION.matcher(l);
      if (m.find()) {
        seen.merge(m.group(1).replaceAll(" \\(.*", ""), 1, Integer::sum);
      }
    }
  }

  @Test
  void C1_C5_C6_Q1_Q2_Q4_Q5_Q9_Q11_S6_D4_generatedScenarios_onTheSimulation_runToTheirEndAlike() {
    AtomicInteger n = new AtomicInteger();
    Map<String, Integer> seen = new TreeMap<>();
    var examples = qt().withExamples(SEED != null ? 1 : SIMULATED).withShrinkCycles(0);
    (SEED != null ? examples.forAll(longs().between(SEED, SEED)) : examples.forAll(longs().all())).checkAssert(seed -> {
      Scenario s = GeneratedScenarios.generate(seed, 3);
      List<String> once;
      try {
        once = ScenarioBridgeTest.onSimulation(s);
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError("seed " + seed + ": " + e.getMessage() + "\n" + replay(seed) + "\n"
            + String.join("\n", GeneratedScenarios.text(seed, 3)), e);
      }
      List<String> again = ScenarioBridgeTest.onSimulation(GeneratedScenarios.generate(seed, 3));
      ScenarioBridgeTest.assertSame("seed " + seed + ", the first run (" + replay(seed) + ")", once, "the second run",
          again);
      synchronized (seen) {
        tally(seen, once);
      }
      n.incrementAndGet();
    });
    assertEquals(SEED != null ? 1 : SIMULATED, n.get());
    if (SEED == null) {
      List<String> missing = new ArrayList<>();
      for (String kind : List.of("claimed", "recovered: READOPT", "recovered: STOP_OTHER_BUILD", "settled SUCCEEDED",
          "settled FAILED", "settled LOST", "settled STALLED", "stop: PARK", "stop: LOST")) {
        if (!seen.containsKey(kind)) {
          missing.add(kind);
        }
      }
      assertEquals(List.of(), missing, "decisions the generated scenarios never produced, so they proved nothing about "
          + "them; seen: " + seen);
    }
  }

  @Tag("slow")
  @Test
  void generatedScenarios_onTheRealStack_giveTheSimulationsTranscript() throws Exception {
    int runs = SEED != null ? 1 : REAL;
    long base = SEED != null ? SEED : System.nanoTime();
    for (int i = 0; i < runs; i++) {
      long seed = SEED != null ? SEED : new java.util.SplittableRandom(base + i).nextLong();
      Scenario s = GeneratedScenarios.generate(seed, 2);
      List<String> sim = ScenarioBridgeTest.onSimulation(s);
      long t0 = System.nanoTime();
      List<String> real;
      try {
        real = ScenarioBridgeTest.onRealStack(s, tmp);
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError("seed " + seed + ": " + e.getMessage() + "\n" + replay(seed) + "\n"
            + String.join("\n", GeneratedScenarios.text(seed, 2)), e);
      }
      System.out.printf("generated seed %d on the real stack: %.1f s%n", seed, (System.nanoTime() - t0) / 1e9);
      ScenarioBridgeTest.assertSame("seed " + seed + " on the simulation (" + replay(seed) + ")\n"
          + String.join("\n", GeneratedScenarios.text(seed, 2)) + "\n", sim, "real stack", real);
    }
  }
}
