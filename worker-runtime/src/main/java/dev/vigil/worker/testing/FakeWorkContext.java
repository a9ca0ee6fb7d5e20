package dev.vigil.worker.testing;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.TicketId;
import dev.vigil.supervisor.Step;
import dev.vigil.supervisor.TimeoutLattice;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.WorkGate;
import dev.vigil.supervisor.WorkSet;
import dev.vigil.supervisor.engine.WorkerKey;
import dev.vigil.worker.JsonBinding;
import dev.vigil.worker.Outcome;
import dev.vigil.worker.WorkContext;
import dev.vigil.worker.WorkerType;
import dev.vigil.worker.engine.DiskRunDirectories;
import dev.vigil.worker.internal.Json;
import dev.vigil.worker.internal.TypeCall;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A {@link WorkContext} for unit tests of a {@link WorkerType}: the type runs in the test's JVM, with
 * no daemon, socket or worker process, and the test plays the daemon. It keeps the rules of the real
 * worker host where a type can tell the difference, because it makes the same decisions with the
 * same classes ({@link WorkGate} for the run gate, the host's reading of a thrown exception):
 *
 * <ol>
 *   <li>A task run is work ({@link WorkSet.Kind#RUN}) for its whole length, so a quiesce during it
 *       answers busy; a service's worker is work only while the type holds a {@link #busy} handle.
 *   <li>{@link #requestQuiesce()}: an idle worker closes its gate, answers quiesced and tells the
 *       listeners; a busy one answers busy and nothing changes (S5). While the gate is closed
 *       {@link #busy} waits; {@link #release()}, or the quiesce hold passing, reopens it and tells
 *       the listeners.
 *   <li>{@link #requestIdleStop()} (the stop that ends an idle shutdown) is refused while there is
 *       work; {@link #requestStop()} (a TERM: a kill, a time limit, a park) always stops. After a
 *       stop {@link #busy} returns empty, {@link #stopRequested()} is true, {@link #awaitStop} returns
 *       at once, and a listener added later is told at once.
 *   <li>{@link #run}: an outcome the type returns is the outcome; an exception it throws is a FAILED
 *       outcome naming it; {@code null} is a FAILED outcome saying so. A task run that is stopped
 *       before it begins never calls the type: its outcome is STALLED, no work done.
 * </ol>
 *
 * <p>Time: {@link WorkContext} gives a type no clock, so a type that needs the time reads its own.
 * The context's own waits (the quiesce hold, {@link #awaitStop}) run on the system's monotonic clock,
 * or, with {@link Builder#manualClock()}, on a clock that moves only when the test calls
 * {@link #advance(Duration)} (after {@link #awaitWaiting}, so that the type is waiting when it moves).
 * The test's requests call the listeners on the test's thread, where the host calls them on its
 * control thread; a listener that throws is reported to the request that called it once every
 * listener has been called (the host logs it and goes on).
 *
 * <pre>{@code
 * FakeWorkContext ctx = FakeWorkContext.task().payload("{\"below\": 100}").build();
 * assertEquals(new Outcome.Succeeded("25 primes below 100"), ctx.run(new PrimeCountWorker()));
 * assertFalse(ctx.progress().isEmpty());
 * }</pre>
 *
 * <p>Methods may be called from any thread. State shared between the type's threads and the test is
 * guarded by this object's monitor.
 */
public final class FakeWorkContext implements WorkContext {
  private static final TimeoutLattice DEFAULTS = TimeoutLattice.defaults();

  /** One progress report, as the host sends it to the daemon. */
  public record Progress(String message, OptionalDouble fraction) {
    public Progress {
      Objects.requireNonNull(message, "message");
      Objects.requireNonNull(fraction, "fraction");
      if (fraction.isPresent() && !(fraction.getAsDouble() >= 0 && fraction.getAsDouble() <= 1)) {
        throw new IllegalArgumentException("fraction (" + fraction.getAsDouble() + ") must be in [0, 1]");
      }
    }
  }

  private final String runId;
  private final Optional<TicketId> ticket;
  private final Optional<String> session;
  private final int attempt;
  private final JsonNode payload;
  private final Path runDirectory;
  private final Optional<Path> workingDirectory;
  private final Optional<Map<String, String>> environment;
  private final long stopGraceMs;
  private final long teardownMs;
  private final boolean manualClock;
  private final List<Listener> listeners = new CopyOnWriteArrayList<>();
  /** Reopens the gate when the hold passes, on the system clock only; its thread ends when idle. */
  private final ScheduledThreadPoolExecutor timer;

  // guarded by this
  private WorkGate gate;
  private WorkSet work = WorkSet.EMPTY;
  private final List<WorkSet> reports = new ArrayList<>();
  private final List<Progress> progress = new ArrayList<>();
  private boolean stopRequested;
  private long grantedGraceMs;
  private long manualNowMs;
  /** On the manual clock: the deadlines the type's threads wait for, with how many wait for each. */
  private final java.util.TreeMap<Long, Integer> waitingUntil = new java.util.TreeMap<>();
  private RunExit processEnd;
  /** Questions the type asked (Q16), in order; the ones not yet answered are {@link #pendingAsks}. */
  private final List<dev.vigil.worker.Question> asked = new ArrayList<>();
  private final java.util.ArrayDeque<dev.vigil.worker.Question> pendingAsks = new java.util.ArrayDeque<>();
  private final java.util.Map<dev.vigil.worker.Question, dev.vigil.worker.Question.Answer> answered =
      new java.util.IdentityHashMap<>();
  private boolean started;
  private final Optional<JsonNode> previousCheckpoint;
  private final List<JsonNode> checkpoints = new ArrayList<>();
  /** S7: the snapshot the type said it started over, or null. */
  private String restoredFrom;

  private FakeWorkContext(Builder b, Path runDirectory) {
    this.previousCheckpoint = Optional.ofNullable(b.previousCheckpoint);
    this.runId = DiskRunDirectories.nameOf(b.session.<WorkerKey>map(WorkerKey.Service::new)
        .orElseGet(() -> new WorkerKey.Task(new RunId(b.ticket, b.attempt))));
    this.ticket = b.session.isPresent() ? Optional.empty() : Optional.of(b.ticket);
    this.session = b.session;
    this.attempt = b.attempt;
    this.payload = b.payload;
    this.runDirectory = runDirectory;
    this.workingDirectory = Optional.ofNullable(b.workingDirectory);
    this.environment = Optional.ofNullable(b.environment);
    this.stopGraceMs = DEFAULTS.ms(Timeout.STOP_GRACE);
    this.teardownMs = DEFAULTS.ms(Timeout.WORKER_TEARDOWN);
    this.manualClock = b.manualClock;
    this.gate = WorkGate.open(b.quiesceHoldMs);
    if (manualClock) {
      this.timer = null;
    } else {
      this.timer = new ScheduledThreadPoolExecutor(1, r -> {
        Thread t = new Thread(r, "vigil-fake-gate");
        t.setDaemon(true);
        return t;
      });
      timer.setKeepAliveTime(1, TimeUnit.SECONDS);
      timer.allowCoreThreadTimeOut(true);
      timer.setRemoveOnCancelPolicy(true);
    }
  }

  /** A context for a task run: ticket {@code t-1}, attempt 1 (run {@code t-1.1}), an empty payload. */
  public static Builder task() {
    return new Builder(Optional.empty());
  }

  /**
   * A context for the worker of the service {@code name} (run {@code s-NAME}, the name of its run directory), an empty payload.
   *
   * @throws IllegalArgumentException when {@code name} is not a service name (1-32 lower-case letters, digits, _ or -)
   */
  public static Builder service(String name) {
    return new Builder(Optional.of(new WorkerKey.Service(name).service()));
  }

  /** How to build a context; every value is optional. */
  public static final class Builder {
    private final Optional<String> session;
    private TicketId ticket = new TicketId(1);
    private int attempt = 1;
    private JsonNode payload = Json.object();
    private Path runDirectory;
    private Path workingDirectory;
    private Map<String, String> environment;
    private long quiesceHoldMs = DEFAULTS.ms(Timeout.QUIESCE_HOLD);
    private boolean manualClock;
    private JsonNode previousCheckpoint;

    private Builder(Optional<String> session) {
      this.session = session;
    }

    /** The task's ticket ({@code 1} by default); not for a service. */
    public Builder ticket(long id) {
      if (session.isPresent()) {
        throw new IllegalStateException("a service's worker has no ticket");
      }
      this.ticket = new TicketId(id);
      return this;
    }

    /** Which attempt the run is, from 1. */
    public Builder attempt(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("attempt (" + n + ") must be >= 1");
      }
      this.attempt = n;
      return this;
    }

    /** The payload as JSON text, read as strictly as the host reads it (no duplicate keys, nothing after it). */
    public Builder payload(String json) {
      try {
        this.payload = Json.parse(json.getBytes(StandardCharsets.UTF_8));
      } catch (JsonProcessingException e) {
        throw new IllegalArgumentException("payload is not JSON: " + e.getOriginalMessage(), e);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return this;
    }

    /** The payload as a JSON tree. */
    public Builder payload(JsonNode tree) {
      this.payload = Objects.requireNonNull(tree, "payload").deepCopy();
      return this;
    }

    /**
     * The payload as {@code Task.worker(type, value)} writes {@code value} (a record, a map…): with
     * {@link JsonBinding}, the configuration {@link WorkContext#payload(Class)} binds with.
     */
    public Builder payloadOf(Object value) {
      this.payload = JsonBinding.toJson(Objects.requireNonNull(value, "payload"));
      return this;
    }

    /** The run directory; by default a new temporary directory (0700) made by {@link #build()}. */
    public Builder runDirectory(Path dir) {
      this.runDirectory = Objects.requireNonNull(dir, "runDirectory");
      return this;
    }

    /** The directory recorded with the ticket ({@link WorkContext#workingDirectory()}). */
    public Builder workingDirectory(Path dir) {
      this.workingDirectory = Objects.requireNonNull(dir, "workingDirectory");
      return this;
    }

    /** The environment recorded with the ticket ({@link WorkContext#environment()}). */
    public Builder environment(Map<String, String> env) {
      this.environment = Map.copyOf(env);
      return this;
    }

    /** How long a closed gate stays closed without a release (the configuration's {@code quiesceHold}, 30s). */
    public Builder quiesceHold(Duration hold) {
      long ms = hold.toMillis();
      if (ms <= 0) {
        throw new IllegalArgumentException("quiesceHold (" + hold + ") must be longer than 0");
      }
      this.quiesceHoldMs = ms;
      return this;
    }

    /**
     * The checkpoint this attempt resumes from ({@link WorkContext#previousCheckpoint()}), as an earlier
     * attempt of a resumable type saved {@code value} (bound with {@link JsonBinding}, as
     * {@link WorkContext#checkpoint} binds it); none by default, as for a first attempt or a type that is not
     * resumable. A test of a resumable type passes what {@link FakeWorkContext#checkpoints()} of an earlier
     * context returned.
     */
    public Builder previousCheckpoint(Object value) {
      this.previousCheckpoint = WorkContext.checkpointJson(Objects.requireNonNull(value, "previousCheckpoint"));
      return this;
    }

    /** The context's clock starts at 0 and moves only with {@link FakeWorkContext#advance(Duration)}. */
    public Builder manualClock() {
      this.manualClock = true;
      return this;
    }

    /** The context, with its run directory made when none was given. */
    public FakeWorkContext build() {
      Path dir = runDirectory;
      if (dir == null) {
        try {
          dir = Files.createTempDirectory("vigil-run-",
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (IOException e) {
          throw new UncheckedIOException("cannot make a run directory", e);
        }
      }
      return new FakeWorkContext(this, dir);
    }
  }

  // ------------------------------------------------------------------ running a type

  /** A type running on a thread of its own ({@link #start}). */
  public static final class Running {
    private final CompletableFuture<Outcome> outcome;
    private final Thread thread;

    private Running(CompletableFuture<Outcome> outcome, Thread thread) {
      this.outcome = outcome;
      this.thread = thread;
    }

    /**
     * The outcome, once the type returned.
     *
     * @throws TimeoutException when the type has not returned within {@code timeout}
     */
    public Outcome await(Duration timeout) throws InterruptedException, TimeoutException {
      try {
        return outcome.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        throw new TimeoutException("the worker type has not returned within " + timeout + "; it is at: "
            + stackOf(thread));
      } catch (ExecutionException e) {
        throw new IllegalStateException("the worker type's thread died: " + e.getCause(), e.getCause());
      }
    }

    /** Whether the type has returned. */
    public boolean done() {
      return outcome.isDone();
    }

    private static String stackOf(Thread t) {
      StringBuilder s = new StringBuilder();
      for (StackTraceElement e : t.getStackTrace()) {
        s.append("\n    at ").append(e);
      }
      return s.length() == 0 ? "(ended)" : s.toString();
    }
  }

  /**
   * Runs {@code type} on this thread, as the host runs it once per worker process, and returns its
   * outcome. A task run holds {@link WorkSet.Kind#RUN} work while the type runs.
   *
   * @throws IllegalStateException when a type already ran on this context
   */
  public Outcome run(WorkerType type) {
    Objects.requireNonNull(type, "type");
    synchronized (this) {
      if (started) {
        throw new IllegalStateException("a worker type already ran on this context; build one per run");
      }
      started = true;
    }
    Optional<Work> runWork = Optional.empty();
    if (session.isEmpty()) {
      try {
        runWork = busy(WorkSet.Kind.RUN, runId);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return new Outcome.Failed("interrupted");
      }
      if (runWork.isEmpty()) {
        return new Outcome.Stalled(System.currentTimeMillis(), "stopped before the run started: no work done");
      }
    }
    try {
      return TypeCall.outcome(type, this);
    } finally {
      runWork.ifPresent(Work::close);
    }
  }

  /** Runs {@code type} on a new thread ({@code vigil-fake-run}), so the test can drive it meanwhile. */
  public Running start(WorkerType type) {
    Objects.requireNonNull(type, "type");
    CompletableFuture<Outcome> f = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        f.complete(run(type));
      } catch (Throwable e) {
        f.completeExceptionally(e);
      }
    }, "vigil-fake-run");
    t.setDaemon(true);
    t.start();
    return new Running(f, t);
  }

  // ------------------------------------------------------------------ the test plays the daemon

  /**
   * The daemon's {@code quiesce} (S5): an idle worker closes its gate and answers
   * {@link WorkGate.Answer.Quiesced}, and the listeners are told; a busy one answers
   * {@link WorkGate.Answer.Busy} with its work.
   */
  public WorkGate.Answer requestQuiesce() {
    WorkGate.Answer answer;
    synchronized (this) {
      Step<WorkGate, WorkGate.Answer> s = gate.onQuiesce(work, nowMonoMs());
      gate = s.next();
      answer = s.decision();
      scheduleReopen();
    }
    if (answer instanceof WorkGate.Answer.Quiesced) {
      tell(Listener::quiesced);
    } else if (!(answer instanceof WorkGate.Answer.Busy)) {
      throw new AssertionError(answer);
    }
    return answer;
  }

  /** The daemon's {@code release}: a closed gate reopens, waiting work enters, and the listeners are told. */
  public void release() {
    changeGate(WorkGate::onRelease);
  }

  /**
   * The stop that ends an idle shutdown (the socket's {@code stop}), with the default stop grace: a
   * worker without work stops and its gate stays shut; one with work refuses (S5).
   */
  public WorkGate.StopAnswer requestIdleStop() {
    WorkGate.StopAnswer answer;
    synchronized (this) {
      Step<WorkGate, WorkGate.StopAnswer> s = gate.onIdleStop(work, nowMonoMs());
      gate = s.next();
      answer = s.decision();
    }
    if (answer instanceof WorkGate.StopAnswer.Comply) {
      stop(stopGraceMs);
    } else if (!(answer instanceof WorkGate.StopAnswer.Refuse)) {
      throw new AssertionError(answer);
    }
    return answer;
  }

  /** A TERM (a kill, a time limit, a park, a stop of the service): the type is asked to stop, with the default teardown. */
  public void requestStop() {
    stop(teardownMs);
  }

  /** {@link #requestStop()} telling the listeners that {@code grace} is left before the KILL. */
  public void requestStop(Duration grace) {
    stop(grace.toMillis());
  }

  /**
   * Moves the manual clock on: a closed gate whose hold has passed reopens (and the listeners are
   * told), and {@link #awaitStop} calls whose time is up return.
   *
   * @throws IllegalStateException when the context runs on the system clock
   */
  public void advance(Duration by) {
    if (!manualClock) {
      throw new IllegalStateException("this context runs on the system clock; build it with manualClock()");
    }
    if (by.isNegative()) {
      throw new IllegalArgumentException("advance (" + by + ") must not be negative");
    }
    synchronized (this) {
      manualNowMs += by.toMillis();
      notifyAll();
    }
    changeGate(g -> g.onTick(nowMonoMs()));
  }

  // ------------------------------------------------------------------ what the type did

  /** Every progress report so far, in order. */
  public synchronized List<Progress> progress() {
    return List.copyOf(progress);
  }

  /** The work open now. */
  public synchronized WorkSet work() {
    return work;
  }

  /** The work after each change, in order: what the host reports to the daemon as busy or idle. */
  public synchronized List<WorkSet> workReports() {
    return List.copyOf(reports);
  }

  /** How the process the run stands for ended, as the type reported it ({@link #processEnded}). */
  public synchronized Optional<RunExit> processEnd() {
    return Optional.ofNullable(processEnd);
  }

  /**
   * Waits until at least {@code count} progress reports came and returns them all.
   *
   * @throws TimeoutException when fewer came within {@code timeout}
   */
  public List<Progress> awaitProgress(int count, Duration timeout) throws InterruptedException, TimeoutException {
    awaitState(() -> progress.size() >= count, timeout, () -> count + " progress reports (got " + progress + ")");
    return progress();
  }

  /**
   * Waits until the open work matches {@code test} and returns it.
   *
   * @throws TimeoutException when it did not within {@code timeout}
   */
  public WorkSet awaitWork(Predicate<WorkSet> test, Duration timeout) throws InterruptedException, TimeoutException {
    awaitState(() -> test.test(work), timeout, () -> "work matching the test (the work is " + work.describe() + ")");
    return work();
  }

  private synchronized void awaitState(java.util.function.BooleanSupplier done, Duration timeout,
      java.util.function.Supplier<String> what) throws InterruptedException, TimeoutException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!done.getAsBoolean()) {
      long leftMs = (deadline - System.nanoTime()) / 1_000_000;
      if (leftMs <= 0) {
        throw new TimeoutException("no " + what.get() + " within " + timeout);
      }
      wait(leftMs);
    }
  }

  // ------------------------------------------------------------------ WorkContext

  /** Q17: the checkpoints the type saved, in order ({@link WorkContext#checkpoint}); the last is what a later attempt gets. */
  public synchronized List<JsonNode> checkpoints() {
    return checkpoints.stream().<JsonNode>map(JsonNode::deepCopy).toList();
  }

  /** The last checkpoint the type saved, if any. */
  public synchronized Optional<JsonNode> lastCheckpoint() {
    return checkpoints.isEmpty() ? Optional.empty() : Optional.of(checkpoints.get(checkpoints.size() - 1).deepCopy());
  }

  /** Saves the checkpoint as the host does, without the disk: bound and checked the same way, kept in order. */
  @Override
  public void checkpoint(Object value) {
    if (session.isPresent()) {
      throw new UnsupportedOperationException("a service's worker cannot save checkpoints; a task's worker can");
    }
    JsonNode json = WorkContext.checkpointJson(value);
    synchronized (this) {
      checkpoints.add(json);
    }
  }

  @Override
  public Optional<JsonNode> previousCheckpoint() {
    return previousCheckpoint.map(JsonNode::deepCopy);
  }

  @Override
  public String runId() {
    return runId;
  }

  @Override
  public Optional<TicketId> ticketId() {
    return ticket;
  }

  @Override
  public Optional<String> session() {
    return session;
  }

  @Override
  public int attempt() {
    return attempt;
  }

  @Override
  public JsonNode payload() {
    return payload;
  }

  @Override
  public Path runDirectory() {
    return runDirectory;
  }

  @Override
  public Optional<Path> workingDirectory() {
    return workingDirectory;
  }

  @Override
  public Optional<Map<String, String>> environment() {
    return environment;
  }

  @Override
  public synchronized void processEnded(Integer exitCode, Integer signal) {
    processEnd = new RunExit(exitCode, signal, System.currentTimeMillis());
  }

  /** Enters through the gate as the host's does: waits while it is closed, empty after a stop. */
  @Override
  public Optional<Work> busy(WorkSet.Kind kind, String id) throws InterruptedException {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(id, "id");
    Optional<Work> admitted;
    boolean reopened = false;
    synchronized (this) {
      while (true) {
        if (stopRequested) {
          admitted = Optional.empty();
          break;
        }
        boolean wasOpen = gate.isOpen();
        Step<WorkGate, WorkGate.Admission> s = gate.admit(nowMonoMs());
        gate = s.next();
        reopened |= !wasOpen && gate.isOpen();
        if (s.decision() instanceof WorkGate.Admission.Admit) {
          changeWork(work.plus(kind, id));
          admitted = Optional.of(new OpenWork(kind, id));
          break;
        } else if (s.decision() instanceof WorkGate.Admission.Refuse r) {
          if (r.reopensAtMonoMs().isEmpty()) {
            admitted = Optional.empty();
            break;
          }
          waitUntil(r.reopensAtMonoMs().getAsLong());
        } else {
          throw new AssertionError(s.decision());
        }
      }
    }
    if (reopened) {
      tell(Listener::released); // the hold passed as this work asked to enter: the listeners hear it here
    }
    return admitted;
  }

  private final class OpenWork implements Work {
    private final WorkSet.Kind kind;
    private final String id;
    private boolean closed;

    OpenWork(WorkSet.Kind kind, String id) {
      this.kind = kind;
      this.id = id;
    }

    @Override
    public void close() {
      synchronized (FakeWorkContext.this) {
        if (!closed) {
          closed = true;
          changeWork(work.minus(kind, id));
        }
      }
    }
  }

  /** Holding the monitor. */
  private void changeWork(WorkSet next) {
    work = next;
    reports.add(next);
    notifyAll();
  }

  @Override
  public void progress(String message) {
    record(new Progress(message, OptionalDouble.empty()));
  }

  @Override
  public void progress(String message, double fraction) {
    record(new Progress(message, OptionalDouble.of(fraction)));
  }

  private synchronized void record(Progress p) {
    progress.add(p);
    notifyAll();
  }

  /** Records the snapshot as the worker host does (S7): checked alike, one snapshot per worker; see {@link #restoredFrom}. */
  @Override
  public synchronized void restored(String snapshot) {
    if (session.isEmpty()) {
      throw new UnsupportedOperationException("only a service's worker reports a restored snapshot; a task's cannot");
    }
    dev.vigil.coordination.TranscriptEntry.checkRestore("-", "-", java.util.Objects.requireNonNull(snapshot, "snapshot"), 0);
    if (restoredFrom != null && !restoredFrom.equals(snapshot)) {
      throw new IllegalStateException("this worker already started over snapshot " + restoredFrom
          + "; a worker starts over one snapshot");
    }
    restoredFrom = snapshot;
  }

  /** S7: the snapshot the type said it started over ({@link WorkContext#restored}), if it did. */
  public synchronized Optional<String> restoredFrom() {
    return Optional.ofNullable(restoredFrom);
  }

  /**
   * Asks as the worker host does (Q16): the question is checked as the daemon checks it (a service's
   * context cannot ask), recorded, and the call waits until the test {@link #answer}s it, or a stop is
   * requested (empty).
   */
  @Override
  public Optional<dev.vigil.worker.Question.Answer> ask(dev.vigil.worker.Question question)
      throws InterruptedException {
    if (session.isPresent()) {
      throw new UnsupportedOperationException("a service's worker cannot ask a person; a task's worker can");
    }
    dev.vigil.coordination.NewQuestion.byWorker(dev.vigil.coordination.RunId.parse(runId()), "run", question.text(),
        question.options());
    synchronized (this) {
      asked.add(question);
      pendingAsks.add(question);
      notifyAll();
      try {
        while (!answered.containsKey(question)) {
          if (stopRequested) {
            return Optional.empty();
          }
          wait();
        }
        return Optional.of(answered.remove(question));
      } finally {
        pendingAsks.remove(question);
      }
    }
  }

  /** Every question the type asked, in order. */
  public synchronized List<dev.vigil.worker.Question> questions() {
    return List.copyOf(asked);
  }

  /** Waits until the type waits for an answer; returns that question. */
  public dev.vigil.worker.Question awaitQuestion(Duration timeout) throws InterruptedException, TimeoutException {
    awaitState(() -> !pendingAsks.isEmpty(), timeout, () -> "a question from the worker type");
    synchronized (this) {
      return pendingAsks.peek();
    }
  }

  /**
   * Answers the oldest waiting question with its option {@code option}, as a person and the daemon would: the
   * type's {@link #ask} returns that option's value.
   *
   * @throws IllegalStateException when no question waits
   * @throws IllegalArgumentException when the question has no such option
   */
  public synchronized void answer(String option) {
    dev.vigil.worker.Question q = pendingAsks.peek();
    if (q == null) {
      throw new IllegalStateException("no question waits for an answer");
    }
    dev.vigil.coordination.QuestionOption o = q.options().stream().filter(x -> x.name().equals(option)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("the question has no option '" + option + "' (options: "
            + q.options().stream().map(dev.vigil.coordination.QuestionOption::name).toList() + ")"));
    String reply = o.reply();
    answered.put(q, new dev.vigil.worker.Question.Answer(option, reply == null
        ? com.fasterxml.jackson.databind.node.NullNode.getInstance() : dev.vigil.worker.JsonBinding.toJson(
            readTree(reply))));
    notifyAll();
  }

  private static JsonNode readTree(String json) {
    try {
      return new com.fasterxml.jackson.databind.ObjectMapper().readTree(json);
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException("not JSON: " + json, e);
    }
  }

  @Override
  public synchronized boolean stopRequested() {
    return stopRequested;
  }

  /** Waits up to {@code timeoutMs} on the context's clock (the manual one only moves with {@link #advance}). */
  @Override
  public synchronized boolean awaitStop(long timeoutMs) throws InterruptedException {
    long deadline = nowMonoMs() + timeoutMs;
    while (!stopRequested) {
      if (deadline - nowMonoMs() <= 0) {
        return false;
      }
      waitUntil(deadline);
    }
    return true;
  }

  /** Holding the monitor: one wait for {@code deadlineMonoMs} on the context's clock, or until notified. */
  private void waitUntil(long deadlineMonoMs) throws InterruptedException {
    if (!manualClock) {
      wait(Math.max(1, deadlineMonoMs - nowMonoMs()));
      return;
    }
    waitingUntil.merge(deadlineMonoMs, 1, Integer::sum);
    notifyAll();
    try {
      wait();
    } finally {
      waitingUntil.computeIfPresent(deadlineMonoMs, (k, n) -> n == 1 ? null : n - 1);
    }
  }

  /**
   * On the manual clock: waits until a thread of the type waits for a time still to come (in
   * {@link #awaitStop} or in {@link #busy} at a closed gate). Call it before {@link #advance}, so
   * that the type is waiting when the time passes rather than starting its wait after.
   *
   * @throws TimeoutException when no thread waits so within {@code timeout}
   */
  public void awaitWaiting(Duration timeout) throws InterruptedException, TimeoutException {
    if (!manualClock) {
      throw new IllegalStateException("this context runs on the system clock; build it with manualClock()");
    }
    awaitState(() -> !waitingUntil.tailMap(manualNowMs, false).isEmpty(), timeout,
        () -> "wait of the worker type for a time to come (the clock is at " + manualNowMs + " ms)");
  }

  @Override
  public synchronized boolean quiesced() {
    return !gate.onTick(nowMonoMs()).isOpen();
  }

  @Override
  public void addListener(Listener listener) {
    Objects.requireNonNull(listener, "listener");
    listeners.add(listener);
    long grace;
    synchronized (this) {
      if (!stopRequested) {
        return;
      }
      grace = grantedGraceMs;
    }
    listener.stopRequested(grace);
  }

  // ------------------------------------------------------------------ inside

  private long nowMonoMs() {
    synchronized (this) {
      if (manualClock) {
        return manualNowMs;
      }
    }
    return System.nanoTime() / 1_000_000;
  }

  private void stop(long graceMs) {
    synchronized (this) {
      if (stopRequested) {
        return;
      }
      stopRequested = true;
      grantedGraceMs = graceMs;
      notifyAll();
    }
    tell(l -> l.stopRequested(graceMs));
  }

  /** Applies a gate transition; a gate that reopens wakes waiting work and tells the listeners. */
  private void changeGate(java.util.function.UnaryOperator<WorkGate> transition) {
    boolean reopened;
    synchronized (this) {
      boolean wasOpen = gate.isOpen();
      gate = transition.apply(gate);
      reopened = !wasOpen && gate.isOpen();
      if (reopened) {
        notifyAll();
      }
    }
    if (reopened) {
      tell(Listener::released);
    }
  }

  /** Holding the monitor: on the system clock, reopens a closed gate when its hold passes. */
  private void scheduleReopen() {
    OptionalLong at = gate.reopensAtMonoMs();
    if (timer != null && at.isPresent()) {
      timer.schedule(() -> changeGate(g -> g.onTick(nowMonoMs())), Math.max(0, at.getAsLong() - nowMonoMs()),
          TimeUnit.MILLISECONDS);
    }
  }

  /** Calls every listener, then reports the first that threw. */
  private void tell(Consumer<Listener> call) {
    RuntimeException first = null;
    for (Listener l : listeners) {
      try {
        call.accept(l);
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
