package dev.vigil.launcher;

import static dev.vigil.launcher.CliEndToEndTest.json;
import static dev.vigil.launcher.CliEndToEndTest.poll;
import static dev.vigil.launcher.CliEndToEndTest.vigil;
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
 * Q14, prerequisites first, end to end: every command a separate JVM running {@link Main} against a
 * daemon of {@code vigil up}, tasks real processes that append to a file, so the file shows the order
 * in which they really ran. A chain whose first task fails holds the rest naming it, and goes on when
 * that one is released or retried; a submission naming no ticket, or a later line of its file, is
 * refused and queues nothing; a daemon killed with SIGKILL in the middle of a chain is followed by
 * one that runs the rest in order.
 */
class DependenciesCliTest {
  @TempDir
  Path tmp;

  private final List<Path> homes = new ArrayList<>();

  @AfterEach
  void stopDaemons() throws Exception {
    for (Path h : homes) {
      vigil(h, "down", "--stop-workers");
    }
  }

  private static String submitted(Result r) {
    assertEquals(0, r.code(), r.err());
    assertTrue(r.line().matches("t-[0-9]+"), r.out());
    return r.line();
  }

  private static JsonNode state(Path home, String ticket, String state) throws Exception {
    return poll(home, ticket, t -> t.path("state").asText().equals(state));
  }

  /** A task that appends {@code word} to {@code log} once {@code gate} exists, and fails before. */
  private static String[] appendOnce(Path gate, Path log, String word) {
    return new String[] {"--", "sh", "-c", "test -e '" + gate + "' && echo " + word + " >> '" + log + "'"};
  }

  private static String[] cat(String[] a, String... b) {
    String[] out = new String[a.length + b.length];
    System.arraycopy(b, 0, out, 0, b.length);
    System.arraycopy(a, 0, out, b.length, a.length);
    return out;
  }

  @Test
  void Q14_aChainWhoseFirstTaskFails_holdsTheRestNamingIt_andAReleaseOrARetryOfItLetsTheChainGoOn() throws Exception {
    Path home = CliEndToEndTest.ownerOnlyHome(tmp, "chain", homes);
    assertEquals(0, vigil(home, "up").code());
    Path gate = tmp.resolve("gate");
    Path log = tmp.resolve("chain.log");

    String a = submitted(vigil(home, cat(appendOnce(gate, log, "a"), "submit", "--max-attempts", "1")));
    String b = submitted(vigil(home, cat(appendOnce(tmp, log, "b"), "submit", "--after", a)));
    String c = submitted(vigil(home, cat(appendOnce(tmp, log, "c"), "submit", "--after", b)));
    assertEquals(1, vigil(home, "wait", a, "--timeout", "90s").code(), "a fails: the gate is closed");
    JsonNode heldB = state(home, b, "HELD");
    assertEquals("waits for " + a + ", which is held", heldB.path("holdReason").asText());
    assertEquals(0, heldB.path("runs").size(), "b never ran");
    assertEquals(a, heldB.path("heldFor").asText());
    JsonNode heldC = state(home, c, "HELD");
    assertEquals("waits for " + b + ", which is held", heldC.path("holdReason").asText(), "held in turn");
    String tasks = vigil(home, "tasks").out();
    assertTrue(tasks.lines().anyMatch(l -> l.startsWith(b + " ") && l.contains("(waits for " + a + ", which is held)")),
        tasks);
    Result refused = vigil(home, "release", b);
    assertEquals(3, refused.code(), refused.err());
    assertTrue(refused.err().contains("ticket " + b + " waits for " + a + ", which is held: it goes on by itself once"
        + " that one is released or retried"), refused.err());

    Files.createFile(gate);
    assertEquals(0, vigil(home, "release", a).code(), "releasing a lets the chain go on");
    assertEquals(0, vigil(home, "wait", c, "--timeout", "90s").code());
    assertEquals(List.of("a", "b", "c"), Files.readAllLines(log), "each ran after the one it waits for succeeded");

    // a retry of a failed prerequisite stands for it
    Files.delete(gate);
    String x = submitted(vigil(home, cat(appendOnce(gate, log, "x"), "submit", "--max-attempts", "1")));
    String y = submitted(vigil(home, cat(appendOnce(tmp, log, "y"), "submit", "--after", x, "--after", a)));
    assertEquals(1, vigil(home, "wait", x, "--timeout", "90s").code());
    assertEquals("waits for " + x + ", which is held", state(home, y, "HELD").path("holdReason").asText());
    Files.createFile(gate);
    Result retried = vigil(home, "retry", x);
    assertEquals(0, retried.code(), retried.err());
    String x2 = retried.line().split(" ")[0];
    assertTrue(x2.matches("t-[0-9]+"), retried.out());
    JsonNode waiting = poll(home, y, t -> t.path("after").toString().contains(x2));
    assertTrue(List.of("READY", "LEASED", "SUCCEEDED").contains(waiting.path("state").asText()),
        "no longer held: it waits for the retry, or runs already: " + waiting);
    assertEquals(0, vigil(home, "wait", y, "--timeout", "90s").code());
    assertEquals(List.of("a", "b", "c", "x", "y"), Files.readAllLines(log));
    String shown = vigil(home, "show", y).out();
    assertTrue(shown.contains("  after        " + a + ", " + x2 + " (all succeeded)"), shown);
  }

