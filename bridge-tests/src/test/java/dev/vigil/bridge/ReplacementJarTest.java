package dev.vigil.bridge;

import static dev.vigil.bridge.JarBuilds.alive;
import static dev.vigil.bridge.JarBuilds.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.bridge.JarBuilds.Build;
import dev.vigil.bridge.JarBuilds.Result;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * S8 replacement and S9 compatibility across real builds: copies of the runnable jar that report
 * other versions and builds, real daemons started by {@code vigil up}, real sockets, real workers.
 */
class ReplacementJarTest {
  @TempDir
  Path tmp;

  private JarBuilds builds;

  @BeforeEach
  void builds() {
    builds = new JarBuilds(tmp);
  }

  @AfterEach
  void cleanup() throws Exception {
    builds.cleanup();
  }

  private static String older(String client, String daemon) {
    return "vigil: this vigil (v" + client + ") is older than the running daemon (v" + daemon
        + "): update or run vigil down";
  }

  private static long countLines(String text, String line) {
    return text.lines().filter(line::equals).count();
  }

  @Test
  void S8_anOlderIdleDaemonIsReplacedByUpFromANewerBuild_andTheUserIsTold() throws Exception {
    Build a = builds.build("0.9.0", "0.9.0+A");
    Build b = builds.build("1.0.0", "1.0.0+B");
    Path home = builds.home("home");
    long old = builds.up(a, home);

    Result up = builds.run(b, home, "up");
    assertEquals(0, up.code(), up.err());
    long now = builds.track(Long.parseLong(up.out().substring("pid ".length())));
    assertNotEquals(old, now, "a new daemon serves");
    assertEquals("vigil: replaced the idle daemon (v0.9.0, pid " + old + ") with this vigil (v1.0.0, pid " + now + ")",
        up.err().trim(), "the user is told what happened");
    await("the old daemon exits", 30, () -> !alive(old));

    JsonNode st = builds.status(b, home);
    assertEquals(now, st.path("pid").asLong());
    assertEquals("1.0.0", st.path("version").asText());
    assertEquals("1.0.0+B", st.path("build").asText());
    Result version = builds.run(b, home, "version");
    assertEquals("vigil 1.0.0 (build 1.0.0+B, protocol 1)", version.out());
    Result sub = builds.run(b, home, "submit", "--", "true");
    assertEquals(0, sub.code(), sub.err());
    assertEquals(0, builds.run(b, home, "wait", sub.out(), "--timeout", "90s").code(), "the new daemon runs work");
  }

