package dev.vigil.bridge;

import static dev.vigil.bridge.JarBuilds.alive;
import static dev.vigil.bridge.JarBuilds.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.bridge.JarBuilds.Build;
import dev.vigil.bridge.JarBuilds.Result;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * S9 relaunch with real processes: {@code vigil watch} runs as a child process, the daemon it
 * watches is killed with {@code kill -9}, and a watch relaunches it only when it is of the watch's
 * own build, with the configuration it ran with, and never replaces a daemon that serves; a daemon
 * that a newer {@code up} replaced (a clean exit) is not lost, so an older watch does not undo the
 * replacement (S8).
 */
class WatchRelaunchJarTest {
  private static final String CLEAR = "\033[H\033[2J";
  private static final ObjectMapper JSON = new ObjectMapper();
  /** S9: a lost supervisor is relaunched within one minute. */
  private static final long RELAUNCH_S = 60;

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

  /** A {@code vigil watch} running as a child process, its frames read from its stdout. */
  private final class Watcher {
    final Path out;
    final Path err;

    Watcher(Build b, Path home, String name) throws IOException {
      out = tmp.resolve(name + ".out");
      err = tmp.resolve(name + ".err");
      builds.start(b, home, out, err, "watch");
    }

    List<String> frames() {
      try {
        return Arrays.asList(Files.readString(out).split(Pattern.quote(CLEAR), -1));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** How many complete frames contain {@code text}. */
    long framesWith(String text) {
      List<String> f = frames();
      return f.subList(0, Math.max(0, f.size() - 1)).stream().filter(s -> s.contains(text)).count();
    }

    String text() {
      return String.join("\n----\n", frames());
    }

    String errors() throws IOException {
      return Files.readString(err);
    }
  }

  private Optional<Long> servingPid(Build b, Path home) throws Exception {
    Result r = builds.run(b, home, "status", "--json");
    return r.code() == 0 ? Optional.of(builds.track(JSON.readTree(r.out()).path("pid").asLong())) : Optional.empty();
  }

  private static void kill9(long pid) throws InterruptedException {
    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    await("pid " + pid + " is gone after kill -9", 30, () -> !alive(pid));
  }

  /** Waits up to {@link #RELAUNCH_S} s from now for a daemon other than {@code lost} to serve; returns its pid. */
  private long relaunchedAfter(Build b, Path home, long lost) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(RELAUNCH_S);
    while (true) {
      Optional<Long> pid = servingPid(b, home);
      if (pid.isPresent() && pid.get() != lost) {
        return pid.get();
      }
      assertTrue(System.nanoTime() < deadline, "a daemon was relaunched within " + RELAUNCH_S + " s");
      Thread.sleep(200);
    }
  }

  /** The concurrency of {@code lane} in a status, 0 when the daemon has no such lane. */
  private static int lane(JsonNode status, String lane) {
    for (JsonNode l : status.path("lanes")) {
      if (lane.equals(l.path("lane").asText())) {
        return l.path("concurrency").asInt();
      }
    }
    return 0;
  }

  @Test
  void S9_watchRelaunchesALostDaemonOfItsOwnBuild_withItsConfiguration_andNeverReplacesOne() throws Exception {
    Build w = builds.build("1.0.0", "1.0.0+W");
    Path home = builds.home("home");
    Path config = tmp.resolve("vigil.json");
    Files.writeString(config, "{ \"lanes\": { \"zeta-watch\": { \"concurrency\": 3 } } }");
    long first = builds.up(w, home, "--config", config.toString());
    Watcher one = new Watcher(w, home, "watch-1");
    Watcher two = new Watcher(w, home, "watch-2");
    await("both watches attach", 60, () -> one.framesWith("daemon pid " + first) > 0
        && two.framesWith("daemon pid " + first) > 0);

    kill9(first);
    long second = relaunchedAfter(w, home, first);
    JsonNode st = builds.status(w, home);
    assertEquals("1.0.0+W", st.path("build").asText(), "a daemon of the watch's own build");
    assertEquals(3, lane(st, "zeta-watch"), "the relaunched daemon runs the lost one's configuration: " + st);
    await("both watches show the relaunched daemon", 60, () -> one.framesWith("daemon pid " + second) >= 3
        && two.framesWith("daemon pid " + second) >= 3);
    assertEquals(second, servingPid(w, home).orElseThrow(), "two watches relaunched one daemon and replaced none");
    assertTrue(one.text().contains("relaunched the lost daemon (pid " + first + ") with " + config)
        || two.text().contains("relaunched the lost daemon (pid " + first + ") with " + config),
        "a watch tells what it did: " + one.text());
    assertFalse((one.errors() + two.errors()).contains("replaced"), "a watch never replaces");

    Files.delete(config);
    kill9(second);
    long third = relaunchedAfter(w, home, second);
    JsonNode defaults = builds.status(w, home);
    assertEquals(0, lane(defaults, "zeta-watch"), "the configuration is gone: the defaults run: " + defaults);
    assertEquals(2, lane(defaults, "default"));
    await("a watch says the configuration is gone", 30,
        () -> one.framesWith("(its configuration " + config + " is gone)") > 0
            || two.framesWith("(its configuration " + config + " is gone)") > 0);
    await("both watches attach to it", 60, () -> one.framesWith("daemon pid " + third) >= 2
        && two.framesWith("daemon pid " + third) >= 2);
    assertEquals(third, servingPid(w, home).orElseThrow());
  }

