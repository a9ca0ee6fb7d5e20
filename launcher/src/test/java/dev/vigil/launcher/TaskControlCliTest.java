package dev.vigil.launcher;

import static dev.vigil.launcher.CliEndToEndTest.finish;
import static dev.vigil.launcher.CliEndToEndTest.json;
import static dev.vigil.launcher.CliEndToEndTest.poll;
import static dev.vigil.launcher.CliEndToEndTest.vigil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.launcher.CliEndToEndTest.Result;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task control end to end, every command a separate JVM running {@link Main} against a daemon of
 * {@code vigil up} on real processes: where and with what a task runs, the exit it shows, time
 * limits, kills, releases with attempts, retries, labels, the event stream, and bad input.
 */
class TaskControlCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SECRET = "s3cret-" + Long.toHexString(System.nanoTime());

  @TempDir
  Path tmp;

  private final List<Path> homes = new ArrayList<>();
  private final List<Process> followers = new ArrayList<>();

  private Path newHome(String name) throws IOException {
    Path h = tmp.resolve(name);
    Files.createDirectory(h, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    homes.add(h);
    return h;
  }

  @AfterEach
  void stop() throws Exception {
    for (Process p : followers) {
      p.destroyForcibly().waitFor();
    }
    for (Path h : homes) {
      vigil(h, "down", "--stop-workers");
    }
  }

  /** {@code vigil} run from {@code cwd} with {@code env} added to the test's environment. */
  static Process startIn(Path home, Path cwd, Map<String, String> env, String... args) throws IOException {
    List<String> cmd = new ArrayList<>(CliJvm.prefix());
    cmd.addAll(List.of(Main.class.getName(), "--home", home.toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd.toFile());
    pb.environment().remove("VIGIL_HOME");
    pb.environment().putAll(env);
    return pb.start();
  }

  static Result vigilIn(Path home, Path cwd, Map<String, String> env, String... args) throws Exception {
    return finish(startIn(home, cwd, env, args));
  }

  private static JsonNode settled(Path home, String ticket) throws Exception {
    return poll(home, ticket, t -> !t.path("state").asText().equals("READY") && !t.path("state").asText().equals("LEASED")
        && t.path("runs").size() > 0);
  }

  private static JsonNode lastRun(JsonNode t) {
    return t.path("runs").get(t.path("runs").size() - 1);
  }

  private static String submitted(Result r) {
    assertEquals(0, r.code(), r.err());
    assertTrue(r.line().matches("t-[0-9]+"), r.out());
    return r.line();
  }

  private static List<String> names(JsonNode env) {
    List<String> out = new ArrayList<>();
    env.forEach(n -> out.add(n.asText()));
    return out;
  }

  /** Every file under the home but the store itself: none may hold a value of a recorded environment. */
  private static void noFileHolds(Path home, String value) throws IOException {
    try (Stream<Path> files = Files.walk(home)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        if (f.getFileName().toString().endsWith(".mv.db") || f.getFileName().toString().equals("vigil.sock")) {
          continue;
        }
        assertFalse(Files.readString(f, StandardCharsets.ISO_8859_1).contains(value), "a value of the environment in " + f);
      }
    }
  }

  @Test
  void aTaskRunsWhereTheSubmitterStands_withTheirEnvironment_andItsValuesStayInTheStore() throws Exception {
    Path home = newHome("place");
    assertEquals(0, vigil(home, "up").code());
    Path here = Files.createDirectory(tmp.resolve("project dir"));
    Files.writeString(here.resolve("localfile"), "from the local file\n");
    Map<String, String> env = Map.of("MYVAR", "x", "TOKEN", SECRET);

    String t1 = submitted(vigilIn(home, here, env, "submit", "--", "sh", "-c", "echo $MYVAR; cat localfile"));
    JsonNode done = settled(home, t1);
    assertEquals("SUCCEEDED", done.path("state").asText(), done.toString());
    Result logs = vigil(home, "logs", t1 + ".1");
    assertEquals("x\nfrom the local file\n", logs.out());
    assertEquals(here.toAbsolutePath().toString(), done.path("spec").path("workDir").asText());
    assertTrue(names(done.path("spec").path("env")).containsAll(List.of("MYVAR", "TOKEN", "PATH")), done.toString());

    // --cwd and --env override; --clean-env keeps PATH, HOME, LANG and USER only
    Path other = Files.createDirectory(tmp.resolve("other"));
    String t2 = submitted(vigilIn(home, here, env, "submit", "--cwd", "../other", "--clean-env", "--env", "MYVAR=y z",
        "--", "sh", "-c", "pwd; echo \"$MYVAR\"; env | cut -d= -f1 | sort | tr '\\n' ' '"));
    assertEquals("SUCCEEDED", settled(home, t2).path("state").asText());
    List<String> out = vigil(home, "logs", t2 + ".1").out().lines().toList();
    assertEquals(other.toAbsolutePath().toString(), out.get(0));
    assertEquals("y z", out.get(1));
    List<String> seen = new ArrayList<>(List.of(out.get(2).trim().split(" ")));
    seen.removeAll(List.of("PWD", "SHLVL", "_", "OLDPWD"));
    List<String> expected = new ArrayList<>(List.of("MYVAR", "PATH"));
    for (String n : List.of("HOME", "LANG", "USER")) {
      if (System.getenv(n) != null) {
        expected.add(n);
      }
    }
    expected.sort(null);
    assertEquals(expected, seen, "a clean environment and the variables added");

    // the values are shown nowhere: show, --json, tasks, runs, the journal, any file of the home
    for (String[] view : List.of(new String[] {"show", t1}, new String[] {"show", t1, "--json"},
        new String[] {"tasks"}, new String[] {"tasks", "--json"}, new String[] {"runs", "--json"},
        new String[] {"events", "--json"}, new String[] {"status", "--json"})) {
      Result r = vigil(home, view);
      assertEquals(0, r.code(), r.err());
      assertFalse(r.out().contains(SECRET), "no value in " + String.join(" ", view) + ": " + r.out());
    }
    assertTrue(vigil(home, "show", t1).out().contains("TOKEN"), "the names are shown");
    noFileHolds(home, SECRET);
  }

  @Test
  void aDirectoryGoneAtRunTimeHolds_aCommandThatCannotRunFailsForGood_andTheExitShownIsTheCommandsOwn() throws Exception {
    Path home = newHome("ends");
    Path config = tmp.resolve("crashing-service.json");
    Files.writeString(config, "{ \"services\": [ { \"name\": \"crasher\", \"type\": \"command\", "
        + "\"payload\": { \"argv\": [\"sh\", \"-c\", \"sleep 1; exit 7\"] } } ] }");
    assertEquals(0, vigil(home, "up", "--config", config.toString()).code());
    assertEquals(0, vigil(home, "pause").code());
    Path gone = Files.createDirectory(tmp.resolve("soon gone"));
    String blocked = submitted(vigil(home, "submit", "--cwd", gone.toString(), "--", "true"));
    Files.delete(gone);
    String missing = submitted(vigil(home, "submit", "--", "no-such-program-4711"));
    String falseOne = submitted(vigil(home, "submit", "--max-attempts", "1", "--", "false"));
    String signalled = submitted(vigil(home, "submit", "--max-attempts", "1", "--", "sh", "-c", "kill -9 $$"));
    assertEquals(0, vigil(home, "resume").code());

    JsonNode b = settled(home, blocked);
    assertEquals("HELD", b.path("state").asText(), "a gone directory holds the ticket");
    assertEquals("BLOCKED", lastRun(b).path("verdict").asText());
    assertEquals(0, b.path("attemptsUsed").asInt(), "no attempt spent");
    assertTrue(b.path("holdReason").asText().contains(gone.toString()), b.toString());

    JsonNode m = settled(home, missing);
    assertEquals("FAILED", m.path("state").asText());
    assertEquals(1, m.path("runs").size(), "not retried");
    assertEquals("PERMANENT_FAILURE", lastRun(m).path("verdict").asText());
    assertTrue(lastRun(m).path("diagnosis").asText().contains("No such file or directory"), m.toString());
    assertEquals(127, lastRun(m).path("exitCode").asInt(), "a command not found shows 127, as a shell reports it: " + m);

    JsonNode f = settled(home, falseOne);
    assertEquals(1, lastRun(f).path("exitCode").asInt(), "`false` shows exit 1: " + f);
    assertTrue(lastRun(f).path("exit").path("exitCode").isInt());
    JsonNode s = settled(home, signalled);
    assertTrue(lastRun(s).path("exitCode").isNull(), s.toString());
    assertEquals(9, lastRun(s).path("signal").asInt(), "a signal shows as that signal: " + s);
    String runs = vigil(home, "runs").out();
    assertTrue(runs.lines().anyMatch(l -> l.startsWith(falseOne + ".1") && l.contains("exit 1")), runs);
    assertTrue(runs.lines().anyMatch(l -> l.startsWith(signalled + ".1") && l.contains("signal 9")), runs);
    assertTrue(vigil(home, "show", falseOne).out().contains("exit 1"));
    assertTrue(vigil(home, "watch", "--once").out().contains("exit 1"), "the latest settlements show the exit");

    Path journal = home.resolve("logs").resolve("journal.jsonl");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!Files.readString(journal).contains("worker exited (code 7)")) {
      assertTrue(System.nanoTime() < deadline, "a crashing service's restart names its command's exit code");
      Thread.sleep(300);
    }
  }

  @Test
  void aTimeLimitStopsTheRun_failedTimedOut_spendingAnAttempt_andALaneDefaultApplies() throws Exception {
    Path home = newHome("timeouts");
    Path config = tmp.resolve("lanes.json");
    Files.writeString(config, "{ \"lanes\": { \"slow\": { \"concurrency\": 1, \"timeout\": \"2s\" } } }");
    assertEquals(0, vigil(home, "up", "--config", config.toString()).code());
    String own = submitted(vigil(home, "submit", "--timeout", "2s", "--max-attempts", "1", "--", "sleep", "60"));
    String lane = submitted(vigil(home, "submit", "--lane", "slow", "--max-attempts", "1", "--", "sleep", "60"));
    String quick = submitted(vigil(home, "submit", "--timeout", "1m", "--", "true"));
    for (String t : List.of(own, lane)) {
      JsonNode h = settled(home, t);
      assertEquals("HELD", h.path("state").asText(), h.toString());
      assertEquals(1, h.path("attemptsUsed").asInt(), "a time-out spends an attempt");
      assertEquals("FAILED", lastRun(h).path("verdict").asText());
      assertEquals("timed out after 2s", lastRun(h).path("diagnosis").asText());
      assertEquals(2_000, lastRun(h).path("start").path("timeoutMs").asLong());
    }
    assertEquals("SUCCEEDED", settled(home, quick).path("state").asText());
    String events = vigil(home, "events").out();
    assertTrue(events.lines().anyMatch(l -> l.contains(own + ".1") && l.contains("time limit reached")), events);
  }

  @Test
  void aRestartedDaemonEnforcesTheSameDeadline() throws Exception {
    Path home = newHome("deadline");
    long daemon = Long.parseLong(vigil(home, "up").line().substring(4));
    String t = submitted(vigil(home, "submit", "--timeout", "8s", "--max-attempts", "1", "--", "sleep", "60"));
    JsonNode running = poll(home, t, x -> x.path("runs").size() == 1
        && "RUNNING".equals(x.path("runs").get(0).path("state").asText()));
    long startedAt = running.path("runs").get(0).path("start").path("startedAtMs").asLong();
    new ProcessBuilder("kill", "-9", Long.toString(daemon)).start().waitFor();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (ProcessHandle.of(daemon).map(ProcessHandle::isAlive).orElse(false) && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertEquals(0, vigil(home, "up").code());
    long upAt = System.currentTimeMillis();
    JsonNode h = settled(home, t);
    JsonNode run = lastRun(h);
    assertEquals(1, h.path("runs").size(), "the same run, readopted: nothing ran twice");
    assertEquals("timed out after 8s", run.path("diagnosis").asText());
    long endedAt = run.path("exit").path("atMs").asLong();
    assertTrue(endedAt >= startedAt + 8_000, "never before its deadline: " + (endedAt - startedAt) + " ms");
    assertTrue(upAt - startedAt < 7_000 ? endedAt < upAt + 6_500 : true,
        "the deadline counts from the run's start, not the new daemon's: ended " + (endedAt - upAt) + " ms after the restart");
  }

  @Test
  void killStopsARunningTask_noAttemptSpent_andTheTicketGoesWhereTheKillSaid() throws Exception {
    Path home = newHome("kills");
    assertEquals(0, vigil(home, "up").code());
    String cancel = submitted(vigil(home, "submit", "--max-attempts", "1", "--", "sleep", "600"));
    String retry = submitted(vigil(home, "submit", "--", "sh", "-c", "sleep 600"));
    for (String t : List.of(cancel, retry)) {
      poll(home, t, x -> x.path("runs").size() == 1 && "RUNNING".equals(x.path("runs").get(0).path("state").asText()));
    }
    assertTrue(vigil(home, "show", cancel).out().contains("attempt 1 of 1"), "a running first attempt");
    Result refusedCancel = vigil(home, "cancel", cancel);
    assertEquals(3, refusedCancel.code());
    assertTrue(refusedCancel.err().contains("vigil kill " + cancel), refusedCancel.err());
    Result refusedHold = vigil(home, "hold", cancel);
    assertEquals(3, refusedHold.code());
    assertTrue(refusedHold.err().contains("vigil kill " + cancel + " --hold"), refusedHold.err());

    long pid = json(vigil(home, "show", cancel, "--json")).path("runs").get(0).path("pid").asLong();
    Result k = vigil(home, "kill", cancel);
    assertEquals(0, k.code(), k.err());
    assertTrue(k.out().contains("the ticket will be cancelled"), k.out());
    JsonNode c = settled(home, cancel);
    assertEquals("CANCELLED", c.path("state").asText());
    assertEquals("KILLED", lastRun(c).path("verdict").asText());
    assertEquals(0, c.path("attemptsUsed").asInt(), "a kill spends no attempt");
    assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "the worker is gone");

    assertEquals(0, vigil(home, "kill", retry + ".1", "--retry").code(), "a run can be named");
    JsonNode again = poll(home, retry, x -> x.path("runs").size() == 2
        && "RUNNING".equals(x.path("runs").get(1).path("state").asText()));
    assertEquals("KILLED", again.path("runs").get(0).path("verdict").asText());
    assertEquals(1, again.path("runs").get(1).path("attempt").asInt(), "queued again as the same attempt");
    assertEquals(0, vigil(home, "kill", retry, "--hold").code());
    JsonNode held = settled(home, retry);
    assertEquals("HELD", held.path("state").asText());
    assertEquals(0, held.path("attemptsUsed").asInt());

    Result notRunning = vigil(home, "kill", cancel);
    assertEquals(3, notRunning.code());
    assertTrue(notRunning.err().contains("is not running"), notRunning.err());
    String events = vigil(home, "events").out();
    assertTrue(events.lines().anyMatch(l -> l.contains(cancel + ".1") && l.contains("kill asked")), events);
  }

  @Test
  void releaseGrantsAttempts_retryQueuesTheSameWork_labelsFilter_andEventsFollow() throws Exception {
    Path home = newHome("retries");
    assertEquals(0, vigil(home, "up").code());
    Process follower = startIn(home, tmp, Map.of(), "events", "--follow", "--json");
    followers.add(follower);
    BlockingQueue<String> followed = new ArrayBlockingQueue<>(1000);
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(follower.getInputStream(), StandardCharsets.UTF_8))) {
        for (String l = r.readLine(); l != null; l = r.readLine()) {
          followed.add(l);
        }
      } catch (IOException e) {
        // the follower was stopped
      }
    });
    reader.setDaemon(true);
    reader.start();
    Thread.sleep(3_000); // the follower starts following from now

    String failing = submitted(vigil(home, "submit", "--max-attempts", "1", "--label", "team=a", "--label", "kind=x",
        "--", "sh", "-c", "exit 3"));
    assertEquals("HELD", settled(home, failing).path("state").asText());
    assertTrue(vigil(home, "show", failing).out().contains("attempt 1 of 1"));
    assertEquals(0, vigil(home, "release", failing).code());
    JsonNode second = poll(home, failing, x -> x.path("runs").size() == 2 && x.path("state").asText().equals("HELD"));
    assertEquals(1, second.path("attemptsGranted").asInt());
    String shown = vigil(home, "show", failing).out();
    assertTrue(shown.contains("attempt 2 of 2 (1 granted)"), "never 2/1: " + shown);
    assertTrue(second.path("holdReason").asText().startsWith("attempts exhausted (2 of 2)"), second.toString());
    assertEquals(0, vigil(home, "release", failing, "--attempts", "2").code());
    poll(home, failing, x -> x.path("runs").size() == 3);
    assertEquals(4, settled(home, failing).path("allowedAttempts").asInt(), "two more granted");

    JsonNode beforeRetry = poll(home, failing, x -> x.path("runs").size() == 4 && x.path("state").asText().equals("HELD"));
    Result r = vigil(home, "retry", failing);
    String fresh = submitted(r);
    JsonNode original = json(vigil(home, "show", failing, "--json"));
    assertEquals("CANCELLED", original.path("state").asText(), "a held original never runs beside its retry");
    assertEquals(fresh, original.path("retriedAs").asText());
    JsonNode copy = json(vigil(home, "show", fresh, "--json"));
    assertEquals(failing, copy.path("retryOf").asText());
    assertTrue(copy.path("payload").isObject(), "a payload is a JSON object: " + copy.path("payload"));
    assertEquals(beforeRetry.path("payload"), copy.path("payload"));
    assertEquals(beforeRetry.path("labels"), copy.path("labels"));
    assertEquals(beforeRetry.path("spec").path("workDir"), copy.path("spec").path("workDir"));
    assertTrue(vigil(home, "show", fresh).out().contains("retry of     " + failing));
    assertTrue(vigil(home, "show", failing).out().contains("retried as   " + fresh));
    Result twice = vigil(home, "retry", failing);
    assertEquals(3, twice.code());
    assertTrue(twice.err().contains("retried already as " + fresh), twice.err());

    String other = submitted(vigil(home, "submit", "--label", "team=b", "--", "true"));
    settled(home, other);
    JsonNode teamA = json(vigil(home, "tasks", "--label", "team=a", "--json"));
    assertEquals(List.of(failing, fresh), List.of(teamA.get(0).path("id").asText(), teamA.get(1).path("id").asText()));
    assertEquals(2, teamA.size());
    String list = vigil(home, "tasks").out();
    assertTrue(list.lines().anyMatch(l -> l.startsWith(other) && l.contains("true") && l.contains("[team=b]")), list);
    assertTrue(list.lines().anyMatch(l -> l.startsWith(failing) && l.contains("sh -c 'exit 3'")
        && l.contains("kind=x, team=a")), list);

    List<JsonNode> all = new ArrayList<>();
    for (String l : vigil(home, "events", "--json").out().lines().toList()) {
      all.add(JSON.readTree(l));
    }
    for (int i = 0; i < all.size(); i++) {
      assertEquals(i + 1, all.get(i).path("id").asLong(), "ids in order without gaps");
    }
    assertTrue(all.stream().anyMatch(e -> e.path("kind").asText().equals("HELD") && e.path("ticket").asText()
        .equals(failing)));
    long last = all.get(all.size() - 1).path("id").asLong();
    assertEquals(List.of(), vigil(home, "events", "--since", Long.toString(last)).out().lines().toList());
    assertEquals(1, vigil(home, "events", "--since", Long.toString(last - 1)).out().lines().count());

    // the follower printed each of them once, in order, as they came
    List<Long> ids = new ArrayList<>();
    long wait = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (ids.size() < all.size() && System.nanoTime() < wait) {
      String l = followed.poll(1, TimeUnit.SECONDS);
      if (l != null) {
        ids.add(JSON.readTree(l).path("id").asLong());
      }
    }
    assertEquals(all.stream().map(e -> e.path("id").asLong()).toList(), ids);
  }

  @Test
  void badValuesOfTheNewOptions_exit2_withOneLineNamingTheOption_andQueueNothing() throws Exception {
    Path home = newHome("bad");
    assertEquals(0, vigil(home, "up").code());
    String[][] bad = {
        {"submit", "--timeout", "banana", "--", "true"}, {"submit", "--timeout", "0s", "--", "true"},
        {"submit", "--env", "NOEQUALS", "--", "true"}, {"submit", "--env", "=x", "--", "true"},
        {"submit", "--cwd", "/no/such/dir", "--", "true"}, {"submit", "--label", "novalue", "--", "true"},
        {"submit", "--label", "bad name=x", "--", "true"}, {"release", "t-1", "--attempts", "0"},
        {"release", "t-1", "--attempts", "many"}, {"kill", "banana"}, {"kill", "t-1", "--retry", "--hold"},
        {"events", "--since", "yesterday"}, {"tasks", "--label", "team"}};
    String[] option = {"--timeout", "--timeout", "--env", "--env", "--cwd", "--label", "--label", "--attempts",
        "--attempts", "banana", "--retry", "--since", "--label"};
    for (int i = 0; i < bad.length; i++) {
      Result r = vigil(home, bad[i]);
      assertEquals(2, r.code(), String.join(" ", bad[i]) + ": " + r.err());
      assertEquals(1, r.err().trim().lines().count(), r.err());
      assertTrue(r.err().contains(option[i]), "names " + option[i] + ": " + r.err());
    }
    Result banana = vigil(home, "submit", "--timeout", "banana", "--", "true");
    assertEquals("vigil: --timeout 'banana': not a duration (like 30s, 5m, 1h)", banana.err().trim());
    assertEquals(0, json(vigil(home, "tasks", "--json")).size(), "nothing was queued");
  }
}
