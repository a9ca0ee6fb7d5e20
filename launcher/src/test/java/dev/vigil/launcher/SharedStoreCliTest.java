package dev.vigil.launcher;

import static dev.vigil.launcher.CliEndToEndTest.json;
import static dev.vigil.launcher.CliEndToEndTest.vigil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.worker.process.GroupSignal;
import dev.vigil.worker.process.Processes;
import dev.vigil.worker.process.Signalled;
import dev.vigil.launcher.CliEndToEndTest.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several hosts, one queue (H1), end to end: three daemons with their own homes and host ids on this
 * machine share one real PostgreSQL server. Tasks spread over them; a {@code kill -9} of one daemon
 * leaves its runs untouched by the others however long it stays down, and its restart adopts the
 * same workers; a host lost for good is released by an operator and its work runs again elsewhere,
 * once. The configuration's faults (a refused password, a server that cannot be reached, a malformed
 * address) stop {@code vigil up} with the documented exit codes and never print the password; a
 * database restart under a running daemon keeps its worker running and the daemon goes on once the
 * server is back.
 */
@Tag("slow")
class SharedStoreCliTest {
  private static final String PASSWORD = "s3cret-Pa55word";
  /** Short lease renewals, so that a daemon killed for longer than a lease is tested in seconds. */
  private static final String FAST = "\"timeouts\": {\"reconcile\": \"1s\", \"leaseTtl\": \"4s\"}";

  @TempDir
  Path tmp;

  private final List<Path> homes = new ArrayList<>();
  private SharedPostgres pg;

  @AfterEach
  void stopEverything() throws Exception {
    for (Path h : homes) {
      vigil(h, "down", "--stop-workers");
    }
    if (pg != null) {
      pg.close();
    }
  }

  private Path home(String name) throws Exception {
    return CliEndToEndTest.ownerOnlyHome(tmp, name, homes);
  }

  private static long daemonPid(Path home, Result up) throws Exception {
    Path log = home.resolve("logs").resolve("daemon.log");
    assertEquals(0, up.code(), up.err() + (Files.exists(log) ? Files.readString(log) : ""));
    return Long.parseLong(up.line().substring("pid ".length()));
  }

  private static void kill9(long pid) throws Exception {
    assertTrue(pid > 1 && pid != ProcessHandle.current().pid(), "not a process to kill: " + pid); // kill -9 0 would end this group
    new ProcessBuilder("kill", "-9", Long.toString(pid)).start().waitFor();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
  }