  @Test
  void S9_aWatchOfAnotherBuildDoesNotRelaunchTheLostDaemon_andAttachesWhenOneServesAgain() throws Exception {
    Build older = builds.build("0.9.0", "0.9.0+A");
    Build daemonBuild = builds.build("1.0.0", "1.0.0+B");
    Build newer = builds.build("1.1.0", "1.1.0+C");
    Path home = builds.home("home");
    long lost = builds.up(daemonBuild, home);
    Watcher old = new Watcher(older, home, "watch-older");
    Watcher neu = new Watcher(newer, home, "watch-newer");
    await("both watches attach", 60, () -> old.framesWith("daemon pid " + lost) > 0
        && neu.framesWith("daemon pid " + lost) > 0);
    assertTrue(old.text().contains("this vigil (v0.9.0) is older than the running daemon (v1.0.0): "
        + "update or run vigil down"), old.text());
    assertTrue(old.errors().contains("vigil: this vigil (v0.9.0) is older than the running daemon (v1.0.0): "
        + "update or run vigil down"), old.errors());

    kill9(lost);
    String refused = "the lost daemon (pid " + lost + ") ran build 1.0.0+B";
    await("both watches see the loss for three frames", 60, () -> old.framesWith(refused) >= 3
        && neu.framesWith(refused) >= 3);
    assertEquals(4, builds.run(daemonBuild, home, "status").code(), "no watch relaunched it");
    assertFalse(old.text().contains("relaunched") || neu.text().contains("relaunched"), old.text() + neu.text());

    long again = builds.up(daemonBuild, home);
    assertNotEquals(lost, again);
    await("both watches attach to the daemon that serves again", 60,
        () -> old.framesWith("daemon pid " + again) > 0 && neu.framesWith("daemon pid " + again) > 0);
    assertEquals(again, servingPid(daemonBuild, home).orElseThrow(), "the watches replaced nothing");
  }

  @Test
  void S8_S9_aWatchOfTheOldBuildDoesNotUndoAReplacement_itAttachesToTheNewerDaemon() throws Exception {
    Build a = builds.build("0.9.0", "0.9.0+A");
    Build b = builds.build("1.0.0", "1.0.0+B");
    Path home = builds.home("home");
    long old = builds.up(a, home);
    Watcher watch = new Watcher(a, home, "watch-a");
    await("the watch attaches", 60, () -> watch.framesWith("daemon pid " + old) > 0);

    long replaced = builds.up(b, home);
    assertNotEquals(old, replaced, "the idle daemon was replaced (S8)");
    await("the watch attaches to the newer daemon", 60, () -> watch.framesWith("daemon pid " + replaced) >= 3);
    assertTrue(watch.text().contains("this vigil (v0.9.0) is older than the running daemon (v1.0.0): "
        + "update or run vigil down"), watch.text());
    assertFalse(watch.text().contains("relaunch"), "a clean exit is no loss: " + watch.text());
    JsonNode st = builds.status(b, home);
    assertEquals(replaced, st.path("pid").asLong());
    assertEquals("1.0.0+B", st.path("build").asText(), "the daemon never goes back");
  }
}
