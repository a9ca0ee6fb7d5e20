package dev.vigil.worker.host;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.vigil.coordination.TicketId;
import dev.vigil.supervisor.Durations;
import dev.vigil.supervisor.OrphanPolicy;
import dev.vigil.supervisor.RevivalGate;
import dev.vigil.supervisor.Step;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.TimeoutLattice;
import dev.vigil.supervisor.WorkGate;
import dev.vigil.supervisor.WorkSet;
import dev.vigil.supervisor.engine.port.IdentityRecord;
import dev.vigil.worker.Outcome;
import dev.vigil.worker.WorkContext;
import dev.vigil.worker.WorkerType;
import dev.vigil.worker.internal.TypeCall;
import dev.vigil.worker.process.Processes;
import dev.vigil.worker.protocol.Message;
import dev.vigil.worker.protocol.ProtocolClient;
import dev.vigil.worker.protocol.RunToken;
import dev.vigil.worker.protocol.Subject;
import dev.vigil.worker.rundir.BusyEvidence;
import dev.vigil.worker.rundir.RecordedOutcome;
import dev.vigil.worker.rundir.Reservation;
import dev.vigil.worker.rundir.RunDirectory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

/**
 * One worker host's life. The main thread takes the reservation, waits for the daemon's go and runs
 * the worker type; one control thread handles the socket, the run gate, busy evidence and the
 * orphan clock. State shared by both is guarded by this object's monitor, and every decision comes
 * from supervisor-core: {@link WorkGate} (S5), {@link RevivalGate} (S3), {@link OrphanPolicy} (S4).
 *
 * <ol>
 *   <li>Reserve: take {@code reservation.lock} (held until the process dies), then write
 *       {@code identity.json} with this process's identity, the build and the SHA-256 of the run
 *       token (never the token, C9).
 *   <li>Handoff (Q3): connect and say {@code hello}, retrying while no daemon listens, until a
 *       {@code welcome} with {@code go}. Without it within {@code launchHandoff}, or on
 *       {@code adopt-denied}, exit {@link #NOT_CONFIRMED} having done no work.
 *   <li>Work: a task run is admitted through the run gate as work ({@code run}); the type runs on
 *       the main thread; every change of work ticks the revival gate, which may write
 *       {@code busy.json}, and is reported as {@code busy} or {@code idle}.
 *   <li>Quiesce (S5): the gate answers {@code quiesced} (closed) or {@code busy}; {@code release}
 *       or the quiesce hold reopens it; the socket {@code stop} is the idle-shutdown stop, refused
 *       with {@code busy} while there is work.
 *   <li>Output: from the reservation on, {@code stdout.log} and {@code stderr.log} are kept within
 *       the run's output bound ({@link OutputKeeper}); their final form is written before the outcome.
 *   <li>Outcome: written durably to {@code outcome.json} (with a success's result, and the exit code
 *       or signal of the command the run stands for, when the type reported one), then reported
 *       (effect before receipt); exit with the command's own status (its code, or 128 + its signal),
 *       else {@link #DONE}. A {@link dev.vigil.worker.PayloadBindingException} or a {@link dev.vigil.worker.ResultRefusedException}
 *       escaping the type is a PERMANENT_FAILURE with its message: a retry could only repeat it.
 *       A write that fails (a full disk, an I/O error) is tried again, after pauses from 100 ms
 *       doubling to 5 s ({@link OutcomeRetry}), for up to two {@code lostExit} windows, while the
 *       host lives on as it is: it holds the reservation and the run as work, and keeps answering
 *       (and reconnecting to) its daemon, so a daemon, even one that recovers meanwhile, sees the run
 *       still running rather than a dead worker without an outcome (LOST, a spent attempt, the work
 *       done again). Its log says once that the write fails and once that it succeeded, or that it
 *       gave up. Given up, or stopped by TERM and still failing after {@code workerTeardown}: exit
 *       {@link #FAILED} without an outcome, as before. The bound is the patience the host has for
 *       a lost supervisor while work is in flight (S4): the longest a host lives on holding work no
 *       one can be told of; while the disk stays full the daemon's store is unavailable as well
 *       (D5), so a daemon could not settle the run any sooner anyway.
 *   <li>Supervisor lost (S4): keep working and reconnecting; after one {@code lostExit} window
 *       (two with work in flight) record busy if there is work, end this process's children and
 *       exit {@link #ORPHANED} without an outcome, so the work stays resumable. {@code adopt-denied}
 *       after the go (another build, S6) ends the same way at once.
 *   <li>TERM (the daemon's hard stop): stop is requested from the type, which has
 *       {@code workerTeardown} to return an outcome; then the children are ended.
 * </ol>
 */
