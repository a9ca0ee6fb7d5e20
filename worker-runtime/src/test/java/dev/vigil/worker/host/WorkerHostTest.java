package dev.vigil.worker.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RunExit;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.WorkSet;
import dev.vigil.supervisor.engine.port.IdentityRecord;
import dev.vigil.worker.Outcome;
import dev.vigil.worker.process.LaunchedWorker;
import dev.vigil.worker.process.Processes;
import dev.vigil.worker.process.Stopped;
import dev.vigil.worker.protocol.Message;
import dev.vigil.worker.protocol.RunToken;
import dev.vigil.worker.protocol.Subject;
import dev.vigil.worker.rundir.BusyEvidence;
import dev.vigil.worker.rundir.OutcomeRead;
import dev.vigil.worker.rundir.RecordedOutcome;
import dev.vigil.worker.rundir.RunDirectory;
import dev.vigil.worker.testkit.Poll;
import dev.vigil.supervisor.engine.WorkerTypeSpec;
import dev.vigil.worker.testkit.TestDaemon;
import dev.vigil.worker.testkit.TestService;
import dev.vigil.worker.testkit.Workers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The worker host end to end: real worker JVMs, a real socket, a stand-in daemon. */
class WorkerHostTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** One lost-exit window for the S4 tests, ms; the lattice needs clientRelaunch + supervisorBoot ≤ it. */
  private static final long LOST_EXIT_MS = 4_000;

  @TempDir Path home;
  private TestDaemon daemon;
  private final List<LaunchedWorker> launched = new ArrayList<>();

  @BeforeEach
  void startDaemon() throws IOException {
    daemon = TestDaemon.start(home);
  }

  @AfterEach
  void cleanUp() {
    for (LaunchedWorker w : launched) {
      w.identity().ifPresent(id -> Processes.stop(id, 0).join());
    }
    daemon.close();
  }

  private record Worker(Subject subject, String token, LaunchedWorker launched, RunDirectory dir) {
    ProcessIdentity identity() {
      return launched.identity().orElseThrow();
    }

    int exitStatus() throws InterruptedException {
      assertTrue(launched.process().waitFor(Poll.PATIENCE_MS, TimeUnit.MILLISECONDS), "worker " + subject.id() + " exits");
      return launched.process().exitValue();
    }

    Outcome outcomeOnDisk() {
      return ((OutcomeRead.Recorded) dir.readOutcome()).outcome().outcome();
    }

    void touch(String file) throws IOException {
      Files.createFile(dir.path().resolve(file));
    }
  }

  /** What the host runs for each type these tests name: the built-in command type, or a declared class. */
  private static final Map<String, WorkerTypeSpec.Implementation> TYPES = Map.of(
      "command", WorkerTypeSpec.Command.DEFAULT,
      TestService.NAME, new WorkerTypeSpec.Declared(TestService.class.getName()),
      "no-such-type", new WorkerTypeSpec.Declared("dev.vigil.worker.testkit.NoSuchType"));

  private Worker launch(String run, String type, String payload, UnaryOperator<WorkerArgs> tweak) throws IOException {
    WorkerArgs args = tweak.apply(new WorkerArgs(home, run, Optional.empty(), Optional.empty(), 1, type,
        TYPES.get(type), TestDaemon.BUILD, home.resolve("vigil.sock"), Map.of()));
    Subject subject = args.session().<Subject>map(Subject.Session::new).orElseGet(() -> new Subject.Run(run));
    String token = daemon.register(subject);
    LaunchedWorker w = Workers.launch(args, token, payload == null ? null : JSON.readTree(payload));
    launched.add(w);
    return new Worker(subject, token, w, RunDirectory.of(home, run));
  }

  private static RecordedOutcome recorded(Worker w) {
    return ((OutcomeRead.Recorded) w.dir().readOutcome()).outcome();
  }

  private Worker launch(String run, String payload, RunSettings settings) throws IOException {
    WorkerArgs args = new WorkerArgs(home, run, Optional.empty(), Optional.empty(), 1, "command",
        WorkerTypeSpec.Command.DEFAULT, TestDaemon.BUILD, home.resolve("vigil.sock"), Map.of());
    Subject subject = new Subject.Run(run);
    String token = daemon.register(subject);
    LaunchedWorker w = Workers.launch(args, token, JSON.readTree(payload), settings);
    launched.add(w);
    return new Worker(subject, token, w, RunDirectory.of(home, run));
  }

  private Worker command(String run, String script) throws IOException {
    return launch(run, "command", "{\"argv\":[\"sh\",\"-c\",\"" + script + "\"]}", a -> a);
  }

  private static UnaryOperator<WorkerArgs> shortLostExit() {
    return a -> a.withTimeouts(Map.of(Timeout.LOST_EXIT, LOST_EXIT_MS, Timeout.CLIENT_RELAUNCH, 1_000L,
        Timeout.SUPERVISOR_BOOT, 3_000L, Timeout.LAUNCH_HANDOFF, 3_000L));
  }

  /** The identities of a worker host's descendants. */
  private static List<ProcessIdentity> children(Worker w) {
    return ProcessHandle.of(w.identity().pid()).orElseThrow().descendants()
        .map(h -> Processes.identityOf(h.pid())).flatMap(Optional::stream).toList();
  }

  private Message.Progress awaitProgress(Worker w, String message) throws InterruptedException {
    return daemon.await(w.subject(), Message.Progress.class, p -> p.message().equals(message), Poll.PATIENCE_MS);
  }

  @Test
  void theCommandTypeMapsExitCodesToVerdicts_writesTheOutcomeBeforeReportingIt_andHidesTheToken() throws Exception {
    Worker ok = command("t-1.1", "exit 0");
    Worker failed = command("t-2.1", "exit 1");
    Worker stalled = command("t-3.1", "exit 75");
    Worker noToken = command("t-4.1", "test -z \\\"$VIGIL_RUN_TOKEN\\\"");
    Worker badPayload = launch("t-5.1", "command", "{\"argv\":[]}", a -> a);
    Worker noType = launch("t-6.1", "no-such-type", null, a -> a);
    long before = System.currentTimeMillis();

    assertEquals(new Outcome.Succeeded("exit code 0"), daemon.await(ok.subject(), Message.OutcomeReport.class).outcome());
    assertEquals(new Outcome.Failed("exit code 1"), daemon.await(failed.subject(), Message.OutcomeReport.class).outcome());
    Outcome.Stalled s = assertInstanceOf(Outcome.Stalled.class,
        daemon.await(stalled.subject(), Message.OutcomeReport.class).outcome());
    assertTrue(s.untilMs() >= before + 50_000 && s.untilMs() <= System.currentTimeMillis() + 60_000, "stalled for 1m: " + s);
    assertEquals(new Outcome.Succeeded("exit code 0"), daemon.await(noToken.subject(), Message.OutcomeReport.class).outcome(),
        "C9: the command's environment has no run token");
    assertEquals(new Outcome.PermanentFailure("payload field 'argv' must be a non-empty array of strings"),
        daemon.await(badPayload.subject(), Message.OutcomeReport.class).outcome());
    assertInstanceOf(Outcome.PermanentFailure.class, daemon.await(noType.subject(), Message.OutcomeReport.class).outcome());

    Map<Worker, Integer> status = Map.of(ok, 0, failed, 1, stalled, 75, noToken, 0, badPayload, 0, noType, 0);
    for (Worker w : List.of(ok, failed, stalled, noToken, badPayload, noType)) {
      assertEquals(status.get(w), w.exitStatus(), "the host exits with its command's own status: " + w.subject().id());
      assertEquals(Optional.of(true), daemon.outcomeWasOnDiskAtReport(w.subject()), "effect before receipt: " + w.subject().id());
      assertEquals(new IdentityRecord.Written(w.identity(), TestDaemon.BUILD, RunToken.hash(w.token())),
          w.dir().readIdentity(), "identity.json is the launched identity, with its build and its token's hash");
      assertFalse(Files.readString(w.dir().file(RunDirectory.IDENTITY)).contains(w.token()),
          "C9: the token itself is stored nowhere");
      assertFalse(w.dir().isReserved(), "the reservation dies with the worker");
    }
    assertEquals(new Outcome.Failed("exit code 1"), failed.outcomeOnDisk());
    assertEquals(RunExit.code(1, 0), recorded(failed).exit(), "the command's exit is written with the outcome");
    assertEquals(RunExit.code(0, 0), recorded(ok).exit());
    assertEquals(null, recorded(badPayload).exit(), "nothing ran: no command exit");
    Message.Busy busy = daemon.await(ok.subject(), Message.Busy.class, b -> b.work().items().stream()
        .anyMatch(i -> i.kind() == WorkSet.Kind.RUN), Poll.PATIENCE_MS);
    assertTrue(busy.work().items().contains(new WorkSet.Item(WorkSet.Kind.RUN, "t-1.1")));
    BusyEvidence last = ok.dir().readBusy().orElseThrow();
    assertFalse(last.busy(), "S3: the run ended, so the latest busy evidence says idle");
  }

  @Test
  void theCommandRunsInTheRecordedDirectory_withExactlyTheRecordedEnvironment_andNoSecretLeavesIt() throws Exception {
    Path work = Files.createDirectory(home.resolve("work dir"));
    Files.writeString(work.resolve("localfile"), "hello from the directory\n");
    Map<String, String> env = Map.of("PATH", System.getenv("PATH"), "MYVAR", "x y", "SECRET", "s3cret-value");
    Worker w = launch("t-1.1", "{\"argv\":[\"sh\",\"-c\",\"echo $MYVAR; cat localfile; env > env.txt\"]}",
        new RunSettings(Optional.of(work), Optional.of(env)));
    assertEquals(new Outcome.Succeeded("exit code 0"), daemon.await(w.subject(), Message.OutcomeReport.class).outcome());
    assertEquals(0, w.exitStatus());
    assertEquals("x y\nhello from the directory\n", Files.readString(w.dir().stdoutLog()));
    List<String> names = Files.readAllLines(work.resolve("env.txt")).stream().map(l -> l.substring(0, l.indexOf('=')))
        .filter(n -> !List.of("PWD", "SHLVL", "_", "OLDPWD").contains(n)).sorted().toList();
    assertEquals(List.of("MYVAR", "PATH", "SECRET"), names, "exactly the recorded environment (the shell adds its own)");
    try (var files = Files.list(w.dir().path())) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        assertFalse(Files.readString(f).contains("s3cret-value"), "no value of the environment in " + f.getFileName());
      }
    }
    assertFalse(String.join(" ", w.launched().process().info().arguments().map(List::of).orElse(List.of()))
        .contains("s3cret"), "nor on the host's command line");
  }

  @Test
  void aRecordedDirectoryThatIsGone_blocksTheRunNamingIt_andNothingRuns() throws Exception {
    Path gone = home.resolve("gone");
    Worker w = launch("t-1.1", "{\"argv\":[\"touch\",\"" + home.resolve("ran") + "\"]}",
        new RunSettings(Optional.of(gone), Optional.empty()));
    assertEquals(new Outcome.Blocked("the working directory " + gone + " is gone"),
        daemon.await(w.subject(), Message.OutcomeReport.class).outcome());
    assertFalse(Files.exists(home.resolve("ran")));
  }

  @Test
  void aCommandThatCannotBeExecuted_failsPermanentlyWithTheSystemsReason() throws Exception {
    Path notExecutable = Files.writeString(home.resolve("script.sh"), "echo hi\n");
    Worker missing = launch("t-1.1", "{\"argv\":[\"no-such-program-4711\"]}", RunSettings.NONE);
    Worker denied = launch("t-2.1", "{\"argv\":[\"" + notExecutable + "\"]}", RunSettings.NONE);
    assertEquals(new Outcome.PermanentFailure("cannot run no-such-program-4711: No such file or directory"),
        daemon.await(missing.subject(), Message.OutcomeReport.class).outcome());
    assertEquals(new Outcome.PermanentFailure("cannot run " + notExecutable + ": Permission denied"),
        daemon.await(denied.subject(), Message.OutcomeReport.class).outcome());
    // the exit shown is what a shell reports for such a command, never the host's 0
    assertEquals(127, missing.exitStatus());
    assertEquals(RunExit.code(127, 0), recorded(missing).exit());
    assertEquals(126, denied.exitStatus());
    assertEquals(RunExit.code(126, 0), recorded(denied).exit());
  }

  @Test
  void aCommandKilledByASignal_isWrittenAsThatSignal_andTheHostExitsAsAShellWouldReportIt() throws Exception {
    Worker w = command("t-1.1", "kill -9 $$");
    assertInstanceOf(Outcome.Failed.class, daemon.await(w.subject(), Message.OutcomeReport.class).outcome());
    assertEquals(137, w.exitStatus());
    assertEquals(RunExit.signal(9, 0), recorded(w).exit());
  }

  @Test
  void Q3_aWorkerNotConfirmedWithinTheHandoffOrDeniedExitsWithoutDoingAnyWork() throws Exception {
    Path marker = home.resolve("work-was-done");
    String payload = "{\"argv\":[\"touch\",\"" + marker + "\"]}";
    daemon.policy(new Subject.Run("t-1.1"), TestDaemon.Welcome.HOLD);
    daemon.policy(new Subject.Run("t-2.1"), TestDaemon.Welcome.DENY);
    Worker held = launch("t-1.1", "command", payload, a -> a.withTimeout(Timeout.LAUNCH_HANDOFF, 2_000));
    Worker denied = launch("t-2.1", "command", payload, a -> a);
    assertEquals(Host.NOT_CONFIRMED, held.exitStatus());
    assertEquals(Host.NOT_CONFIRMED, denied.exitStatus());
    daemon.await(held.subject(), Message.Hello.class);
    for (Worker w : List.of(held, denied)) {
      OutcomeRead.Recorded r = assertInstanceOf(OutcomeRead.Recorded.class, w.dir().readOutcome(),
          "Q2: a worker that did no work leaves a STALLED outcome, so no attempt is charged");
      assertInstanceOf(dev.vigil.worker.Outcome.Stalled.class, r.outcome().outcome());
      assertTrue(w.dir().readBusy().isEmpty(), "no work, no busy evidence");
    }
    assertFalse(Files.exists(marker), "no user work ran without a go");
  }

  @Test
  void Q3_userWorkBeginsOnlyWithAWelcomeThatSaysGo() throws Exception {
    Path marker = home.resolve("work-was-done");
    Subject run = new Subject.Run("t-1.1");
    daemon.policy(run, TestDaemon.Welcome.HOLD);
    Worker w = launch("t-1.1", "command", "{\"argv\":[\"touch\",\"" + marker + "\"]}", a -> a);
    daemon.await(run, Message.Hello.class);
    daemon.await(run, Message.Idle.class);
    assertFalse(Files.exists(marker), "welcomed without go: no user work");
    daemon.send(run, new Message.Welcome(TestDaemon.BUILD, true));
    assertEquals(new Outcome.Succeeded("exit code 0"), daemon.await(run, Message.OutcomeReport.class).outcome());
    assertTrue(Files.exists(marker));
    assertEquals(0, w.exitStatus());
  }

  @Test
  void Q3_aWorkerRetriesHelloWhileNoDaemonListens() throws Exception {
    daemon.stop();
    Worker w = command("t-1.1", "exit 0");
    Poll.until("the worker holds its reservation and wrote its identity", () -> {
      try {
        return w.dir().isReserved() && w.dir().readIdentity() instanceof IdentityRecord.Written;
      } catch (IOException e) {
        throw new AssertionError(e);
      }
    });
    daemon.listen();
    assertEquals(new Outcome.Succeeded("exit code 0"), daemon.await(w.subject(), Message.OutcomeReport.class).outcome());
    assertEquals(0, w.exitStatus());
  }

  @Test
  void S5_anIdleWorkerQuiescesAndHoldsNewWorkUntilRelease_aBusyOneAnswersBusyAndRefusesTheIdleStop() throws Exception {
    Worker w = launch("s-1", TestService.NAME, null, a -> a.withSession("svc"));
    awaitProgress(w, "started");
    daemon.send(w.subject(), new Message.Quiesce());
    daemon.await(w.subject(), Message.Quiesced.class);

    w.touch("start-job");
    awaitProgress(w, "job wants in");
    assertTrue(daemon.received().stream().noneMatch(r -> r.message() instanceof Message.Progress p
        && p.message().equals("job admitted")), "a quiesced worker admits no new work");
    daemon.send(w.subject(), new Message.Release());
    awaitProgress(w, "job admitted");
    WorkSet job = WorkSet.EMPTY.plus(WorkSet.Kind.BACKGROUND_JOB, "job");
    daemon.await(w.subject(), Message.Busy.class, b -> b.work().equals(job), Poll.PATIENCE_MS);
    assertEquals(Optional.of(new BusyEvidence(true, w.dir().readBusy().orElseThrow().atWallMs(), job)), w.dir().readBusy(),
        "S3: work that starts is recorded at once");

    daemon.send(w.subject(), new Message.Quiesce());
    assertEquals(job, daemon.await(w.subject(), Message.Busy.class, b -> b.work().equals(job), Poll.PATIENCE_MS).work());
    daemon.send(w.subject(), new Message.Stop(10_000));
    daemon.await(w.subject(), Message.Busy.class, b -> b.work().equals(job), Poll.PATIENCE_MS);
    assertTrue(Processes.alive(w.identity()), "S5: the idle-shutdown stop never stops a worker with work");

    w.touch("end-job");
    awaitProgress(w, "job done");
    daemon.await(w.subject(), Message.Idle.class);
    daemon.send(w.subject(), new Message.Quiesce());
    daemon.await(w.subject(), Message.Quiesced.class);
    daemon.send(w.subject(), new Message.Stop(10_000));
    assertEquals(new Outcome.Succeeded("stopped"), daemon.await(w.subject(), Message.OutcomeReport.class).outcome());
    assertEquals(0, w.exitStatus());
  }

  @Test
  void S3_busyEvidenceIsRecordedAtOnceWhenWorkStarts_andIdleWhenItEnds() throws Exception {
    Worker w = launch("s-4", TestService.NAME, null, a -> a.withSession("svc4"));
    awaitProgress(w, "started");
    daemon.await(w.subject(), Message.Idle.class);
    assertEquals(Optional.empty(), w.dir().readBusy(), "no work yet: no busy record");
    long before = System.currentTimeMillis();
    w.touch("start-job");
    awaitProgress(w, "job admitted");
    BusyEvidence busy = w.dir().readBusy().orElseThrow();
    assertTrue(busy.busy() && busy.atWallMs() >= before, "work that starts after an idle record is recorded busy: " + busy);
    w.touch("end-job");
    awaitProgress(w, "job done");
    daemon.await(w.subject(), Message.Idle.class);
    BusyEvidence idle = w.dir().readBusy().orElseThrow();
    assertFalse(idle.busy(), "work that ends is recorded idle");
    assertTrue(idle.atWallMs() >= busy.atWallMs());
  }

  @Test
  void S5_aQuiescedGateReopensByItselfAfterTheQuiesceHold() throws Exception {
    Worker w = launch("s-2", TestService.NAME, null, a -> a.withSession("svc2")
        .withTimeouts(Map.of(Timeout.QUIESCE_ANSWER, 500L, Timeout.QUIESCE_HOLD, 1_000L)));
    awaitProgress(w, "started");
    daemon.send(w.subject(), new Message.Quiesce());
    daemon.await(w.subject(), Message.Quiesced.class);
    w.touch("start-job");
    awaitProgress(w, "job wants in");
    awaitProgress(w, "job admitted");
    daemon.await(w.subject(), Message.Busy.class);
  }

  @Test
  void S5_aRunningTaskAnswersBusy_andTheDaemonsTermEndsItsWholeGroupWithAnOutcome() throws Exception {
    Worker w = command("t-1.1", "sleep 60");
    Message.Busy running = daemon.await(w.subject(), Message.Busy.class,
        b -> b.work().items().stream().anyMatch(i -> i.kind() == WorkSet.Kind.UNSETTLED_CHILD), Poll.PATIENCE_MS);
    daemon.send(w.subject(), new Message.Quiesce());
    assertEquals(running.work(), daemon.await(w.subject(), Message.Busy.class, b -> b.work().equals(running.work()),
        Poll.PATIENCE_MS).work());
    daemon.send(w.subject(), new Message.Stop(10_000));
    daemon.await(w.subject(), Message.Busy.class, b -> b.work().equals(running.work()), Poll.PATIENCE_MS);
    List<ProcessIdentity> group = children(w);
    assertFalse(group.isEmpty());

    Stopped stopped = Processes.stop(w.identity(), 10_000).get(30, TimeUnit.SECONDS);
    assertEquals(new Stopped.Ended(false), stopped);
    assertEquals(RunExit.signal(15, 0).signal(), w.launched().onExit().get().signal());
    assertEquals(new Outcome.Failed("exit status 143 (128 + signal 15)"), w.outcomeOnDisk());
    Poll.until("the command died with its group", () -> group.stream().noneMatch(Processes::alive));
  }

  @Test
  void S4_aSupervisorLostAndBackWithinTheWindowGetsTheOutcome() throws Exception {
    Worker w = launch("t-1.1", "command", "{\"argv\":[\"sleep\",\"3\"]}", shortLostExit());
    daemon.await(w.subject(), Message.Busy.class);
    daemon.stop();
    Poll.until("the worker is gone from the old daemon", () -> !daemon.connected(w.subject()));
    daemon.listen();
    daemon.await(w.subject(), Message.Hello.class);
    daemon.await(w.subject(), Message.Hello.class);
    assertEquals(new Outcome.Succeeded("exit code 0"), daemon.await(w.subject(), Message.OutcomeReport.class).outcome(),
        "the work went on while the supervisor was lost, and its outcome reached the next one");
    assertEquals(0, w.exitStatus());
  }

  @Test
  void S4_aLostSupervisorIsAwaitedOneWindowWithoutWorkAndTwoWithWork_thenTheWorkerExitsAbortingNothing() throws Exception {
    Worker idle = launch("s-3", TestService.NAME, null, shortLostExit().andThen(a -> a.withSession("svc3"))::apply);
    Worker busy = launch("t-2.1", "command", "{\"argv\":[\"sleep\",\"60\"]}", shortLostExit());
    awaitProgress(idle, "started");
    daemon.await(busy.subject(), Message.Busy.class,
        b -> b.work().items().stream().anyMatch(i -> i.kind() == WorkSet.Kind.UNSETTLED_CHILD), Poll.PATIENCE_MS);
    List<ProcessIdentity> children = children(busy);
    long lostAtWall = System.currentTimeMillis();
    daemon.stop();

    assertEquals(Host.ORPHANED, idle.exitStatus());
    assertTrue(Processes.alive(busy.identity()), "S4: with work in flight the worker waits a second window");
    assertEquals(Host.ORPHANED, busy.exitStatus());

    assertInstanceOf(OutcomeRead.None.class, busy.dir().readOutcome(), "nothing was settled: the work stays resumable");
    BusyEvidence evidence = busy.dir().readBusy().orElseThrow();
    assertTrue(evidence.busy(), "S4: an orphan with work records busy as it exits");
    assertTrue(evidence.atWallMs() >= lostAtWall + 2 * LOST_EXIT_MS - 250, "recorded at the exit: " + evidence);
    assertTrue(evidence.work().items().contains(new WorkSet.Item(WorkSet.Kind.RUN, "t-2.1")));
    Poll.until("no process of the run outlives its host", () -> children.stream().noneMatch(Processes::alive));
    assertInstanceOf(OutcomeRead.None.class, idle.dir().readOutcome());
    assertTrue(idle.dir().readBusy().isEmpty(), "an idle orphan leaves no busy evidence");
  }

  @Test
  void theOutcomeOfARunIsWrittenForItsOwnRunOnly() throws Exception {
    RunDirectory dir = RunDirectory.create(home, "t-9.1");
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> dir.writeOutcome(new RecordedOutcome("t-8.1", new Outcome.Succeeded(""), 1)));
    assertTrue(e.getMessage().contains("does not belong"), e.getMessage());
  }
}
