package dev.vigil.launcher.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.supervisor.RevivalGate;
import dev.vigil.supervisor.TimeoutLattice;
import dev.vigil.supervisor.engine.IdentityRecord;
import dev.vigil.supervisor.engine.Launch;
import dev.vigil.supervisor.engine.LaunchRequest;
import dev.vigil.supervisor.engine.OutcomeRecord;
import dev.vigil.supervisor.engine.Prepared;
import dev.vigil.supervisor.engine.ProcessExit;
import dev.vigil.supervisor.engine.ProcessTable;
import dev.vigil.supervisor.engine.RunDirectories;
import dev.vigil.supervisor.engine.Signal;
import dev.vigil.supervisor.engine.WorkerKey;
import dev.vigil.worker.Outcome;
import dev.vigil.worker.host.WorkerArgs;
import dev.vigil.worker.process.GroupSignal;
import dev.vigil.worker.process.LaunchSpec;
import dev.vigil.worker.process.LaunchedWorker;
import dev.vigil.worker.process.Processes;
import dev.vigil.worker.protocol.RunToken;
import dev.vigil.worker.rundir.OutcomeRead;
import dev.vigil.worker.rundir.RunDirectory;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's {@link ProcessTable} and {@link RunDirectories} over worker-runtime: real worker
 * hosts started in their own session ({@code setsid}), identity-gated group signals, and run
 * directories under {@code <home>/runs}. The worker records its build and the hash of its token in
 * its {@code identity.json}, so that a later daemon can check its token and build after a restart
 * (C9, S6).
 */
