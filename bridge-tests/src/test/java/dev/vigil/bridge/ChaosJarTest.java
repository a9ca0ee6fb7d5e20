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
import dev.vigil.worker.protocol.Message;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * again with {@code vigil up}) or replaced by {@code vigil restart} (every third time; no worker is
 * touched) and random worker hosts are killed with {@code kill -9}. Every
 * task's command appends {@code start}/{@code end} lines (run, pid, monotonic time) to one shared
 * O_APPEND log. Then the faults stop, every ticket must settle, and:
 *
 * <ul>
 *   <li>C1: no two runs of one ticket overlap in time (no double spawn);
 *   <li>Q1, Q2: each ticket's attempts (as {@code vigil show --json} has them) equal its runs whose
 *       verdict spends one (FAILED, LOST, and the final SUCCEEDED or PERMANENT_FAILURE); STALLED and
 *       abandoned runs spend none;
 *   <li>no outcome a worker wrote ({@code outcome.json}) is missing from the store;
 *   <li>{@link CoordinationInvariants} hold on the H2 file, opened after the daemon stopped;
 *   <li>Q16: meanwhile an operator holds waiting tickets now and then, and answers the daemon's questions
 *       about them (release with 3 more attempts, or cancel) while daemons die: once the faults stopped no
 *       answer is left unapplied, and each applied release granted its attempts exactly once (a ticket's
 *       grants are 3 for each release its questions record as done), each applied cancel cancelled.
 * </ul>
 *
 * The home is a tmpfs of its own ({@value #DISK_MIB} MiB) where mounting works (root, as in CI),
 * and during the faults its disk fills up {@code -Dvigil.chaos.diskFulls} times (default 2): a
 * filler file takes every free byte for a few seconds while tasks run, then goes. Throughout such
 * an episode {@code vigil status} must answer, with exit 0 or 5 (the store is unavailable, D5),
 * never with "no daemon"; what the store could not record while the disk was full, the daemon
 * recovers once there is room, and the checks above hold all the same. Where nothing can be
 * mounted the episodes are skipped, and the test says so.
 *
 * <p>Submissions made while the daemon restarts (no daemon) or while its store is unavailable
 * (exit 5) are refused and retried with the same idempotency key, so a retry never makes a second
 * ticket. The test prints one line of figures. Size: {@code -Dvigil.chaos.tasks},
 * {@code -Dvigil.chaos.daemonKills}, {@code -Dvigil.chaos.workerKills},
 * {@code -Dvigil.chaos.diskFulls}, seed {@code -Dvigil.chaos.seed} (the {@code soak} profile
 * raises them).
 */
@Tag("slow")
@Tag("chaos")
class ChaosJarTest {
  private static final int TASKS = Integer.getInteger("vigil.chaos.tasks", 300);
  private static final int DAEMON_KILLS = Integer.getInteger("vigil.chaos.daemonKills", 15);
  private static final int WORKER_KILLS = Integer.getInteger("vigil.chaos.workerKills", 15);
  private static final int DISK_FULLS = Integer.getInteger("vigil.chaos.diskFulls", 2);
  /** The size of the home's own file system, MiB: room for a run of normal size, and quick to fill. */
  private static final int DISK_MIB = 256;
  /** How long the disk stays full in an episode, at least, ms. */
  private static final long FULL_FOR_MS = 5_000;
  /**
   * How long a submission waits for its reply before it is sent again (with the same key): longer
   * than any answer of a loaded daemon, and far shorter than the test.
   */
  private static final long SUBMIT_WAIT_MS = 20_000;
  /** The file that fills the home's disk in an episode. */
  private static final String FILLER = "filler";
  private static final long SEED = Long.getLong("vigil.chaos.seed", System.nanoTime());
  private static final Set<String> RESTING = Set.of("SUCCEEDED", "FAILED", "HELD", "CANCELLED");

  @TempDir
  Path tmp;

  private JarBuilds builds;
  private Home home;
  private final List<Long> daemons = new ArrayList<>();
  /** How many of the daemon's replacements were {@code vigil restart}s. */
  private int restarts;
  /** The home when it is a tmpfs of its own, to be unmounted after the test. */
  private Path mounted;

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
    if (mounted != null) {
      Files.deleteIfExists(mounted.resolve(FILLER));
      boolean unmounted = false;
      for (int i = 0; i < 20 && !unmounted; i++) {
        unmounted = system("umount", mounted.toString()).code() == 0;
        if (!unmounted) {
          Thread.sleep(250); // the killed processes let go of their files
        }
      }
      if (!unmounted) {
        JarBuilds.Result lazy = system("umount", "-l", mounted.toString());
        assertEquals(0, lazy.code(), "umount -l " + mounted + ": " + lazy.out());
      }
    }
  }

  /** Runs a system command to its end; its stdout and stderr together. */
  private static JarBuilds.Result system(String... cmd) throws Exception {
    Process p;
    try {
      p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    } catch (IOException e) {
      return new JarBuilds.Result(127, String.valueOf(e.getMessage()), "");
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), String.join(" ", cmd) + " finished");
    return new JarBuilds.Result(p.exitValue(), out, "");
  }

  /** Mounts a tmpfs of {@value #DISK_MIB} MiB on the (empty) home; empty when it can, else why not. */
  private Optional<String> mountHome(Path dir) throws Exception {
    JarBuilds.Result m = system("mount", "-t", "tmpfs", "-o", "size=" + DISK_MIB + "m,mode=0700", "tmpfs", dir.toString());
    if (m.code() != 0) {
      return Optional.of("cannot mount a tmpfs on " + dir + " (" + (m.out().isEmpty() ? "exit " + m.code() : m.out())
          + ")");
    }
    mounted = dir;
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    return Optional.empty();
  }

  /** What the disk-full episodes saw. */
  private static final class DiskFulls {
    int episodes;
    /** Episodes in which the store was seen unavailable. */
    int outages;
    int statusOk;
    int statusUnavailable;
    long filledMiB;
    final AtomicInteger refused = new AtomicInteger();
    final AtomicInteger unanswered = new AtomicInteger();
  }

  /**
   * One disk-full episode: a filler file takes every free byte of the home's file system for at
   * least {@value #FULL_FOR_MS} ms and two answers of {@code vigil status}, each of which must be
   * exit 0 or 5 (the store is unavailable), never "no daemon"; then the filler goes.
   */
  private void diskFull(Build jar, DiskFulls d) throws Exception {
    Path filler = home.dir().resolve(FILLER);
    long start = System.nanoTime();
    long bytes;
    ByteBuffer chunk = ByteBuffer.allocate(1 << 20);
    try (FileChannel ch = FileChannel.open(filler, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      try {
        while (true) {
          chunk.clear();
          while (chunk.hasRemaining()) {
            ch.write(chunk);
          }
        }
      } catch (IOException e) {
        assertTrue(String.valueOf(e.getMessage()).contains("No space left"), "the disk is full: " + e);
      }
      bytes = ch.size();
    }
    d.episodes++;
    d.filledMiB += bytes >> 20;
    boolean outage = false;
    int answers = 0;
    try {
      while (answers < 2 || System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(FULL_FOR_MS)) {
        JarBuilds.Result s = builds.run(jar, home.dir(), "status");
        assertTrue(s.code() == 0 || s.code() == 5, "vigil status answers on a full disk (exit 0, or 5: the store is "
            + "unavailable), exit " + s.code() + ": " + s.out() + s.err());
        if (s.code() == 5) {
          assertTrue(s.out().contains("the store is unavailable: ") && s.out().contains("; running work continues; "
              + "nothing new starts"), s.out());
          d.statusUnavailable++;
          outage = true;
        } else {
          d.statusOk++;
        }
        answers++;
      }
    } finally {
      Files.delete(filler);
    }
    if (outage) {
      d.outages++;
    }
    long daemon = daemons.get(daemons.size() - 1);
    assertTrue(JarBuilds.alive(daemon), "the daemon (pid " + daemon + ") lived through the full disk");
  }

  private record Interval(String run, long pid, double start, double end) {}

  @Test
  void chaos_killedDaemonsAndWorkers_noDoubleSpawn_noLostOutcome_attemptsExact_everyTicketSettles() throws Exception {
    SplittableRandom rng = new SplittableRandom(SEED);
    builds = new JarBuilds(tmp);
    // a copy of its own: a rebuild of the jar while the test runs changes nothing under its daemons
    Build jar = new Build(Files.copy(JarBuilds.VIGIL_JAR, tmp.resolve("vigil.jar")), "", "");
    home = new Home(builds.home("home"));
    Optional<String> noDisk = DISK_FULLS > 0 ? mountHome(home.dir()) : Optional.of("-Dvigil.chaos.diskFulls=0");
    noDisk.ifPresent(why -> System.out.println("chaos: the disk-full episodes are skipped: " + why));
    int diskFulls = noDisk.isPresent() ? 0 : DISK_FULLS;
    DiskFulls full = new DiskFulls();
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
            long sent = System.nanoTime();
            try {
              ObjectNode reply = Control.call(home.socket(), new Message.Command("submit", a), SUBMIT_WAIT_MS);
              if (reply.path("kind").asText().equals("Denied") && reply.path("message").asText().contains("shutting down")) {
                retries.incrementAndGet(); // vigil restart stops this daemon: the next one takes the same key
                Thread.sleep(200);
                continue;
              }
              if (reply.path("kind").asText().equals("Unavailable")) {
                full.refused.incrementAndGet(); // the disk is full: refused (exit 5), retried with the same key
                retries.incrementAndGet();
                Thread.sleep(200);
                continue;
              }
              assertEquals("Submitted", reply.path("kind").asText(), reply.toString());
              synchronized (tickets) {
                tickets.put(n, reply.path("ticket").path("id").asText());
              }
              break;
            } catch (Control.NoDaemon e) {
              if (System.nanoTime() - sent >= TimeUnit.MILLISECONDS.toNanos(SUBMIT_WAIT_MS)) {
                full.unanswered.incrementAndGet();
              }
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
    QuestionsAnswered answered = new QuestionsAnswered();
    AtomicReference<Boolean> chaosOn = new AtomicReference<>(true);
    Thread operator = new Thread(() -> answerQuestions(answered, chaosOn, new SplittableRandom(SEED + 2)),
        "chaos-operator");
    operator.start();

    int daemonKills = 0;
    int workerKills = 0;
    restarts = 0;
    long chaosUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(Math.max(60, TASKS / 3));
    long chaosMs = TimeUnit.NANOSECONDS.toMillis(chaosUntil - System.nanoTime());
    int events = DAEMON_KILLS + WORKER_KILLS;
    long pause = Math.max(100, (chaosMs - diskFulls * FULL_FOR_MS) / (events + 1));
    while (daemonKills < DAEMON_KILLS || workerKills < WORKER_KILLS) {
      Thread.sleep(pause / 2 + rng.nextLong(pause));
      if (full.episodes < diskFulls && daemonKills + workerKills >= (full.episodes + 1) * events / (diskFulls + 1)) {
        diskFull(jar, full);
      }
      boolean killDaemon = workerKills >= WORKER_KILLS || (daemonKills < DAEMON_KILLS && rng.nextBoolean());
      if (killDaemon && daemonKills % 3 == 1 && restart(jar, config)) {
        daemonKills++; // a replacement that leaves every worker running, among the kills
        restarts++;
      } else if (killDaemon) {
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
    chaosOn.set(false);
    operator.join(TimeUnit.MINUTES.toMillis(1));
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
    List<dev.vigil.coordination.Question> questions;
    try (H2Coordination h2 = RealStack.open(home.databaseFile())) {
      snapshot = h2.store().snapshot();
      questions = h2.store().questions(Set.of());
    }
    List<String> applyErrors = new ArrayList<>();
    for (dev.vigil.coordination.Question q : questions) {
      if (q.state() == dev.vigil.coordination.Question.State.ANSWERED) {
        applyErrors.add(q.id() + " answered '" + q.answer() + "' and never applied");
      }
    }
    for (dev.vigil.coordination.Ticket t : snapshot.tickets()) {
      long releases = questions.stream().filter(q -> t.id().equals(q.question().ticket())
          && q.state() == dev.vigil.coordination.Question.State.APPLIED && q.outcome().startsWith("done: release")).count();
      if (t.attemptsGranted() != 3 * releases) {
        applyErrors.add(t.id() + " was granted " + t.attemptsGranted() + " attempts by " + releases + " applied releases");
      }
      boolean cancelled = questions.stream().anyMatch(q -> t.id().equals(q.question().ticket())
          && q.state() == dev.vigil.coordination.Question.State.APPLIED && q.outcome().startsWith("done: cancel"));
      if (cancelled && t.state() != dev.vigil.coordination.TicketState.CANCELLED) {
        applyErrors.add(t.id() + " is " + t.state() + " though a cancel was applied");
      }
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
    String disk = noDisk.isPresent() ? "disk-full episodes skipped"
        : String.format("%d disk-full episodes (%d MiB filled, %d with the store unavailable; vigil status answered %d "
            + "times with 5, %d with 0; %d submissions refused as unavailable, %d unanswered within %d s)",
        full.episodes, full.filledMiB, full.outages, full.statusUnavailable, full.statusOk, full.refused.get(),
        full.unanswered.get(), SUBMIT_WAIT_MS / 1000);
    // read leniently: a line cut by the full disk may end inside a character
    List<String> daemonLog = new String(Files.readAllBytes(home.logs().resolve("daemon.log")), StandardCharsets.UTF_8)
        .lines().toList();
    String outagesLogged = String.format("daemon.log: %d store outages began, %d ended, %d changed",
        daemonLog.stream().filter(l -> l.contains("the store is unavailable: ")).count(),
        daemonLog.stream().filter(l -> l.contains("the store is back after ")).count(),
        daemonLog.stream().filter(l -> l.contains("the store is still unavailable")).count());
    System.out.printf("chaos: %d tasks, %d daemon kills (%d of them vigil restart), %d worker kills, %s, %s, "
            + "%d adoptions, %d double spawns, %d lost outcomes, %d submissions retried, %d runs, H2 file %d KiB, %.0f s "
            + "(seed %d: -Dvigil.chaos.seed=%d)%n",
        TASKS, daemonKills, restarts, workerKills, disk, outagesLogged, adoptions, doubleSpawns, lostOutcomes, retries.get(),
        snapshot.runs().size(), size / 1024, (System.nanoTime() - t0) / 1e9, SEED, SEED);
    assertEquals(diskFulls, full.episodes, "every disk-full episode took place");
    assertEquals(List.of(), overlaps, "C1 no double spawn (seed " + SEED + ")");
    assertEquals(List.of(), miscounted, "Q1/Q2 attempts equal the runs that spend one (seed " + SEED + ")");
    assertEquals(List.of(), lost, "no outcome a worker wrote is missing from the store (seed " + SEED + ")");
    System.out.printf("chaos questions: %d holds, %d answers recorded, %d questions in the store (%d applied)%n",
        answered.holds, answered.answers, questions.size(), questions.stream()
            .filter(q -> q.state() == dev.vigil.coordination.Question.State.APPLIED).count());
    assertEquals(List.of(), applyErrors, "Q16 every answer applied exactly once (seed " + SEED + ")");
    assertTrue(answered.answers > 0, "answers were given among the kills: " + answered.answers);
    assertTrue(DAEMON_KILLS < 5 || restarts > 0, "vigil restart replaced the daemon among the kills: " + restarts);
    assertTrue(byTicket.size() <= TASKS && snapshot.tickets().size() == TASKS, "one ticket per task: " + snapshot.tickets().size());
  }

  /** What the chaos operator did (Q16). */
  private static final class QuestionsAnswered {
    volatile int holds;
    volatile int answers;
  }

  /**
   * The chaos operator, until the faults stop: every 0.3-1.5 s it holds a random waiting ticket or answers a random
   * open question (release 2 in 3, else cancel); a daemon that is away or a store that is
   * unavailable is part of the chaos.
   */
  private void answerQuestions(QuestionsAnswered done, AtomicReference<Boolean> on,
                               SplittableRandom r) {
    while (on.get()) {
      try {
        Thread.sleep(r.nextInt(300, 1_500));
        if (r.nextBoolean()) {
          JsonNode ready = Control.command(home.socket(), "list", Wire.JSON.createObjectNode().put("state", "READY"))
              .path("tickets");
          if (ready.isEmpty()) {
            continue;
          }
          String t = ready.get(r.nextInt(ready.size())).path("id").asText();
          JsonNode reply = Control.command(home.socket(), "hold", Wire.JSON.createObjectNode().put("ticket", t)
              .put("reason", "held by the chaos operator"));
          if (reply.path("kind").asText().equals("TicketChanged")) {
            done.holds++;
          }
        } else {
          JsonNode open = Control.command(home.socket(), "questions", Wire.JSON.createObjectNode()).path("questions");
          if (open.isEmpty()) {
            continue;
          }
          JsonNode q = open.get(r.nextInt(open.size()));
          JsonNode reply = Control.command(home.socket(), "answer", Wire.JSON.createObjectNode()
              .put("question", q.path("id").asText()).put("option", r.nextInt(3) == 0 ? "cancel" : "release"));
          if (reply.path("kind").asText().equals("QuestionAnswered")) {
            done.answers++;
          }
        }
      } catch (Control.NoDaemon e) {
        // the daemon restarts
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        // a reply cut by a kill: part of the chaos
      }
    }
  }

  /** The exit code of a task's first run: mostly 0, some failures, a few stalls (75); later runs exit 0 or 1. */
  private static int pick(SplittableRandom r) {
    int x = r.nextInt(100);
    return x < 70 ? 0 : x < 85 ? 1 : x < 95 ? 2 : 75;
  }

  /**
   * {@code vigil restart}: the daemon is replaced while tasks run, no worker touched; whether it
   * was (a restart refused, as when the daemon is still booting, is said and left to a kill instead).
   */
  private boolean restart(Build jar, Path config) throws Exception {
    JarBuilds.Result r = builds.run(jar, home.dir(), "restart", "--config", config.toString());
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("pid ([0-9]+) took its workers over").matcher(r.out());
    if (r.code() != 0 || !m.find()) {
      System.out.println("chaos: vigil restart exited " + r.code() + ": " + r.out().strip() + " " + r.err().strip());
      return false;
    }
    daemons.add(builds.track(Long.parseLong(m.group(1))));
    return true;
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
