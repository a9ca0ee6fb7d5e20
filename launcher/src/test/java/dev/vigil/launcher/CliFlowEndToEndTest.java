package dev.vigil.launcher;

import static dev.vigil.launcher.CliEndToEndTest.finish;
import static dev.vigil.launcher.CliEndToEndTest.json;
import static dev.vigil.launcher.CliEndToEndTest.start;
import static dev.vigil.launcher.CliEndToEndTest.vigil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.launcher.CliEndToEndTest.Result;
import dev.vigil.launcher.internal.DaemonLock;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI's flow end to end, each command a separate JVM against a real daemon: due times
 * ({@code --at}, {@code --in}), files of commands ({@code submit --file}), commands that wait for a
 * daemon being restarted ({@code --wait-daemon}), and {@code logs --follow} that ends with the run.
 */
class CliFlowEndToEndTest {
  @TempDir
  Path tmp;

  private final List<Path> homes = new ArrayList<>();

  private Path newHome(String name) throws IOException {
    return CliEndToEndTest.ownerOnlyHome(tmp, name, homes);
  }

  /** Stops the daemons; a home whose daemon was killed is not waited for. */
  @AfterEach
  void stopDaemons() throws Exception {
    for (Path h : homes) {
      vigil(h, "--wait-daemon", "0", "down", "--stop-workers");
    }
  }

  private static Path write(Path file, String text) throws IOException {
    Files.writeString(file, text, StandardCharsets.UTF_8);
    return file;
  }

  private static int tickets(Path home) throws Exception {
    return json(vigil(home, "tasks", "--json")).size();
  }

  /** One line on stderr that names {@code what}, exit 2. */
  private static void refusedInOneLine(Result r, String what) {
    assertEquals(2, r.code(), r.out() + r.err());
    assertEquals(1, r.err().trim().lines().count(), r.err());
    assertTrue(r.err().startsWith("vigil: ") && r.err().contains(what), r.err());
  }

  private static JsonNode show(Path home, String ticket) throws Exception {
    return json(vigil(home, "show", ticket, "--json"));
  }

  private static JsonNode until(Path home, String ticket, java.util.function.Predicate<JsonNode> done) throws Exception {
    return CliEndToEndTest.poll(home, ticket, done);
  }

  // ---- submit --file ----

  @Test
  void submitFile_queuesOneTicketPerLineInOrder_withEveryOption_andTheWordsReachTheCommandAsWritten() throws Exception {
    Path home = newHome("f1");
    assertEquals(0, vigil(home, "up").code());
    Path jobs = write(tmp.resolve("jobs.txt"), """
        # three commands, quoted as in a terminal

        printf '%s\\n' 'a b' "c \\"d\\"" e\\ f $HOME   # the comment is not a word
          sh -c 'echo "from sh: $0"' 'one arg'
        true\r
        """);
    Result r = vigil(home, "submit", "--file", jobs.toString(), "--priority", "5", "--max-attempts", "2", "--key", "nightly");
    assertEquals(0, r.code(), r.err());
    List<String> ids = r.out().lines().toList();
    assertEquals(3, ids.size(), r.out());
    for (int i = 0; i < 3; i++) {
      assertTrue(ids.get(i).matches("t-[0-9]+"), ids.get(i));
      if (i > 0) {
        assertEquals(Long.parseLong(ids.get(i - 1).substring(2)) + 1, Long.parseLong(ids.get(i).substring(2)),
            "one id per line, in the file's order: " + ids);
      }
    }
    for (String id : ids) {
      JsonNode t = until(home, id, x -> x.path("state").asText().equals("SUCCEEDED"));
      assertEquals(5, t.path("priority").asInt(), "every option applies to each line");
      assertEquals(2, t.path("maxAttempts").asInt());
    }
    Result first = vigil(home, "logs", ids.get(0));
    assertEquals("a b\nc \"d\"\ne f\n$HOME\n", first.out(), "each word reaches the command as written, unexpanded");
    assertEquals("from sh: one arg\n", vigil(home, "logs", ids.get(1)).out());

    Result again = vigil(home, "submit", "--file", jobs.toString(), "--key", "nightly");
    assertEquals(0, again.code(), again.err());
    assertEquals(ids, again.out().lines().toList(), "--key K gives line N the key K:N: the same file queues nothing twice");
    assertEquals(3, tickets(home));
  }

