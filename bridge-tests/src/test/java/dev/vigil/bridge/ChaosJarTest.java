package dev.vigil.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.bridge.JarBuilds.Build;
import dev.vigil.coordination.Snapshot;
import dev.vigil.coordination.Verdict;
import dev.vigil.coordination.h2.H2Coordination;
import dev.vigil.coordination.law.CoordinationInvariants;
import dev.vigil.launcher.internal.Home;
import dev.vigil.launcher.internal.JournalFile;
import dev.vigil.launcher.internal.Wire;
import dev.vigil.worker.process.GroupSignal;
import dev.vigil.worker.process.Processes;
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
 * Chaos against the runnable jar: tasks of random length (0-3 s) and exit code over two lanes of
 * four, submitted while the daemon is killed with {@code kill -9} at random moments (and started
 * again with {@code vigil up}) and random worker hosts are killed with {@code kill -9}. Every
 * task's command appends {@code start}/{@code end} lines (run, pid, monotonic time) to one shared
 * O_APPEND log. Then the faults stop, every ticket must settle, and:
 *
 * <ul>
 *   <li>C1: no two runs of one ticket overlap in time (no double spawn);
 *   <li>Q1, Q2: each ticket's attempts (as {@code vigil show --json} has them) equal its runs whose
 *       verdict spends one (FAILED, LOST, and the final SUCCEEDED or PERMANENT_FAILURE); STALLED and
 *       abandoned runs spend none;
 *   <li>no outcome a worker wrote ({@code outcome.json}) is missing from the store;
 *   <li>{@link CoordinationInvariants} hold on the H2 file, opened after the daemon stopped.
 * </ul>
 *
 * Submissions made while the daemon restarts are refused (no daemon) and retried with the same
 * idempotency key, so a retry never makes a second ticket. The test prints one line of figures.
 * Size: {@code -Dvigil.chaos.tasks}, {@code -Dvigil.chaos.daemonKills},
 * {@code -Dvigil.chaos.workerKills}, seed {@code -Dvigil.chaos.seed} (the {@code soak} profile
 * raises them).
 */
@Tag("slow")
@Tag("chaos")
class ChaosJarTest {
  private static final int TASKS = Integer.getInteger("vigil.chaos.tasks", 300);
  private static final int DAEMON_KILLS = Integer.getInteger("vigil.chaos.daemonKills", 15);
  private static final int WORKER_KILLS = Integer.getInteger("vigil.chaos.workerKills", 15);
  private static final long SEED = Long.getLong("vigil.chaos.seed", System.nanoTime());
  private static final Set<String> RESTING = Set.of("SUCCEEDED", "FAILED", "HELD", "CANCELLED");

  @TempDir
  Path tmp;

  private JarBuilds builds;
  private Home home;
  private final List<Long> daemons = new ArrayList<>();

  @AfterEach
  void cleanup() throws Exception {
    for (long pid : daemons) {
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }
    if (home != null) {
      for (var id : launchedWorkers()) {
        Processes.signalWhatIsLeft(id, GroupSignal.KILL);
      }
    }
  }

  private record Interval(String run, long pid, double start, double end) {}

