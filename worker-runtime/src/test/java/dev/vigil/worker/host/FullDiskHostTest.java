package dev.vigil.worker.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.coordination.RunExit;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.WorkSet;
import dev.vigil.supervisor.engine.WorkerTypeSpec;
import dev.vigil.worker.Outcome;
import dev.vigil.worker.process.LaunchedWorker;
import dev.vigil.worker.process.Processes;
import dev.vigil.worker.process.Stopped;
import dev.vigil.worker.protocol.Message;
import dev.vigil.worker.protocol.Subject;
import dev.vigil.worker.rundir.OutcomeRead;
import dev.vigil.worker.rundir.RunDirectory;
import dev.vigil.worker.testkit.Poll;
import dev.vigil.worker.testkit.TestDaemon;
import dev.vigil.worker.testkit.Workers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worker host when its outcome cannot be written: real worker JVMs whose run directory is a
 * real 1 MB tmpfs that the run's own command fills before it ends (needs root to mount; skipped,
 * saying why, where mounting fails), and a stand-in daemon.
 */
class FullDiskHostTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CANNOT_WRITE = "cannot write outcome.json (SUCCEEDED): No space left on device";

  @TempDir Path home;
  private TestDaemon daemon;
  private final List<LaunchedWorker> launched = new ArrayList<>();
  private final List<Path> mounts = new ArrayList<>();

  @BeforeEach
  void startDaemon() throws IOException {
    daemon = TestDaemon.start(home);
  }

  @AfterEach
  void cleanUp() throws Exception {
    for (LaunchedWorker w : launched) {
      w.identity().ifPresent(id -> Processes.stop(id, 0).join());
      w.process().waitFor(Poll.PATIENCE_MS, TimeUnit.MILLISECONDS);
    }
    daemon.close();
    for (Path m : mounts) {
      if (sh("umount", m.toString()).exit() != 0) {
        sh("umount", "-l", m.toString());
      }
    }
  }

  private record Ran(int exit, String output) {}

  private static Ran sh(String... argv) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    return new Ran(p.waitFor(), out);
  }

  /** Makes the run directory of {@code run} a 1 MB tmpfs; skips the test, saying why, when it cannot. */
  private Path tinyDisk(String run) throws InterruptedException {
    Path dir = RunDirectory.runsOf(home).resolve(run);
    Ran mount;
    try {
      Files.createDirectories(dir);
      mount = sh("mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", dir.toString());
    } catch (IOException e) {
      mount = new Ran(-1, e.toString());
    }
    if (mount.exit() != 0) {
      System.out.println("FullDiskHostTest skipped: cannot mount a tmpfs (root needed): " + mount.output());
    }
    assumeTrue(mount.exit() == 0, "cannot mount a tmpfs (root needed): " + mount.output());
    mounts.add(dir);
    return dir;
  }

  private record Worker(Subject subject, LaunchedWorker launched, RunDirectory dir, Path filler) {
    int exitStatus() throws InterruptedException {
      assertTrue(launched.process().waitFor(Poll.PATIENCE_MS, TimeUnit.MILLISECONDS), "worker " + subject.id() + " exits");
      return launched.process().exitValue();
    }

    boolean alive() {
      return launched.process().isAlive();
    }

    String log() throws IOException {
      return Files.readString(dir.stderrLog());
    }

    long lines(String containing) throws IOException {
      return log().lines().filter(l -> l.contains(containing)).count();
    }

    /** Temporary files of outcome writes left in the run directory. */
    List<Path> leftovers() throws IOException {
      try (Stream<Path> files = Files.list(dir.path())) {
        return files.filter(f -> f.getFileName().toString().startsWith("." + RunDirectory.OUTCOME)).toList();
      }
    }

    void awaitLog(String line) {
      Poll.until(subject.id() + "'s log says '" + line + "'", () -> {
        try {
          return log().contains(line);
        } catch (IOException e) {
          throw new AssertionError(e);
        }
      });
    }
  }

  /**
   * A task whose command writes to its stderr (so the log has room on the full disk for the host's
   * few lines), then fills the run's tiny disk, then exits 0.
   */
  private Worker fillingTheDisk(String run, Map<Timeout, Long> timeouts) throws IOException, InterruptedException {
    Path dir = tinyDisk(run);
    Path filler = dir.resolve("filler");
    ObjectNode payload = JSON.createObjectNode();
    payload.putArray("argv").add("sh").add("-c")
        .add("echo started >&2; head -c 4000000 /dev/zero > '" + filler + "' 2>/dev/null; exit 0");
    WorkerArgs args = new WorkerArgs(home, run, Optional.empty(), Optional.empty(), 1, "command",
        WorkerTypeSpec.Command.DEFAULT, TestDaemon.BUILD, home.resolve("vigil.sock"), Map.of()).withTimeouts(timeouts);
    Subject subject = new Subject.Run(run);
    LaunchedWorker w = Workers.launch(args, daemon.register(subject), payload);
    launched.add(w);
    return new Worker(subject, w, RunDirectory.of(home, run), filler);
  }

  @Test
  void aFullDiskAfterTheWorkKeepsTheHostAliveAndAnsweringItsDaemon_untilThereIsRoom_thenTheRealOutcomeIsWritten()
      throws Exception {
    Worker w = fillingTheDisk("t-1.1", Map.of());
    w.awaitLog(CANNOT_WRITE + "; trying again until there is room");
    long failedAt = System.nanoTime();
    assertTrue(Files.size(w.filler()) > 0, "the command filled the disk before it ended");
    assertTrue(w.alive(), "the work is done but its outcome is not written: the host lives on");
    assertTrue(w.dir().isReserved(), "and holds the reservation, so a daemon sees the run still running");
    assertInstanceOf(OutcomeRead.None.class, w.dir().readOutcome());

    daemon.stop();
    Poll.until("the worker is gone from the old daemon", () -> !daemon.connected(w.subject()));
    int before = daemon.received().size();
    daemon.listen();
    daemon.await(w.subject(), Message.Hello.class);
    daemon.await(w.subject(), Message.Hello.class);
    Poll.until("a daemon that comes back meanwhile hears the run is still work", () -> daemon.received().stream()
        .skip(before).anyMatch(r -> w.subject().equals(r.subject()) && r.message() instanceof Message.Busy b
            && b.work().items().contains(new WorkSet.Item(WorkSet.Kind.RUN, "t-1.1"))));
    while (System.nanoTime() - failedAt < TimeUnit.MILLISECONDS.toNanos(2_000)) {
      Thread.sleep(100); // several tries (after 100, 200, 400, 800 ms ...) fail meanwhile
    }
    assertTrue(w.alive());
    assertInstanceOf(OutcomeRead.None.class, w.dir().readOutcome(), "a failed try leaves no outcome");
    assertEquals(List.of(), w.leftovers(), "nor a temporary file that would fill the disk further");
    assertEquals(1, w.lines("cannot write outcome.json"), "one line when the write starts failing, not one per try");

    Files.delete(w.filler());
    assertEquals(new Outcome.Succeeded("exit code 0"), daemon.await(w.subject(), Message.OutcomeReport.class).outcome(),
        "the real verdict, once there is room");
    assertEquals(0, w.exitStatus(), "the host exits with its command's own status");
    assertEquals(Optional.of(true), daemon.outcomeWasOnDiskAtReport(w.subject()), "effect before receipt");
    OutcomeRead.Recorded recorded = assertInstanceOf(OutcomeRead.Recorded.class, w.dir().readOutcome());
    assertEquals(new Outcome.Succeeded("exit code 0"), recorded.outcome().outcome());
    assertEquals(RunExit.code(0, 0), recorded.outcome().exit());
    assertEquals(List.of(), w.leftovers());
    assertEquals(1, w.lines("cannot write outcome.json"), w.log());
    assertEquals(1, w.lines("outcome.json written after "), w.log());
  }

  @Test
  void aDiskThatStaysFull_isGivenUpAfterTwoLostExitWindows_withoutAnOutcomeOrATemporaryFile() throws Exception {
    long lostExitMs = 3_000;
    Worker w = fillingTheDisk("t-2.1", Map.of(Timeout.LOST_EXIT, lostExitMs, Timeout.CLIENT_RELAUNCH, 1_000L,
        Timeout.SUPERVISOR_BOOT, 2_000L, Timeout.LAUNCH_HANDOFF, 2_000L));
    w.awaitLog(CANNOT_WRITE + "; trying again until there is room (for up to 6s)");
    long failedAt = System.nanoTime();
    assertEquals(Host.FAILED, w.exitStatus(), "given up: the host fails as before, without an outcome");
    assertTrue(System.nanoTime() - failedAt >= TimeUnit.MILLISECONDS.toNanos(2 * lostExitMs - 500),
        "not before two lost-exit windows");
    assertInstanceOf(OutcomeRead.None.class, w.dir().readOutcome());
    assertEquals(List.of(), w.leftovers());
    assertEquals(1, w.lines("cannot write outcome.json"), w.log());
    assertEquals(1, w.lines("gave up writing outcome.json (SUCCEEDED) after "), w.log());
    assertTrue(daemon.received().stream().noneMatch(r -> r.message() instanceof Message.OutcomeReport),
        "no outcome is reported that is not written");
  }

  @Test
  void aTermWhileTheDiskIsFull_endsTheHostAfterTheTeardown() throws Exception {
    long teardownMs = 1_000;
    Worker w = fillingTheDisk("t-3.1", Map.of(Timeout.WORKER_TEARDOWN, teardownMs, Timeout.KILL_ROUTE, 300L,
        Timeout.CHILD_DRAIN, 700L));
    w.awaitLog(CANNOT_WRITE);
    long termAt = System.nanoTime();
    Stopped stopped = Processes.stop(w.launched().identity().orElseThrow(), 10_000).get(30, TimeUnit.SECONDS);
    assertEquals(new Stopped.Ended(false), stopped, "ended by the TERM itself, no KILL needed");
    assertTrue(System.nanoTime() - termAt < TimeUnit.MILLISECONDS.toNanos(teardownMs + 5_000),
        "within the teardown (and a JVM's exit)");
    assertEquals(15, w.launched().onExit().get().signal());
    assertInstanceOf(OutcomeRead.None.class, w.dir().readOutcome());
    assertEquals(List.of(), w.leftovers());
    assertEquals(1, w.lines(CANNOT_WRITE + "; trying again"), w.log());
    // the main thread's own give-up falls due with the TERM's teardown, and is said if it comes before the exit
    assertTrue(w.lines("stopped, and still cannot write outcome.json") <= 1, w.log());
  }
}
