package dev.vigil.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.supervisor.engine.SimStack;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The named bridge scenarios ({@code src/test/resources/scenarios/*.txt}), one or more per law
 * visible at the level of the whole supervisor: each runs on the simulation and on the real stack,
 * and both normalised transcripts must equal the transcript written in the file, line for line; a
 * difference is printed as a unified diff. Run with {@code -Dvigil.bridge.record=true} to write the
 * simulation's transcript into files that have none (or a changed one), to be read and checked by
 * a person before it is committed.
 */
class ScenarioBridgeTest {
  static final Path SOURCES = Path.of("src", "test", "resources", "scenarios");
  private static final boolean RECORD = Boolean.getBoolean("vigil.bridge.record");
  /** The laws of LAWS.md that show at the level of the whole supervisor; each has a named scenario. */
  static final List<String> STACK_LAWS = List.of("C1", "C3", "C5", "C6", "C7", "C8", "C9", "Q1", "Q2", "Q3", "Q4", "Q5",
      "Q6", "Q7", "Q8", "Q9", "Q10", "Q11", "Q12", "Q13", "Q14", "S1", "S3", "S4", "S5", "S6", "S8", "S9", "D1", "D2", "D4");

  @TempDir
  static Path tmp;

  static List<Path> files() throws IOException {
    try (Stream<Path> s = Files.list(SOURCES)) {
      return s.filter(p -> p.toString().endsWith(".txt")).sorted().collect(Collectors.toList());
    }
  }

  /** The scenarios to run: all, or those whose names match {@code -Dvigil.bridge.only=REGEX}. */
  static List<Path> selected() throws IOException {
    String only = System.getProperty("vigil.bridge.only", "");
    return files().stream().filter(p -> only.isEmpty() || p.getFileName().toString().matches(only + ".*")).toList();
  }

  /** The simulation's transcript of {@code s}. */
  static List<String> onSimulation(Scenario s) {
    return ScenarioRun.transcript(s, new SimStack(s.config()));
  }

  /** The real stack's transcript of {@code s}, in a fresh directory under {@code parent}. */
  static List<String> onRealStack(Scenario s, Path parent) throws IOException {
    Path dir = Files.createTempDirectory(parent, s.name().length() > 20 ? s.name().substring(0, 20) : s.name());
    return ScenarioRun.transcript(s, new RealStack(dir, s.config()));
  }

  static void assertSame(String what, List<String> expected, String actualName, List<String> actual) {
    String diff = Diff.unified("expected (" + what + ")", expected, actualName, actual);
    assertTrue(diff.isEmpty(), what + ": the transcripts differ\n" + diff);
  }

  @Test
  void everyStackLevelLaw_hasANamedScenario() throws IOException {
    Set<String> named = new TreeSet<>();
    for (Path p : files()) {
      named.add(p.getFileName().toString().split("_")[0]);
    }
    List<String> missing = new ArrayList<>(STACK_LAWS);
    missing.removeAll(named);
    assertEquals(List.of(), missing, "laws without a named bridge scenario");
  }

  @TestFactory
  Stream<DynamicTest> namedScenarios_onTheSimulation_giveTheirTranscript() throws IOException {
    return selected().stream().map(f -> DynamicTest.dynamicTest(f.getFileName().toString(), () -> {
      Scenario s = Scenario.read(f);
      List<String> sim = onSimulation(s);
      if (RECORD && !sim.equals(s.expected())) {
        Files.write(f, Scenario.withTranscript(Files.readAllLines(f, StandardCharsets.UTF_8), sim), StandardCharsets.UTF_8);
        System.out.println("recorded " + f + ":\n  " + String.join("\n  ", sim));
        return;
      }
      assertNotNull(s.expected(), s.name() + " has no transcript yet; the simulation's is:\n" + String.join("\n", sim));
      assertSame(s.name(), s.expected(), "simulation", sim);
    }));
  }

  /**
   * The real-stack runs go this many at a time ({@code -Dvigil.bridge.parallel=N}, default 3): each
   * has its own directory, home, daemon and workers, and most of a run is waiting for its own
   * timeouts, so running them side by side shortens the suite without changing what each checks.
   */
  private static final int PARALLEL = Integer.getInteger("vigil.bridge.parallel", 3);

  @Tag("slow")
  @TestFactory
  Stream<DynamicTest> namedScenarios_onTheRealStack_giveTheSameTranscriptAsTheSimulation() throws IOException {
    List<Path> chosen = selected();
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, PARALLEL), r -> {
      Thread t = new Thread(r, "scenario-run");
      t.setDaemon(true);
      return t;
    });
    Map<Path, Future<List<String>>> runs = new LinkedHashMap<>();
    for (Path f : chosen) {
      runs.put(f, pool.submit(() -> {
        Scenario s = Scenario.read(f);
        long t0 = System.nanoTime();
        List<String> real = onRealStack(s, tmp);
        System.out.printf("%s on the real stack: %.1f s%n", s.name(), (System.nanoTime() - t0) / 1e9);
        return real;
      }));
    }
    pool.shutdown();
    return chosen.stream().map(f -> DynamicTest.dynamicTest(f.getFileName().toString(), () -> {
      Scenario s = Scenario.read(f);
      List<String> sim = onSimulation(s);
      List<String> real;
      try {
        real = runs.get(f).get();
      } catch (ExecutionException e) {
        throw e.getCause();
      }
      assertSame(s.name() + " on the simulation", sim, "real stack", real);
      if (s.expected() != null) {
        assertSame(s.name(), s.expected(), "real stack", real);
      }
    }));
  }
}