  @Test
  void Q14_aPrerequisiteThatDoesNotExistOrALaterLineOfTheFile_isRefusedWithExit2_andNothingIsQueued() throws Exception {
    Path home = CliEndToEndTest.ownerOnlyHome(tmp, "refused", homes);
    assertEquals(0, vigil(home, "up").code());
    Result unknown = vigil(home, "submit", "--after", "t-99", "--", "true");
    assertEquals(2, unknown.code(), unknown.err());
    assertEquals("vigil: no ticket t-99 to wait for", unknown.err().strip());
    Result bad = vigil(home, "submit", "--after", "first", "--", "true");
    assertEquals(2, bad.code(), bad.err());
    assertTrue(bad.err().contains("--after 'first': not a ticket id (like t-12)"), bad.err());
    Path log = tmp.resolve("file.log");
    Path later = Files.writeString(tmp.resolve("later.txt"), "--after=3 true\n# a comment\ntrue\n");
    Result forward = vigil(home, "submit", "--file", later.toString());
    assertEquals(2, forward.code(), forward.err());
    assertTrue(forward.err().contains("line 1: --after=3 names no earlier line of the file with a command"),
        forward.err());
    Path comment = Files.writeString(tmp.resolve("comment.txt"), "# a comment\n--after=1 true\n");
    assertEquals(2, vigil(home, "submit", "--file", comment.toString()).code(), "line 1 holds no command");
    assertEquals(0, json(vigil(home, "tasks", "--json")).size(), "nothing was queued");

    Path file = Files.writeString(tmp.resolve("chain.txt"), String.join("\n",
        "sh -c 'sleep 1; echo 1 >> " + log + "'",
        "# the next waits for line 1",
        "--after=1 sh -c 'echo 3 >> " + log + "'",
        "--after=3 --after=1 sh -c 'echo 4 >> " + log + "'", ""));
    Result queued = vigil(home, "submit", "--file", file.toString());
    assertEquals(0, queued.code(), queued.err());
    List<String> ids = queued.out().lines().toList();
    assertEquals(3, ids.size(), queued.out());
    JsonNode third = json(vigil(home, "show", ids.get(1), "--json"));
    assertEquals(ids.get(0), third.path("after").get(0).asText());
    JsonNode fourth = json(vigil(home, "show", ids.get(2), "--json"));
    assertEquals(List.of(ids.get(0), ids.get(1)), List.of(fourth.path("after").get(0).asText(),
        fourth.path("after").get(1).asText()));
    assertEquals(0, vigil(home, "wait", ids.get(2), "--timeout", "90s").code());
    assertEquals(List.of("1", "3", "4"), Files.readAllLines(log));
  }

