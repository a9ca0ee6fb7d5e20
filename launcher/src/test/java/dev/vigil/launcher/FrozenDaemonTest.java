package dev.vigil.launcher;

import static dev.vigil.launcher.CliEndToEndTest.json;
import static dev.vigil.launcher.CliEndToEndTest.vigil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.launcher.CliEndToEndTest.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A daemon that holds its home but does not answer (stopped by SIGSTOP, as a long pause or a
 * swapped-out machine would): every client says so with when it last answered, {@code up} refuses
 * with the same sentence and starts no second daemon, and once the daemon runs again all answers.
 */
class FrozenDaemonTest {
  @TempDir Path tmp;
  private final List<Path> homes = new ArrayList<>();

  @AfterEach
  void stopDaemons() throws Exception {
    for (Path h : homes) {
      vigil(h, "down", "--stop-workers");
    }
  }

  private static void signal(String sig, long pid) throws Exception {
    assertEquals(0, new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).start().waitFor(), "kill -" + sig);
  }

  @Test
  void aStoppedDaemon_isReportedAsHoldingTheHomeAndNotAnswering_upExits3StartingNoOther_andAfterContAllAnswers()
      throws Exception {
    Path home = CliEndToEndTest.ownerOnlyHome(tmp, "frozen", homes);
    Result up = vigil(home, "up");
    assertEquals(0, up.code(), up.err());
    long pid = Long.parseLong(up.line().substring("pid ".length()));
    Pattern sentence = Pattern.compile("vigil: a daemon \\(pid " + pid + "\\) holds " + Pattern.quote(home.toString())
        + " but is not answering; it last answered at [0-9]{2}:[0-9]{2}:[0-9]{2} \\(([0-9ms]+ ago|just now)\\)\n");
    signal("STOP", pid);
    try {
      Result status = vigil(home, "status");
      assertEquals(4, status.code(), "a daemon that does not answer: the documented code");
      assertTrue(sentence.matcher(status.err()).matches(), status.err());
      assertEquals("", status.out());

      Result again = vigil(home, "up");
      assertEquals(3, again.code(), again.err());
      assertTrue(sentence.matcher(again.err()).matches(), "up says the same: " + again.err());
      assertEquals("", again.out());

      Result tasks = vigil(home, "--wait-daemon", "0", "tasks");
      assertEquals(4, tasks.code());
      assertTrue(sentence.matcher(tasks.err()).matches(), tasks.err());
      assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "the daemon was left alone");
    } finally {
      signal("CONT", pid);
    }
    Result status = vigil(home, "status");
    assertEquals(0, status.code(), status.err());
    assertTrue(status.out().contains("The daemon (pid " + pid + ","), status.out());
    assertEquals("pid " + pid, vigil(home, "up").line(), "the same daemon: no second one was started");
    long serves = Files.readAllLines(home.resolve("logs").resolve("daemon.log")).stream()
        .filter(l -> l.contains(" serves " + home)).count();
    assertEquals(1, serves, "one daemon served this home");
    String t = vigil(home, "submit", "--", "true").line();
    assertEquals(0, vigil(home, "wait", t, "--timeout", "90s").code());
    assertEquals("SUCCEEDED", json(vigil(home, "show", t, "--json")).path("state").asText());
  }
}