  /**
   * The first run of {@code ticket} once its worker's process is recorded: a claimed ticket's
   * worker may not have started yet on a loaded machine.
   */
  private static JsonNode startedRun(Path home, String ticket) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (true) {
      JsonNode run = json(vigil(home, "show", ticket, "--json")).path("runs").path(0);
      if (run.path("pid").asLong() > 1 && run.path("start").path("identity").path("pgid").asLong() > 1) {
        return run;
      }
      assertTrue(System.nanoTime() < deadline, "the worker of " + ticket + " never started: " + run);
      Thread.sleep(200);
    }
  }

  /** A shell loop that waits until {@code gate} exists. */
  private static String waitFor(Path gate) {
    return "while [ ! -e " + gate + " ]; do sleep 0.2; done";
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  /** The tickets of {@code ids} as {@code vigil tasks --json} on {@code home} shows them, once {@code until} holds. */
  private static Map<String, JsonNode> awaitTasks(Path home, List<String> ids, Predicate<Map<String, JsonNode>> until)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (true) {
      Map<String, JsonNode> byId = new TreeMap<>();
      for (JsonNode t : json(vigil(home, "tasks", "--json"))) {
        if (ids.contains(t.path("id").asText())) {
          byId.put(t.path("id").asText(), t);
        }
      }
      if (until.test(byId)) {
        return byId;
      }
      assertTrue(System.nanoTime() < deadline, "timed out; the tasks are " + byId);
      Thread.sleep(300);
    }
  }

  private static long count(Map<String, JsonNode> tasks, String state) {
    return tasks.values().stream().filter(t -> t.path("state").asText().equals(state)).count();
  }

  @Test
  void threeHostsShareOneQueue_aKilledDaemonsRunsAreLeftAlone_itsRestartAdoptsThem_aLostHostIsReleasedOnce()
      throws Exception {
    pg = SharedPostgres.start(PASSWORD);
    Path secret = pg.passwordFile(tmp, "pg.password");
    Map<String, Path> homeOf = new TreeMap<>();
    Map<String, Long> daemonOf = new HashMap<>();
    for (String host : List.of("host-a", "host-b", "host-c")) {
      Path home = home(host);
      homeOf.put(host, home);
      Path config = pg.config(tmp, host + ".json", "shared", host, secret, FAST);
      daemonOf.put(host, daemonPid(home, vigil(home, "up", "--config", config.toString())));
    }
    Path a = homeOf.get("host-a");
    Path starts = tmp.resolve("starts.log");
    Path gate = tmp.resolve("gate-1"); // each task runs until the test makes this file: no race with a loaded machine
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 6; i++) { // the default lane runs 2 at once on each host: all 6 run only when each host runs 2
      ids.add(vigil(a, "submit", "--", "sh", "-c", "echo " + i + " >> " + starts + "; " + waitFor(gate)).line());
    }
    Map<String, JsonNode> running = awaitTasks(a, ids, m -> m.size() == 6 && count(m, "LEASED") == 6
        && m.values().stream().allMatch(t -> t.hasNonNull("host")));
    Map<String, List<String>> ticketsOf = new TreeMap<>();
    running.values().forEach(t -> ticketsOf.computeIfAbsent(t.path("host").asText(), h -> new ArrayList<>())
        .add(t.path("id").asText()));
    assertEquals(homeOf.keySet(), ticketsOf.keySet(), "the tasks spread over the three hosts: " + ticketsOf);
    ticketsOf.values().forEach(l -> assertEquals(2, l.size(), "each host runs its lane's 2: " + ticketsOf));

    // what each host shows: every host's work, with the host of each run
    String shown = vigil(homeOf.get("host-c"), "tasks").out();
    for (String host : homeOf.keySet()) {
      assertTrue(shown.contains("on host " + host), shown);
    }
    JsonNode status = json(vigil(homeOf.get("host-b"), "status", "--json"));
    assertEquals("host-b", status.path("hostId").asText(), status.toString());
    assertTrue(status.path("store").asText().startsWith("PostgreSQL jdbc:postgresql://localhost:"), status.toString());
    assertFalse(status.toString().contains(PASSWORD));
    assertEquals(6, status.path("runs").size(), "the status shows every host's live runs: " + status);
    String b0 = ticketsOf.get("host-b").get(0);
    JsonNode bRun = startedRun(a, b0);
    assertEquals("host-b", bRun.path("host").asText(), bRun.toString());
    long bWorker = bRun.path("pid").asLong();

    // kill -9 of host-b's daemon: its workers run on, and nobody else touches its runs, for longer than a lease
    kill9(daemonOf.get("host-b"));
    Thread.sleep(6_000);
    assertTrue(alive(bWorker), "host-b's worker outlived its daemon");
    Map<String, JsonNode> meanwhile = awaitTasks(a, ids, m -> m.size() == 6);
    for (String t : ticketsOf.get("host-b")) {
      JsonNode shownB = json(vigil(a, "show", t, "--json"));
      assertEquals(1, shownB.path("runs").size(), "no other host ran " + t + " again: " + shownB);
      assertEquals("host-b", shownB.path("runs").get(0).path("host").asText());
      assertNotEquals("SETTLED", shownB.path("runs").get(0).path("state").asText(), shownB.toString());
    }
    assertTrue(count(meanwhile, "LEASED") >= 2, meanwhile.toString());

    // its restart adopts the same workers: nothing runs twice
    Path bConfig = tmp.resolve("host-b.json");
    daemonOf.put("host-b", daemonPid(homeOf.get("host-b"), vigil(homeOf.get("host-b"), "up", "--config",
        bConfig.toString())));
    Files.createFile(gate);
    Map<String, JsonNode> done = awaitTasks(a, ids, m -> m.size() == 6 && count(m, "SUCCEEDED") == 6);
    for (String t : ids) {
      JsonNode d = json(vigil(a, "show", t, "--json"));
      assertEquals(1, d.path("runs").size(), "one run each: " + d);
      assertEquals(1, d.path("attemptsUsed").asInt(), d.toString());
    }
    assertEquals(bWorker, json(vigil(a, "show", b0, "--json")).path("runs").get(0).path("pid").asLong(),
        "host-b's restarted daemon finished the very worker it had started");
    assertEquals(6, Files.readAllLines(starts).size(), "each task started once: " + Files.readAllLines(starts));
    assertEquals(6, done.size());

    // host-c is lost for good (its daemon and its workers killed); an operator releases it and its work runs again, once
    List<String> more = new ArrayList<>();
    Path gate2 = tmp.resolve("gate-2");
    for (int i = 6; i < 12; i++) {
      more.add(vigil(a, "submit", "--", "sh", "-c", "echo " + i + " >> " + starts + "; " + waitFor(gate2)).line());
    }
    Map<String, JsonNode> second = awaitTasks(a, more, m -> m.size() == 6 && count(m, "LEASED") == 6
        && m.values().stream().allMatch(t -> t.hasNonNull("host")));
    List<String> onC = second.values().stream().filter(t -> t.path("host").asText().equals("host-c"))
        .map(t -> t.path("id").asText()).toList();
    assertEquals(2, onC.size(), second.toString());
    List<ProcessIdentity> workersOnC = new ArrayList<>();
    for (String t : onC) {
      JsonNode id = startedRun(a, t).path("start").path("identity");
      workersOnC.add(new ProcessIdentity(id.path("bootId").asText(), id.path("pid").asLong(),
          id.path("startTicks").asLong(), id.path("pgid").asLong()));
    }
    kill9(daemonOf.get("host-c"));
    for (ProcessIdentity worker : workersOnC) { // kill -9 of its whole group, checked to be that very worker's
      assertEquals(Signalled.Sent.class, Processes.signal(worker, GroupSignal.KILL).getClass(), worker.toString());
    }
    JsonNode hosts = json(vigil(a, "hosts", "--json"));
    assertEquals(3, hosts.size(), hosts.toString());
    JsonNode c = Stream.of(hosts.get(0), hosts.get(1), hosts.get(2)).filter(h -> h.path("host").asText().equals("host-c"))
        .findFirst().orElseThrow();
    assertEquals(2, c.path("liveRuns").asInt(), c.toString());
    Result released = vigil(a, "release-host", "host-c");
    assertEquals(0, released.code(), released.err());
    assertTrue(released.out().startsWith("host host-c released: 2 live runs"), released.out());
    Files.createFile(gate2); // the other hosts' tasks end, and the released ones run again in their slots
    awaitTasks(a, more, m -> m.size() == 6 && count(m, "SUCCEEDED") == 6);
    for (String t : onC) {
      JsonNode d = json(vigil(a, "show", t, "--json"));
      assertEquals(2, d.path("runs").size(), "lost with its host, run again once: " + d);
      assertEquals("LOST", d.path("runs").get(0).path("verdict").asText(), d.toString());
      assertNotEquals("host-c", d.path("runs").get(1).path("host").asText(), d.toString());
    }
    List<String> lines = Files.readAllLines(starts);
    assertEquals(14, lines.size(), "12 tasks, the 2 of the lost host started twice: " + lines);
    for (String t : more) {
      String n = Integer.toString(6 + more.indexOf(t));
      assertEquals(onC.contains(t) ? 2 : 1, lines.stream().filter(n::equals).count(), t + ": " + lines);
    }
    JsonNode after = json(vigil(a, "hosts", "--json"));
    after.forEach(h -> assertEquals(0, h.path("liveRuns").asInt(), after.toString()));

    // the password went nowhere a person or a program reads
    for (Path home : homeOf.values()) {
      try (Stream<Path> files = Files.walk(home)) {
        for (Path f : files.filter(Files::isRegularFile).filter(f -> !f.toString().endsWith(".sock")).toList()) {
          assertFalse(Files.readString(f, java.nio.charset.StandardCharsets.ISO_8859_1).contains(PASSWORD),
              "the password is in " + f);
        }
      }
    }
  }

  @Test
  void theStoresFaults_stopUpWithTheDocumentedExitCodes_andTheWordsNeverHoldThePassword() throws Exception {
    pg = SharedPostgres.start(PASSWORD);
    Path home = home("faults");
    Path wrong = tmp.resolve("wrong.password");
    Files.writeString(wrong, "not-" + PASSWORD + "\n");
    Result refused = vigil(home, "up", "--config", pg.config(tmp, "wrong.json", "faults", null, wrong, "").toString());
    assertEquals(2, refused.code(), refused.err());
    assertTrue(refused.err().contains("store.postgresql.password"), refused.err());
    assertFalse(refused.err().contains(PASSWORD), refused.err());

    Path secret = pg.passwordFile(tmp, "pg.password");
    Path missing = tmp.resolve("missing.json");
    Files.writeString(missing, "{\"store\": {\"postgresql\": {\"url\": \"" + pg.url() + "\", \"user\": \"vigil\","
        + " \"passwordFile\": \"no-such.password\"}}}");
    Result noFile = vigil(home, "up", "--config", missing.toString());
    assertEquals(2, noFile.code(), noFile.err());
    assertTrue(noFile.err().contains("store.postgresql.passwordFile"), noFile.err());

    Path malformed = tmp.resolve("malformed.json");
    Files.writeString(malformed, "{\"store\": {\"postgresql\": {\"url\": \"postgres://db/vigil\", \"user\": \"vigil\"}}}");
    Result bad = vigil(home, "up", "--config", malformed.toString());
    assertEquals(2, bad.code(), bad.err());
    assertTrue(bad.err().contains("store.postgresql.url"), bad.err());

    Path h2WithHost = tmp.resolve("h2-host.json");
    Files.writeString(h2WithHost, "{\"hostId\": \"box-1\"}");
    Result notShared = vigil(home, "up", "--config", h2WithHost.toString());
    assertEquals(2, notShared.code(), notShared.err());
    assertTrue(notShared.err().contains("hostId"), notShared.err());

    int port = pg.port();
    pg.stop();
    Result unreachable = vigil(home, "up", "--config", pg.config(tmp, "down.json", "faults", null, secret, "").toString());
    assertEquals(1, unreachable.code(), unreachable.err());
    assertTrue(unreachable.err().contains("localhost:" + port), unreachable.err());
    assertFalse(unreachable.err().contains(PASSWORD), unreachable.err());
    assertEquals(4, vigil(home, "--wait-daemon", "0", "status").code(), "no daemon started");

    pg.startAgain();
    boolean machineId = Stream.of("/etc/machine-id", "/var/lib/dbus/machine-id").map(Path::of)
        .anyMatch(f -> Files.isRegularFile(f) && f.toFile().length() > 1);
    Result up = vigil(home, "up", "--config", tmp.resolve("down.json").toString());
    if (machineId) {
      assertEquals(0, up.code(), up.err());
      JsonNode status = json(vigil(home, "status", "--json"));
      assertTrue(status.path("hostId").asText().matches("[a-z0-9._-]+-[0-9a-f]{12}"),
          "a host id derived from the machine and the home: " + status.path("hostId"));
    } else { // a machine without an id (some containers): the host id must be configured, and the start says so
      assertEquals(2, up.code(), up.err());
      assertTrue(up.err().contains("set \"hostId\""), up.err());
      up = vigil(home, "up", "--config", pg.config(tmp, "named.json", "faults", "box-1", secret, "").toString());
      assertEquals(0, up.code(), up.err());
    }

    // the database restarts under a running daemon: its worker runs on, nothing is decided meanwhile, then it goes on
    Path gate = tmp.resolve("gate-outage");
    String t = vigil(home, "submit", "--", "sh", "-c", waitFor(gate) + "; echo done").line();
    JsonNode running = CliEndToEndTest.poll(home, t, x -> x.path("runs").size() == 1
        && "RUNNING".equals(x.path("runs").get(0).path("state").asText()));
    long worker = running.path("runs").get(0).path("pid").asLong();
    pg.stop();
    Result during = vigil(home, "status");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (during.code() != 5 && System.nanoTime() < deadline) { // the daemon notices at its next look at the store
      Thread.sleep(300);
      during = vigil(home, "status");
    }
    assertEquals(5, during.code(), during.out() + during.err());
    assertTrue((during.out() + during.err()).contains("the store is unavailable"), during.out() + during.err());
    assertTrue(alive(worker), "the worker runs on while the store is unavailable");
    pg.startAgain();
    // the daemon reopens the store at its next attempt (a backoff of up to 15 s); until then every
    // command, wait too, answers that the store is unavailable
    deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (during.code() == 5 && System.nanoTime() < deadline) {
      Thread.sleep(300);
      during = vigil(home, "status");
    }
    assertEquals(0, during.code(), "the daemon is back on its store: " + during.out() + during.err());
    Files.createFile(gate);
    assertEquals(0, vigil(home, "wait", t, "--timeout", "90s").code());
    JsonNode done = json(vigil(home, "show", t, "--json"));
    assertEquals("SUCCEEDED", done.path("state").asText(), done.toString());
    assertEquals(1, done.path("runs").size(), "it ran once, across the database's restart: " + done);
    assertEquals(worker, done.path("runs").get(0).path("pid").asLong());
  }
}
