package dev.vigil.worker.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.RunId;
import dev.vigil.coordination.TicketId;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.WorkGate;
import dev.vigil.supervisor.WorkSet;
import dev.vigil.supervisor.engine.WorkerTypeSpec;
import dev.vigil.worker.Outcome;
import dev.vigil.worker.WorkContext;
import dev.vigil.worker.WorkerType;
import dev.vigil.worker.host.WorkerArgs;
import dev.vigil.worker.process.LaunchedWorker;
import dev.vigil.worker.process.Processes;
import dev.vigil.worker.protocol.Message;
import dev.vigil.worker.protocol.Subject;
import dev.vigil.worker.testkit.Poll;
import dev.vigil.worker.testkit.TestDaemon;
import dev.vigil.worker.testkit.Workers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fake context and the real worker host, driven through the same script, give a worker type the
 * same experience: the same answers to quiesce and the idle stop (S5), the same progress from the
 * type and from its listeners, and the same outcome; and the host's reading of a throwing type or
 * one that returns nothing is the fake's.
 */
class FakeMatchesTheHostTest {
  private static final long HOLD_MS = 1_000;
  private static final Duration PATIENCE = Duration.ofMillis(Poll.PATIENCE_MS);

  @TempDir
  Path home;

  private final List<LaunchedWorker> launched = new ArrayList<>();

  @AfterEach
  void stopWorkers() {
    for (LaunchedWorker w : launched) {
      w.identity().ifPresent(id -> Processes.stop(id, 0).join());
    }
  }

  /**
   * A service type that reports what it does and what its listeners hear: idle until
   * {@code start-job} appears in its run directory, then asks the gate for a job and holds it until
   * {@code end-job} appears; returns {@code succeeded("stopped")} on a stop.
   */
  public static final class GateProbe implements WorkerType {
    @Override
    public String name() {
      return "gate-probe";
    }

    @Override
    public Outcome run(WorkContext ctx) throws Exception {
      ctx.addListener(new WorkContext.Listener() {
        @Override
        public void quiesced() {
          ctx.progress("heard quiesced");
        }

        @Override
        public void released() {
          ctx.progress("heard released");
        }

        @Override
        public void stopRequested(long graceMs) {
          ctx.progress("heard stop " + graceMs);
        }
      });
      Path start = ctx.runDirectory().resolve("start-job");
      Path end = ctx.runDirectory().resolve("end-job");
      ctx.progress("started");
      while (!ctx.awaitStop(20)) {
        if (Files.deleteIfExists(start)) {
          ctx.progress("job wants in");
          Optional<WorkContext.Work> job = ctx.busy("job");
          if (job.isEmpty()) {
            return ctx.succeeded("stopped before the job");
          }
          ctx.progress("job admitted");
          while (!Files.deleteIfExists(end)) {
            if (ctx.awaitStop(20)) {
              return ctx.failed("stopped during the job");
            }
          }
          job.get().close();
          ctx.progress("job done");
        }
      }
      return ctx.succeeded("stopped");
    }
  }

  /** A task type that throws. */
  public static final class Thrower implements WorkerType {
    @Override
    public String name() {
      return "thrower";
    }

    @Override
    public Outcome run(WorkContext ctx) {
      throw new IllegalStateException("no disk for " + ctx.runId());
    }
  }

  /** A task type that returns no outcome. */
  public static final class Silent implements WorkerType {
    @Override
    public String name() {
      return "silent";
    }

    @Override
    public Outcome run(WorkContext ctx) {
      return null;
    }
  }

  /** One side of the comparison: what the script does to a worker, and what it saw. */
  private interface Side {
    /** "quiesced" or "busy WORK". */
    String quiesce() throws Exception;

    void release() throws Exception;

    /** "stopped" or "refused, busy WORK". */
    String idleStop() throws Exception;

    void touch(String file) throws IOException;

    void awaitProgress(String message) throws Exception;

    List<String> progress();

    Outcome outcome() throws Exception;
  }

