package dev.vigil.launcher;

import static dev.vigil.launcher.CliEndToEndTest.json;
import static dev.vigil.launcher.CliEndToEndTest.poll;
import static dev.vigil.launcher.CliEndToEndTest.vigil;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.launcher.CliEndToEndTest.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A daemon killed with {@code kill -9} while a task runs: with no daemon, {@code tasks}, {@code runs},
 * {@code show} and {@code status} read the store itself (changing nothing in it) and call the run
 * stalled once {@code stalledRunning} has passed since its lease ran out; the next daemon takes the
 * worker over and the run is watched again.
 */
class StalledRunsCliTest {
  @TempDir Path tmp;
  private final List<Path> homes = new ArrayList<>();

  @AfterEach
  void stopDaemons() throws Exception {
    for (Path h : homes) {
      vigil(h, "down", "--stop-workers");
    }
  }

  @Test
  void withNoDaemon_viewsReadTheStore_andCallARunStalledAfterStalledRunning_untilTheNextDaemonTakesItOver()
      throws Exception {
    Path home = CliEndToEndTest.ownerOnlyHome(tmp, "stalled", homes);
    Path go = tmp.resolve("go");
    Path config = tmp.resolve("vigil.json");
    Files.writeString(config, "{\"timeouts\": {\"reconcile\": \"1s\", \"leaseTtl\": \"2s\", \"stalledRunning\": \"2s\"}}");
    Result up = vigil(home, "up", "--config", config.toString());
    assertEquals(0, up.code(), up.err());
    long daemon = Long.parseLong(up.line().substring("pid ".length()));
    String t = vigil(home, "submit", "--", "sh", "-c", "while [ ! -f '" + go + "' ]; do sleep 0.2; done").line();
    JsonNode running = poll(home, t, n -> n.path("runs").size() == 1
        && n.path("runs").get(0).path("state").asText().equals("RUNNING"));
    long worker = running.path("runs").get(0).path("pid").asLong();
    assertTrue(running.path("runs").get(0).path("stalledSinceMs").isNull(), "watched while its daemon lives");

    assertEquals(0, new ProcessBuilder("kill", "-9", Long.toString(daemon)).start().waitFor());
    long gone = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (ProcessHandle.of(daemon).map(ProcessHandle::isAlive).orElse(false)) {
      assertTrue(System.nanoTime() < gone, "the daemon died");
      Thread.sleep(50);
    }
    byte[] store = Files.readAllBytes(home.resolve("vigil.mv.db"));

    JsonNode stalled;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      Result show = vigil(home, "--wait-daemon", "0", "show", t, "--json"); // else it waits for a restart first
      assertEquals(0, show.code(), show.err());
      assertTrue(show.err().startsWith("vigil: no daemon answered on " + home) && show.err().contains(
          "; this was read from its store (vigil up starts the daemon)"), show.err());
      stalled = json(show);
      if (stalled.path("runs").get(0).hasNonNull("stalledSinceMs")) {
        break;
      }
      assertTrue(System.nanoTime() < deadline, "the run is called stalled in time: " + stalled);
      Thread.sleep(500);
    }
    assertEquals("LEASED", stalled.path("state").asText());
    assertEquals("RUNNING", stalled.path("runs").get(0).path("state").asText(), "the store says what was recorded");
    assertTrue(stalled.path("stalledSinceMs").asLong() > 0, "the ticket says it too: " + stalled);

    Result runs = vigil(home, "--wait-daemon", "0", "runs", "--live");
    assertEquals(0, runs.code(), runs.err());
    assertTrue(runs.out().contains(t + ".1") && runs.out().contains(" stalled: no daemon since "), runs.out());
    Result tasks = vigil(home, "--wait-daemon", "0", "tasks");
    assertEquals(0, tasks.code(), tasks.err());
    assertTrue(tasks.out().contains(" stalled: no daemon since "), tasks.out());
    Result status = vigil(home, "--wait-daemon", "0", "status");
    assertEquals(4, status.code(), "no daemon: the documented code, with what the store says");
    assertTrue(status.out().startsWith("No daemon is running on " + home + ". Its store says:"), status.out());
    assertTrue(status.out().contains("Tasks: LEASED 1") && status.out().contains(" stalled: no daemon since "),
        status.out());
    Result watch = vigil(home, "--wait-daemon", "0", "watch", "--once");
    assertEquals(4, watch.code(), "no daemon: the documented code, with what the store says");
    assertTrue(watch.out().startsWith("No daemon is running on " + home + ". Its store says:")
        && watch.out().contains(t + ".1") && watch.out().contains(" stalled: no daemon since "), watch.out());
    assertArrayEquals(store, Files.readAllBytes(home.resolve("vigil.mv.db")), "reading changed nothing in the store");
    assertTrue(ProcessHandle.of(worker).map(ProcessHandle::isAlive).orElse(false), "the worker runs on");

    Result again = vigil(home, "up", "--config", config.toString());
    assertEquals(0, again.code(), again.err());
    JsonNode adopted = json(vigil(home, "show", t, "--json"));
    assertTrue(adopted.path("runs").get(0).path("stalledSinceMs").isNull(), "watched again: " + adopted);
    assertEquals(worker, adopted.path("runs").get(0).path("pid").asLong());
    Files.writeString(go, "");
    assertEquals(0, vigil(home, "wait", t, "--timeout", "90s").code());
    JsonNode done = json(vigil(home, "show", t, "--json"));
    assertEquals(1, done.path("runs").size(), "taken over, not started again: " + done);
    assertEquals("SUCCEEDED", done.path("state").asText());
  }
}