  @Test
  void submitFile_ofAThousandLinesFromStdin_isOneCommandAndOneRoundTrip_andPrintsItsTime() throws Exception {
    Path home = newHome("f2");
    assertEquals(0, vigil(home, "up").code());
    assertEquals(0, vigil(home, "pause").code()); // queue only: a thousand worker starts are not the point here
    StringBuilder text = new StringBuilder();
    for (int i = 1; i <= 1_000; i++) {
      text.append("echo 'job ").append(i).append("' \"$((").append(i).append("))\"\n");
      if (i % 100 == 0) {
        text.append("# another hundred\n\n");
      }
    }
    long t0 = System.nanoTime();
    Process p = start(home, "submit", "--file", "-", "--lane", "default");
    try (OutputStream in = p.getOutputStream()) {
      in.write(text.toString().getBytes(StandardCharsets.UTF_8));
    }
    Result r = finish(p);
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertEquals(0, r.code(), r.err());
    List<String> ids = r.out().lines().toList();
    assertEquals(1_000, ids.size());
    for (int i = 1; i < ids.size(); i++) {
      assertEquals(Long.parseLong(ids.get(i - 1).substring(2)) + 1, Long.parseLong(ids.get(i).substring(2)));
    }
    System.out.println("vigil submit --file - with 1000 lines: " + ms + " ms for the whole command (one JVM start, "
        + "one round trip)");
    assertEquals(1_000, tickets(home));
    JsonNode last = show(home, ids.get(999));
    assertEquals("{\"argv\":[\"echo\",\"job 1000\",\"$((1000))\"]}", last.path("payload").toString());
  }

  @Test
  void submitFile_aBadLineOrALaneTheDaemonDoesNotHave_refusesTheWholeFile_andQueuesNothing() throws Exception {
    Path home = newHome("f3");
    assertEquals(0, vigil(home, "up").code());
    Path bad = write(tmp.resolve("bad.txt"), "true\ntrue\n\n# fine so far\ntrue\ntrue\necho 'oops\ntrue\n");
    Result r = vigil(home, "submit", "--file", bad.toString());
    refusedInOneLine(r, "--file " + bad + ": line 7: unbalanced single quote (opened at column 6)");
    assertEquals("", r.out(), "no id printed");
    Path good = write(tmp.resolve("good.txt"), "true\ntrue\n");
    Result lane = vigil(home, "submit", "--lane", "nowhere", "--file", good.toString());
    refusedInOneLine(lane, "lane 'nowhere' is not configured");
    assertTrue(lane.err().trim().endsWith("nothing was queued"), lane.err());
    refusedInOneLine(vigil(home, "submit", "--type", "ruby", "--file", good.toString()), "worker type 'ruby'");
    refusedInOneLine(vigil(home, "submit", "--file", tmp.resolve("missing.txt").toString()), "no such file");
    refusedInOneLine(vigil(home, "submit", "--file", good.toString(), "--", "true"), "--file and a command");
    refusedInOneLine(vigil(home, "submit", "--file", good.toString(), "--key", "k".repeat(199)), "--key");
    refusedInOneLine(vigil(home, "submit", "--file", write(tmp.resolve("pipe.txt"), "ls | wc -l\n").toString()),
        "line 1: '|' is a shell operator");
    Result empty = vigil(home, "submit", "--file", write(tmp.resolve("empty.txt"), "# nothing\n\n").toString());
    assertEquals(0, empty.code(), empty.err());
    assertTrue(empty.err().contains("no commands"), empty.err());
    assertEquals(0, tickets(home), "nothing was queued by any of them");
  }

  // ---- --at, --in ----