  private static String answer(WorkGate.Answer a) {
    return a instanceof WorkGate.Answer.Busy b ? "busy " + b.work().describe() : "quiesced";
  }

  /** The script: every step of the run gate a service meets, including a hold that passes while work waits. */
  private static List<String> script(Side w) throws Exception {
    List<String> answers = new ArrayList<>();
    w.awaitProgress("started");
    answers.add(w.quiesce());
    w.awaitProgress("heard quiesced");
    w.touch("start-job");
    w.awaitProgress("job wants in");
    w.release();
    w.awaitProgress("job admitted");
    w.awaitProgress("heard released");
    answers.add(w.quiesce());
    answers.add(w.idleStop());
    w.touch("end-job");
    w.awaitProgress("job done");
    answers.add(w.quiesce());
    w.touch("start-job");
    w.awaitProgress("job wants in");
    long heardBefore = w.progress().stream().filter("heard released"::equals).count();
    Poll.until("the hold passes and the job enters", () -> w.progress().contains("job admitted")
        && w.progress().stream().filter("heard released"::equals).count() == heardBefore + 1
        && w.progress().lastIndexOf("job admitted") > w.progress().lastIndexOf("job wants in"));
    w.touch("end-job");
    Poll.until("the second job is done", () -> w.progress().stream().filter("job done"::equals).count() == 2);
    answers.add(w.quiesce());
    answers.add(w.idleStop());
    answers.add(w.outcome().toString());
    return answers;
  }

  private static final class Fake implements Side {
    final FakeWorkContext ctx = FakeWorkContext.service("probe").quiesceHold(Duration.ofMillis(HOLD_MS)).build();
    final FakeWorkContext.Running running = ctx.start(new GateProbe());

    @Override
    public String quiesce() {
      return answer(ctx.requestQuiesce());
    }

    @Override
    public void release() {
      ctx.release();
    }

    @Override
    public String idleStop() {
      WorkGate.StopAnswer a = ctx.requestIdleStop();
      return a instanceof WorkGate.StopAnswer.Refuse r ? "refused, busy " + r.work().describe() : "stopped";
    }

    @Override
    public void touch(String file) throws IOException {
      Files.createFile(ctx.runDirectory().resolve(file));
    }

    @Override
    public void awaitProgress(String message) {
      Poll.until("progress '" + message + "'", () -> progress().contains(message));
    }

    @Override
    public List<String> progress() {
      return ctx.progress().stream().map(FakeWorkContext.Progress::message).toList();
    }

    @Override
    public Outcome outcome() throws Exception {
      return running.await(PATIENCE);
    }
  }

  private final class Host implements Side {
    final TestDaemon daemon;
    final Subject subject = new Subject.Session("probe");
    final Path dir;
    final LaunchedWorker worker;

    Host(TestDaemon daemon) throws IOException {
      this.daemon = daemon;
      WorkerArgs args = new WorkerArgs(home, "s-probe", Optional.empty(), Optional.empty(), 1, "gate-probe",
          new WorkerTypeSpec.Declared(GateProbe.class.getName()), TestDaemon.BUILD, home.resolve("vigil.sock"), Map.of())
          .withSession("probe")
          .withTimeouts(Map.of(Timeout.QUIESCE_ANSWER, HOLD_MS / 2, Timeout.QUIESCE_HOLD, HOLD_MS));
      worker = Workers.launch(args, daemon.register(subject), null);
      launched.add(worker);
      dir = home.resolve("runs").resolve("s-probe");
    }

    /** The first of {@code types} that the worker sent after the first {@code mark} messages. */
    Message.ToDaemon next(int mark, List<Class<? extends Message.ToDaemon>> types) {
      Message.ToDaemon[] found = new Message.ToDaemon[1];
      Poll.until("an answer of " + types, () -> {
        List<TestDaemon.Received> all = daemon.received();
        for (TestDaemon.Received r : all.subList(mark, all.size())) {
          if (subject.equals(r.subject()) && types.stream().anyMatch(t -> t.isInstance(r.message()))) {
            found[0] = r.message();
            return true;
          }
        }
        return false;
      });
      return found[0];
    }