  @Test
  void chaos_killedDaemonsAndWorkers_noDoubleSpawn_noLostOutcome_attemptsExact_everyTicketSettles() throws Exception {
    SplittableRandom rng = new SplittableRandom(SEED);
    builds = new JarBuilds(tmp);
    Build jar = new Build(JarBuilds.VIGIL_JAR, "", "");
    home = new Home(builds.home("home"));
    Path log = tmp.resolve("intervals.log");
    Path config = tmp.resolve("vigil.json");
    Files.writeString(config, """
        { "lanes": { "default": { "concurrency": 1 }, "a": { "concurrency": 4 }, "b": { "concurrency": 4 } },
          "maxAttempts": 3,
          "retry": { "backoffBase": "200ms", "backoffCap": "2s" },
          "timeouts": { "heartbeat": "1s", "statusStale": "6s", "reconcile": "1s", "leaseTtl": "5s" } }
        """);
    long t0 = System.nanoTime();
    up(jar, config);

    AtomicInteger retries = new AtomicInteger();
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
          var argv = p.putArray("argv");
          argv.add("sh").add("-c").add("r=$(basename \"$PWD\"); read up x < /proc/uptime; echo \"start $r $$ $up\" >> "
              + log + "; sleep " + seconds + "; read up x < /proc/uptime; echo \"end $r $$ $up\" >> " + log
              + "; case $r in *.1) exit " + first + ";; *) exit " + later + ";; esac");
          while (true) {
            try {
              ObjectNode reply = Control.command(home.socket(), "submit", a);
              assertEquals("Submitted", reply.path("kind").asText(), reply.toString());
              synchronized (tickets) {
                tickets.put(n, reply.path("ticket").path("id").asText());
              }
              break;
            } catch (Control.NoDaemon e) {
              retries.incrementAndGet(); // the daemon restarts: part of the chaos, not a failure
              Thread.sleep(200);
            }
          }
          Thread.sleep(r.nextInt(50, 500));
        }
      } catch (Throwable e) {
        failed.set(e);
      }
    }, "chaos-submitter");
    submitter.start();

    int daemonKills = 0;
    int workerKills = 0;
    long chaosUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(Math.max(60, TASKS / 3));
    long chaosMs = TimeUnit.NANOSECONDS.toMillis(chaosUntil - System.nanoTime());
    long pause = chaosMs / (DAEMON_KILLS + WORKER_KILLS + 1);
    while (daemonKills < DAEMON_KILLS || workerKills < WORKER_KILLS) {
      Thread.sleep(pause / 2 + rng.nextLong(pause));
      boolean killDaemon = workerKills >= WORKER_KILLS || (daemonKills < DAEMON_KILLS && rng.nextBoolean());
      if (killDaemon) {
        long pid = daemons.get(daemons.size() - 1);
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        JarBuilds.await("the killed daemon is gone", 30, () -> !JarBuilds.alive(pid));
        daemonKills++;
        Thread.sleep(rng.nextInt(100, 2_000));
        up(jar, config);
      } else if (killWorker(rng)) {
        workerKills++;
      }
      if (failed.get() != null) {
        throw new AssertionError("the submitter failed", failed.get());
      }
    }
    submitter.join(TimeUnit.MINUTES.toMillis(10));
    if (failed.get() != null) {
      throw new AssertionError("the submitter failed", failed.get());
    }
    assertEquals(TASKS, tickets.size(), "every task was submitted");

    // the faults stop: every ticket settles
    Map<String, JsonNode> shown = new TreeMap<>();
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    while (true) {
      shown.clear();
      boolean resting = true;
      for (String t : tickets.values()) {
        ObjectNode a = Wire.JSON.createObjectNode();
        a.put("ticket", t);
        JsonNode ticket = Control.command(home.socket(), "show", a).path("ticket");
        shown.put(t, ticket);
        resting &= RESTING.contains(ticket.path("state").asText());
      }
      if (resting) {
        break;
      }
      assertTrue(System.nanoTime() < deadline, "every ticket settles once the faults stopped: "
          + shown.values().stream().filter(t -> !RESTING.contains(t.path("state").asText())).map(t -> t.path("id")
              .asText() + " " + t.path("state").asText()).toList());
      Thread.sleep(500);
    }
    List<String> ids = new ArrayList<>(shown.keySet());
    for (int i = 0; i < 5; i++) {
      String t = ids.get(rng.nextInt(ids.size()));
      JarBuilds.Result show = builds.run(jar, home.dir(), "show", t, "--json");
      assertEquals(0, show.code(), show.err());
      assertEquals(shown.get(t), Wire.JSON.readTree(show.out()), "vigil show --json " + t + " shows what was checked");
    }
    JarBuilds.Result down = builds.run(jar, home.dir(), "down");
    assertEquals(0, down.code(), "the idle daemon stops: " + down.err());

    // C1: no two runs of one ticket overlap in time
    Map<String, List<Interval>> byTicket = intervals(log);
    int doubleSpawns = 0;
    List<String> overlaps = new ArrayList<>();
    for (Map.Entry<String, List<Interval>> e : byTicket.entrySet()) {
      List<Interval> runs = e.getValue();
      runs.sort((x, y) -> Double.compare(x.start(), y.start()));
      for (int i = 1; i < runs.size(); i++) {
        if (runs.get(i).start() < runs.get(i - 1).end()) {
          doubleSpawns++;
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
        miscounted.add(t.path("id").asText() + ": attempts " + t.path("attemptsUsed").asInt() + ", spending runs " + spent);
      }
    }

    // no outcome a worker wrote is missing from the store; invariants on the file
    Snapshot snapshot;
    try (H2Coordination h2 = RealStack.open(home.databaseFile())) {
      snapshot = h2.store().snapshot();
    }
    CoordinationInvariants.check(snapshot);
    Map<String, dev.vigil.coordination.Run> runs = new HashMap<>();
    snapshot.runs().forEach(r -> runs.put(r.id().toString(), r));
    int lostOutcomes = 0;
    List<String> lost = new ArrayList<>();
    try (Stream<Path> dirs = Files.list(home.runs())) {
      for (Path d : dirs.filter(p -> p.getFileName().toString().startsWith("t-")).toList()) {
        Path outcome = d.resolve("outcome.json");
        if (!Files.exists(outcome)) {
          continue;
        }
        com.fasterxml.jackson.databind.JsonNode file = Wire.JSON.readTree(Files.readString(outcome));
        String written = file.path("verdict").asText();
        dev.vigil.coordination.Run r = runs.get(d.getFileName().toString());
        // A host whose claim was rolled back before it started (no start recorded) writes the
        // "never confirmed: no work done" outcome and exits; no work ran, so ABANDONED is its record.
        boolean neverStarted = r != null && r.verdict() == Verdict.ABANDONED && r.start() == null
            && written.equals("STALLED") && file.path("detail").asText().startsWith("never confirmed by a daemon");
        boolean kept = r != null && r.verdict() != null && (r.verdict().name().equals(written) || neverStarted
            || (r.verdict() == Verdict.SUPERSEDED && (written.equals("STALLED") || written.equals("BLOCKED"))));
        if (!kept) {
          lostOutcomes++;
          lost.add(d.getFileName() + " wrote " + written + ", the store has " + (r == null ? "no run" : r.verdict()));
        }
      }
    }
    long adoptions = journal().stream().filter(e -> e.path("event").asText().equals("Recovered")
        && Set.of("READOPT", "ADOPT_CLAIM").contains(e.path("action").asText())).count();
    long size = Files.size(home.databaseFile());
    System.out.printf("chaos: %d tasks, %d daemon kills, %d worker kills, %d adoptions, %d double spawns, %d lost "
            + "outcomes, %d submissions retried, %d runs, H2 file %d KiB, %.0f s (seed %d: -Dvigil.chaos.seed=%d)%n",
        TASKS, daemonKills, workerKills, adoptions, doubleSpawns, lostOutcomes, retries.get(), snapshot.runs().size(),
        size / 1024, (System.nanoTime() - t0) / 1e9, SEED, SEED);
    assertEquals(List.of(), overlaps, "C1 no double spawn (seed " + SEED + ")");
    assertEquals(List.of(), miscounted, "Q1/Q2 attempts equal the runs that spend one (seed " + SEED + ")");
    assertEquals(List.of(), lost, "no outcome a worker wrote is missing from the store (seed " + SEED + ")");
    assertTrue(byTicket.size() <= TASKS && snapshot.tickets().size() == TASKS, "one ticket per task: " + snapshot.tickets().size());
  }

  /** The exit code of a task's first run: mostly 0, some failures, a few stalls (75); later runs exit 0 or 1. */
  private static int pick(SplittableRandom r) {
    int x = r.nextInt(100);
    return x < 70 ? 0 : x < 85 ? 1 : x < 95 ? 2 : 75;
  }

  private void up(Build jar, Path config) throws Exception {
    JarBuilds.Result r = builds.run(jar, home.dir(), "up", "--config", config.toString());
    assertEquals(0, r.code(), "vigil up: " + r.err());
    daemons.add(builds.track(Long.parseLong(r.out().substring("pid ".length()))));
  }

  /** {@code kill -9} of the worker host of a random running run (its command lives on in the group). */
  private boolean killWorker(SplittableRandom rng) {
    try {
      JsonNode runs = Control.command(home.socket(), "runs", Wire.JSON.createObjectNode().put("live", true)).path("runs");
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

  private static Map<String, List<Interval>> intervals(Path log) throws IOException {
    Map<String, Map<String, double[]>> open = new TreeMap<>();
    Map<String, Long> pids = new HashMap<>();
    for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
      String[] w = line.trim().split(" ");
      String run = w[1];
      String ticket = run.substring(0, run.indexOf('.'));
      double[] se = open.computeIfAbsent(ticket, k -> new TreeMap<>()).computeIfAbsent(run, k -> new double[] {-1,
          Double.MAX_VALUE});
      pids.put(run, Long.parseLong(w[2]));
      if (w[0].equals("start")) {
        se[0] = Double.parseDouble(w[3]);
      } else {
        se[1] = Double.parseDouble(w[3]);
      }
    }
    Map<String, List<Interval>> out = new TreeMap<>();
    open.forEach((t, rs) -> rs.forEach((run, se) -> out.computeIfAbsent(t, k -> new ArrayList<>())
        .add(new Interval(run, pids.get(run), se[0], se[1]))));
    return out;
  }

  private List<ObjectNode> journal() throws IOException {
    List<ObjectNode> out = new ArrayList<>();
    for (String f : List.of(JournalFile.PREVIOUS, JournalFile.NAME)) {
      Path p = home.logs().resolve(f);
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

  private List<dev.vigil.coordination.ProcessIdentity> launchedWorkers() throws IOException {
    List<dev.vigil.coordination.ProcessIdentity> ids = new ArrayList<>();
    for (ObjectNode e : journal()) {
      if (e.path("event").asText().equals("Launched")) {
        JsonNode id = e.path("identity");
        ids.add(new dev.vigil.coordination.ProcessIdentity(id.path("bootId").asText(), id.path("pid").asLong(),
            id.path("startTicks").asLong(), id.path("pgid").asLong()));
      }
    }
    return ids;
  }
}
