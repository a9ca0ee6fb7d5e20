package dev.vigil.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.bridge.JarBuilds.Build;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.Snapshot;
import dev.vigil.coordination.Verdict;
import dev.vigil.coordination.law.CoordinationInvariants;
import dev.vigil.coordination.postgres.PostgresCoordination;
import dev.vigil.coordination.postgres.PostgresOptions;
import dev.vigil.launcher.internal.Home;
import dev.vigil.launcher.internal.JournalFile;
import dev.vigil.launcher.internal.Wire;
import dev.vigil.worker.process.GroupSignal;
import dev.vigil.worker.process.Processes;
import dev.vigil.worker.protocol.Message;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chaos against the runnable jar on a shared PostgreSQL store (H1): two daemons, each with its own
 * home and host id ({@code host-a}, {@code host-b}), share one real PostgreSQL 14 server and its lanes.
 * Tasks of random length (0-3 s) and exit code are submitted through both daemons in turn, each with
 * an idempotency key: a submission refused because its daemon is down (or its reply lost to a kill) is
 * sent again, with the same key, through the other daemon or later. Meanwhile either daemon is killed
 * with {@code kill -9} at random moments and started again with {@code vigil up} (every fourth time it
 * is replaced by {@code vigil restart} instead, and every fourth time both are killed and are down
 * together for at most 1.5 s), and random worker hosts of either host are killed with {@code kill -9} (as
 * many as asked while tasks run).
 * Every task's command appends {@code start}/{@code end} lines (run, pid, monotonic time, the home it
 * runs in) to one shared O_APPEND log. Then the faults stop, every ticket must settle, and:
 *
 * <ul>
 *   <li>C1: no two runs of one ticket overlap in time (no double spawn, across hosts too);
 *   <li>Q1, Q2: each ticket's attempts equal its runs whose verdict spends one;
 *   <li>no outcome a worker wrote ({@code outcome.json}, in either home) is missing from the store;
 *   <li>H1: each run ran in the home of the host whose daemon owns it in the store, and only there (its
 *       command's directory, its run directory), and {@code vigil show --json} gives that host; each
 *       daemon's journal claims, launches, recovers and settles its own host's runs only, and leaves the
 *       other host's to it;
 *   <li>both hosts ran work, and one ticket was made per task whichever daemon took it;
 *   <li>{@link CoordinationInvariants} hold on the PostgreSQL store, opened after both daemons stopped.
 * </ul>
 *
 * The test prints one line of figures. Size: {@code -Dvigil.sharedChaos.tasks},
 * {@code -Dvigil.sharedChaos.daemonKills}, {@code -Dvigil.sharedChaos.workerKills}, seed
 * {@code -Dvigil.sharedChaos.seed} (the {@code soak} profile raises them).
 */
@Tag("slow")
@Tag("chaos")
class SharedStoreChaosJarTest {
  private static final int TASKS = Integer.getInteger("vigil.sharedChaos.tasks", 80);
  private static final int DAEMON_KILLS = Integer.getInteger("vigil.sharedChaos.daemonKills", 8);
  private static final int WORKER_KILLS = Integer.getInteger("vigil.sharedChaos.workerKills", 8);
  private static final long SEED = Long.getLong("vigil.sharedChaos.seed", System.nanoTime());
  /** How long a submission waits for its reply before it is sent again (with the same key). */
  private static final long SUBMIT_WAIT_MS = 20_000;
  private static final String PASSWORD = "chaos-Pa55word";
  private static final String SCHEMA = "chaos";
  private static final List<String> HOSTS = List.of("host-a", "host-b");
  private static final Set<String> RESTING = Set.of("SUCCEEDED", "FAILED", "HELD", "CANCELLED");

  @TempDir
  Path tmp;

  private JarBuilds builds;
  private SharedPostgres pg;
  private final Map<String, Host> hosts = new TreeMap<>();

  /** One host: its home, its configuration, and the daemons started on it (the last is the current one). */
  private static final class Host {
    final String id;
    final Home home;
    final Path config;
    final List<Long> daemons = new ArrayList<>();

    Host(String id, Home home, Path config) {
      this.id = id;
      this.home = home;
      this.config = config;
    }

    synchronized long daemon() {
      return daemons.get(daemons.size() - 1);
    }

    synchronized void started(long pid) {
      daemons.add(pid);
    }

    synchronized List<Long> all() {
      return List.copyOf(daemons);
    }
  }

  @AfterEach
  void cleanup() throws Exception {
    for (Host h : hosts.values()) {
      for (long pid : h.all()) {
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
      }
      for (var id : launchedWorkers(h)) {
        Processes.signalWhatIsLeft(id, GroupSignal.KILL);
      }
    }
    if (pg != null) {
      pg.close();
    }
  }

  private record Interval(String run, long pid, double start, double end, String startHome, String endHome) {}

  @Test
  void twoDaemonsOnePostgresStore_killedDaemonsAndWorkers_noDoubleSpawn_noLostOutcome_eachRunOnItsOwnHost()
      throws Exception {
    SplittableRandom rng = new SplittableRandom(SEED);
    builds = new JarBuilds(tmp);
    // a copy of its own: a rebuild of the jar while the test runs changes nothing under its daemons
    Build jar = new Build(Files.copy(JarBuilds.VIGIL_JAR, tmp.resolve("vigil.jar")), "", "");
    long t0 = System.nanoTime();
    pg = SharedPostgres.start(PASSWORD);
    Path secret = pg.passwordFile(tmp, "pg.password");
    Path log = tmp.resolve("intervals.log");
    for (String id : HOSTS) {
      Path config = pg.config(tmp, id + ".json", SCHEMA, id, secret, """
          "lanes": { "default": { "concurrency": 1 }, "a": { "concurrency": 2 }, "b": { "concurrency": 3 } },
            "maxAttempts": 3,
            "retry": { "backoffBase": "200ms", "backoffCap": "2s" },
            "timeouts": { "heartbeat": "1s", "statusStale": "6s", "reconcile": "1s", "leaseTtl": "4s" }""");
      // the home's name is the host's: a command learns where it runs from its run directory, HOME/runs/RUN
      Host h = new Host(id, new Home(builds.home(id)), config);
      hosts.put(id, h);
      up(jar, h);
    }
    List<Host> both = List.copyOf(hosts.values());

    AtomicInteger retries = new AtomicInteger();
    AtomicInteger elsewhere = new AtomicInteger();
    AtomicInteger duplicates = new AtomicInteger();
    AtomicReference<Throwable> failed = new AtomicReference<>();
    Map<Integer, String> tickets = new TreeMap<>();
    Thread submitter = new Thread(() -> {
      SplittableRandom r = new SplittableRandom(SEED + 1);
      try {
        for (int n = 1; n <= TASKS; n++) {
          ObjectNode a = Wire.JSON.createObjectNode();
          a.put("lane", r.nextBoolean() ? "a" : "b");
          a.put("key", "task-" + n);
          int first = pick(r);
          int later = r.nextInt(100) < 80 ? 0 : 1;
          double seconds = r.nextInt(3_001) / 1000.0;
          ObjectNode p = a.putObject("payload");
          p.put("stallFor", "1s");
          String where = "r=$(basename \"$PWD\"); h=$(basename \"$(dirname \"$(dirname \"$PWD\")\")\"); ";
          p.putArray("argv").add("sh").add("-c").add(where + "read up x < /proc/uptime; echo \"start $r $$ $up $h\" >> "
              + log + "; sleep " + seconds + "; read up x < /proc/uptime; echo \"end $r $$ $up $h\" >> " + log
              + "; case $r in *.1) exit " + first + ";; *) exit " + later + ";; esac");
          String ticket = null;
          // through host-a and host-b in turn; a refusal sends the same key through the other, then again
          for (int tries = 0; ticket == null; tries++) {
            Host via = both.get((n + tries) % both.size());
            if (tries > 0) {
              retries.incrementAndGet();
              Thread.sleep(tries % both.size() == 0 ? 200 : 0);
            }
            try {
              ObjectNode reply = Control.call(via.home.socket(), new Message.Command("submit", a), SUBMIT_WAIT_MS);
              String kind = reply.path("kind").asText();
              if ((kind.equals("Denied") && reply.path("message").asText().contains("shutting down"))
                  || kind.equals("Unavailable")) {
                continue; // vigil restart stops this daemon, or its store is away a moment: part of the chaos
              }
              assertEquals("Submitted", kind, via.id + ": " + reply);
              ticket = reply.path("ticket").path("id").asText();
              if (tries % both.size() != 0) {
                elsewhere.incrementAndGet();
              }
              if (reply.path("duplicate").asBoolean()) {
                duplicates.incrementAndGet(); // an earlier try was recorded, its reply lost to a kill
              }
            } catch (Control.NoDaemon e) {
              // that daemon is down or restarting: part of the chaos
            }
          }
          synchronized (tickets) {
            tickets.put(n, ticket);
          }
          Thread.sleep(r.nextInt(50, 500));
        }
      } catch (Throwable e) {
        failed.set(e);
      }
    }, "shared-chaos-submitter");
    submitter.start();

    // the faults spread over the submissions (about 0.3 s each); a worker can be killed only while one runs:
    // once every task was submitted and nothing runs, the worker kills stop
    AtomicInteger workerKills = new AtomicInteger();
    Thread workerKiller = new Thread(() -> {
      SplittableRandom r = new SplittableRandom(SEED + 2);
      long pause = Math.max(100, TASKS * 300L / (WORKER_KILLS + 1));
      try {
        while (workerKills.get() < WORKER_KILLS) {
          Thread.sleep(pause / 2 + r.nextLong(pause));
          if (killWorker(both.get(r.nextInt(both.size())), r)) {
            workerKills.incrementAndGet();
          } else if (!submitter.isAlive() && !hasLiveRuns(both)) {
            return;
          }
        }
      } catch (Throwable e) {
        failed.set(e);
      }
    }, "shared-chaos-worker-killer");
    workerKiller.start();

    int daemonKills = 0;
    int restarts = 0;
    int bothDown = 0;
    long pause = Math.max(100, TASKS * 300L / (DAEMON_KILLS + 1));
    while (daemonKills < DAEMON_KILLS) {
      Thread.sleep(pause / 2 + rng.nextLong(pause));
      Host h = both.get(rng.nextInt(both.size()));
      if (daemonKills % 4 == 1 && restart(jar, h)) {
        restarts++; // a replacement that leaves every worker running, among the kills
      } else if (daemonKills % 4 == 3) {
        for (Host x : both) {
          kill9(x);
        }
        Thread.sleep(rng.nextInt(100, 1_500)); // nobody takes a submission meanwhile
        for (Host x : both) {
          up(jar, x);
        }
        bothDown++;
      } else {
        kill9(h);
        Thread.sleep(rng.nextInt(100, 2_000));
        up(jar, h);
      }
      daemonKills++;
      if (failed.get() != null) {
        throw new AssertionError("the submitter or the worker killer failed", failed.get());
      }
    }
    workerKiller.join(TimeUnit.MINUTES.toMillis(10));
    long faultsEnded = System.nanoTime();
    submitter.join(TimeUnit.MINUTES.toMillis(10));
    if (failed.get() != null) {
      throw new AssertionError("the submitter or the worker killer failed", failed.get());
    }
    assertEquals(TASKS, tickets.size(), "every task was submitted");

    // the faults stop: every ticket settles (as host-a sees the shared store)
    Host a = hosts.get("host-a");
    Host b = hosts.get("host-b");
    Map<String, JsonNode> shown = new TreeMap<>();
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    while (true) {
      shown.clear();
      boolean resting = true;
      for (String t : tickets.values()) {
        ObjectNode args = Wire.JSON.createObjectNode();
        args.put("ticket", t);
        JsonNode ticket = Control.command(a.home.socket(), "show", args).path("ticket");
        shown.put(t, ticket);
        resting &= RESTING.contains(ticket.path("state").asText());
      }
      if (resting) {
        break;
      }
      assertTrue(System.nanoTime() < deadline, "every ticket settles once the faults stopped (seed " + SEED + "): "
          + shown.values().stream().filter(t -> !RESTING.contains(t.path("state").asText())).map(t -> t.path("id")
              .asText() + " " + t.path("state").asText()).toList());
      Thread.sleep(500);
    }
    double settleSeconds = (System.nanoTime() - faultsEnded) / 1e9;
    // the other host shows the very same
    List<String> ids = new ArrayList<>(shown.keySet());
    for (int i = 0; i < 4; i++) {
      String t = ids.get(rng.nextInt(ids.size()));
      JarBuilds.Result show = builds.run(jar, b.home.dir(), "show", t, "--json");
      assertEquals(0, show.code(), show.err());
      assertEquals(shown.get(t), Wire.JSON.readTree(show.out()), "vigil show --json " + t + " on host-b shows what "
          + "host-a showed");
    }
    JarBuilds.Result hostList = builds.run(jar, b.home.dir(), "hosts", "--json");
    assertEquals(0, hostList.code(), hostList.err());
    Map<String, Integer> liveRuns = new TreeMap<>();
    Wire.JSON.readTree(hostList.out()).forEach(x -> liveRuns.put(x.path("host").asText(), x.path("liveRuns").asInt()));
    assertEquals(Map.of("host-a", 0, "host-b", 0), liveRuns, "vigil hosts: both hosts, no live run left: "
        + hostList.out());
    for (Host h : both) {
      JarBuilds.Result down = builds.run(jar, h.home.dir(), "down");
      assertEquals(0, down.code(), "the idle daemon of " + h.id + " stops: " + down.err());
    }

    // C1: no two runs of one ticket overlap in time, whichever hosts ran them
    Map<String, List<Interval>> byTicket = intervals(log);
    List<String> overlaps = new ArrayList<>();
    for (List<Interval> runs : byTicket.values()) {
      runs.sort((x, y) -> Double.compare(x.start(), y.start()));
      for (int i = 1; i < runs.size(); i++) {
        if (runs.get(i).start() < runs.get(i - 1).end()) {
          overlaps.add(runs.get(i - 1) + " overlaps " + runs.get(i));
        }
      }
    }

    // Q1, Q2: attempts equal the runs that spend one
    List<String> miscounted = new ArrayList<>();
    for (JsonNode t : shown.values()) {
      int spent = 0;
      for (JsonNode r : t.path("runs")) {
        if (r.hasNonNull("verdict") && Verdict.valueOf(r.path("verdict").asText()).chargesAttempt()) {
          spent++;
        }
      }
      if (spent != t.path("attemptsUsed").asInt()) {
        miscounted.add(t.path("id").asText() + ": attempts " + t.path("attemptsUsed").asInt() + ", spending runs "
            + spent);
      }
    }

    // the store, read after both daemons stopped: its invariants, and the host of each run
    Snapshot snapshot;
    PostgresOptions options = PostgresOptions.of(pg.url(), SharedPostgres.USER, PASSWORD).withSchema(SCHEMA);
    try (PostgresCoordination store = PostgresCoordination.open(options)) {
      snapshot = store.store().snapshot();
      CoordinationInvariants.check(store.store());
    }
    CoordinationInvariants.check(snapshot);
    Map<OwnerId, String> hostOfOwner = new HashMap<>();
    snapshot.owners().forEach(o -> hostOfOwner.put(o.id(), o.hostId()));
    Map<String, Run> runs = new HashMap<>();
    snapshot.runs().forEach(r -> runs.put(r.id().toString(), r));

    // H1: each run ran in the home of its owner's host, and only there; show gives that host
    List<String> misplaced = new ArrayList<>();
    Map<String, Integer> startedOn = new TreeMap<>();
    for (Run r : snapshot.runs()) {
      String owner = hostOfOwner.get(r.owner());
      List<String> dirs = both.stream().filter(h -> Files.isDirectory(h.home.runs().resolve(r.id().toString())))
          .map(h -> h.id).toList();
      if (owner == null || !HOSTS.contains(owner)) {
        misplaced.add(r.id() + " is owned by " + r.owner() + " of host " + owner);
      } else if (!dirs.equals(List.of(owner)) && !(dirs.isEmpty() && r.start() == null)) {
        misplaced.add(r.id() + " of " + owner + " has its run directory in " + dirs);
      }
      if (r.start() != null) {
        startedOn.merge(String.valueOf(owner), 1, Integer::sum);
      }
    }
    for (List<Interval> ivs : byTicket.values()) {
      for (Interval iv : ivs) {
        Run r = runs.get(iv.run());
        String owner = r == null ? null : hostOfOwner.get(r.owner());
        if (r == null || !iv.startHome().equals(owner) || (iv.endHome() != null && !iv.endHome().equals(owner))) {
          misplaced.add(iv + " ran on the home of another host than its owner's (" + owner + ")");
        }
      }
    }
    for (JsonNode t : shown.values()) {
      for (JsonNode r : t.path("runs")) {
        Run run = runs.get(r.path("id").asText());
        String owner = run == null ? null : hostOfOwner.get(run.owner());
        if (!r.path("host").asText().equals(owner)) {
          misplaced.add(r.path("id").asText() + " shown on host " + r.path("host") + ", owned by host " + owner);
        }
      }
    }

    // no outcome a worker wrote, in either home, is missing from the store
    List<String> lost = new ArrayList<>();
    for (Host h : both) {
      try (Stream<Path> dirs = Files.list(h.home.runs())) {
        for (Path d : dirs.filter(p -> p.getFileName().toString().startsWith("t-")).toList()) {
          Path outcome = d.resolve("outcome.json");
          if (!Files.exists(outcome)) {
            continue;
          }
          JsonNode file = Wire.JSON.readTree(Files.readString(outcome));
          String written = file.path("verdict").asText();
          Run r = runs.get(d.getFileName().toString());
          // A host whose claim was rolled back before it started (no start recorded) writes the
          // "never confirmed: no work done" outcome and exits; no work ran, so ABANDONED is its record.
          boolean neverStarted = r != null && r.verdict() == Verdict.ABANDONED && r.start() == null
              && written.equals("STALLED") && file.path("detail").asText().startsWith("never confirmed by a daemon");
          boolean kept = r != null && r.verdict() != null && (r.verdict().name().equals(written) || neverStarted
              || (r.verdict() == Verdict.SUPERSEDED && (written.equals("STALLED") || written.equals("BLOCKED"))));
          if (!kept) {
            lost.add(h.id + " " + d.getFileName() + " wrote " + written + ", the store has "
                + (r == null ? "no run" : r.verdict()));
          }
        }
      }
    }

    // H1: a daemon claims, launches, recovers and settles its own host's runs only, and leaves the others' to them
    Map<String, Integer> recovered = new TreeMap<>();
    List<String> trespasses = new ArrayList<>();
    for (Host h : both) {
      for (ObjectNode e : journal(h)) {
        String run = e.path(e.has("run") ? "run" : "key").asText();
        if (!run.startsWith("t-")) {
          continue;
        }
        Run r = runs.get(run);
        String owner = r == null ? null : hostOfOwner.get(r.owner());
        String action = e.path("action").asText();
        if (e.path("event").asText().equals("Recovered")) {
          recovered.merge(action, 1, Integer::sum);
        }
        boolean left = action.equals("LEAVE_TO_ITS_HOST");
        if (left ? h.id.equals(owner) || !e.path("detail").asText().equals("run of host " + owner)
            : !h.id.equals(owner)) {
          trespasses.add(h.id + " journal: " + e + ", a run of host " + owner);
        }
      }
    }
    System.out.printf("shared chaos: %d tasks through 2 daemons on one PostgreSQL store (%d submissions retried, %d "
            + "taken by the other daemon, %d answered as duplicates), %d daemon kills (%d of them vigil restart, %d "
            + "with both daemons down), %d worker kills (of %d), recoveries %s, runs started on host-a %d, host-b %d, "
            + "%d runs, %d double spawns, %d lost outcomes, %d misplaced runs, %d runs minded by the other host, "
            + "settled %.0f s after the faults, %.0f s (seed %d: -Dvigil.sharedChaos.seed=%d)%n",
        TASKS, retries.get(), elsewhere.get(), duplicates.get(), daemonKills, restarts, bothDown, workerKills.get(),
        WORKER_KILLS, recovered, startedOn.getOrDefault("host-a", 0), startedOn.getOrDefault("host-b", 0),
        snapshot.runs().size(), overlaps.size(), lost.size(), misplaced.size(), trespasses.size(), settleSeconds,
        (System.nanoTime() - t0) / 1e9, SEED, SEED);
    assertEquals(List.of(), overlaps, "C1 no double spawn (seed " + SEED + ")");
    assertEquals(List.of(), miscounted, "Q1/Q2 attempts equal the runs that spend one (seed " + SEED + ")");
    assertEquals(List.of(), lost, "no outcome a worker wrote is missing from the store (seed " + SEED + ")");
    assertEquals(List.of(), misplaced, "H1 each run on its owner's host (seed " + SEED + ")");
    assertEquals(List.of(), trespasses, "H1 each daemon minds its own host's runs only (seed " + SEED + ")");
    assertTrue(WORKER_KILLS == 0 || workerKills.get() > 0, "worker hosts were killed: " + workerKills.get());
    assertTrue(startedOn.getOrDefault("host-a", 0) > 0 && startedOn.getOrDefault("host-b", 0) > 0,
        "both hosts ran work: " + startedOn);
    assertEquals(TASKS, snapshot.tickets().size(), "one ticket per task, whichever daemon took it");
    assertTrue(byTicket.size() <= TASKS, "runs of " + byTicket.size() + " tickets");
  }

  /** The exit code of a task's first run: mostly 0, some failures, a few stalls (75); later runs exit 0 or 1. */
  private static int pick(SplittableRandom r) {
    int x = r.nextInt(100);
    return x < 70 ? 0 : x < 85 ? 1 : x < 95 ? 2 : 75;
  }

  private void up(Build jar, Host h) throws Exception {
    JarBuilds.Result r = builds.run(jar, h.home.dir(), "up", "--config", h.config.toString());
    Path daemonLog = h.home.logs().resolve("daemon.log");
    assertEquals(0, r.code(), "vigil up on " + h.id + ": " + r.err()
        + (Files.exists(daemonLog) ? Files.readString(daemonLog) : ""));
    h.started(builds.track(Long.parseLong(r.out().substring("pid ".length()))));
  }

  private static void kill9(Host h) throws InterruptedException {
    long pid = h.daemon();
    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    JarBuilds.await("the killed daemon of " + h.id + " is gone", 30, () -> !JarBuilds.alive(pid));
  }

  /**
   * {@code vigil restart} of {@code h}'s daemon, no worker touched; whether it was (a restart refused, as
   * when the daemon is still booting, is said and left to a kill instead).
   */
  private boolean restart(Build jar, Host h) throws Exception {
    JarBuilds.Result r = builds.run(jar, h.home.dir(), "restart", "--config", h.config.toString());
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("pid ([0-9]+) took its workers over").matcher(r.out());
    if (r.code() != 0 || !m.find()) {
      System.out.println("shared chaos: vigil restart on " + h.id + " exited " + r.code() + ": " + r.out().strip() + " "
          + r.err().strip());
      return false;
    }
    h.started(builds.track(Long.parseLong(m.group(1))));
    return true;
  }

  /**
   * {@code kill -9} of the worker host of a random running run, as {@code via}'s daemon lists the live
   * runs of the shared store (either host's); its command lives on in the group.
   */
  private static boolean killWorker(Host via, SplittableRandom rng) {
    try {
      JsonNode runs = Control.command(via.home.socket(), "runs", Wire.JSON.createObjectNode().put("live", true))
          .path("runs");
      List<Long> pids = new ArrayList<>();
      for (JsonNode r : runs) {
        if (r.path("state").asText().equals("RUNNING") && r.path("pid").asLong(-1) > 0) {
          pids.add(r.path("pid").asLong());
        }
      }
      if (pids.isEmpty()) {
        return false;
      }
      long pid = pids.get(rng.nextInt(pids.size()));
      return ProcessHandle.of(pid).map(ProcessHandle::destroyForcibly).orElse(false);
    } catch (Control.NoDaemon e) {
      return false;
    }
  }

  /** Whether a live daemon of {@code hosts} lists a live run (of either host). */
  private static boolean hasLiveRuns(List<Host> hosts) {
    for (Host h : hosts) {
      try {
        JsonNode reply = Control.command(h.home.socket(), "runs", Wire.JSON.createObjectNode().put("live", true));
        if (reply.has("runs")) {
          return !reply.path("runs").isEmpty();
        }
      } catch (Control.NoDaemon e) {
        // ask the other
      }
    }
    return true;
  }

  /** Each ticket's runs as the log has them: start and end (end: none when the command was cut short), and where. */
  private static Map<String, List<Interval>> intervals(Path log) throws IOException {
    Map<String, Map<String, String[]>> open = new TreeMap<>();
    for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
      String[] w = line.trim().split(" ");
      String run = w[1];
      String ticket = run.substring(0, run.indexOf('.'));
      // pid, start, end, start's home, end's home
      String[] seen = open.computeIfAbsent(ticket, k -> new TreeMap<>()).computeIfAbsent(run,
          k -> new String[] {w[2], "-1", Double.toString(Double.MAX_VALUE), null, null});
      if (w[0].equals("start")) {
        seen[1] = w[3];
        seen[3] = w[4];
      } else {
        seen[2] = w[3];
        seen[4] = w[4];
      }
    }
    Map<String, List<Interval>> out = new TreeMap<>();
    open.forEach((t, rs) -> rs.forEach((run, s) -> out.computeIfAbsent(t, k -> new ArrayList<>())
        .add(new Interval(run, Long.parseLong(s[0]), Double.parseDouble(s[1]), Double.parseDouble(s[2]),
            String.valueOf(s[3]), s[4]))));
    return out;
  }

  private static List<ObjectNode> journal(Host h) throws IOException {
    List<ObjectNode> out = new ArrayList<>();
    for (String f : List.of(JournalFile.PREVIOUS, JournalFile.NAME)) {
      Path p = h.home.logs().resolve(f);
      if (Files.exists(p)) {
        for (String l : Files.readAllLines(p, StandardCharsets.UTF_8)) {
          if (!l.isBlank()) {
            out.add((ObjectNode) Wire.JSON.readTree(l));
          }
        }
      }
    }
    return out;
  }

  private static List<dev.vigil.coordination.ProcessIdentity> launchedWorkers(Host h) throws IOException {
    List<dev.vigil.coordination.ProcessIdentity> ids = new ArrayList<>();
    for (ObjectNode e : journal(h)) {
      if (e.path("event").asText().equals("Launched")) {
        JsonNode id = e.path("identity");
        ids.add(new dev.vigil.coordination.ProcessIdentity(id.path("bootId").asText(), id.path("pid").asLong(),
            id.path("startTicks").asLong(), id.path("pgid").asLong()));
      }
    }
    return ids;
  }
}