public final class RealWorkers implements ProcessTable, RunDirectories {
  private static final Logger LOG = LoggerFactory.getLogger(RealWorkers.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path home;
  private final String classpath;
  private final TimeoutLattice timeouts;
  private final Consumer<ProcessExit> exits;

  /**
   * @param home      Vigil's home
   * @param classpath the worker hosts' classpath (the running jar, plus custom types' jars)
   * @param timeouts  the daemon's timeouts; those other than the defaults are passed to each host
   * @param exits     where exits of launched workers go (any thread; the shell enqueues them)
   */
  public RealWorkers(Path home, String classpath, TimeoutLattice timeouts, Consumer<ProcessExit> exits) {
    this.home = home;
    this.classpath = classpath;
    this.timeouts = timeouts;
    this.exits = exits;
  }

  /** The run directory name of a worker key: the run id, or {@code s-<name>} for a service. */
  public static String dirName(WorkerKey key) {
    if (key instanceof WorkerKey.Task t) {
      return t.run().toString();
    } else if (key instanceof WorkerKey.Service s) {
      return "s-" + s.service();
    } else {
      throw new AssertionError(key);
    }
  }

  /** The token hash the worker of the run or session directory {@code dir} recorded with its identity, if any. */
  public Optional<String> tokenHashOf(String dir) {
    return RunDirectory.of(home, dir).readIdentity() instanceof IdentityRecord.Written w
        ? Optional.ofNullable(w.tokenHash()) : Optional.empty();
  }

  // ---- ProcessTable ----

  @Override
  public ProcessIdentity self() {
    return Processes.self();
  }

  @Override
  public Launch launch(LaunchRequest r) {
    WorkerKey key = r.key();
    RunDirectory dir = RunDirectory.of(home, dirName(key));
    String token = RunToken.generate();
    String hash = RunToken.hash(token);
    try {
      dir.writePayload(JSON.readTree(r.payload()));
    } catch (IOException | RuntimeException e) {
      return new Launch.Failed("cannot write into " + dir.path() + ": " + e.getMessage());
    }
    WorkerArgs args;
    Map<TimeoutLattice.Timeout, Long> changed = new EnumMap<>(TimeoutLattice.Timeout.class);
    for (TimeoutLattice.Timeout t : TimeoutLattice.Timeout.values()) {
      if (timeouts.ms(t) != t.defaultMs()) {
        changed.put(t, timeouts.ms(t));
      }
    }
    try {
      if (key instanceof WorkerKey.Task t) {
        args = WorkerArgs.task(home, t.run(), Math.max(1, r.attempt()), r.workerType(), r.build());
      } else if (key instanceof WorkerKey.Service s) {
        args = new WorkerArgs(home, dirName(key), Optional.empty(), Optional.of(s.service()), 1, r.workerType(),
            r.build(), home.resolve("vigil.sock"), Map.of());
      } else {
        throw new AssertionError(key);
      }
      if (!changed.isEmpty()) {
        args = args.withTimeouts(changed);
      }
    } catch (RuntimeException e) {
      return new Launch.Failed("bad worker arguments: " + e.getMessage());
    }
    List<String> command = args.command(Path.of(System.getProperty("java.home"), "bin", "java"),
        WorkerArgs.FAST_START_FLAGS, classpath);
    Map<String, String> env = LaunchSpec.baseEnvironment();
    env.put(RunToken.ENV, token);
    LaunchedWorker w;
    try {
      w = Processes.launch(new LaunchSpec(command, env, dir.path(), dir.stdoutLog(), dir.stderrLog()));
    } catch (IOException | RuntimeException e) {
      return new Launch.Failed("cannot launch the worker of " + key + ": " + e.getMessage());
    }
    if (w.identity().isEmpty()) {
      return new Launch.Failed("the worker of " + key + " (pid " + w.pid() + ") ended at once; see "
          + dir.stderrLog());
    }
    ProcessIdentity id = w.identity().get();
    w.onExit().thenAccept(exit -> exits.accept(toExit(id, exit)));
    LOG.info("launched {} as pid {}", key, id.pid());
    return new Launch.Started(id, hash);
  }

  private static ProcessExit toExit(ProcessIdentity id, RunExit exit) {
    if (exit.signal() != null) {
      return ProcessExit.signal(id, exit.signal());
    }
    return ProcessExit.code(id, exit.exitCode() == null ? 1 : exit.exitCode());
  }

  @Override
  public Optional<ProcessIdentity> identity(long pid) {
    return Processes.identityOf(pid);
  }

  @Override
  public boolean alive(ProcessIdentity identity) {
    // C5: a worker host killed outright leaves its command running in the group; the run is alive
    // until the whole group is gone, or a retry would run the same paid work twice.
    return Processes.groupAlive(identity);
  }

  @Override
  public boolean signalGroup(ProcessIdentity identity, Signal signal) {
    GroupSignal g = signal == Signal.TERM ? GroupSignal.TERM : GroupSignal.KILL;
    return Processes.signalWhatIsLeft(identity, g);
  }

  // ---- RunDirectories ----

  @Override
  public Prepared prepare(WorkerKey key) {
    try {
      RunDirectory.create(home, dirName(key));
      return new Prepared.Ready();
    } catch (IOException | RuntimeException e) {
      return new Prepared.Failed("cannot create " + RunDirectory.runsOf(home).resolve(dirName(key)) + ": "
          + e.getMessage());
    }
  }

  @Override
  public boolean isReserved(WorkerKey key) {
    RunDirectory dir = RunDirectory.of(home, dirName(key));
    if (!Files.isDirectory(dir.path()) || !Files.exists(dir.file(RunDirectory.RESERVATION))) {
      return false;
    }
    try {
      return dir.isReserved();
    } catch (IOException e) {
      LOG.warn("cannot probe the reservation of {}: {}", key, e.toString());
      return false;
    }
  }

  @Override
  public IdentityRecord identity(WorkerKey key) {
    return RunDirectory.of(home, dirName(key)).readIdentity();
  }

  @Override
  public OutcomeRecord outcome(RunId run) {
    RunDirectory dir = RunDirectory.of(home, run.toString());
    OutcomeRead read = dir.readOutcome();
    if (read instanceof OutcomeRead.Recorded rec) {
      Outcome o = rec.outcome().outcome();
      long until = o instanceof Outcome.Stalled s ? s.untilMs() : 0;
      String note = o.detail();
      try {
        return new OutcomeRecord.Written(o.verdict(), until, note);
      } catch (RuntimeException e) {
        return new OutcomeRecord.Corrupt(dir.file(RunDirectory.OUTCOME) + ": " + e.getMessage());
      }
    } else if (read instanceof OutcomeRead.None none) {
      return Files.exists(dir.file(RunDirectory.OUTCOME))
          ? new OutcomeRecord.Corrupt(none.diagnosis())
          : new OutcomeRecord.Absent(none.diagnosis());
    } else {
      throw new AssertionError(read);
    }
  }

  @Override
  public Optional<RevivalGate.BusyRecord> latestBusy(WorkerKey key) {
    return RunDirectory.of(home, dirName(key)).readBusy().map(b -> new RevivalGate.BusyRecord(b.busy(), b.atWallMs()));
  }

  /** The classpath of worker hosts: this jar (or the test classpath) plus the custom types' entries. */
  public static String workerClasspath(List<String> extra) {
    List<String> parts = new ArrayList<>();
    parts.add(System.getProperty("java.class.path"));
    parts.addAll(extra);
    return String.join(File.pathSeparator, parts);
  }
}
