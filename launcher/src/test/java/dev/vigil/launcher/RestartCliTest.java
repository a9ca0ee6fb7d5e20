package dev.vigil.launcher;

import static dev.vigil.launcher.CliEndToEndTest.json;
import static dev.vigil.launcher.CliEndToEndTest.poll;
import static dev.vigil.launcher.CliEndToEndTest.vigil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.launcher.CliEndToEndTest.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vigil restart} with real daemons and workers (D4, S6): the running daemon stops without
 * touching any worker and a new one takes each over; no attempt is spent, no run is added, a service
 * keeps its process, a pause stays; a configuration the new daemon would refuse changes nothing.
 */
class RestartCliTest {
  private static final Pattern RESTARTED = Pattern.compile("restarted: pid ([0-9]+) stopped, pid ([0-9]+) took its "
      + "workers over( \\(paused, as before: vigil resume dispatches\\))?");

  @TempDir Path tmp;
  private final List<Path> homes = new ArrayList<>();

  @AfterEach
  void stopDaemons() throws Exception {
    for (Path h : homes) {
      vigil(h, "down", "--stop-workers");
    }
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  private static JsonNode service(Path home, String name) throws Exception {
    for (JsonNode s : json(vigil(home, "status", "--json")).path("services")) {
      if (s.path("name").asText().equals(name)) {
        return s;
      }
    }
    throw new AssertionError("no service " + name);
  }

  private static JsonNode serviceUp(Path home, String name) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      JsonNode s = service(home, name);
      if (s.path("state").asText().equals("UP") && s.path("pid").isNumber()) {
        return s;
      }
      assertTrue(System.nanoTime() < deadline, "service " + name + " came up: " + s);
      Thread.sleep(300);
    }
  }

  @Test
  void restart_leavesATaskAndAServiceRunning_theNewDaemonTakesBothOver_spendingNothing_andAPauseStays()
      throws Exception {
    Path home = CliEndToEndTest.ownerOnlyHome(tmp, "restart", homes);
    Path go = tmp.resolve("go");
    Path config = tmp.resolve("vigil.json");
    Files.writeString(config, "{\"services\": [{\"name\": \"idx\", \"type\": \"command\", \"payload\": "
        + "{\"argv\": [\"sh\", \"-c\", \"while true; do sleep 1; done\"]}}]}");
    Result up = vigil(home, "up", "--config", config.toString());
    assertEquals(0, up.code(), up.err());
    long first = Long.parseLong(up.line().substring("pid ".length()));
    long servicePid = serviceUp(home, "idx").path("pid").asLong();

    String t = vigil(home, "submit", "--", "sh", "-c", "while [ ! -f '" + go + "' ]; do sleep 0.2; done").line();
    JsonNode running = poll(home, t, n -> n.path("runs").size() == 1
        && n.path("runs").get(0).path("state").asText().equals("RUNNING"));
    long worker = running.path("runs").get(0).path("start").path("identity").path("pid").asLong();
    assertEquals(0, vigil(home, "pause").code());

    Result r = vigil(home, "restart");
    assertEquals(0, r.code(), r.err());
    Matcher m = RESTARTED.matcher(r.line());
    assertTrue(m.matches(), r.out());
    assertEquals(first, Long.parseLong(m.group(1)));
    long second = Long.parseLong(m.group(2));
    assertTrue(second != first && !alive(first), "the old daemon is gone, a new one serves");
    assertTrue(m.group(3) != null, "the pause is carried over: " + r.line());

    JsonNode st = json(vigil(home, "status", "--json"));
    assertEquals(second, st.path("pid").asLong());
    assertEquals("PAUSED", st.path("state").asText(), "a paused daemon is restarted paused");
    assertTrue(alive(worker), "the task's worker ran on");
    assertEquals(servicePid, serviceUp(home, "idx").path("pid").asLong(), "the service kept its process");

    String queued = vigil(home, "submit", "--", "true").line();
    assertEquals("READY", json(vigil(home, "show", queued, "--json")).path("state").asText(),
        "paused: the new daemon starts nothing");

    Files.writeString(go, "");
    assertEquals(0, vigil(home, "wait", t, "--timeout", "90s").code());
    JsonNode done = json(vigil(home, "show", t, "--json"));
    assertEquals("SUCCEEDED", done.path("state").asText());
    assertEquals(1, done.path("runs").size(), "no run was added: " + done);
    assertEquals(1, done.path("runs").get(0).path("attempt").asInt(), "no attempt was spent");
    assertEquals(worker, done.path("runs").get(0).path("start").path("identity").path("pid").asLong());
    assertFalse(done.path("runs").get(0).path("owner").asText().isEmpty());

    assertEquals(0, vigil(home, "resume").code());
    assertEquals(0, vigil(home, "wait", queued, "--timeout", "90s").code());
    long adopted = Files.readAllLines(home.resolve("logs").resolve("daemon.log")).stream()
        .filter(l -> l.contains("READOPT")).count();
    assertTrue(adopted >= 1, "the new daemon recorded taking the run over");
  }

  @Test
  void restart_startsADaemonWhenNoneRuns_refusesABadConfigurationChangingNothing_andAppliesAGoodOne()
      throws Exception {
    Path home = CliEndToEndTest.ownerOnlyHome(tmp, "restart-config", homes);
    Result none = vigil(home, "restart");
    assertEquals(0, none.code(), none.err());
    Matcher started = Pattern.compile("no daemon was running: started one \\(pid ([0-9]+)\\)").matcher(none.line());
    assertTrue(started.matches(), none.out());
    long pid = Long.parseLong(started.group(1));

    Path bad = tmp.resolve("bad.json");
    Files.writeString(bad, "{\"lanes\": {\"default\": {\"concurrency\": 0}}}");
    Result refused = vigil(home, "restart", "--config", bad.toString());
    assertEquals(2, refused.code(), refused.err());
    assertTrue(refused.err().startsWith("vigil: config ") && refused.err().contains("concurrency")
        && refused.err().strip().lines().count() == 1, refused.err());
    assertEquals(pid, json(vigil(home, "status", "--json")).path("pid").asLong(), "nothing was stopped");

    Path good = tmp.resolve("good.json");
    Files.writeString(good, "{\"lanes\": {\"default\": {\"concurrency\": 5}}}");
    Result r = vigil(home, "restart", "--config", good.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(RESTARTED.matcher(r.line()).matches() && !r.line().contains("paused"), r.out());
    JsonNode st = json(vigil(home, "status", "--json"));
    assertTrue(st.path("pid").asLong() != pid && !alive(pid));
    assertEquals(5, st.path("lanes").get(0).path("concurrency").asInt(), "the new configuration applies: " + st);
    assertEquals("RUNNING", st.path("state").asText());

    Result again = vigil(home, "restart");
    assertEquals(0, again.code(), again.err());
    assertEquals(5, json(vigil(home, "status", "--json")).path("lanes").get(0).path("concurrency").asInt(),
        "a restart without --config keeps the configuration the daemon ran with");
  }
}
