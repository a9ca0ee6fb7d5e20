package dev.vigil.benchmarks;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JFR summary reads a real recording and names where the CPU samples fell. */
class JfrSummarySmokeTest {
  @TempDir
  Path tmp;

  @Test
  void summary_ofARecordingOfBusyWork_countsSamplesAndNamesTheirFrames() throws Exception {
    Path file = tmp.resolve("busy.jfr");
    try (Recording r = new Recording(Configuration.getConfiguration("profile"))) {
      r.start();
      long x = 0;
      long end = System.nanoTime() + 1_000_000_000L;
      while (System.nanoTime() < end) {
        x += Long.toString(x).hashCode();
      }
      r.stop();
      r.dump(file);
      assertTrue(x != 42);
    }
    String s = JfrSummary.summarize(file, 5);
    assertTrue(s.contains("CPU samples") && s.contains("top frames (self)"), s);
    assertTrue(s.matches("(?s).*: [1-9][0-9]* CPU samples.*"), "some samples were taken: " + s);
  }
}