final class Host {
  /** Exit status: the outcome was written (whatever its verdict). */
  static final int DONE = 0;
  /** Exit status: the host failed (e.g. the outcome could not be written). */
  static final int FAILED = 1;
  /** Exit status: bad arguments or environment. */
  static final int USAGE = 2;
  /** Exit status: another live process holds the reservation. */
  static final int RESERVED = 3;
  /** Exit status: never confirmed (no go within the handoff, denied, or stopped first); no work was done. */
  static final int NOT_CONFIRMED = 4;
  /** Exit status: the supervisor stayed lost past the window (or denied adoption); no outcome, work resumable. */
  static final int ORPHANED = 5;

  /** Wait for a reservation a probe holds for an instant, ms. */
  private static final long RESERVE_WAIT_MS = 1_000;
  /** Pause between hellos while no daemon listens during the handoff, ms. */
  private static final long HANDOFF_RETRY_MS = 50;
  /**
   * First pause between reconnects while the supervisor is lost, ms; it doubles with each failed attempt up
   * to {@link #LOST_RETRY_MAX_MS}, each pause drawn between half and all of it, so that the hundreds of
   * workers a crashed daemon leaves do not poll its socket in step and take the processor from the daemon
   * that replaces it (docs/PERFORMANCE.md, B4).
   */
  private static final long LOST_RETRY_MS = 250;
  /** Longest pause between reconnects while the supervisor is lost, ms. */
  private static final long LOST_RETRY_MAX_MS = 1_000;
  /** Longest pause between busy-evidence ticks, ms. */
  private static final long MAX_REVIVAL_TICK_MS = 30_000;

