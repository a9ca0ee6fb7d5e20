package dev.vigil.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI end to end: every command is a separate JVM running {@link Main}, the daemon is detached by
 * {@code vigil up} (real processes, the real socket, a real H2 file, real {@code kill -9}).
 */
class CliEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path tmp;

  private final List<Path> homes = new ArrayList<>();

  record Result(int code, String out, String err) {
    String line() {
      return out.trim();
    }
  }

  private Path newHome(String name) throws IOException {
    return ownerOnlyHome(tmp, name, homes);
  }

  /** A new empty home {@code parent/name} (0700), added to {@code homes} for the daemons to be stopped after the test. */
  static Path ownerOnlyHome(Path parent, String name, List<Path> homes) throws IOException {
    Path h = parent.resolve(name);
    Files.createDirectory(h, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    homes.add(h);
    return h;
  }

  @AfterEach
  void stopDaemons() throws Exception {
    for (Path h : homes) {
      vigil(h, "down", "--stop-workers");
    }
  }

  static Process start(Path home, String... args) throws IOException {
    List<String> cmd = new ArrayList<>(CliJvm.prefix());
    cmd.addAll(List.of(Main.class.getName(), "--home", home.toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().remove("VIGIL_HOME");
    return pb.start();
  }

  static Result finish(Process p) throws Exception {
    byte[][] streams = new byte[2][];
    Thread t = new Thread(() -> {
      try {
        streams[1] = p.getErrorStream().readAllBytes();
      } catch (IOException e) {
        streams[1] = new byte[0];
      }
    });
    t.start();
    streams[0] = p.getInputStream().readAllBytes();
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the vigil command finished");
    t.join();
    return new Result(p.exitValue(), new String(streams[0], StandardCharsets.UTF_8),
        new String(streams[1], StandardCharsets.UTF_8));
  }

  static Result vigil(Path home, String... args) throws Exception {
    return finish(start(home, args));
  }

  static JsonNode json(Result r) throws IOException {
    assertEquals(0, r.code(), r.err());
    return JSON.readTree(r.out());
  }

  /**
   * Waits, for at most 90 seconds, until {@code ticket} as {@code vigil show TICKET --json} prints it
   * passes {@code until}, and returns it; fails with the ticket as last seen. Each look is the CLI's own
   * {@code show} made in this JVM (the daemon's answer over its socket, or the store's reading when no
   * daemon runs), not a CLI JVM of its own: the suites wait like this some eighty times a build, and a
   * JVM per look costs about half a CPU-second where the look itself costs milliseconds. The tests
   * call the CLI itself for what they test.
   */
  static JsonNode poll(Path home, String ticket, java.util.function.Predicate<JsonNode> until) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (true) {
      JsonNode t = shown(home, ticket);
      if (until.test(t)) {
        return t;
      }
      assertTrue(System.nanoTime() < deadline, "ticket reached the expected state in time: " + t);
      Thread.sleep(300);
    }
  }

  /** {@code ticket} as {@code vigil show TICKET --json} prints it, read in this JVM. */
  static JsonNode shown(Path home, String ticket) {
    com.fasterxml.jackson.databind.node.ObjectNode args = Main.args();
    args.put("ticket", ticket);
    return Main.view(new dev.vigil.launcher.internal.Home(home), "show", args).path("ticket");
  }

  @Test
  void upSubmitWaitShow_thenFailuresStallsAndOperatorVerbs() throws Exception {
    Path home = newHome("h1");
    Result up = vigil(home, "up");
    assertEquals(0, up.code(), up.err());
    assertTrue(up.line().matches("pid [0-9]+"), up.out());
    assertEquals(up.line(), vigil(home, "up").line(), "a second up reports the same daemon (D2)");

    Result sub = vigil(home, "submit", "--", "sh", "-c", "echo hello");
    assertEquals(0, sub.code(), sub.err());
    String ticket = sub.line();
    assertTrue(ticket.matches("t-[0-9]+"), "submit prints only the ticket id: " + sub.out());
    assertEquals(0, vigil(home, "wait", ticket, "--timeout", "90s").code());
    JsonNode shown = json(vigil(home, "show", ticket, "--json"));
    assertEquals("SUCCEEDED", shown.path("state").asText());
    assertEquals(1, shown.path("attemptsUsed").asInt());
    assertEquals(1, shown.path("runs").size());
    JsonNode run = shown.path("runs").get(0);
    assertEquals("SUCCEEDED", run.path("verdict").asText());
    assertEquals(0, run.path("exitCode").asInt());
    assertTrue(run.path("pid").asLong() > 0);
    assertEquals(ticket + ".1", run.path("id").asText());

    // Q1: a failing task reaches HELD after maxAttempts
    String failing = vigil(home, "submit", "--max-attempts", "2", "--", "sh", "-c", "exit 3").line();
    assertEquals(1, vigil(home, "wait", failing, "--timeout", "90s").code());
    JsonNode f = json(vigil(home, "show", failing, "--json"));
    assertEquals("HELD", f.path("state").asText());
    assertEquals(2, f.path("attemptsUsed").asInt());

    // Q2: exit 75 stalls without spending an attempt; then cancel (READY -> CANCELLED)
    String stalling = vigil(home, "submit", "--", "sh", "-c", "exit 75").line();
    JsonNode s = poll(home, stalling, t -> t.path("runs").size() >= 1
        && "STALLED".equals(t.path("runs").get(0).path("verdict").asText()));
    assertEquals(0, s.path("attemptsUsed").asInt(), "a stall spends no attempt (Q2)");
    assertEquals(0, vigil(home, "cancel", stalling).code());
    assertEquals("CANCELLED", json(vigil(home, "show", stalling, "--json")).path("state").asText());

    // park/unpark, hold/release on a ticket that is not due yet
    String later = vigil(home, "submit", "--not-before", "1h", "--", "true").line();
    assertEquals(0, vigil(home, "park", later).code());
    assertTrue(json(vigil(home, "show", later, "--json")).path("parked").asBoolean());
    Result parkedStatus = vigil(home, "status");
    assertEquals(0, parkedStatus.code(), parkedStatus.err());
    assertTrue(parkedStatus.out().contains("Lane default: 0 of 2 running, 0 waiting, 1 parked."), parkedStatus.out());
    assertTrue(parkedStatus.out().contains("Tasks: 0 waiting, 1 parked, 0 running, 1 succeeded"), parkedStatus.out());
    assertFalse(parkedStatus.out().contains("{"), "sentences, not JSON: " + parkedStatus.out());
    JsonNode lane = json(vigil(home, "status", "--json")).path("lanes").get(0);
    assertEquals(0, lane.path("ready").asInt(), "a parked ticket is not counted ready");
    assertEquals(1, lane.path("parkedTickets").asInt());
    assertEquals(0, vigil(home, "unpark", later).code());
    assertFalse(json(vigil(home, "show", later, "--json")).path("parked").asBoolean());
    Result noLane = vigil(home, "park", "--lane", "nosuchlane");
    assertEquals(2, noLane.code(), "a lane the daemon does not have is not parked");
    assertEquals("vigil: lane 'nosuchlane' is not configured (lanes: [default, vigil-maintenance]); nothing was parked\n", noLane.err());
    assertTrue(json(vigil(home, "status", "--json")).path("parkedLanes").isEmpty(), "nothing was parked");
    assertEquals(0, vigil(home, "park", "--lane", "default").code());
    assertEquals(0, vigil(home, "unpark", "--lane", "default").code());
    assertEquals(0, vigil(home, "hold", later).code());
    assertEquals("HELD", json(vigil(home, "show", later, "--json")).path("state").asText());
    assertEquals(0, vigil(home, "release", later).code());
    assertEquals("READY", json(vigil(home, "show", later, "--json")).path("state").asText());
    assertEquals(1, vigil(home, "wait", later, "--timeout", "1s").code() == 3 ? 1 : 0, "wait times out with 3");

    Result tasks = vigil(home, "tasks", "--json");
    assertEquals(4, json(tasks).size());
    assertEquals(0, vigil(home, "status").code());
    assertEquals(0, vigil(home, "runs").code());

    // bad input: each exits 2 with one line, and changes nothing
    Result unknown = vigil(home, "show", "t-9999");
    assertEquals(2, unknown.code());
    assertEquals(1, unknown.err().trim().lines().count(), unknown.err());
    assertEquals(2, vigil(home, "show", "nonsense").code());
    assertEquals(2, vigil(home, "frobnicate").code());
    assertEquals(2, vigil(home, "wait", ticket, "--timeout", "soon").code());
    assertEquals(2, vigil(home, "submit", "--lane", "nowhere", "--", "true").code());
    assertEquals(4, json(vigil(home, "tasks", "--json")).size(), "bad input changed nothing");

    Result down = vigil(home, "down");
    assertEquals(0, down.code(), down.err());
    assertEquals(4, vigil(home, "status").code());
    assertFalse(Files.exists(home.resolve("daemon.json")), "a clean exit deletes daemon.json (D1)");
  }

  @Test
  void aSecondUpWithAnotherConfiguration_saysTheRunningDaemonKeepsItsOwn() throws Exception {
    Path home = newHome("cfg");
    Path first = Files.writeString(tmp.resolve("first.json"), "{\"maxAttempts\": 4}");
    Path second = Files.writeString(tmp.resolve("second.json"), "{\"maxAttempts\": 5}");
    Result up = vigil(home, "up", "--config", first.toString());
    assertEquals(0, up.code(), up.err());
    long pid = Long.parseLong(up.line().substring("pid ".length()));
    Result other = vigil(home, "up", "--config", second.toString());
    assertEquals(3, other.code(), other.err());
    assertEquals("vigil: a daemon already runs (pid " + pid + ", configuration " + first + "); " + second
        + " was not applied. To apply it: vigil down, then vigil up --config " + second + "\n", other.err());
    assertEquals("", other.out());
    assertEquals(up.line(), vigil(home, "up", "--config", first.toString()).line(), "the same configuration: the same daemon");
    assertEquals(up.line(), vigil(home, "up").line(), "no --config: the running daemon, whatever it runs with");
    String t = vigil(home, "submit", "--", "true").line();
    assertEquals(4, json(vigil(home, "show", t, "--json")).path("maxAttempts").asInt(), "the first configuration holds");
  }

  @Test
  void killMinus9OfTheDaemon_theNextDaemonAdoptsTheSameWorkerAndNothingRunsTwice() throws Exception {
    Path home = newHome("h2");
    Path starts = tmp.resolve("starts.log");
    String up1 = vigil(home, "up").line();
    long daemon1 = Long.parseLong(up1.substring(4));
    String ticket = vigil(home, "submit", "--", "sh", "-c", "echo $$ >> " + starts + "; sleep 30").line(); // long enough to outlast a kill, a restart and down on a loaded machine
    JsonNode running = poll(home, ticket, t -> t.path("runs").size() == 1
        && "RUNNING".equals(t.path("runs").get(0).path("state").asText()));
    long workerPid = running.path("runs").get(0).path("pid").asLong();
    assertTrue(workerPid > 0);

    new ProcessBuilder("kill", "-9", Long.toString(daemon1)).start().waitFor();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (ProcessHandle.of(daemon1).map(ProcessHandle::isAlive).orElse(false) && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    // --wait-daemon 0: a daemon killed a moment ago is otherwise waited for (it may be restarted)
    assertEquals(4, vigil(home, "--wait-daemon", "0", "status").code(), "no daemon after kill -9");
    assertTrue(ProcessHandle.of(workerPid).map(ProcessHandle::isAlive).orElse(false), "the worker outlived the daemon (D4)");

    String up2 = vigil(home, "up").line();
    assertNotEquals(up1, up2, "a new daemon started over the stale daemon.json");
    Result busy = vigil(home, "down");
    assertEquals(3, busy.code(), "S5: down refuses while a worker has work");
    assertTrue(busy.err().startsWith("vigil: busy: 1 worker has work: t-"), busy.err());
    JsonNode adopted = json(vigil(home, "show", ticket, "--json"));
    assertEquals(1, adopted.path("runs").size(), "nothing launched twice");
    assertEquals(workerPid, adopted.path("runs").get(0).path("pid").asLong(), "the same worker pid was adopted");

    assertEquals(0, vigil(home, "wait", ticket, "--timeout", "90s").code());
    JsonNode done = json(vigil(home, "show", ticket, "--json"));
    assertEquals(1, done.path("runs").size());
    assertEquals("SUCCEEDED", done.path("runs").get(0).path("verdict").asText());
    assertEquals(1, done.path("attemptsUsed").asInt());
    assertEquals(1, Files.readAllLines(starts).size(), "the command started exactly once");
  }

  @Test
  void twoUpsAtOnce_oneDaemon_andStaleOrCorruptStatusDoesNotBlock() throws Exception {
    Path home = newHome("h3");
    Files.writeString(home.resolve("daemon.json"), "{\"schema\":1,\"pid\":999999,\"pid_start\":1,\"heartbeat_at\":"
        + System.currentTimeMillis() + "}");
    Process a = start(home, "up");
    Process b = start(home, "up");
    Result ra = finish(a);
    Result rb = finish(b);
    assertEquals(0, ra.code(), ra.err());
    assertEquals(0, rb.code(), rb.err());
    assertEquals(ra.line(), rb.line(), "two ups at once: exactly one daemon");
    assertEquals(0, vigil(home, "down").code());

    Path corrupt = newHome("h4");
    Files.writeString(corrupt.resolve("daemon.json"), "{\"pid\": 12, \"heartbeat_");
    Result st = vigil(corrupt, "status");
    assertEquals(4, st.code());
    assertTrue(st.err().contains("no daemon running on"), st.err());
    assertEquals(0, vigil(corrupt, "up").code());
  }

  @Test
  void badConfigurations_exit2_withOneLineNamingTheField() throws Exception {
    Path home = newHome("h5");
    Path malformed = tmp.resolve("malformed.json");
    Files.writeString(malformed, "{ \"lanes\": ");
    Result r1 = vigil(home, "daemon", "--config", malformed.toString());
    assertEquals(2, r1.code(), r1.err());
    assertEquals(1, r1.err().trim().lines().count(), r1.err());
    Path unknown = tmp.resolve("unknown.json");
    Files.writeString(unknown, "{ \"lanes\": { \"default\": { \"concurrency\": 2, \"colour\": \"red\" } } }");
    Result r2 = vigil(home, "up", "--config", unknown.toString());
    assertEquals(2, r2.code(), r2.err());
    assertTrue(r2.err().contains("colour"), r2.err());
    Path lattice = tmp.resolve("lattice.json");
    // a heartbeat alone carries the stale-status age with it; a hold shorter than its answer window does not fit
    Files.writeString(lattice, "{ \"timeouts\": { \"heartbeat\": \"1m\", \"quiesceHold\": \"1s\" } }");
    Result r3 = vigil(home, "up", "--config", lattice.toString());
    assertEquals(2, r3.code(), r3.err());
    assertTrue(r3.err().contains("timeouts do not fit together: quiesceHold (1s) must be > quiesceAnswer (2s)"), r3.err());
    assertEquals(4, vigil(home, "status").code(), "nothing started");
    assertTrue(vigil(home, "version").line().startsWith("vigil "));
    String none = String.join(File.separator, "x");
    assertEquals(2, vigil(home, "logs", none).code());
  }

  @Test
  void aWorkerTypeWhoseClassIsMissing_daemonAndUpExit2_namingTheType_andNothingStarts() throws Exception {
    Path home = newHome("h5b");
    Path missing = tmp.resolve("missing-class.json");
    Files.writeString(missing, "{ \"workerTypes\": { \"mine\": { \"class\": \"com.example.Missing\" } } }");
    Result daemon = vigil(home, "daemon", "--config", missing.toString());
    assertEquals(2, daemon.code(), daemon.err());
    assertEquals(1, daemon.err().trim().lines().count(), daemon.err());
    assertTrue(daemon.err().contains("worker type 'mine'"), daemon.err());
    Result up = vigil(home, "up", "--config", missing.toString());
    assertEquals(2, up.code(), up.err());
    assertEquals(1, up.err().trim().lines().count(), up.err());
    assertTrue(up.err().contains("worker type 'mine'"), up.err());
    assertEquals(4, vigil(home, "status").code(), "nothing started");
  }

  @Test
  void sigtermOfAForegroundDaemon_leavesTheWorkerRunning_andTheNextDaemonCollectsIt() throws Exception {
    Path home = newHome("h6");
    Path starts = tmp.resolve("starts6.log");
    Process daemon = start(home, "daemon");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (vigil(home, "status").code() != 0) {
      assertTrue(daemon.isAlive() && System.nanoTime() < deadline, "the foreground daemon serves");
      Thread.sleep(200);
    }
    String ticket = vigil(home, "submit", "--", "sh", "-c", "echo $$ >> " + starts + "; sleep 4").line();
    JsonNode running = poll(home, ticket, t -> t.path("runs").size() == 1
        && "RUNNING".equals(t.path("runs").get(0).path("state").asText()));
    long workerPid = running.path("runs").get(0).path("pid").asLong();
    daemon.destroy();
    assertTrue(daemon.waitFor(60, TimeUnit.SECONDS), "SIGTERM stops the daemon");
    assertFalse(Files.exists(home.resolve("daemon.json")), "a clean exit deletes daemon.json (D1)");
    assertTrue(ProcessHandle.of(workerPid).map(ProcessHandle::isAlive).orElse(false), "SIGTERM leaves workers running (D4)");
    assertEquals(0, vigil(home, "up").code());
    assertEquals(0, vigil(home, "wait", ticket, "--timeout", "90s").code());
    JsonNode done = json(vigil(home, "show", ticket, "--json"));
    assertEquals(1, done.path("runs").size());
    assertEquals(workerPid, done.path("runs").get(0).path("pid").asLong());
    assertEquals(1, Files.readAllLines(starts).size(), "the command started exactly once");
  }

  @Test
  void theDemoRunsToCompletion_withZeroDoubleLaunches() throws Exception {
    Result demo = vigil(tmp.resolve("unused"), "demo");
    assertEquals(0, demo.code(), demo.out() + demo.err());
    assertTrue(demo.out().contains("double launches: 0"), demo.out());
    List<String> lines = demo.out().lines().filter(l -> !l.isBlank()).toList();
    for (int i = 1; i < lines.size(); i++) {
      assertNotEquals(lines.get(i - 1), lines.get(i), "each step is printed once: " + demo.out());
    }
    assertTrue(demo.out().contains("a task gets 3 attempts") && demo.out().contains("t-5    broken  HELD       3 of 3"),
        "the demo uses the configuration it names: " + demo.out());
    assertTrue(demo.out().contains("vigil release t-5"), "says what to do about the held ticket: " + demo.out());
    assertTrue(demo.out().contains("   launches: ") && demo.out().contains("   adoptions: "), demo.out());
    assertFalse(HelpTextTest.LAW_ID.matcher(demo.out()).find(), "plain words, no law ids: " + demo.out());
  }

  @Test
  void run_startsAReadyTicketByHand_followsItsOutput_andAFailureHoldsTheTicket() throws Exception {
    Path home = newHome("h8");
    assertEquals(0, vigil(home, "up").code());
    Result pause = vigil(home, "pause");
    assertEquals(0, pause.code(), pause.err());
    assertTrue(pause.out().startsWith("paused"), pause.out());
    String failing = vigil(home, "submit", "--max-attempts", "3", "--", "sh", "-c",
        "echo to-stdout; echo to-stderr >&2; exit 3").line();
    String fine = vigil(home, "submit", "--", "sh", "-c", "echo all good").line();
    assertEquals(0, json(vigil(home, "show", failing, "--json")).path("runs").size(), "paused: nothing dispatched");

    Result r = vigil(home, "run", failing);
    assertEquals(1, r.code(), r.err());
    assertTrue(r.out().contains("to-stdout"), "the run's stdout follows: " + r.out());
    assertTrue(r.err().contains("to-stderr") && r.err().contains("started by hand"), r.err());
    assertTrue(r.err().contains("vigil release " + failing), "says how to run it again: " + r.err());
    JsonNode f = json(vigil(home, "show", failing, "--json"));
    assertEquals("HELD", f.path("state").asText(), "Q8: a hand-started run that leaves the ticket runnable holds it");
    assertEquals(1, f.path("attemptsUsed").asInt());
    assertTrue(f.path("runs").get(0).path("handStarted").asBoolean());
    assertTrue(f.path("runs").get(0).path("diagnosis").asText().contains("exit code 3"), f.toString());
    assertTrue(r.err().contains("exit code 3"), "the end says how it ended: " + r.err());

    Result again = vigil(home, "run", failing);
    assertEquals(3, again.code(), "a held ticket is not started: " + again.err());
    assertTrue(again.err().contains("release it first"), again.err());
    assertEquals(1, json(vigil(home, "show", failing, "--json")).path("runs").size(), "nothing changed");
    Result missing = vigil(home, "run", "t-999");
    assertEquals(2, missing.code());
    assertTrue(missing.err().contains("no such ticket t-999"), missing.err());
    assertEquals(2, vigil(home, "run", "banana").code());

    Result ok = vigil(home, "run", fine);
    assertEquals(0, ok.code(), ok.err());
    assertTrue(ok.out().contains("all good"), ok.out());
    assertEquals("SUCCEEDED", json(vigil(home, "show", fine, "--json")).path("state").asText());
    assertEquals(0, vigil(home, "resume").code());
  }

  @Test
  void aConfiguredServiceIsKeptUp_watchShowsIt_andStopWorkersStopsIt() throws Exception {
    Path home = newHome("h7");
    Path config = tmp.resolve("service.json");
    Files.writeString(config, "{ \"services\": [ { \"name\": \"ticker\", \"type\": \"command\", "
        + "\"payload\": { \"argv\": [\"sh\", \"-c\", \"while true; do sleep 1; done\"] } } ] }");
    assertEquals(0, vigil(home, "up", "--config", config.toString()).code());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    JsonNode services = json(vigil(home, "services", "--json"));
    while (!"UP".equals(services.path(0).path("state").asText())) {
      assertTrue(System.nanoTime() < deadline, "the service comes up: " + services);
      Thread.sleep(300);
      services = json(vigil(home, "services", "--json"));
    }
    long first = services.path(0).path("pid").asLong();

    // services stop NAME: the worker is stopped and the service stays down; start brings it back
    Result stop = vigil(home, "services", "stop", "ticker");
    assertEquals(0, stop.code(), stop.err());
    deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (ProcessHandle.of(first).map(ProcessHandle::isAlive).orElse(false)) {
      assertTrue(System.nanoTime() < deadline, "services stop stops the worker");
      Thread.sleep(100);
    }
    assertEquals("DOWN", json(vigil(home, "services", "--json")).path(0).path("state").asText());
    assertEquals(2, vigil(home, "services", "stop").code(), "a NAME is required");
    assertEquals(2, vigil(home, "services", "restart", "ticker").code(), "only start or stop");
    assertEquals(2, vigil(home, "services", "start", "nope").code(), "an unknown service is not found");
    Result start = vigil(home, "services", "start", "ticker");
    assertEquals(0, start.code(), start.err());
    deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    services = json(vigil(home, "services", "--json"));
    while (!"UP".equals(services.path(0).path("state").asText())) {
      assertTrue(System.nanoTime() < deadline, "the service comes up again: " + services);
      Thread.sleep(300);
      services = json(vigil(home, "services", "--json"));
    }
    long pid = services.path(0).path("pid").asLong();
    assertNotEquals(first, pid, "a new worker");
    Result watch = vigil(home, "watch", "--once");
    assertEquals(0, watch.code(), watch.err());
    assertTrue(watch.out().contains("ticker"), watch.out());
    Result down = vigil(home, "down", "--stop-workers");
    assertEquals(0, down.code(), down.err());
    deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
      assertTrue(System.nanoTime() < deadline, "--stop-workers stops the service's worker");
      Thread.sleep(100);
    }
  }
}