  @Test
  void atAndIn_setWhenTheTaskIsDue_andBadOrConflictingTimesQueueNothing() throws Exception {
    Path home = newHome("w1");
    assertEquals(0, vigil(home, "up").code());
    long before = System.currentTimeMillis();
    String in = vigil(home, "submit", "--in", "1h", "--", "true").line();
    String notBefore = vigil(home, "submit", "--not-before", "1h", "--", "true").line();
    long after = System.currentTimeMillis();
    for (String t : List.of(in, notBefore)) {
      long due = show(home, t).path("notBeforeMs").asLong();
      assertTrue(due >= before + 3_600_000 && due <= after + 3_600_000, t + " due at " + due);
      assertEquals("READY", show(home, t).path("state").asText());
    }

    OffsetDateTime dayAfter = OffsetDateTime.now().plusDays(2).truncatedTo(ChronoUnit.SECONDS);
    String exact = vigil(home, "submit", "--at", dayAfter.toString(), "--", "true").line();
    assertEquals(dayAfter.toInstant().toEpochMilli(), show(home, exact).path("notBeforeMs").asLong());

    ZonedDateTime now = ZonedDateTime.now();
    LocalTime clock = now.toLocalTime().plusMinutes(5).truncatedTo(ChronoUnit.MINUTES);
    ZonedDateTime today = now.with(clock);
    ZonedDateTime expected = today.isAfter(now) ? today : ZonedDateTime.of(now.toLocalDate().plusDays(1), clock,
        now.getZone());
    String hhmm = String.format("%02d:%02d", clock.getHour(), clock.getMinute());
    String atClock = vigil(home, "submit", "--at", hhmm, "--", "true").line();
    assertEquals(expected.toInstant().toEpochMilli(), show(home, atClock).path("notBeforeMs").asLong(),
        "--at " + hhmm + ": the next time the local clock shows it");

    String soon = vigil(home, "submit", "--in", "2s", "--", "true").line();
    long soonDue = show(home, soon).path("notBeforeMs").asLong();
    JsonNode ran = until(home, soon, t -> t.path("state").asText().equals("SUCCEEDED"));
    assertTrue(ran.path("runs").get(0).path("claimedAtMs").asLong() >= soonDue, "not claimed before it was due: " + ran);
    assertEquals("READY", show(home, in).path("state").asText(), "the others wait for their time");
    String waiting = vigil(home, "tasks").out();
    assertTrue(waiting.lines().anyMatch(l -> l.startsWith(in + " ") && l.matches(".* due in (59m[0-9]+s|1h)\\b.*")),
        "tasks says when a ticket waiting for its time is due: " + waiting);
    String detail = vigil(home, "show", in).out();
    assertTrue(detail.lines().anyMatch(l -> l.trim().startsWith("due ") && l.contains("(in ")), detail);

    int queued = tickets(home);
    refusedInOneLine(vigil(home, "submit", "--at", "banana", "--", "true"), "--at 'banana' is not a time");
    refusedInOneLine(vigil(home, "submit", "--at", "2020-01-01T00:00", "--", "true"), "--at '2020-01-01T00:00' has passed");
    refusedInOneLine(vigil(home, "submit", "--at", "25:00", "--", "true"), "--at '25:00'");
    refusedInOneLine(vigil(home, "submit", "--at", "12:00", "--in", "5m", "--", "true"), "--at and --in exclude each other");
    refusedInOneLine(vigil(home, "submit", "--in", "5m", "--not-before", "5m", "--", "true"), "exclude each other");
    refusedInOneLine(vigil(home, "submit", "--in", "soon", "--", "true"), "--in 'soon' is not a duration");
    refusedInOneLine(vigil(home, "--wait-daemon", "forever", "submit", "--", "true"), "--wait-daemon");
    refusedInOneLine(vigil(home, "submit", "--wait-daemon=-1s", "--", "true"), "--wait-daemon");
    assertEquals(queued, tickets(home), "nothing queued by a bad time");
  }

  // ---- --wait-daemon ----

