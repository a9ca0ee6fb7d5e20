package dev.vigil.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The service example runs as written: a real daemon in this JVM keeps a real worker process of the ticker type. */
class ServiceMainTest {
  private static final Pattern UP = Pattern.compile("service ticker is UP, worker pid (\\d+)");

  @TempDir
  Path tmp;

  @Test
  void theTickerComesUpInAProcessOfItsOwn_ticks_andAnIdleShutdownStopsItsWorker() throws Exception {
    Path home = tmp.resolve("home");
    List<String> out = Stdout.of(() -> ServiceMain.main(new String[] {home.toString()}));
    Matcher up = UP.matcher(out.get(0));
    assertTrue(up.matches(), "first it shows the service up: " + out);
    long pid = Long.parseLong(up.group(1));
    assertTrue(pid != ProcessHandle.current().pid(), "the service runs in a worker process of its own");
    assertTrue(out.get(1).startsWith("it writes ") && out.get(1).endsWith(": [tick 1, tick 2, tick 3]"), out.get(1));
    assertEquals("stopped when idle; worker pid " + pid + " has exited", out.get(out.size() - 1));
    assertTrue(out.subList(2, out.size() - 1).stream()
        .allMatch(l -> l.equals("the ticker had work in flight: nothing stopped; asking again")), "S5, and nothing else: " + out);
    assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "no worker is left behind");
    assertFalse(Files.exists(home.resolve("daemon.json")), "the daemon exited cleanly");
  }
}