  private final WorkerArgs args;
  private final RunDirectory dir;
  private final String token;
  private final RunSettings settings;
  /** Keeps stdout.log and stderr.log within their bound from the reservation on; null before. */
  private OutputKeeper output;
  /** The command's end as the type reported it ({@link WorkContext#processEnded}), or null. */
  private volatile dev.vigil.coordination.RunExit processEnd;
  private final long handoffMs;
  private final long teardownMs;
  /** How long a failing outcome write is tried again: two {@code lostExit} windows (S4), ms. */
  private final long outcomeRetryMs;
  private final long childDrainMs;
  private final RevivalGate revival;
  private final OrphanPolicy orphans;
  private final ScheduledExecutorService control = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "vigil-host");
    t.setDaemon(true);
    return t;
  });
  private final List<WorkContext.Listener> listeners = new CopyOnWriteArrayList<>();
  private final CountDownLatch finished = new CountDownLatch(1);

  // guarded by this
  private WorkGate gate;
  private WorkSet work = WorkSet.EMPTY;
  private Optional<RevivalGate.BusyRecord> latestBusy = Optional.empty();
  private ProtocolClient client;
  private boolean welcomed;
  private boolean go;
  private String denied;
  private boolean stopRequested;
  private long stopGraceMs;
  private OptionalLong lostAtMonoMs = OptionalLong.empty();
  /** The next pause between reconnects while the supervisor is lost, ms (guarded by {@code this}). */
  private long lostRetryMs = LOST_RETRY_MS;
  private ScheduledFuture<?> orphanTimer;
  private ScheduledFuture<?> gateTimer;
  private boolean writingOutcome;
  /** The outcome is written (or given up): no more reconnects, the report is the last frame. */
  private boolean reporting;
  private boolean exiting;
  private volatile boolean selfExit;
  /** The number of the run's last question (Q16), counting from 1. */
  private long askSeq;
  /** Questions asked and not yet answered, by number: asked again after every welcome. */
  private final java.util.SortedMap<Long, Message.Ask> pendingAsks = new java.util.TreeMap<>();
  /** S7: the restore this service worker reported (at most one per process), said again after every welcome. */
  private Message.Restored restored;
  /** Answers that came for pending questions, by number. */
  private final java.util.Map<Long, Message.Answer> answers = new java.util.HashMap<>();

  Host(WorkerArgs args, String token) {
    this(args, token, RunSettings.NONE);
  }

  Host(WorkerArgs args, String token, RunSettings settings) {
    this.args = args;
    this.token = token;
    this.settings = settings;
    this.dir = RunDirectory.of(args.home(), args.run());
    TimeoutLattice t = args.lattice();
    this.handoffMs = t.ms(Timeout.LAUNCH_HANDOFF);
    this.teardownMs = t.ms(Timeout.WORKER_TEARDOWN);
    this.outcomeRetryMs = 2 * t.ms(Timeout.LOST_EXIT);
    this.childDrainMs = t.ms(Timeout.CHILD_DRAIN);
    this.gate = WorkGate.open(t);
    this.revival = RevivalGate.from(t);
    this.orphans = OrphanPolicy.from(t);
  }

  static long nowMonoMs() {
    return System.nanoTime() / 1_000_000;
  }

  /** Runs the whole life; returns the exit status. */
  int run() throws InterruptedException {
    try {
      return live();
    } finally {
      finished.countDown();
    }
  }

  private int live() throws InterruptedException {
    long startMono = nowMonoMs();
    Optional<Reservation> reservation;
    try {
      reservation = dir.reserve(RESERVE_WAIT_MS); // held until this process dies (RunDirectory keeps it reachable)
    } catch (IOException e) {
      HostLog.info("cannot take the reservation of " + dir + ": " + e);
      return FAILED;
    }
    if (reservation.isEmpty()) {
      HostLog.info("reservation of " + dir + " is held by another process");
      return RESERVED;
    }
    try {
      dir.writeIdentity(new IdentityRecord.Written(Processes.self(), args.build(), RunToken.hash(token)));
    } catch (IOException e) {
      HostLog.info("cannot write identity.json: " + e);
      return FAILED;
    }
    output = OutputKeeper.start(dir, args.output());
    Runtime.getRuntime().addShutdownHook(new Thread(this::onTerm, "vigil-term"));
    Prepared prepared = prepare();
    control.execute(this::connect);
    if (!awaitGo(startMono + handoffMs)) {
      return notConfirmed();
    }
    control.scheduleWithFixedDelay(this::revivalTick, revivalTickMs(), revivalTickMs(), TimeUnit.MILLISECONDS);
    Optional<WorkContext.Work> runWork = Optional.empty();
    if (args.session().isEmpty()) {
      runWork = admit(WorkSet.Kind.RUN, args.run());
      if (runWork.isEmpty()) {
        HostLog.info("stopped before the run started: no work done");
        return notConfirmed();
      }
    }
    Outcome outcome = prepared.failure != null ? prepared.failure : runType(prepared.type, prepared.payload,
        prepared.resumeFrom);
    return finish(outcome, runWork);
  }

  /**
   * Exit without work (Q3). A task run leaves a STALLED outcome due now, so that a daemon that
   * recorded the start but died before confirming it settles the run without charging an attempt
   * (Q2): nothing ran. A claim that was never started is rolled back and the outcome is ignored. A
   * failing write is tried again for one {@code launchHandoff} only: this host was never confirmed,
   * and a daemon that launches the run again needs its reservation.
   */
  private int notConfirmed() {
    if (args.session().isEmpty()) {
      long now = System.currentTimeMillis();
      writeOutcome(new RecordedOutcome(args.run(),
          new Outcome.Stalled(now, "never confirmed by a daemon: no work done"), now), handoffMs);
    }
    return NOT_CONFIRMED;
  }

  private long revivalTickMs() {
    return Math.max(10, Math.min(revival.busyRefreshMs() / 10, MAX_REVIVAL_TICK_MS));
  }

  /** The worker type and payload, or the permanent failure to report instead of running anything. */
  private record Prepared(WorkerType type, JsonNode payload, Optional<JsonNode> resumeFrom, Outcome failure) {}

  private Prepared prepare() {
    JsonNode payload;
    try {
      payload = dir.readPayload();
    } catch (IOException e) {
      return new Prepared(null, null, Optional.empty(), new Outcome.PermanentFailure(e.getMessage()));
    }
    Optional<JsonNode> resumeFrom;
    try {
      resumeFrom = dir.readResumeFrom(); // Q17: written by the daemon only for a resumable type
    } catch (IOException e) {
      return new Prepared(null, payload, Optional.empty(), new Outcome.Failed(e.getMessage()));
    }
    try {
      return new Prepared(Types.load(args.implementation(), childDrainMs), payload, resumeFrom, null);
    } catch (IllegalArgumentException e) {
      return new Prepared(null, payload, resumeFrom, new Outcome.PermanentFailure(e.getMessage()));
    }
  }

  private Outcome runType(WorkerType type, JsonNode payload, Optional<JsonNode> resumeFrom) {
    return TypeCall.outcome(type, new Context(payload, resumeFrom));
  }

  /**
   * Outcome: the logs in their final form, the durable write, then the end of the run's work, then
   * the report (effect before receipt).
   */
  private int finish(Outcome outcome, Optional<WorkContext.Work> runWork) {
    synchronized (this) {
      if (exiting) {
        return ORPHANED;
      }
      writingOutcome = true;
    }
    output.finish(); // logs and goes on when the final form cannot be written: never keeps the outcome back
    dev.vigil.coordination.RunExit end = processEnd;
    boolean written = writeOutcome(new RecordedOutcome(args.run(), outcome, System.currentTimeMillis(), end), outcomeRetryMs);
    synchronized (this) {
      reporting = true;
    }
    if (!written) {
      return FAILED;
    }
    runWork.ifPresent(WorkContext.Work::close);
    HostLog.info("outcome " + outcome.verdict() + (outcome.detail().isEmpty() ? "" : ": " + outcome.detail()));
    try {
      control.submit(() -> send(new Message.OutcomeReport(outcome))).get(teardownMs, TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      HostLog.info("outcome not reported (it is in outcome.json): " + e);
    }
    synchronized (this) {
      if (client != null) {
        client.close();
      }
    }
    return statusOf(end);
  }

  /**
   * Writes {@code outcome.json} (atomically and durably: a failed try leaves no temporary file and
   * no partial outcome, at most the whole one whose directory sync failed), trying again after a
   * failure as {@link OutcomeRetry} says, for up to {@code boundMs} and at most
   * {@code workerTeardown} after a stop request. Logs one line when the write starts failing and one
   * when it succeeded or was given up, never one per try. False when it gave up.
   */
  private boolean writeOutcome(RecordedOutcome recorded, long boundMs) {
    IOException failure;
    try {
      dir.writeOutcome(recorded);
      return true;
    } catch (IOException e) {
      failure = e;
    }
    String what = RunDirectory.OUTCOME + " (" + recorded.outcome().verdict() + ")";
    long since = nowMonoMs();
    OutcomeRetry retry = OutcomeRetry.afterFirstFailure(since, boundMs, teardownMs);
    HostLog.info("cannot write " + what + ": " + reason(failure) + "; trying again until there is room (for up to "
        + Durations.format(boundMs) + ")");
    while (true) {
      synchronized (this) {
        if (stopRequested) {
          retry = retry.stopped(nowMonoMs());
        }
      }
      OutcomeRetry.Next next = retry.next(nowMonoMs());
      if (next instanceof OutcomeRetry.Next.GiveUp g) {
        HostLog.info((g.stopped() ? "stopped, and still cannot write " : "gave up writing ") + what + " after "
            + retry.failures() + " attempts, " + seconds(nowMonoMs() - since) + ": " + reason(failure)
            + "; exiting without an outcome");
        return false;
      }
      try {
        retry = pause(retry, ((OutcomeRetry.Next.Pause) next).ms());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        HostLog.info("interrupted while trying again to write " + what + " after " + retry.failures()
            + " attempts: exiting without an outcome");
        return false;
      }
      try {
        dir.writeOutcome(recorded);
        HostLog.info(RunDirectory.OUTCOME + " written after " + (retry.failures() + 1) + " attempts, "
            + seconds(nowMonoMs() - since));
        return true;
      } catch (IOException e) {
        failure = e;
        retry = retry.failedAgain();
      }
    }
  }

  /** Waits {@code ms}, or less when a stop is requested meanwhile (it brings the end forward). */
  private synchronized OutcomeRetry pause(OutcomeRetry retry, long ms) throws InterruptedException {
    long until = nowMonoMs() + ms;
    for (long left = ms; left > 0; left = until - nowMonoMs()) {
      if (stopRequested && retry.stoppedAtMonoMs().isEmpty()) {
        return retry.stopped(nowMonoMs());
      }
      wait(left);
    }
    return retry;
  }

  private static String reason(IOException e) {
    return e.getMessage() != null ? e.getMessage() : e.toString();
  }

  private static String seconds(long ms) {
    return String.format(java.util.Locale.ROOT, "%.1fs", ms / 1000.0);
  }

  /** This host's exit status once its outcome is written: the command's own (code, or 128 + signal), else DONE. */
  static int statusOf(dev.vigil.coordination.RunExit end) {
    if (end == null) {
      return DONE;
    }
    return end.exitCode() != null ? end.exitCode() : end.signal() != null ? Math.min(255, 128 + end.signal()) : DONE;
  }

  // ------------------------------------------------------------------ handoff

  private synchronized boolean awaitGo(long deadlineMonoMs) throws InterruptedException {
    while (!go && denied == null && !stopRequested) {
      long left = deadlineMonoMs - nowMonoMs();
      if (left <= 0) {
        HostLog.info("no go from the daemon within the handoff (" + handoffMs + " ms): exiting without work");
        return false;
      }
      wait(left);
    }
    if (!go) {
      HostLog.info((denied != null ? "adoption denied: " + denied : "stopped during the handoff") + ": exiting without work");
      return false;
    }
    return true;
  }

  // ------------------------------------------------------------------ connection (control thread)

  private void connect() {
    synchronized (this) {
      if (exiting || reporting || client != null) {
        return;
      }
    }
    AtomicReference<ProtocolClient> self = new AtomicReference<>();
    ProtocolClient c;
    try {
      c = ProtocolClient.connect(args.socket(), new ProtocolClient.Listener() {
        @Override
        public void onMessage(Message.FromDaemon m) {
          control.execute(() -> onFrame(self.get(), m));
        }

        @Override
        public void onClosed() {
          control.execute(() -> onLost(self.get()));
        }
      });
    } catch (IOException e) {
      scheduleReconnect();
      return;
    }
    self.set(c);
    synchronized (this) {
      client = c;
      welcomed = false;
    }
    Subject subject = args.session().<Subject>map(Subject.Session::new).orElseGet(() -> new Subject.Run(args.run()));
    send(c, new Message.Hello(subject, token, args.build(), ProcessHandle.current().pid()));
  }

  private void scheduleReconnect() {
    long pauseMs;
    synchronized (this) {
      if (exiting || reporting) {
        return;
      }
      if (go) {
        pauseMs = lostRetryMs / 2 + java.util.concurrent.ThreadLocalRandom.current().nextLong(lostRetryMs / 2 + 1);
        lostRetryMs = Math.min(LOST_RETRY_MAX_MS, lostRetryMs * 2);
      } else {
        pauseMs = HANDOFF_RETRY_MS;
      }
    }
    control.schedule(this::connect, pauseMs, TimeUnit.MILLISECONDS);
  }

  private void onLost(ProtocolClient c) {
    synchronized (this) {
      if (c != client) {
        return;
      }
      client = null;
      welcomed = false;
      if (go && !writingOutcome && lostAtMonoMs.isEmpty()) {
        lostAtMonoMs = OptionalLong.of(nowMonoMs());
        HostLog.info("supervisor lost; waiting for it with " + work.describe());
        control.execute(this::orphanTick);
      }
    }
    scheduleReconnect();
  }

  private void onFrame(ProtocolClient c, Message.FromDaemon m) {
    synchronized (this) {
      if (c != client) {
        return;
      }
    }
    if (m instanceof Message.Welcome w) {
      onWelcome(w);
    } else if (m instanceof Message.AdoptDenied a) {
      onAdoptDenied(a.reason());
    } else if (m instanceof Message.Quiesce) {
      onQuiesce();
    } else if (m instanceof Message.Release) {
      onRelease();
    } else if (m instanceof Message.Stop s) {
      onIdleStop(s.graceMs());
    } else if (m instanceof Message.Answer a) {
      synchronized (this) {
        if (pendingAsks.containsKey(a.seq())) {
          answers.put(a.seq(), a);
          notifyAll();
        }
      }
    } else if (m instanceof Message.Error e) {
      HostLog.info("daemon refused a frame: " + e.reason());
    } else if (!(m instanceof Message.Capabilities || m instanceof Message.Reply)) {
      throw new AssertionError(m);
    }
  }

  private void onWelcome(Message.Welcome w) {
    boolean reconnected;
    synchronized (this) {
      welcomed = true;
      reconnected = lostAtMonoMs.isPresent();
      lostAtMonoMs = OptionalLong.empty();
      lostRetryMs = LOST_RETRY_MS;
      if (orphanTimer != null) {
        orphanTimer.cancel(false);
      }
      if (w.go() && !go) {
        go = true;
        notifyAll();
      }
    }
    if (reconnected) {
      HostLog.info("supervisor back (build " + w.build() + ")");
    }
    sendWorkState();
    List<Message.Ask> again;
    synchronized (this) {
      again = List.copyOf(pendingAsks.values());
    }
    again.forEach(this::send); // Q16: the same numbers name the same questions to this daemon
    Message.Restored r;
    synchronized (this) {
      r = restored;
    }
    if (r != null) {
      send(r); // S7: the same restore id names the same restore to this daemon
    }
  }

  private void onAdoptDenied(String reason) {
    boolean started;
    synchronized (this) {
      started = go;
      if (!started) {
        denied = reason;
        notifyAll();
      }
    }
    if (started) {
      HostLog.info("adoption denied after the start (" + reason + "): stopping, as a worker its daemon no longer adopts");
      exitOrphaned();
    }
  }

  // ------------------------------------------------------------------ run gate (S5)

  private void onQuiesce() {
    WorkGate.Answer answer;
    synchronized (this) {
      Step<WorkGate, WorkGate.Answer> s = gate.onQuiesce(work, nowMonoMs());
      gate = s.next();
      answer = s.decision();
      scheduleGateTick();
    }
    if (answer instanceof WorkGate.Answer.Quiesced) {
      send(new Message.Quiesced());
      listeners.forEach(WorkContext.Listener::quiesced);
    } else if (answer instanceof WorkGate.Answer.Busy b) {
      send(new Message.Busy(b.work()));
    } else {
      throw new AssertionError(answer);
    }
  }

  private void onRelease() {
    changeGate(WorkGate::onRelease);
  }

  private void gateTick() {
    changeGate(g -> g.onTick(nowMonoMs()));
  }

  /** Applies a gate transition; a gate that reopens wakes waiting admissions and tells the listeners. */
  private void changeGate(UnaryOperator<WorkGate> transition) {
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
      listeners.forEach(WorkContext.Listener::released);
    }
  }

  /** Holding the monitor: times the gate's reopening by itself. */
  private void scheduleGateTick() {
    if (gateTimer != null) {
      gateTimer.cancel(false);
    }
    OptionalLong at = gate.reopensAtMonoMs();
    if (at.isPresent()) {
      gateTimer = control.schedule(this::gateTick, Math.max(0, at.getAsLong() - nowMonoMs()), TimeUnit.MILLISECONDS);
    }
  }

  private void onIdleStop(long graceMs) {
    WorkGate.StopAnswer answer;
    synchronized (this) {
      Step<WorkGate, WorkGate.StopAnswer> s = gate.onIdleStop(work, nowMonoMs());
      gate = s.next();
      answer = s.decision();
    }
    if (answer instanceof WorkGate.StopAnswer.Comply) {
      HostLog.info("idle-shutdown stop");
      requestStop(graceMs);
    } else if (answer instanceof WorkGate.StopAnswer.Refuse r) {
      send(new Message.Busy(r.work()));
    } else {
      throw new AssertionError(answer);
    }
  }

  private void requestStop(long graceMs) {
    synchronized (this) {
      if (stopRequested) {
        return;
      }
      stopRequested = true;
      stopGraceMs = graceMs;
      notifyAll();
    }
    for (WorkContext.Listener l : listeners) {
      try {
        l.stopRequested(graceMs);
      } catch (RuntimeException e) {
        HostLog.info("stop listener failed: " + e);
      }
    }
  }

  /**
   * New work enters only through the gate (S5); waits while it is closed. When the hold passes while
   * work waits, the waiting admission may be the first to see the gate open (before the gate timer):
   * then it tells the listeners, so that they hear every reopening exactly once.
   */
  private Optional<WorkContext.Work> admit(WorkSet.Kind kind, String id) throws InterruptedException {
    Optional<WorkContext.Work> admitted;
    boolean reopened = false;
    synchronized (this) {
      while (true) {
        if (stopRequested || exiting) {
          admitted = Optional.empty();
          break;
        }
        boolean wasOpen = gate.isOpen();
        Step<WorkGate, WorkGate.Admission> s = gate.admit(nowMonoMs());
        gate = s.next();
        reopened |= !wasOpen && gate.isOpen();
        if (s.decision() instanceof WorkGate.Admission.Admit) {
          work = work.plus(kind, id);
          onWorkChanged();
          admitted = Optional.of(new OpenWork(kind, id));
          break;
        } else if (s.decision() instanceof WorkGate.Admission.Refuse r) {
          if (r.reopensAtMonoMs().isEmpty()) {
            admitted = Optional.empty();
            break;
          }
          wait(Math.max(1, r.reopensAtMonoMs().getAsLong() - nowMonoMs()));
        } else {
          throw new AssertionError(s.decision());
        }
      }
    }
    if (reopened) {
      listeners.forEach(WorkContext.Listener::released);
    }
    return admitted;
  }

  private final class OpenWork implements WorkContext.Work {
    private final WorkSet.Kind kind;
    private final String id;
    private boolean closed;

    OpenWork(WorkSet.Kind kind, String id) {
      this.kind = kind;
      this.id = id;
    }

    @Override
    public void close() {
      synchronized (Host.this) {
        if (!closed) {
          closed = true;
          work = work.minus(kind, id);
          onWorkChanged();
        }
      }
    }
  }

  // ------------------------------------------------------------------ busy evidence (S3)

  /** Holding the monitor: the work changed. */
  private void onWorkChanged() {
    writeEvidence(revival.onTick(latestBusy, work, System.currentTimeMillis()));
    WorkSet changed = work; // this change, not whatever the work is by the time the control thread sends it
    control.execute(() -> sendWork(changed));
    if (lostAtMonoMs.isPresent()) {
      control.execute(this::orphanTick);
    }
  }

  private void revivalTick() {
    boolean wrote;
    synchronized (this) {
      wrote = writeEvidence(revival.onTick(latestBusy, work, System.currentTimeMillis()));
    }
    if (wrote) {
      sendWorkState();
    }
  }

  /** Holding the monitor: writes busy.json when the revival gate says so. */
  private boolean writeEvidence(RevivalGate.Refresh r) {
    if (r instanceof RevivalGate.Refresh.Write w) {
      latestBusy = Optional.of(w.record());
      try {
        dir.writeBusy(new BusyEvidence(w.record().busy(), w.record().atWallMs(), work));
      } catch (IOException e) {
        HostLog.info("cannot write busy.json: " + e);
      }
      return true;
    } else if (r instanceof RevivalGate.Refresh.Keep) {
      return false;
    }
    throw new AssertionError(r);
  }

  private void sendWorkState() {
    WorkSet now;
    synchronized (this) {
      now = work;
    }
    sendWork(now);
  }

  /** Tells a welcoming daemon about {@code state}: busy with it, or idle. */
  private void sendWork(WorkSet state) {
    synchronized (this) {
      if (!welcomed) {
        return;
      }
    }
    send(state.isBusy() ? new Message.Busy(state) : new Message.Idle());
  }

  // ------------------------------------------------------------------ orphan (S4)

  private void orphanTick() {
    OrphanPolicy.Orphan d;
    synchronized (this) {
      if (lostAtMonoMs.isEmpty() || exiting || writingOutcome) {
        return;
      }
      d = orphans.onTick(lostAtMonoMs.getAsLong(), work, nowMonoMs());
      if (d instanceof OrphanPolicy.Orphan.Wait w) {
        if (orphanTimer != null) {
          orphanTimer.cancel(false);
        }
        orphanTimer = control.schedule(this::orphanTick, Math.max(0, w.untilMonoMs() - nowMonoMs()), TimeUnit.MILLISECONDS);
        return;
      }
    }
    if (d instanceof OrphanPolicy.Orphan.ExitBusy b) {
      HostLog.info("supervisor lost for two lost-exit windows with " + b.work().describe()
          + ": recording busy and exiting, the work stays resumable");
      exitOrphaned();
    } else if (d instanceof OrphanPolicy.Orphan.Close) {
      HostLog.info("supervisor lost for a lost-exit window without work: closing");
      exitOrphaned();
    } else {
      throw new AssertionError(d);
    }
  }

  /** Exits without an outcome: records busy when there is work, ends this process's children, halts. */
  private void exitOrphaned() {
    synchronized (this) {
      if (writingOutcome || exiting) {
        return;
      }
      exiting = true;
      if (work.isBusy()) {
        writeEvidence(new RevivalGate.Refresh.Write(new RevivalGate.BusyRecord(true, System.currentTimeMillis())));
      }
      notifyAll();
    }
    Children.terminate(Children.ofThisProcess(), childDrainMs);
    selfExit = true;
    Runtime.getRuntime().halt(ORPHANED);
  }

  // ------------------------------------------------------------------ TERM

  /** The daemon's TERM: ask the type to stop, give it the teardown, then end the children. */
  private void onTerm() {
    if (selfExit) {
      return;
    }
    HostLog.info("TERM: stopping (teardown " + teardownMs + " ms)");
    requestStop(teardownMs);
    try {
      boolean done = finished.await(teardownMs, TimeUnit.MILLISECONDS);
      if (!done) {
        boolean writing;
        synchronized (this) {
          writing = writingOutcome;
        }
        HostLog.info(writing ? "outcome.json could not be written within the teardown: no outcome"
            : "the worker type did not finish within the teardown: no outcome");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Children.terminate(Children.ofThisProcess(), childDrainMs);
  }

  void markSelfExit() {
    selfExit = true;
  }

  // ------------------------------------------------------------------ sending

  private void send(Message.ToDaemon m) {
    ProtocolClient c;
    synchronized (this) {
      c = client;
    }
    if (c != null) {
      send(c, m);
    }
  }

  private void send(ProtocolClient c, Message.ToDaemon m) {
    try {
      c.send(m);
    } catch (IOException e) {
      c.close();
    }
  }

  // ------------------------------------------------------------------ the context

  private final class Context implements WorkContext {
    private final JsonNode payload;
    private final Optional<JsonNode> resumeFrom;
    /** The number of the run's last checkpoint (Q17), counting from 1; guarded by this context's lock. */
    private long checkpointSeq;

    Context(JsonNode payload, Optional<JsonNode> resumeFrom) {
      this.payload = payload != null ? payload : JsonNodeFactory.instance.objectNode();
      this.resumeFrom = resumeFrom;
    }

    @Override
    public Optional<JsonNode> previousCheckpoint() {
      return resumeFrom.map(JsonNode::deepCopy);
    }

    @Override
    public void checkpoint(Object value) {
      if (args.session().isPresent()) {
        throw new UnsupportedOperationException("a service's worker cannot save checkpoints; a task's worker can");
      }
      JsonNode json = WorkContext.checkpointJson(value);
      synchronized (this) {
        long seq = checkpointSeq + 1;
        try {
          dir.writeCheckpoint(seq, json);
        } catch (IOException e) {
          throw new java.io.UncheckedIOException("checkpoint " + seq + " could not be written to "
              + dir.file(RunDirectory.CHECKPOINT) + ": " + e.getMessage(), e);
        }
        checkpointSeq = seq;
        HostLog.info("checkpoint " + seq + " saved (" + dev.vigil.worker.internal.Json.write(json).length + " bytes)");
      }
    }

    @Override
    public String runId() {
      return args.run();
    }

    @Override
    public Optional<TicketId> ticketId() {
      return args.ticket();
    }

    @Override
    public Optional<String> session() {
      return args.session();
    }

    @Override
    public int attempt() {
      return args.attempt();
    }

    @Override
    public JsonNode payload() {
      return payload;
    }

    @Override
    public Path runDirectory() {
      return dir.path();
    }

    @Override
    public Optional<Path> workingDirectory() {
      return settings.workDir();
    }

    @Override
    public Optional<java.util.Map<String, String>> environment() {
      return settings.env();
    }

    @Override
    public void processEnded(Integer exitCode, Integer signal) {
      processEnd = new dev.vigil.coordination.RunExit(exitCode, signal, System.currentTimeMillis());
    }

    @Override
    public Optional<Work> busy(WorkSet.Kind kind, String id) throws InterruptedException {
      return admit(kind, id);
    }

    @Override
    public void progress(String message) {
      control.execute(() -> sendIfWelcomed(new Message.Progress(message, OptionalDouble.empty())));
    }

    @Override
    public void progress(String message, double fraction) {
      Message.Progress p = new Message.Progress(message, OptionalDouble.of(fraction));
      control.execute(() -> sendIfWelcomed(p));
    }

    @Override
    public void restored(String snapshot) {
      if (args.session().isEmpty()) {
        throw new UnsupportedOperationException("only a service's worker reports a restored snapshot; a task's cannot");
      }
      java.util.Objects.requireNonNull(snapshot, "snapshot");
      ProcessHandle self = ProcessHandle.current();
      // one restore per worker process: its pid and start time name it to every daemon
      String id = "pid-" + self.pid() + "-" + self.info().startInstant().map(i -> Long.toString(i.toEpochMilli()))
          .orElse("0");
      Message.Restored m = new Message.Restored(id, snapshot);
      synchronized (Host.this) {
        if (restored != null) {
          if (restored.snapshot().equals(snapshot)) {
            return;
          }
          throw new IllegalStateException("this worker already started over snapshot " + restored.snapshot()
              + "; a worker starts over one snapshot");
        }
        restored = m;
      }
      HostLog.info("started over snapshot " + snapshot);
      control.execute(() -> sendIfWelcomed(m));
    }

    @Override
    public Optional<dev.vigil.worker.Question.Answer> ask(dev.vigil.worker.Question question)
        throws InterruptedException {
      if (args.session().isPresent()) {
        throw new UnsupportedOperationException("a service's worker cannot ask a person; a task's worker can");
      }
      // refused here, with the reason, rather than by the daemon: the same checks it makes
      dev.vigil.coordination.NewQuestion.byWorker(dev.vigil.coordination.RunId.parse(args.run()), "run", question.text(),
          question.options());
      Message.Ask m;
      synchronized (Host.this) {
        m = new Message.Ask(++askSeq, question.text(), question.options());
        pendingAsks.put(m.seq(), m);
      }
      HostLog.info("asked a person (question " + m.seq() + " of this run): " + question.text());
      control.execute(() -> sendIfWelcomed(m));
      Message.Answer a;
      synchronized (Host.this) {
        try {
          while (!answers.containsKey(m.seq())) {
            if (stopRequested) {
              return Optional.empty();
            }
            Host.this.wait();
          }
          a = answers.remove(m.seq());
        } finally {
          pendingAsks.remove(m.seq());
          answers.remove(m.seq());
        }
      }
      HostLog.info("answered (question " + m.seq() + "): " + a.option());
      JsonNode value;
      try {
        value = a.reply() == null ? com.fasterxml.jackson.databind.node.NullNode.getInstance()
            : dev.vigil.worker.internal.Json.parse(a.reply().getBytes(java.nio.charset.StandardCharsets.UTF_8));
      } catch (java.io.IOException e) {
        throw new IllegalStateException("the daemon's answer is not JSON: " + e.getMessage(), e);
      }
      return Optional.of(new dev.vigil.worker.Question.Answer(a.option(), value));
    }

    @Override
    public boolean stopRequested() {
      synchronized (Host.this) {
        return stopRequested;
      }
    }

    @Override
    public boolean awaitStop(long timeoutMs) throws InterruptedException {
      long deadline = nowMonoMs() + timeoutMs;
      synchronized (Host.this) {
        while (!stopRequested) {
          long left = deadline - nowMonoMs();
          if (left <= 0) {
            return false;
          }
          Host.this.wait(left);
        }
        return true;
      }
    }

    @Override
    public boolean quiesced() {
      synchronized (Host.this) {
        return !gate.onTick(nowMonoMs()).isOpen();
      }
    }

    @Override
    public void addListener(Listener listener) {
      listeners.add(listener);
      long grace;
      synchronized (Host.this) {
        if (!stopRequested) {
          return;
        }
        grace = stopGraceMs;
      }
      listener.stopRequested(grace);
    }
  }

  private void sendIfWelcomed(Message.ToDaemon m) {
    synchronized (this) {
      if (!welcomed) {
        return;
      }
    }
    send(m);
  }
}