  @Test
  void aCommandWaitsForADaemonBeingRestarted_andFailsAtOnceWhereClearlyNoneRuns() throws Exception {
    Path empty = newHome("d0");
    long t0 = System.nanoTime();
    Result none = vigil(empty, "--wait-daemon", "60s", "status");
    long noneMs = (System.nanoTime() - t0) / 1_000_000;
    assertEquals(4, none.code());
    assertTrue(none.err().contains("no daemon running on"), none.err());
    assertTrue(noneMs < 30_000, "an empty home has clearly no daemon: no wait for the 60s (" + noneMs + " ms)");

    Path stale = newHome("d1");
    Files.writeString(stale.resolve("daemon.json"), "{\"schema\":1,\"pid\":999999,\"pid_start\":1,\"heartbeat_at\":"
        + (System.currentTimeMillis() - 120_000) + "}");
    t0 = System.nanoTime();
    assertEquals(4, vigil(stale, "--wait-daemon", "60s", "submit", "--", "true").code());
    assertTrue((System.nanoTime() - t0) / 1_000_000 < 30_000, "a stale status file is no daemon: no wait");

    Path home = newHome("d2");
    long daemon = Long.parseLong(vigil(home, "up").line().substring(4));
    new ProcessBuilder("kill", "-9", Long.toString(daemon)).start().waitFor();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (ProcessHandle.of(daemon).map(ProcessHandle::isAlive).orElse(false) && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertEquals(4, vigil(home, "--wait-daemon", "0", "status").code(), "--wait-daemon 0 does not wait");
    t0 = System.nanoTime();
    Result gaveUp = vigil(home, "--wait-daemon", "2s", "status");
    assertEquals(4, gaveUp.code());
    assertTrue((System.nanoTime() - t0) / 1_000_000 >= 2_000, "a daemon killed a moment ago may be restarted: it waited");
    assertTrue(gaveUp.err().contains("no daemon answered on " + home + " within 2s (daemon.json is fresh (pid " + daemon),
        gaveUp.err());

    Process waiting = start(home, "--wait-daemon", "90s", "submit", "--", "true"); // 90s: the machine may be slow
    Thread.sleep(2_500);
    assertTrue(waiting.isAlive(), "the submission waits for the daemon to come back");
    Result up = vigil(home, "up");
    assertEquals(0, up.code(), up.err());
    Result submitted = finish(waiting);
    assertEquals(0, submitted.code(), submitted.err());
    assertTrue(submitted.line().matches("t-[0-9]+"), submitted.out());
    assertTrue(submitted.err().contains("waiting up to 1m30s for the daemon on " + home), submitted.err());
    assertEquals("SUCCEEDED", until(home, submitted.line(), t -> t.path("state").asText().equals("SUCCEEDED"))
        .path("state").asText());

    Path locked = newHome("d3");
    try (DaemonLock lock = DaemonLock.tryAcquire(locked.resolve("daemon.lock")).orElseThrow()) {
      t0 = System.nanoTime();
      Result held = vigil(locked, "--wait-daemon", "1500ms", "tasks");
      assertEquals(4, held.code());
      assertTrue((System.nanoTime() - t0) / 1_000_000 >= 1_500, "a live holder of the lock is a daemon starting");
      assertTrue(held.err().contains("(pid " + ProcessHandle.current().pid() + " holds its lock but does not answer yet)"),
          held.err());
    }
  }

  // ---- logs --follow ----

  @Test
  void logsFollow_endsWhenTheRunSettlesWithItsVerdict_waitsForRunsNotStarted_andFollowsATicketThroughItsRetries()
      throws Exception {
    Path home = newHome("l1");
    assertEquals(0, vigil(home, "up").code());
    String failing = vigil(home, "submit", "--in", "15s", "--max-attempts", "2", "--", // 15s: logs starts first, even on a loaded machine
        "sh", "-c", "echo to-out; sleep 1; echo to-err >&2; exit 2").line();
    Result run1 = vigil(home, "logs", failing + ".1", "--follow");
    assertEquals(1, run1.code(), run1.err());
    assertEquals("to-out\n", run1.out());
    assertTrue(run1.err().contains("has not started yet, waiting for it"), "it waited for the run: " + run1.err());
    assertTrue(run1.err().contains("to-err\n"), run1.err());
    assertTrue(run1.err().trim().endsWith("vigil: " + failing + ".1 FAILED: exit code 2"), run1.err());

    Result ticket = vigil(home, "logs", failing, "--follow");
    assertEquals(1, ticket.code(), ticket.err());
    assertTrue(ticket.out().contains("to-out"), ticket.out());
    assertTrue(ticket.err().contains("vigil: " + failing + ".2 FAILED: exit code 2"), "the retry was followed: "
        + ticket.err());
    String end = ticket.err().trim().lines().reduce((a, b) -> b).orElse("");
    assertTrue(end.startsWith("vigil: " + failing + " is HELD") && end.endsWith("; vigil release " + failing
        + " to let it run again"), ticket.err());
    assertEquals("HELD", show(home, failing).path("state").asText());

    String fine = vigil(home, "submit", "--", "sh", "-c", "sleep 1; echo done").line();
    Result ok = vigil(home, "logs", fine, "--follow");
    assertEquals(0, ok.code(), ok.err());
    assertEquals("done\n", ok.out());
    assertTrue(ok.err().trim().endsWith("vigil: " + fine + ".1 SUCCEEDED: exit code 0"), ok.err());
    Result okAgain = vigil(home, "logs", fine + ".1", "--follow");
    assertEquals(0, okAgain.code(), "a settled run ends at once: " + okAgain.err());

    Result plain = vigil(home, "logs", failing + ".1");
    assertEquals(0, plain.code(), plain.err());
    assertEquals("to-out\n", plain.out(), "without --follow: what there is");
    assertEquals("to-out\n", vigil(home, "logs", failing).out(), "a ticket: its latest run");

    Result never = vigil(home, "logs", failing + ".7", "--follow");
    assertEquals(1, never.code(), never.err());
    assertTrue(never.err().contains(failing + ".7 has not started: " + failing + " is HELD"), never.err());
    refusedInOneLine(vigil(home, "logs", fine + ".2", "--follow"), "no such run: " + fine + ".2 (" + fine
        + " is SUCCEEDED after 1 runs)");
    refusedInOneLine(vigil(home, "logs", "t-999", "--follow"), "no such ticket t-999");
    refusedInOneLine(vigil(home, "logs", "t-999.1"), "no such run: t-999.1");
    refusedInOneLine(vigil(home, "logs", "banana"), "'banana' is not a run or ticket id");
    assertFalse(Files.exists(home.resolve("runs").resolve(failing + ".3")), "nothing else ran");
  }
}