  @Test
  void S8_S5_anOlderDaemonWithATaskRunningIsNotReplaced_andNothingIsStopped() throws Exception {
    Build a = builds.build("0.9.0", "0.9.0+A");
    Build b = builds.build("1.0.0", "1.0.0+B");
    Path home = builds.home("home");
    long old = builds.up(a, home);
    Result sub = builds.run(a, home, "submit", "--", "sleep", "120");
    assertEquals(0, sub.code(), sub.err());
    String ticket = sub.out();
    long[] worker = {0};
    await("the task runs", 90, () -> {
      try {
        JsonNode t = builds.show(a, home, ticket);
        worker[0] = t.path("runs").path(0).path("pid").asLong();
        return "RUNNING".equals(t.path("runs").path(0).path("state").asText()) && worker[0] > 0;
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
    builds.track(worker[0]);

    Result up = builds.run(b, home, "up");
    assertEquals(3, up.code(), "busy: refused: " + up.out() + up.err());
    assertTrue(up.err().startsWith("vigil: busy: the running daemon (v0.9.0, pid " + old + ") is not replaced: "),
        up.err());
    assertEquals(1, up.err().trim().lines().count(), "one line: " + up.err());
    assertEquals("", up.out(), "no pid: no daemon of this build serves");

    assertTrue(alive(old), "the old daemon still runs");
    assertTrue(alive(worker[0]), "the worker keeps running (D4, S5)");
    JsonNode st = builds.status(a, home);
    assertEquals(old, st.path("pid").asLong());
    assertEquals("0.9.0+A", st.path("build").asText());
    JsonNode t = builds.show(a, home, ticket);
    assertEquals("LEASED", t.path("state").asText());
    assertEquals(1, t.path("runs").size(), "nothing was stopped or launched again");
    assertEquals("RUNNING", t.path("runs").path(0).path("state").asText());
    assertEquals(worker[0], t.path("runs").path(0).path("pid").asLong(), "the same worker");
    assertEquals(0, t.path("attemptsUsed").asInt(), "no attempt charged");
    Result more = builds.run(a, home, "submit", "--", "true");
    assertEquals(0, builds.run(a, home, "wait", more.out(), "--timeout", "90s").code(),
        "the daemon dispatches again after the refused replacement");
  }

  @Test
  void S8_aBackgroundCommandFromANewerBuildNeverReplaces_andWorks() throws Exception {
    Build a = builds.build("0.9.0", "0.9.0+A");
    Build b = builds.build("1.0.0", "1.0.0+B");
    Path home = builds.home("home");
    long old = builds.up(a, home);
    String newer = "vigil: this vigil (v1.0.0) is newer than the running daemon (v0.9.0): "
        + "run vigil up to replace it when idle";

    Result status = builds.run(b, home, "status", "--json");
    assertEquals(0, status.code(), status.err());
    assertTrue(status.out().contains("\"pid\" : " + old), status.out());
    assertEquals(1, countLines(status.err(), newer), "the user is told: " + status.err());
    Result sub = builds.run(b, home, "submit", "--", "true");
    assertEquals(0, sub.code(), sub.err());
    assertEquals(1, countLines(sub.err(), newer), sub.err());
    assertEquals(0, builds.run(b, home, "wait", sub.out(), "--timeout", "90s").code());
    assertEquals("SUCCEEDED", builds.show(b, home, sub.out()).path("state").asText());

    assertTrue(alive(old), "the old daemon still runs");
    JsonNode st = builds.status(a, home);
    assertEquals(old, st.path("pid").asLong(), "the same daemon serves");
    assertEquals("0.9.0+A", st.path("build").asText());
  }

  @Test
  void S9_anOlderClientUsesANewerDaemonAndSaysSo_andItsUpDoesNotReplaceIt() throws Exception {
    Build a = builds.build("0.9.0", "0.9.0+A");
    Build b = builds.build("1.0.0", "1.0.0+B");
    Path home = builds.home("home");
    long daemon = builds.up(b, home);

    Result status = builds.run(a, home, "status", "--json");
    assertEquals(0, status.code(), status.err());
    assertEquals(older("0.9.0", "1.0.0"), status.err().trim(), "exactly the S9 message");
    assertTrue(status.out().contains("\"build\" : \"1.0.0+B\""), status.out());
    Result sub = builds.run(a, home, "submit", "--", "true");
    assertEquals(0, sub.code(), sub.err());
    assertEquals(older("0.9.0", "1.0.0"), sub.err().trim());
    assertEquals(0, builds.run(b, home, "wait", sub.out(), "--timeout", "90s").code());

    Result up = builds.run(a, home, "up");
    assertEquals(0, up.code(), up.err());
    assertEquals("pid " + daemon, up.out(), "the older up uses the newer daemon");
    assertEquals(older("0.9.0", "1.0.0"), up.err().trim());
    JsonNode st = builds.status(b, home);
    assertEquals(daemon, st.path("pid").asLong());
    assertEquals("1.0.0+B", st.path("build").asText(), "the daemon never goes back");
  }

  @Test
  void S8_anotherBuildOfTheSameVersionIsNotReplaced_andTheUserIsTold() throws Exception {
    Build b = builds.build("1.0.0", "1.0.0+B");
    Build b2 = builds.build("1.0.0", "1.0.0+B2");
    Path home = builds.home("home");
    long daemon = builds.up(b, home);
    String told = "vigil: this vigil (v1.0.0, build 1.0.0+B2) is another build of the running daemon's version "
        + "(v1.0.0, build 1.0.0+B): run vigil down to switch builds";

    Result up = builds.run(b2, home, "up");
    assertEquals(0, up.code(), up.err());
    assertEquals("pid " + daemon, up.out(), "not replaced");
    assertEquals(told, up.err().trim());
    Result status = builds.run(b2, home, "status", "--json");
    assertEquals(told, status.err().trim());
    assertTrue(status.out().contains("\"build\" : \"1.0.0+B\""), status.out());
    assertTrue(alive(daemon));
  }

  @Test
  void S8_kBuildsInIncreasingOrderCauseKMinus1Replacements_andAnOlderUpAfterwardsNone() throws Exception {
    List<Build> ordered = List.of(builds.build("0.9.9-main.46", "0.9.9-main.46+k1"),
        builds.build("0.9.9", "0.9.9+k2"), builds.build("1.0.0-dev", "1.0.0-dev+k3"),
        builds.build("1.0.0", "1.0.0+k4"));
    Path home = builds.home("home");
    List<Long> daemons = new ArrayList<>();
    int replacements = 0;
    for (Build b : ordered) {
      Result up = builds.run(b, home, "up");
      assertEquals(0, up.code(), b.build() + ": " + up.err());
      long pid = builds.track(Long.parseLong(up.out().substring("pid ".length())));
      if (!daemons.isEmpty() && pid != daemons.get(daemons.size() - 1)) {
        replacements++;
        assertTrue(up.err().startsWith("vigil: replaced the idle daemon ("), up.err());
        long before = daemons.get(daemons.size() - 1);
        await("the replaced daemon exits", 30, () -> !alive(before));
      }
      daemons.add(pid);
      JsonNode st = builds.status(b, home);
      assertEquals(b.build(), st.path("build").asText(), "the newest build serves");
    }
    assertEquals(ordered.size() - 1, replacements, "k builds: k - 1 replacements");
    assertEquals(ordered.size(), daemons.stream().distinct().count());

    long last = daemons.get(daemons.size() - 1);
    for (Build b : ordered.subList(0, ordered.size() - 1)) {
      Result up = builds.run(b, home, "up");
      assertEquals(0, up.code(), up.err());
      assertEquals("pid " + last, up.out(), b.build() + " does not replace the newest daemon");
      assertEquals(older(b.version(), "1.0.0"), up.err().trim());
    }
    JsonNode st = builds.status(ordered.get(ordered.size() - 1), home);
    assertEquals(last, st.path("pid").asLong());
    assertEquals("1.0.0+k4", st.path("build").asText(), "the daemon never goes back to a lower version");
    assertFalse(daemons.subList(0, daemons.size() - 1).stream().anyMatch(JarBuilds::alive),
        "every replaced daemon is gone");
  }
}