  @Test
  void Q14_aFileOfMoreThanOneBatch_waitsForLinesOfAnEarlierBatchByTheirTickets() throws Exception {
    Path home = CliEndToEndTest.ownerOnlyHome(tmp, "batches", homes);
    assertEquals(0, vigil(home, "up").code());
    StringBuilder text = new StringBuilder();
    int lines = 2_000 + 3; // a batch holds at most 2000 submissions (SubmitBatches.MAX_TICKETS)
    for (int i = 1; i < lines; i++) {
      text.append("true\n");
    }
    text.append("--after=1 --after=").append(lines - 1).append(" true\n");
    Path file = Files.writeString(tmp.resolve("many.txt"), text);
    Result queued = vigil(home, "submit", "--in", "1h", "--file", file.toString());
    assertEquals(0, queued.code(), queued.err());
    List<String> ids = queued.out().lines().toList();
    assertEquals(lines, ids.size());
    JsonNode last = json(vigil(home, "show", ids.get(lines - 1), "--json"));
    assertEquals(List.of(ids.get(0), ids.get(lines - 2)), List.of(last.path("after").get(0).asText(),
        last.path("after").get(1).asText()), "line 1 of the first batch and the line before it, of its own");
  }

  @Test
  void Q14_aDaemonKilledInTheMiddleOfAChain_isFollowedByOneThatRunsTheRestInOrder() throws Exception {
    Path home = CliEndToEndTest.ownerOnlyHome(tmp, "crash", homes);
    Result up = vigil(home, "up");
    assertEquals(0, up.code(), up.err());
    long daemon = Long.parseLong(up.line().substring(4));
    Path log = tmp.resolve("crash.log");
    Path gate = tmp.resolve("crash-gate");
    String a = submitted(vigil(home, "submit", "--", "sh", "-c",
        "while ! test -e '" + gate + "'; do sleep 0.1; done; echo a >> '" + log + "'"));
    String b = submitted(vigil(home, "submit", "--after", a, "--", "sh", "-c", "echo b >> '" + log + "'"));
    String c = submitted(vigil(home, "submit", "--after", b, "--", "sh", "-c", "echo c >> '" + log + "'"));
    poll(home, a, t -> t.path("runs").size() == 1 && "RUNNING".equals(t.path("runs").get(0).path("state").asText()));
    String tasks = vigil(home, "tasks").out();
    assertTrue(tasks.lines().anyMatch(l -> l.startsWith(b + " ") && l.contains(" waits for " + a + " (running)")), tasks);
    JsonNode waiting = json(vigil(home, "show", b, "--json"));
    assertEquals("READY", waiting.path("state").asText());
    assertEquals(a, waiting.path("waitsFor").get(0).path("id").asText());
    assertEquals("LEASED", waiting.path("waitsFor").get(0).path("state").asText());

    new ProcessBuilder("kill", "-9", Long.toString(daemon)).start().waitFor();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (ProcessHandle.of(daemon).map(ProcessHandle::isAlive).orElse(false) && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertTrue(ProcessHandle.of(daemon).map(ph -> !ph.isAlive()).orElse(true), "the daemon is dead");
    Files.createFile(gate); // a ends while no daemon runs
    Thread.sleep(500);
    assertEquals(List.of("a"), Files.readAllLines(log), "nothing started b while no daemon ran");
    Result again = vigil(home, "up");
    assertEquals(0, again.code(), again.err());
    assertEquals(0, vigil(home, "wait", c, "--timeout", "90s").code());
    assertEquals(List.of("a", "b", "c"), Files.readAllLines(log), "the rest ran in order, once each");
    JsonNode done = json(vigil(home, "show", c, "--json"));
    assertEquals(1, done.path("runs").size(), "c ran once");
    assertEquals(0, done.path("waitsFor").size(), "it waits for nothing any more");
  }
}
