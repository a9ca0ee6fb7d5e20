package dev.vigil.launcher.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.h2.DamagedStoreException;
import dev.vigil.coordination.h2.H2Coordination;
import dev.vigil.coordination.h2.H2Options;
import dev.vigil.supervisor.DaemonLiveness;
import dev.vigil.supervisor.StoreOutage;
import dev.vigil.supervisor.engine.Command;
import dev.vigil.supervisor.engine.Engine;
import dev.vigil.supervisor.engine.EngineConfig;
import dev.vigil.supervisor.engine.Reply;
import dev.vigil.supervisor.engine.Status;
import dev.vigil.supervisor.engine.ToWorker;
import dev.vigil.supervisor.engine.WorkerKey;
import dev.vigil.supervisor.engine.WorkerMessage;
import dev.vigil.supervisor.engine.WorkerTypeSpec;
import dev.vigil.supervisor.engine.port.Journal;
import dev.vigil.supervisor.engine.port.Ports;
import dev.vigil.supervisor.engine.port.StatusBoard;
import dev.vigil.worker.engine.DiskRunDirectories;
import dev.vigil.worker.engine.HostClasspath;
import dev.vigil.worker.engine.OsProcessTable;
import dev.vigil.worker.engine.SocketWorkerChannel;
import dev.vigil.worker.host.TypeLoader;
import dev.vigil.worker.process.Processes;
import dev.vigil.worker.protocol.Message;
import dev.vigil.worker.protocol.Peer;
import dev.vigil.worker.protocol.ProtocolServer;
import dev.vigil.worker.protocol.RunToken;
import java.io.IOException;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shell around the {@link Engine} (DESIGN.md §7): one scheduling thread that boots the engine,
 * runs every event that the socket threads and the exit watchers enqueue as it comes, and calls
 * {@code tick} at the engine's next deadline ({@link Engine#nextDeadlineMonoMs}: at once after an
 * event that asks for a dispatch, else the next renewal, heartbeat, time limit or due ticket), so an
 * idle daemon sleeps; the status file written every heartbeat (D1) and deleted on a clean
 * exit; the singleton lock and the foreign-loop check (D2). Stopping leaves every worker running
 * (D4). The loop is stopped by a flag, never by an interrupt (an interrupt inside H2 corrupts it).
 *
 * <p>A store that fails while the daemon runs (no space, an I/O error, a database that closed itself)
 * starts an outage (D5, {@link StoreOutage}): the engine incarnation is dropped at once, as a crash
 * would drop it, so no decision is made that could not be recorded; every worker runs on and stays
 * connected; every command is answered with one line saying the store is unavailable (exit 5); the
 * status file says so every heartbeat. The store is closed and reopened with a backoff, never by
 * interrupting a thread; once it opens, every worker connection is closed (each worker says hello
 * again) and a new incarnation boots on it with a new owner id, recovering every run as a daemon
 * start does (adoption, exits taken, outcomes read). The log says when the outage began, when its
 * cause changed and when it ended.
 *
 * <p>Every engine event is logged (SLF4J, {@code logs/daemon.log} under {@code vigil up}) and
 * recorded as a JSON line in {@code <home>/logs/journal.jsonl} ({@link JournalFile}: what the daemon
 * decided, for programs; flushed per event, so it survives {@code kill -9}; rotated at
 * {@value JournalFile#MAX_BYTES} bytes into {@code journal.1.jsonl}).
 */
public final class Daemon implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Daemon.class);
  /** The capability of a daemon that takes {@code submit-all} (many submissions in one transaction). */
  public static final String SUBMIT_ALL = "submit_all";
  /** The least pause after a tick that failed, so that a failing store is not retried in a busy loop, ms. */
  static final long PAUSE_AFTER_FAILURE_MS = Engine.BUSY_STEP_MS;
  /** Daemons started in this JVM (embedded: a close and a new start), so that each owner id is new. */
  private static final java.util.concurrent.atomic.AtomicInteger INCARNATIONS = new java.util.concurrent.atomic.AtomicInteger();

  /** Why a daemon did not start: refused (exit 3) or a bad configuration/home (exit 2). */
  public static final class Refused extends Exception {
    private final int exitCode;

    public Refused(int exitCode, String message) {
      super(message);
      this.exitCode = exitCode;
    }

    public int exitCode() {
      return exitCode;
    }
  }

  private final Home home;
  private final VigilConfig config;
  /** Vigil's own jars, which every worker host gets before its type's entries. */
  private final HostClasspath.Resolution.Found runtime;
  private final BlockingQueue<Runnable> queue = new LinkedBlockingQueue<>();
  private final SocketWorkerChannel channel = new SocketWorkerChannel();
  private final CompletableFuture<Void> done = new CompletableFuture<>();
  private final StatusFile statusFile;
  private final long startedAtWallMs = System.currentTimeMillis();
  private final long monoBase = System.nanoTime();
  private volatile boolean running = true;
  private volatile boolean closing;
  private DaemonLock lock;
  /** This host's id among the daemons sharing a store (H1); null for the embedded store, which is one home's. */
  private String hostId;
  /** The host of each run in a reply, on a shared store. Scheduling thread only. */
  private final RunHosts runHosts = new RunHosts();
  /** The open store; null during an outage. Read by the connection threads that answer store commands. */
  private volatile StoreHandle coordination;
  private ProtocolServer server;
  /** The engine incarnation; null during an outage. Only the scheduling thread uses it. */
  private Engine engine;
  /** Counts the incarnations of this daemon: exits of an earlier one's workers are not this one's to take. */
  private int incarnation;
  /** The store outage in progress, or null (D5). Written on the scheduling thread only. */
  private volatile StoreOutage outage;
  /** When the status file was last written during an outage, monotonic ms. */
  private long outageBeatMonoMs;
  /** Hellos that came during an outage: their connections are closed when it ends, so that they say hello again. */
  private final List<Peer> heldHellos = new ArrayList<>();
  private JournalFile journal;
  private DiskRunDirectories directories;
  private Thread loop;
  /** Told, on the scheduling thread, after each engine event and each command's reply; must not block. */
  private final Changes onChange;
  /** Adjusts the store's options (a test reaches the file through a file system that fails on demand). */
  private final java.util.function.UnaryOperator<H2Options> storeOptions;
  private Board board;
  /**
   * How long a start waits for the daemon lock while no live daemon's status file is there, ms: a view
   * reading the store without a daemon ({@link StoreReading}) holds it that briefly.
   */
  static final long LOCK_READER_WAIT_MS = 3_000;
  /**
   * Whether the next incarnation starts paused: a daemon started by {@code vigil restart} from a
   * paused one, or one whose paused incarnation a store outage dropped. Scheduling thread only.
   */
  private boolean pausedAtBoot;

  /**
   * What an embedding is told on the scheduling thread, so that it can read the store's event stream
   * when something may have been written, without a timer. Each method must return at once.
   */
  public interface Changes {
    /** Changes that tell nothing. */
    Changes NONE = new Changes() {
      @Override
      public void engineEvent() {}

      @Override
      public void replied(Reply reply) {}
    };

    /** The engine recorded an event (a settlement, a stop, a given-up service…). */
    void engineEvent();

    /** A command, from this JVM or from a client on the socket, was answered with {@code reply}. */
    void replied(Reply reply);
  }

  private Daemon(Home home, VigilConfig config, HostClasspath.Resolution.Found runtime, Changes onChange,
      java.util.function.UnaryOperator<H2Options> storeOptions) {
    this.home = home;
    this.config = config;
    this.runtime = runtime;
    this.onChange = onChange;
    this.storeOptions = storeOptions;
    this.statusFile = new StatusFile(home.statusFile());
  }

  /**
   * Starts a daemon on {@code home}: lock, store, engine boot (recovery), socket. Returns once the
   * socket listens.
   *
   * @throws Refused when another daemon runs on this home (D2), the home/store cannot be opened,
   *                 Vigil's own jars cannot be found for the worker hosts ({@link #hostClasspath}; exit
   *                 1), or a worker type's class cannot be run ({@link #checkWorkerTypes}; exit 2,
   *                 nothing changed)
   */
  public static Daemon start(Home home, VigilConfig config) throws Refused {
    return start(home, config, Changes.NONE);
  }

  /**
   * As {@link #start(Home, VigilConfig)}, telling {@code onChange} after each engine event and after
   * each command's reply, on the scheduling thread: something may have been written to the store's
   * event stream. It must return at once (a wake-up, never work).
   */
  public static Daemon start(Home home, VigilConfig config, Changes onChange) throws Refused {
    return start(home, config, onChange, java.util.function.UnaryOperator.identity());
  }

  /**
   * As {@link #start(Home, VigilConfig, Changes)}, opening the store with the options that
   * {@code storeOptions} makes of the configured ones: tests reach the file through an H2 file system
   * that fails writes on demand ({@link H2Options#withFileSystem}).
   */
  public static Daemon start(Home home, VigilConfig config, Changes onChange,
      java.util.function.UnaryOperator<H2Options> storeOptions) throws Refused {
    return start(home, config, onChange, storeOptions, false);
  }

  /**
   * As {@link #start(Home, VigilConfig, Changes, java.util.function.UnaryOperator)}; when
   * {@code paused}, the daemon dispatches nothing until resumed (a pause carried over by
   * {@code vigil restart}).
   */
  public static Daemon start(Home home, VigilConfig config, Changes onChange,
      java.util.function.UnaryOperator<H2Options> storeOptions, boolean paused) throws Refused {
    config = MaintenanceJobs.withJobs(config); // the built-in maintenance jobs, their type, lane and schedules (Q18)
    HostClasspath.Resolution.Found runtime = hostClasspath(); // a daemon that up started runs from copies (JarCopies)
    try {
      checkWorkerTypes(config, runtime);
    } catch (ConfigException e) {
      throw new Refused(2, e.getMessage());
    }
    Daemon d = new Daemon(home, config, runtime, java.util.Objects.requireNonNull(onChange, "onChange"),
        java.util.Objects.requireNonNull(storeOptions, "storeOptions"));
    d.pausedAtBoot = paused;
    try {
      d.open();
    } catch (Refused | RuntimeException e) {
      d.release();
      throw e;
    }
    return d;
  }

  private void open() throws Refused {
    try {
      home.prepare();
    } catch (ConfigException e) {
      throw new Refused(2, e.getMessage());
    }
    try {
      lock = DaemonLock.tryAcquire(home.lockFile()).orElse(null);
      // a view that reads the store while no daemon runs holds the lock for a moment: wait it out
      long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LOCK_READER_WAIT_MS);
      while (lock == null && System.nanoTime() < until && statusFile.read()
          .filter(st -> Processes.running(st.pid())).isEmpty()) {
        Thread.sleep(50);
        lock = DaemonLock.tryAcquire(home.lockFile()).orElse(null);
      }
    } catch (IOException e) {
      throw new Refused(1, "cannot open " + home.lockFile() + ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Refused(1, "interrupted while waiting for " + home.lockFile());
    }
    if (lock == null) {
      String who = statusFile.read().map(s -> " (pid " + s.pid() + ")").orElse("");
      throw new Refused(3, "refused: a daemon" + who + " already runs on " + home.dir());
    }
    DaemonLiveness liveness = DaemonLiveness.from(config.timeouts());
    long now = System.currentTimeMillis();
    Optional<DaemonLiveness.Status> st = statusFile.read();
    long pidStart = statusFile.readJson().map(n -> n.path("pid_start").asLong(-1)).orElse(-1L);
    boolean pidAlive = st.isPresent() && Processes.identityOf(st.get().pid())
        .filter(id -> pidStart < 0 || id.startTicks() == pidStart).isPresent();
    if (liveness.atStart(st, ProcessHandle.current().pid(), pidAlive, now) instanceof DaemonLiveness.Singleton.Refuse r) {
      throw new Refused(3, "refused: a daemon (pid " + r.pid() + ") already runs on " + home.dir()
          + " (its heartbeat is " + r.ageMs() + " ms old)");
    }
    try {
      hostId = config.store().shared() ? HostIds.of(config, home, hostName()) : null;
    } catch (ConfigException e) {
      throw new Refused(2, e.getMessage());
    }
    try {
      coordination = StoreHandle.open(config, home, storeOptions, this::newWorkElsewhere);
    } catch (RuntimeException e) {
      throw StoreHandle.refusal(e, config, home);
    }
    directories = new DiskRunDirectories(home.dir());
    OsProcessTable processes = processTable(1);
    ProcessIdentity self = processes.self();
    board = new Board(self);
    CompletableFuture<Void> booted = new CompletableFuture<>();
    loop = new Thread(() -> run(processes, booted), "vigil-scheduler");
    loop.start();
    try {
      booted.get(config.timeouts().ms(dev.vigil.supervisor.TimeoutLattice.Timeout.SUPERVISOR_BOOT), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      stopLoop();
      Optional<DamagedStoreException> damaged = DamagedStoreException.in(e);
      if (damaged.isPresent()) {
        throw new Refused(2, StoreOps.damagedLine(damaged.get()));
      }
      throw new Refused(1, "the daemon did not boot: " + Wire.oneLine(String.valueOf(e.getCause() != null ? e.getCause().getMessage() : e.getMessage())));
    }
    try {
      server = ProtocolServer.start(home.socket(), SocketWorkerChannel.tokenHashes(directories), new Handler());
    } catch (IOException e) {
      stopLoop();
      done.join();
      throw new Refused(3, "refused: cannot listen on " + home.socket() + ": " + e.getMessage());
    }
    LOG.info("vigil {} (build {}) serves {} as pid {}", BuildInfo.VERSION, BuildInfo.BUILD, home.dir(), self.pid());
    
    if (System.getProperty(DaemonArchive.TRAINING) == null) { // the daemon's archive is written without the hosts'
      processes.prepareArchive(); // after recovery and the socket: the archive's JVM never delays either
    }
  }

  /**
   * Vigil's own jars and directories, where this JVM loaded the worker host's classes from
   * ({@link HostClasspath}): what every worker host gets, whatever launched this JVM.
   *
   * @throws Refused exit 1, one line, when a class came from something another JVM cannot be given
   */
  public static HostClasspath.Resolution.Found hostClasspath() throws Refused {
    HostClasspath.Resolution r = HostClasspath.host();
    if (r instanceof HostClasspath.Resolution.Found f) {
      return f;
    } else if (r instanceof HostClasspath.Resolution.Unknown u) {
      throw new Refused(1, u.why());
    } else {
      throw new AssertionError(r);
    }
  }

  /**
   * Checks that the worker host of every configured type can run it: each declared class is found on
   * Vigil's own classpath ({@code runtime}, which every worker host gets) plus that type's entries,
   * and is a worker type with a public no-argument constructor. No code of a type runs here.
   *
   * @throws ConfigException one line naming the first type that cannot be run and why
   */
  public static void checkWorkerTypes(VigilConfig config, HostClasspath.Resolution.Found runtime) {
    List<WorkerTypeSpec> declared = config.workload().workerTypes().byName().values().stream()
        .filter(t -> t.implementation() instanceof WorkerTypeSpec.Declared).toList();
    if (declared.isEmpty()) {
      return;
    }
    try (URLClassLoader hostLoader = TypeLoader.hostLoader(runtime.entries())) {
      for (WorkerTypeSpec type : declared) {
        if (TypeLoader.check(type, hostLoader) instanceof TypeLoader.Check.Unusable u) {
          throw new ConfigException(u.why());
        }
      }
    } catch (IOException e) {
      throw new ConfigException("cannot close the loader of the worker types' check: " + e);
    }
  }

  private EngineConfig engineConfig(ProcessIdentity self) {
    String host = hostName();
    int n = INCARNATIONS.incrementAndGet();
    OwnerId owner = new OwnerId(("d-" + host + "-" + self.pid() + "-" + self.startTicks() + (n == 1 ? "" : "-" + n))
        .replaceAll("[^A-Za-z0-9._:@-]", "_"));
    return new EngineConfig(owner, host, BuildInfo.BUILD, BuildInfo.VERSION, BuildInfo.PROTOCOL, config.workload(),
        config.timeouts(), hostId);
  }

  private static String hostName() {
    String h = System.getenv("HOSTNAME");
    if (h == null || h.isBlank()) {
      try {
        h = Files.readString(Path.of("/etc/hostname"), StandardCharsets.UTF_8).trim();
      } catch (IOException e) {
        h = "localhost";
      }
    }
    return h.isBlank() ? "localhost" : h;
  }

  private long mono() {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - monoBase) + 1;
  }

  private static long wall() {
    return System.currentTimeMillis();
  }

  private void enqueue(Runnable r) {
    queue.add(r);
  }

  /**
   * The process table of incarnation {@code n}: the exits of the workers it launches go to the engine
   * while that incarnation runs, and nowhere once a store outage dropped it (the next incarnation
   * learns of them as a new daemon does: by identity and the outcome each worker wrote).
   */
  private OsProcessTable processTable(int n) {
    return new OsProcessTable(home.dir(), runtime.classpath(), config.timeouts(), exit -> enqueue(() -> {
      if (incarnation == n && engine != null) {
        engine.onExit(exit, mono(), wall());
      }
    }), DaemonArchive.on(System.getenv()));
  }

  /**
   * Boots incarnation {@code n} on the open store: a new owner id, its own journal and process
   * table; recovery of every live run as at a daemon start (DESIGN.md §7).
   */
  private Engine boot(OsProcessTable processes, int n) {
    incarnation = n;
    EngineConfig ec = engineConfig(processes.self());
    if (journal != null) {
      journal.close();
    }
    journal = JournalFile.of(home, ec.owner());
    JournalFile file = journal;
    LogJournal log = new LogJournal();
    StoreHandle store = coordination;
    Ports ports = new Ports(store.coordination(), new EarlierIncarnationsClosed(processes), directories, channel, board,
        e -> {
          log.record(e);
          file.record(e);
          onChange.engineEvent();
        }, store.schedules());
    store.schedules().configure(config.schedules(), wall()); // the file's schedules, their fire state kept
    Engine e = Engine.boot(ec, ports, mono(), wall());
    if (pausedAtBoot) { // before its first tick, so that it claims nothing
      e.onClientCommand(new Command.Pause(), r -> { }, mono(), wall());
      LOG.info("started paused: nothing is dispatched until vigil resume");
    }
    return e;
  }

  /** The scheduling thread: boot, then tick and events until stopped; then the clean close. */
  private void run(OsProcessTable processes, CompletableFuture<Void> booted) {
    try {
      engine = boot(processes, 1);
      booted.complete(null);
    } catch (RuntimeException e) {
      LOG.error("boot failed", e);
      booted.completeExceptionally(e);
      running = false;
      done.complete(null);
      return;
    }
    long notBefore = 0;
    while (running && (engine == null || !engine.stopped())) {
      long now = mono();
      long deadline;
      if (engine == null) {
        StoreOutage o = outage;
        if (o.attemptDue(now)) {
          reopen(now);
          continue;
        }
        if (now - outageBeatMonoMs >= heartbeatMs()) {
          publishOutage();
        }
        deadline = Math.min(o.nextAttemptMonoMs(), outageBeatMonoMs + heartbeatMs());
      } else {
        deadline = Math.max(notBefore, engine.nextDeadlineMonoMs(now, wall()));
        if (deadline <= now) {
          if (!safely(() -> engine.tick(now, wall()))) {
            notBefore = now + PAUSE_AFTER_FAILURE_MS;
          }
          continue;
        }
      }
      Runnable r;
      try {
        r = queue.poll(Math.max(1, deadline - now), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        r = null;
      }
      while (r != null) {
        safely(r);
        r = queue.poll();
      }
    }
    closing = true;
    Runnable r;
    while ((r = queue.poll()) != null) {
      safely(r);
    }
    LOG.info("the daemon stops{}", engine != null && engine.stopped() ? " (shutdown complete)"
        : "; workers are left running");
    release();
    done.complete(null);
  }

  private long heartbeatMs() {
    return config.timeouts().ms(dev.vigil.supervisor.TimeoutLattice.Timeout.HEARTBEAT);
  }

  /**
   * Runs an event or a tick; false when it failed. A failure of the store starts an outage (D5);
   * any other failure is logged and the loop goes on.
   */
  private boolean safely(Runnable r) {
    try {
      r.run();
      return true;
    } catch (RuntimeException e) {
      if (!outageFrom(e)) {
        LOG.error("event failed", e);
      }
      return false;
    }
  }

  /** A shared store says a ticket became claimable: the engine dispatches at its next step (H1). */
  private void newWorkElsewhere() {
    enqueue(() -> {
      if (engine != null) {
        engine.onQueueChanged(mono(), wall());
      }
    });
  }

  /**
   * The store failed: the engine incarnation is dropped (nothing it decided after the failure could
   * be recorded), the store closed, every worker left running and connected; reopening starts after
   * the first pause (D5).
   */
  private void beginOutage(String reason, RuntimeException e) {
    pausedAtBoot = engine != null && engine.paused(); // a pause outlives the outage
    engine = null;
    closeStore();
    StoreOutage.Step step = StoreOutage.begin(StoreHandle.where(config, home), reason, mono(), wall());
    outage = step.outage();
    step.note().ifPresent(n -> LOG.warn("{}", n.line()));
    LOG.debug("the store failure", e);
    publishOutage();
  }

  /** Closes the store, which may fail (a full disk cannot take the compaction of a clean close). */
  private void closeStore() {
    StoreHandle c = coordination;
    coordination = null;
    if (c != null) {
      try {
        c.close();
      } catch (RuntimeException x) {
        LOG.debug("closing the failed store: {}", x.toString());
      }
    }
  }

  /**
   * One reopen attempt: the store opens and a new incarnation boots on it (its owner registration is
   * the first write), or the outage goes on with the next pause. Before the boot every worker
   * connection is closed, so that each worker says hello to the new incarnation.
   */
  private void reopen(long now) {
    StoreOutage o = outage;
    try {
      coordination = StoreHandle.open(config, home, storeOptions, this::newWorkElsewhere);
    } catch (RuntimeException e) {
      failedAttempt(o, e, now);
      return;
    }
    channel.closeAll();
    heldHellos.forEach(Peer::close);
    heldHellos.clear();
    OsProcessTable processes = processTable(incarnation + 1);
    try {
      engine = boot(processes, incarnation + 1);
    } catch (RuntimeException e) {
      engine = null;
      closeStore();
      failedAttempt(o, e, mono());
      return;
    }
    outage = null;
    LOG.info("{}", o.ended(mono()).line());
  }

  private void failedAttempt(StoreOutage o, RuntimeException e, long now) {
    Optional<String> store = StoreHandle.failure(e);
    String why = store.orElseGet(() -> Wire.oneLine(String.valueOf(e.getMessage())));
    if (store.isEmpty()) {
      LOG.error("reopening the store failed", e);
    }
    StoreOutage.Step step = o.attemptFailed(why, now);
    outage = step.outage();
    step.note().ifPresent(n -> LOG.warn("{}", n.line()));
  }

  /** The status file during an outage: the daemon lives and says why it starts nothing (D1, D5). */
  private void publishOutage() {
    outageBeatMonoMs = mono();
    board.publishOutage(outage, wall());
  }

  /** Stops the scheduling loop: the flag, then an empty event that wakes it from its wait. */
  private void stopLoop() {
    running = false;
    queue.add(() -> { });
  }

  private void release() {
    if (server != null) {
      server.close();
    }
    if ((engine != null || outage != null)
        && statusFile.read().map(st -> st.pid() == ProcessHandle.current().pid()).orElse(true)) {
      statusFile.delete();
    }
    if (journal != null) {
      journal.close();
    }
    StoreHandle c = coordination;
    if (c != null) {
      coordination = null;
      try {
        c.close();
      } catch (RuntimeException e) {
        LOG.warn("closing the store: {}", e.toString());
      }
    }
    if (lock != null) {
      try {
        lock.close();
      } catch (IOException e) {
        // released by the kernel at exit anyway
      }
    }
  }

  /**
   * Runs a command on the scheduling thread and returns its reply; during a store outage the future
   * fails with {@link Unavailable} (D5).
   */
  public CompletableFuture<Reply> call(Command command) {
    CompletableFuture<Reply> f = new CompletableFuture<>();
    enqueue(() -> {
      if (engine != null) {
        try {
          engine.onClientCommand(command, reply -> {
            f.complete(reply);
            onChange.replied(reply);
          }, mono(), wall());
        } catch (RuntimeException e) {
          if (!outageFrom(e)) {
            f.completeExceptionally(e);
            throw e;
          }
        }
      }
      if (engine == null && !f.isDone()) {
        f.completeExceptionally(new Unavailable(outage));
      }
    });
    return f;
  }

  /** The store is unavailable (D5): the daemon runs, its workers run, it decides nothing until the store is back. */
  public static final class Unavailable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Unavailable(StoreOutage outage) {
      super(outage.line(), null, false, false);
    }
  }

  /** The outage in progress, if any (D5). */
  public Optional<StoreOutage> outage() {
    return Optional.ofNullable(outage);
  }

  /** Answers a client's command on the engine, or with the outage's line when the store is unavailable. */
  private void answer(Peer peer, Command cmd) {
    if (engine != null) {
      try {
        engine.onClientCommand(cmd, reply -> {
          ObjectNode wire = Wire.reply(reply);
          StoreHandle store = coordination;
          if (hostId != null && store != null) {
            runHosts.fill(wire, store.coordination().store());
          }
          if (wire.path("status") instanceof ObjectNode st) { // where it keeps its decisions, and as which host
            st.put("store", StoreHandle.where(config, home));
            st.put("hostId", hostId);
          }
          peer.send(new Message.Reply(wire));
          onChange.replied(reply);
        }, mono(), wall());
        return;
      } catch (RuntimeException e) {
        if (!outageFrom(e)) {
          peer.send(new Message.Reply(Wire.error("Failed", "the daemon failed: " + Wire.oneLine(String.valueOf(e)))));
          throw e;
        }
      }
    }
    if (engine == null) {
      ObjectNode r = Wire.unavailable(outage);
      if (cmd instanceof Command.Shutdown) { // deciding that every worker is idle needs the store
        r.put("message", outage.line() + "; to stop the daemon anyway, leaving every worker running: kill " + pid());
      }
      peer.send(new Message.Reply(r));
    }
  }

  /**
   * Starts an outage when {@code e} is a failure of the store (D5); false when it is not one, and
   * the caller goes on as with any other failure.
   */
  private boolean outageFrom(RuntimeException e) {
    Optional<String> store = StoreHandle.failure(e);
    if (store.isEmpty()) {
      return false;
    }
    if (engine != null) {
      beginOutage(store.get(), e);
    }
    return true;
  }

  /** The daemon's pid. */
  public long pid() {
    return ProcessHandle.current().pid();
  }

  /** Completes when the daemon stopped and released everything. */
  public CompletableFuture<Void> done() {
    return done;
  }

  /** Stops the daemon, leaving every worker running (D4), and waits until it released everything. */
  @Override
  public void close() {
    stopLoop();
    done.join();
  }

  /** Socket events, on the connection threads: everything for the engine is enqueued. */
  private final class Handler implements ProtocolServer.Handler {
    @Override
    public void onMessage(Peer peer, Message.ToDaemon m) {
      if (m instanceof Message.ClientHello) {
        peer.send(new Message.Capabilities(List.of("idle_shutdown", SUBMIT_ALL, StoreOps.CAPABILITY, Up.RESTART_CAPABILITY,
            MaintenanceJobs.CAPABILITY), BuildInfo.BUILD,
            BuildInfo.VERSION, BuildInfo.PROTOCOL, ProcessHandle.current().pid()));
      } else if (m instanceof Message.Command c && StoreOps.OPS.contains(c.op())) {
        // the store answers these itself, on this connection's thread: a check reads every row and a
        // backup pauses every verb for its copy, neither of which the scheduling thread may wait for
        StoreHandle store = coordination;
        StoreOutage o = outage;
        if (store == null || o != null) {
          peer.send(new Message.Reply(o != null ? Wire.unavailable(o)
              : Wire.error("Unavailable", "the store is closed: the daemon is stopping")));
          return;
        }
        Optional<H2Coordination> h2 = store.h2();
        peer.send(new Message.Reply(h2.isPresent() ? StoreOps.answer(h2.get(), c.op(), c.args())
            : Wire.error("Invalid", "vigil store " + c.op() + " is for the embedded store; this daemon's store is "
                + StoreHandle.where(config, home) + ": use the server's own tools (pg_dump, pg_restore)")));
      } else if (m instanceof Message.Command c) {
        Command cmd;
        try {
          // a prune that names no age prunes by the configured retention (Q18)
          cmd = Wire.command(c.op(), c.op().equals("prune") && !c.args().has("olderThanMs")
              ? c.args().deepCopy().put("olderThanMs", config.retentionMs()) : c.args(), config.maxAttempts());
        } catch (RuntimeException e) {
          peer.send(new Message.Reply(Wire.error("Invalid", Wire.oneLine(e.getMessage()))));
          return;
        }
        enqueue(() -> answer(peer, cmd));
      } else if (m instanceof Message.Shutdown s) {
        Command cmd = new Command.Shutdown(s.ifIdle() ? Command.Shutdown.Mode.IF_IDLE : Command.Shutdown.Mode.STOP_WORKERS);
        enqueue(() -> answer(peer, cmd));
      } else if (m instanceof Message.Hello h) {
        // authenticated: the server found the token hash through this very key (C9)
        WorkerKey key = SocketWorkerChannel.keyOf(h.subject()).orElseThrow();
        enqueue(() -> {
          if (engine == null) {
            heldHellos.add(peer); // answered by the next incarnation: the connection is closed when the store is back
            return;
          }
          ToWorker answer;
          try {
            answer = engine.onHello(new WorkerMessage.Hello(key, RunToken.hash(h.token()), h.build(), h.pid()),
                mono(), wall());
          } catch (IllegalArgumentException e) {
            answer = new ToWorker.AdoptDenied(Wire.oneLine(e.getMessage()));
          }
          channel.answer(peer, key, answer);
        });
      } else if (m instanceof Message.FromWorker fw) {
        WorkerMessage wm = toEngine(fw);
        if (wm == null) {
          return;
        }
        // during an outage a worker's report is dropped: it says its state again to the next incarnation
        enqueue(() -> channel.boundKey(peer).filter(key -> engine != null)
            .ifPresent(key -> engine.onMessage(key, wm, mono(), wall())));
      }
    }

    @Override
    public void onClosed(Peer peer) {
      enqueue(() -> channel.closed(peer)); // after the answer to its hello, which was enqueued first
    }
  }

  private static WorkerMessage toEngine(Message.FromWorker m) {
    if (m instanceof Message.Busy b) {
      return new WorkerMessage.Busy(b.work());
    } else if (m instanceof Message.Idle) {
      return new WorkerMessage.Idle();
    } else if (m instanceof Message.Quiesced) {
      return new WorkerMessage.Quiesced();
    } else if (m instanceof Message.Progress p) {
      return new WorkerMessage.Progress(p.message());
    } else if (m instanceof Message.OutcomeReport o) {
      return new WorkerMessage.OutcomeReported(o.outcome().verdict());
    } else if (m instanceof Message.Ask a) {
      return new WorkerMessage.Ask(a.seq(), a.text(), a.options());
    } else if (m instanceof Message.Restored r) {
      return new WorkerMessage.Restored(r.restoreId(), r.snapshot());
    }
    return null;
  }

  /** daemon.json every heartbeat (D1), written on the scheduling thread. */
  private final class Board implements StatusBoard {
    private final ProcessIdentity self;
    /** Writes of the status file that failed in a row. */
    private int failedWrites;

    Board(ProcessIdentity self) {
      this.self = self;
    }

    @Override
    public void publish(Status status) {
      if (closing || status.state() == Status.State.STOPPED) {
        return;
      }
      if (foreignLoop(status.heartbeatAtWallMs())) {
        return;
      }
      // all else in the file is this daemon's for its life: a beat that shows the same as the last one
      // writes the same text with its own heartbeat
      List<Object> shown = List.of(status.state(), status.lanes(), status.runs(), status.services());
      try {
        statusFile.writeBeat(shown, status.heartbeatAtWallMs(), heartbeat -> {
          ObjectNode o = fields(heartbeat);
          ObjectNode s = Wire.status(status);
          o.put("state", status.state().name());
          o.set("lanes", s.get("lanes"));
          o.set("runs", s.get("runs"));
          o.set("services", s.get("services"));
          return o;
        });
        failedWrites = 0;
      } catch (IOException e) {
        failed(e);
      }
    }

    /** The status file while the store is unavailable: state {@code STORE_UNAVAILABLE}, since when and why. */
    void publishOutage(StoreOutage outage, long nowWallMs) {
      if (closing) {
        return;
      }
      ObjectNode o = common(nowWallMs);
      if (o == null) {
        return;
      }
      o.put("state", Wire.STORE_UNAVAILABLE);
      o.set("store", Wire.outage(outage));
      write(o);
    }

    private void write(ObjectNode o) {
      try {
        statusFile.write(o);
        failedWrites = 0;
      } catch (IOException e) {
        failed(e);
      }
    }

    private void failed(IOException e) {
      if (failedWrites++ == 0) { // once per spell: a full disk fails it every beat
        LOG.warn("cannot write {}: {}", statusFile.path(), e.toString());
      }
    }

    /** The fields every status file has, or null when another daemon schedules on this home (D2). */
    private ObjectNode common(long heartbeatAtWallMs) {
      return foreignLoop(heartbeatAtWallMs) ? null : fields(heartbeatAtWallMs);
    }

    /** The fields every status file has. */
    private ObjectNode fields(long heartbeatAtWallMs) {
      ObjectNode o = Wire.JSON.createObjectNode();
      o.put("schema", StatusFile.SCHEMA);
      o.put("pid", self.pid());
      o.put("pid_start", self.startTicks());
      o.put("build", BuildInfo.BUILD);
      o.put("version", BuildInfo.VERSION);
      o.put("protocol", BuildInfo.PROTOCOL);
      o.put("started_at", startedAtWallMs);
      o.put("heartbeat_at", heartbeatAtWallMs);
      o.put("home", home.dir().toString());
      if (config.source().isPresent()) {
        o.put("config", config.source().get().toString());
      } else {
        o.putNull("config");
      }
      return o;
    }
  }

  /**
   * D2 foreign loop: another live daemon wrote a fresh {@code daemon.json} on this home (a lock that
   * did not hold, e.g. a home on a network file system). This daemon then stops, leaving every
   * worker running (D4), rather than schedule beside it.
   */
  private boolean foreignLoop(long nowWallMs) {
    Optional<DaemonLiveness.Status> st = statusFile.read();
    long own = ProcessHandle.current().pid();
    if (st.isEmpty() || st.get().pid() == own) {
      return false;
    }
    long pidStart = statusFile.readJson().map(n -> n.path("pid_start").asLong(-1)).orElse(-1L);
    boolean alive = Processes.identityOf(st.get().pid()).filter(id -> pidStart < 0 || id.startTicks() == pidStart)
        .isPresent();
    if (DaemonLiveness.from(config.timeouts()).atStart(st, own, alive, nowWallMs)
        instanceof DaemonLiveness.Singleton.Refuse r) {
      LOG.error("another daemon (pid {}) schedules on {}: this one stops and leaves its workers running (D2, D4)",
          r.pid(), home.dir());
      running = false;
      closing = true;
      return true;
    }
    return false;
  }

  /**
   * The process table, where an owner registered with this very process's identity is dead unless it
   * is this incarnation (which the engine asks about by owner id, never by identity): it is an earlier
   * embedded daemon of this JVM on this home, closed, since this one holds the home's lock (D2). So a
   * daemon started again in the same JVM recovers and adopts the runs of the one it follows (D4, Q11)
   * as a daemon in a new process does. Worker identities are never this process's.
   */
  private static final class EarlierIncarnationsClosed implements dev.vigil.supervisor.engine.port.ProcessTable {
    private final OsProcessTable os;

    EarlierIncarnationsClosed(OsProcessTable os) {
      this.os = os;
    }

    @Override
    public ProcessIdentity self() {
      return os.self();
    }

    @Override
    public dev.vigil.supervisor.engine.port.Launch launch(dev.vigil.supervisor.engine.port.LaunchRequest request) {
      return os.launch(request);
    }

    @Override
    public Optional<ProcessIdentity> identity(long pid) {
      return os.identity(pid);
    }

    @Override
    public boolean alive(ProcessIdentity identity) {
      return !identity.equals(os.self()) && os.alive(identity);
    }

    @Override
    public boolean signalGroup(ProcessIdentity identity, dev.vigil.supervisor.engine.port.Signal signal) {
      return os.signalGroup(identity, signal);
    }
  }

  /** Engine events to the log. */
  private static final class LogJournal implements Journal {
    @Override
    public void record(dev.vigil.supervisor.engine.EngineEvent event) {
      LOG.info("{}", event);
    }
  }
}