    @Override
    public String quiesce() {
      int mark = daemon.received().size();
      daemon.send(subject, new Message.Quiesce());
      Message.ToDaemon m = next(mark, List.of(Message.Quiesced.class, Message.Busy.class));
      return m instanceof Message.Busy b ? "busy " + b.work().describe() : "quiesced";
    }

    @Override
    public void release() {
      daemon.send(subject, new Message.Release());
    }

    @Override
    public String idleStop() {
      int mark = daemon.received().size();
      daemon.send(subject, new Message.Stop(10_000));
      Message.ToDaemon m = next(mark, List.of(Message.Busy.class, Message.OutcomeReport.class));
      return m instanceof Message.Busy b ? "refused, busy " + b.work().describe() : "stopped";
    }

    @Override
    public void touch(String file) throws IOException {
      Files.createFile(dir.resolve(file));
    }

    @Override
    public void awaitProgress(String message) {
      Poll.until("progress '" + message + "'", () -> progress().contains(message));
    }

    @Override
    public List<String> progress() {
      return daemon.received().stream().filter(r -> subject.equals(r.subject()))
          .map(TestDaemon.Received::message).filter(Message.Progress.class::isInstance)
          .map(m -> ((Message.Progress) m).message()).toList();
    }

    @Override
    public Outcome outcome() throws Exception {
      Outcome o = daemon.await(subject, Message.OutcomeReport.class).outcome();
      assertTrue(worker.process().waitFor(Poll.PATIENCE_MS, TimeUnit.MILLISECONDS), "the host exits");
      return o;
    }
  }

  /** The type's own steps and its listeners' reports, each in order (the two interleave as threads run). */
  private static List<List<String>> split(List<String> progress) {
    return List.of(progress.stream().filter(p -> !p.startsWith("heard ")).toList(),
        progress.stream().filter(p -> p.startsWith("heard ")).toList());
  }

  @Test
  void S5_theRunGateScript_givesTheSameAnswersProgressAndOutcome_onTheFakeAndOnTheRealHost() throws Exception {
    Fake fake = new Fake();
    List<String> onFake = script(fake);
    List<String> onHost;
    Host host;
    try (TestDaemon daemon = TestDaemon.start(home)) {
      host = new Host(daemon);
      onHost = script(host);
    }
    String job = WorkSet.EMPTY.plus(WorkSet.Kind.BACKGROUND_JOB, "job").describe();
    assertEquals(List.of("quiesced", "busy " + job, "refused, busy " + job, "quiesced", "quiesced", "stopped",
        new Outcome.Succeeded("stopped").toString()), onFake, "the script's answers on the fake");
    assertEquals(onFake, onHost, "the same answers on the real host");
    assertEquals(split(fake.progress()), split(host.progress()), "the same progress from the type and its listeners");
    assertEquals(List.of("heard quiesced", "heard released", "heard quiesced", "heard released", "heard quiesced",
        "heard stop 10000"), split(fake.progress()).get(1),
        "every closing and reopening of the gate is heard once, the hold's too");
  }

  @Test
  void aTypeThatThrowsOrReturnsNothing_settlesWithTheSameOutcome_onTheFakeAndOnTheRealHost() throws Exception {
    try (TestDaemon daemon = TestDaemon.start(home)) {
      int ticket = 0;
      for (WorkerType type : List.of(new Thrower(), new Silent())) {
        RunId run = new RunId(new TicketId(++ticket), 1);
        Subject subject = new Subject.Run(run.toString());
        launched.add(Workers.launch(WorkerArgs.task(home, run, 1, type.name(),
            new WorkerTypeSpec.Declared(type.getClass().getName()), TestDaemon.BUILD), daemon.register(subject), null));
        Outcome real = daemon.await(subject, Message.OutcomeReport.class).outcome();
        Outcome faked = FakeWorkContext.task().ticket(ticket).build().run(type);
        assertEquals(real, faked, type.name());
        assertTrue(real instanceof Outcome.Failed, real.toString());
      }
    }
  }
}
