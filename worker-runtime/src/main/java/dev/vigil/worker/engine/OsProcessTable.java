package dev.vigil.worker.engine;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RunExit;
import dev.vigil.supervisor.TimeoutLattice;
import dev.vigil.supervisor.engine.WorkerKey;
import dev.vigil.supervisor.engine.WorkerTypeSpec;
import dev.vigil.supervisor.engine.port.Launch;
import dev.vigil.supervisor.engine.port.LaunchRequest;
import dev.vigil.supervisor.engine.port.ProcessExit;
import dev.vigil.supervisor.engine.port.ProcessTable;
import dev.vigil.supervisor.engine.port.Signal;
import dev.vigil.worker.host.RunSettings;
import dev.vigil.worker.host.WorkerArgs;
import dev.vigil.worker.host.WorkerMain;
import dev.vigil.worker.internal.Json;
import dev.vigil.worker.process.GroupSignal;
import dev.vigil.worker.process.LaunchSpec;
import dev.vigil.worker.process.LaunchedWorker;
import dev.vigil.worker.process.Processes;
import dev.vigil.worker.process.StartArchive;
import dev.vigil.worker.protocol.RunToken;
import dev.vigil.worker.rundir.RunDirectory;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's {@link ProcessTable} on the operating system: worker hosts
 * ({@link WorkerArgs#MAIN_CLASS}) started in their own session through {@link Processes#launch},
 * identities from {@code /proc}, identity-gated signals to the group (C5).
 *
 * <p>A launch writes the payload into the worker's directory, gives the worker a fresh run token
 * in its environment only (C9) and reports the token's SHA-256; the worker itself writes its
 * identity, build and token hash to {@code identity.json} once it holds its reservation (Q3). The
 * directory and environment recorded with a task's ticket go in its environment too
 * ({@link RunSettings#ENV}), never into a file or its command line.
 *
 * <p>Worker hosts start with a class archive of their own ({@link StartArchive}, under
 * {@code <home>/cds}, one per JDK, jar files and type classpath): the first launch without one starts
 * a JVM that plays a host start and writes it at its exit (about a second, beside the hosts, which
 * start without meanwhile); later hosts map it, and a damaged or mismatched one means a start without.
 * A table made with archives off ({@code VIGIL_CDS=off} for a daemon) starts every host without one.
 *
 * <p>Threading: {@link #launch} waits only until the new process leads its group (milliseconds);
 * every other method is a {@code /proc} read or a {@code kill}. Exits of launched workers are
 * reported on a process-reaper thread, to the consumer given at construction.
 */
public final class OsProcessTable implements ProcessTable {
  private static final Logger LOG = LoggerFactory.getLogger(OsProcessTable.class);

  private final Path home;
  private final String runtimeClasspath;
  private final Map<TimeoutLattice.Timeout, Long> hostTimeouts;
  private final Consumer<ProcessExit> exits;
  /** The hosts' class archive, or null when hosts start without one. */
  private final StartArchive archive;

  /**
   * @param home      Vigil's home: run directories under {@code <home>/runs}, the socket {@code <home>/vigil.sock}
   * @param runtimeClasspath Vigil's own classpath (worker-runtime and its dependencies, as {@link HostClasspath}
   *                  finds them); each worker host gets it plus the entries of its own worker type only
   * @param timeouts  the daemon's timeouts; those that differ from the defaults are passed to every host
   * @param exits     receives the exit of every worker this table launched, once, on any thread
   */
  public OsProcessTable(Path home, String runtimeClasspath, TimeoutLattice timeouts, Consumer<ProcessExit> exits) {
    this(home, runtimeClasspath, timeouts, exits, true);
  }

  /** As {@link #OsProcessTable(Path, String, TimeoutLattice, Consumer)}; {@code archives} false: hosts start without one. */
  public OsProcessTable(Path home, String runtimeClasspath, TimeoutLattice timeouts, Consumer<ProcessExit> exits,
      boolean archives) {
    this.home = Objects.requireNonNull(home, "home");
    this.runtimeClasspath = Objects.requireNonNull(runtimeClasspath, "runtimeClasspath");
    this.exits = Objects.requireNonNull(exits, "exits");
    this.archive = archives ? new StartArchive(home.resolve("cds"), "host", StartArchive.currentJava()) : null;
    Map<TimeoutLattice.Timeout, Long> changed = new EnumMap<>(TimeoutLattice.Timeout.class);
    for (TimeoutLattice.Timeout t : TimeoutLattice.Timeout.values()) {
      if (timeouts.ms(t) != t.defaultMs()) {
        changed.put(t, timeouts.ms(t));
      }
    }
    this.hostTimeouts = Map.copyOf(changed);
  }

  /**
   * Starts writing the class archive of hosts with Vigil's own classpath (the built-in command type
   * and types without entries of their own) now, in the background, unless it exists: a daemon calls
   * this once it serves, so that the first burst of launches already maps it. Never blocks on the JVM.
   */
  public void prepareArchive() {
    if (archive == null) {
      return;
    }
    String classpath = WorkerArgs.absoluteClasspath(runtimeClasspath);
    if (archive.plan(WorkerArgs.FAST_START_FLAGS, classpath, System.nanoTime() / 1_000_000)
        instanceof StartArchive.Plan.Create c) {
      train(c, classpath);
    }
  }

  /**
   * Writes the hosts' class archive in the background: a JVM with the hosts' flags and classpath
   * plays one host start ({@link WorkerMain#TRAIN_ARCHIVE}, in a private temporary directory, no
   * run of this home) and writes the archive at its exit; the hosts launched meanwhile start without.
   */
  private void train(StartArchive.Plan.Create c, String classpath) {
    Path dir;
    Process p;
    try {
      dir = StartArchive.newTrainingDirectory();
      List<String> cmd = new ArrayList<>();
      cmd.add(StartArchive.currentJava().toString());
      cmd.addAll(WorkerArgs.FAST_START_FLAGS);
      cmd.addAll(c.flags());
      cmd.addAll(List.of("-cp", classpath, WorkerArgs.MAIN_CLASS, WorkerMain.TRAIN_ARCHIVE, dir.toString()));
      ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
      pb.environment().clear();
      pb.environment().putAll(LaunchSpec.baseEnvironment());
      p = pb.start();
    } catch (IOException | RuntimeException e) {
      archive.abandoned(c);
      LOG.warn("cannot write the worker hosts' class archive: {}", e.toString());
      return;
    }
    p.onExit().thenRunAsync(() -> {
      if (archive.created(c)) {
        LOG.info("worker hosts now start with the class archive {}", c.archive());
      } else {
        LOG.warn("the worker hosts' class archive could not be written (training exit {}); hosts start without it",
            p.exitValue());
      }
      StartArchive.deleteTrainingDirectory(dir);
    });
  }

  @Override
  public ProcessIdentity self() {
    return Processes.self();
  }

  @Override
  public Launch launch(LaunchRequest r) {
    WorkerKey key = r.key();
    RunDirectory dir = DiskRunDirectories.directoryOf(home, key);
    try {
      dir.writePayload(Json.parse(r.payload().getBytes(StandardCharsets.UTF_8)));
    } catch (IOException | RuntimeException e) {
      return new Launch.Failed("cannot write the payload into " + dir.path() + ": " + e.getMessage());
    }
    if (r.previousCheckpoint() != null) {
      try {
        dir.writeResumeFrom(r.previousCheckpoint()); // Q17
      } catch (IOException | RuntimeException e) {
        return new Launch.Failed("cannot write the checkpoint to resume from into " + dir.path() + ": " + e.getMessage());
      }
    }
    WorkerArgs args;
    try {
      args = argsOf(r);
    } catch (RuntimeException e) {
      return new Launch.Failed("bad worker arguments for " + key + ": " + e.getMessage());
    }
    String token = RunToken.generate();
    Map<String, String> env = LaunchSpec.baseEnvironment();
    env.put(RunToken.ENV, token);
    RunSettings settings = RunSettings.of(r.spec().workDir(), r.spec().env());
    if (!settings.none()) {
      env.put(RunSettings.ENV, settings.encode());
    }
    String classpath = WorkerArgs.absoluteClasspath(classpathOf(r.type()));
    StartArchive.Plan plan = archive == null ? new StartArchive.Plan.Without("class archives are off")
        : archive.plan(WorkerArgs.FAST_START_FLAGS, classpath, System.nanoTime() / 1_000_000);
    if (plan instanceof StartArchive.Plan.Create c) {
      train(c, classpath);
      plan = new StartArchive.Plan.Without("the archive is being written");
    }
    List<String> flags = new ArrayList<>(WorkerArgs.FAST_START_FLAGS);
    flags.addAll(plan.flags());
    List<String> command = args.command(StartArchive.currentJava(), flags, classpath);
    LaunchedWorker w;
    try {
      w = Processes.launch(new LaunchSpec(command, env, dir.path(), dir.stdoutLog(), dir.stderrLog()));
    } catch (IOException | RuntimeException e) {
      return new Launch.Failed("cannot launch the worker of " + key + ": " + e.getMessage());
    }
    if (w.identity().isEmpty()) {
      return new Launch.Failed("the worker of " + key + " (pid " + w.pid() + ") ended at once"
          + dir.lastWords().map(words -> "; its stderr ends: " + words).orElse("; see " + dir.stderrLog()));
    }
    ProcessIdentity id = w.identity().get();
    w.onExit().thenAccept(exit -> exits.accept(exitOf(id, exit)));
    LOG.info("launched {} as pid {}", key, id.pid());
    return new Launch.Started(id, RunToken.hash(token));
  }

  /** Vigil's own classpath, then the entries of this type (and of no other). */
  private String classpathOf(WorkerTypeSpec type) {
    List<String> parts = new ArrayList<>();
    parts.add(runtimeClasspath);
    parts.addAll(type.classpath());
    return String.join(File.pathSeparator, parts);
  }

  private WorkerArgs argsOf(LaunchRequest r) {
    WorkerArgs args;
    if (r.key() instanceof WorkerKey.Task t) {
      args = WorkerArgs.task(home, t.run(), Math.max(1, r.attempt()), r.type().name(), r.type().implementation(),
          r.build());
    } else if (r.key() instanceof WorkerKey.Service s) {
      args = new WorkerArgs(home, DiskRunDirectories.nameOf(s), Optional.empty(), Optional.of(s.service()), 1,
          r.type().name(), r.type().implementation(), r.build(), home.resolve("vigil.sock"), Map.of());
    } else {
      throw new AssertionError(r.key());
    }
    args = args.withOutput(r.output());
    return hostTimeouts.isEmpty() ? args : args.withTimeouts(hostTimeouts);
  }

  private static ProcessExit exitOf(ProcessIdentity id, RunExit exit) {
    if (exit.signal() != null) {
      return ProcessExit.signal(id, exit.signal());
    }
    return ProcessExit.code(id, exit.exitCode() == null ? 1 : exit.exitCode());
  }

  @Override
  public Optional<ProcessIdentity> identity(long pid) {
    return Processes.identityOf(pid);
  }

  /**
   * {@inheritDoc}
   *
   * <p>A worker host killed outright leaves its command running in its group: the worker is alive
   * until the whole group is gone ({@link Processes#groupAlive}), or a retry would run the same paid
   * work twice (C5).
   */
  @Override
  public boolean alive(ProcessIdentity identity) {
    return Processes.groupAlive(identity);
  }

  /** {@inheritDoc} The leader's group while it lives, else each survivor of it by its own identity. */
  @Override
  public boolean signalGroup(ProcessIdentity identity, Signal signal) {
    GroupSignal g = signal == Signal.TERM ? GroupSignal.TERM : GroupSignal.KILL;
    return Processes.signalWhatIsLeft(identity, g);
  }
}
