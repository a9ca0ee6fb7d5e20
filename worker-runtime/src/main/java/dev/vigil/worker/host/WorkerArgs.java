package dev.vigil.worker.host;

import dev.vigil.coordination.RunId;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.WorkerTypeName;
import dev.vigil.supervisor.ByteSizes;
import dev.vigil.supervisor.Durations;
import dev.vigil.supervisor.OutputBound;
import dev.vigil.supervisor.TimeoutLattice;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.engine.WorkerTypeSpec;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The command line of a worker host ({@link WorkerMain}). It carries ids, never secrets: the run
 * token travels in the environment variable {@code VIGIL_RUN_TOKEN} (C9).
 *
 * <pre>
 * WorkerMain --home DIR --run RUN-ID --type NAME --build BUILD
 *            [--class CLASS | --stall-exit-code N]
 *            [--ticket T-ID] [--session NAME] [--attempt N] [--socket PATH]
 *            [--timeout NAME=DURATION]… [--max-output SIZE]
 * </pre>
 *
 * @param home     Vigil's home; the run directory is {@code <home>/runs/<run>}
 * @param run      the run id, also the run directory's name (e.g. {@code t-12.1})
 * @param ticket   the ticket of a task run; derived from {@code run} when it reads as a run id
 * @param session  the session of a service worker: hello names it instead of the run, and the run
 *                 is not work by itself (the type declares its work)
 * @param attempt  which attempt this run is, from 1
 * @param type     the worker type's name, as configured ({@link WorkerTypeName})
 * @param implementation what the host runs: the class a custom type declares ({@code --class}),
 *                 loaded from the host's classpath (Vigil's own plus that type's entries), or the
 *                 built-in command type with the type's stall exit code ({@code --stall-exit-code}; the
 *                 built-in type with the default code when neither is given)
 * @param build    the build of the daemon that launched the worker, sent in hello (S6)
 * @param socket   the daemon's socket, {@code <home>/vigil.sock} by default
 * @param timeouts timeouts that differ from the defaults, by configuration name; with the defaults
 *                 they must pass {@link TimeoutLattice} validation (S2). The host reads
 *                 {@code launchHandoff}, {@code lostExit}, {@code quiesceHold}, {@code busyRefresh},
 *                 {@code workerTeardown} and {@code childDrain}.
 * @param output   how much of the run's stdout and of its stderr the host keeps ({@code --max-output},
 *                 given when it is not the default)
 */
public record WorkerArgs(Path home, String run, Optional<TicketId> ticket, Optional<String> session, int attempt,
    String type, WorkerTypeSpec.Implementation implementation, String build, Path socket, Map<Timeout, Long> timeouts,
    OutputBound output) {
  /** The worker host's main class. */
  public static final String MAIN_CLASS = "dev.vigil.worker.host.WorkerMain";

  /**
   * JVM flags for a small, fast-starting worker host: C1 only, serial GC, the default CDS archive,
   * a small heap and thread stacks, no perf-data file. The class archives are mapped at the address
   * they were written for ({@code ArchiveRelocationMode=0}, the JDK 17 GA default; later 17 updates
   * relocate them to a random address at every start): relocation rewrites every pointer in them,
   * which makes all their pages (about 17 MB with the hosts' own archive) private to each host
   * instead of shared between the hosts that run at once, and costs CPU at every start. The price is
   * that the archived classes sit at a known address in every host (no address randomisation for them).
   *
   * <p>Two flags are for the start's CPU time. A host runs most of its code once, so C1 compiles
   * only what runs ten times as often as by default ({@code CompileThresholdScaling=10}): compiling
   * what runs a few hundred times cost more than interpreting it. The young generation starts at
   * 6 MiB ({@code NewSize}; it may grow as before): a host's start allocates under 3 MiB, which then
   * needs no collection, and touches no more pages than the collection it saves would have.
   */
  public static final List<String> FAST_START_FLAGS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
      "-Xshare:auto", "-XX:+UnlockDiagnosticVMOptions", "-XX:ArchiveRelocationMode=0", "-Xms8m", "-Xmx64m",
      "-XX:NewSize=6m", "-Xss512k", "-XX:ReservedCodeCacheSize=16m", "-XX:-UsePerfData",
      "-XX:CompileThresholdScaling=10");

  public WorkerArgs {
    Objects.requireNonNull(home, "home");
    Objects.requireNonNull(run, "run");
    Objects.requireNonNull(ticket, "ticket");
    Objects.requireNonNull(session, "session");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(implementation, "implementation");
    Objects.requireNonNull(build, "build");
    Objects.requireNonNull(socket, "socket");
    Objects.requireNonNull(timeouts, "timeouts");
    Objects.requireNonNull(output, "output");
    if (attempt < 1) {
      throw new IllegalArgumentException("--attempt (" + attempt + ") must be >= 1");
    }
    try {
      new WorkerTypeName(type);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--type: " + e.getMessage());
    }
    if (build.isBlank()) {
      throw new IllegalArgumentException("--build must not be blank");
    }
    if (session.isPresent() && session.get().isBlank()) {
      throw new IllegalArgumentException("--session must not be blank");
    }
    if (ticket.isEmpty() && session.isEmpty()) {
      ticket = ticketOf(run);
    }
    EnumMap<Timeout, Long> t = new EnumMap<>(Timeout.class);
    t.putAll(timeouts);
    timeouts = Collections.unmodifiableMap(t);
    new TimeoutLattice(timeouts, TimeoutLattice.DEFAULT_RESTART_GIVE_UP_COUNT);
  }

  /** Arguments with the default output bound. */
  public WorkerArgs(Path home, String run, Optional<TicketId> ticket, Optional<String> session, int attempt,
      String type, WorkerTypeSpec.Implementation implementation, String build, Path socket, Map<Timeout, Long> timeouts) {
    this(home, run, ticket, session, attempt, type, implementation, build, socket, timeouts, OutputBound.DEFAULT);
  }

  /** The arguments of a task run of {@code type} with default timeouts. */
  public static WorkerArgs task(Path home, RunId run, int attempt, String type,
      WorkerTypeSpec.Implementation implementation, String build) {
    return new WorkerArgs(home, run.toString(), Optional.of(run.ticket()), Optional.empty(), attempt, type,
        implementation, build, home.resolve("vigil.sock"), Map.of());
  }

  /** These arguments with one timeout changed. */
  public WorkerArgs withTimeout(Timeout timeout, long ms) {
    return withTimeouts(Map.of(timeout, ms));
  }

  /** These arguments with some timeouts changed at once (each step of a chain must be valid on its own). */
  public WorkerArgs withTimeouts(Map<Timeout, Long> changed) {
    Map<Timeout, Long> t = new EnumMap<>(Timeout.class);
    t.putAll(timeouts);
    t.putAll(changed);
    return new WorkerArgs(home, run, ticket, session, attempt, type, implementation, build, socket, t, output);
  }

  /** These arguments with another output bound. */
  public WorkerArgs withOutput(OutputBound bound) {
    return new WorkerArgs(home, run, ticket, session, attempt, type, implementation, build, socket, timeouts, bound);
  }

  /** These arguments for a session's worker. */
  public WorkerArgs withSession(String name) {
    return new WorkerArgs(home, run, Optional.empty(), Optional.of(name), attempt, type, implementation, build, socket,
        timeouts, output);
  }

  /** The validated timeouts: the defaults with {@link #timeouts()} over them. */
  public TimeoutLattice lattice() {
    return new TimeoutLattice(timeouts, TimeoutLattice.DEFAULT_RESTART_GIVE_UP_COUNT);
  }

  /** The arguments after the main class. */
  public List<String> toArgv() {
    List<String> a = new ArrayList<>(List.of("--home", home.toString(), "--run", run, "--type", type, "--build", build,
        "--attempt", Integer.toString(attempt), "--socket", socket.toString()));
    if (implementation instanceof WorkerTypeSpec.Declared d) {
      a.addAll(List.of("--class", d.className()));
    } else if (implementation instanceof WorkerTypeSpec.Command c) {
      a.addAll(List.of("--stall-exit-code", Integer.toString(c.stallExitCode())));
    } else {
      throw new AssertionError(implementation);
    }
    ticket.ifPresent(t -> a.addAll(List.of("--ticket", t.toString())));
    session.ifPresent(s -> a.addAll(List.of("--session", s)));
    timeouts.forEach((k, v) -> a.addAll(List.of("--timeout", k.configName() + "=" + Durations.format(v))));
    if (!output.equals(OutputBound.DEFAULT)) {
      a.addAll(List.of("--max-output", ByteSizes.format(output.maxBytes())));
    }
    return a;
  }

  /**
   * The whole command line of a worker host: {@code java <jvmFlags> -cp <classpath> WorkerMain <args>}.
   *
   * @param java      the java launcher, e.g. {@code <java.home>/bin/java}
   * @param jvmFlags  e.g. {@link #FAST_START_FLAGS}
   * @param classpath Vigil's own classpath plus this worker's type's entries (never another type's);
   *                  relative entries are made absolute here, since the worker runs in its run directory
   */
  public List<String> command(Path java, List<String> jvmFlags, String classpath) {
    List<String> c = new ArrayList<>();
    c.add(java.toString());
    c.addAll(jvmFlags);
    c.add("-cp");
    c.add(absoluteClasspath(classpath));
    c.add(MAIN_CLASS);
    c.addAll(toArgv());
    return c;
  }

  /** {@code classpath} with every entry made absolute and empty entries dropped, as {@link #command} passes it. */
  public static String absoluteClasspath(String classpath) {
    List<String> entries = new ArrayList<>();
    for (String e : classpath.split(File.pathSeparator)) {
      if (!e.isEmpty()) {
        entries.add(Path.of(e).toAbsolutePath().toString());
      }
    }
    return String.join(File.pathSeparator, entries);
  }

  /**
   * Reads a command line.
   *
   * @throws IllegalArgumentException with a one-line message naming the bad argument
   */
  public static WorkerArgs parse(String[] argv) {
    Path home = null;
    String run = null;
    String type = null;
    String className = null;
    Integer stallExitCode = null;
    String build = null;
    Path socket = null;
    Optional<TicketId> ticket = Optional.empty();
    Optional<String> session = Optional.empty();
    int attempt = 1;
    Map<Timeout, Long> timeouts = new EnumMap<>(Timeout.class);
    OutputBound output = OutputBound.DEFAULT;
    for (int i = 0; i < argv.length; i += 2) {
      String flag = argv[i];
      if (i + 1 >= argv.length) {
        throw new IllegalArgumentException(flag + " needs a value");
      }
      String value = argv[i + 1];
      switch (flag) {
        case "--home" -> home = Path.of(value);
        case "--run" -> run = value;
        case "--type" -> type = value;
        case "--class" -> className = value;
        case "--stall-exit-code" -> stallExitCode = parseInt(flag, value);
        case "--build" -> build = value;
        case "--socket" -> socket = Path.of(value);
        case "--ticket" -> ticket = Optional.of(TicketId.parse(value));
        case "--session" -> session = Optional.of(value);
        case "--attempt" -> attempt = parseInt(flag, value);
        case "--timeout" -> {
          int eq = value.indexOf('=');
          String name = eq < 0 ? value : value.substring(0, eq);
          Timeout t = Timeout.byConfigName(name)
              .orElseThrow(() -> new IllegalArgumentException("--timeout: no timeout is called '" + name + "'"));
          if (eq < 0) {
            throw new IllegalArgumentException("--timeout " + name + " needs =DURATION, e.g. " + name + "=30s");
          }
          timeouts.put(t, Durations.parse(value.substring(eq + 1)));
        }
        case "--max-output" -> {
          try {
            output = new OutputBound(ByteSizes.parse(value));
          } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--max-output: " + e.getMessage());
          }
        }
        default -> throw new IllegalArgumentException("unknown argument " + flag);
      }
    }
    require(home, "--home");
    require(run, "--run");
    require(type, "--type");
    require(build, "--build");
    if (className != null && stallExitCode != null) {
      throw new IllegalArgumentException("--class and --stall-exit-code exclude each other (the first is for a custom type, "
          + "the second for the built-in command type)");
    }
    WorkerTypeSpec.Implementation implementation;
    try {
      implementation = className != null ? new WorkerTypeSpec.Declared(className)
          : stallExitCode != null ? new WorkerTypeSpec.Command(stallExitCode) : WorkerTypeSpec.Command.DEFAULT;
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException((className != null ? "--class: " : "--stall-exit-code: ") + e.getMessage());
    }
    return new WorkerArgs(home, run, ticket, session, attempt, type, implementation, build,
        socket != null ? socket : home.resolve("vigil.sock"), timeouts, output);
  }

  private static void require(Object value, String flag) {
    if (value == null) {
      throw new IllegalArgumentException(flag + " is required");
    }
  }

  private static int parseInt(String flag, String value) {
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(flag + " '" + value + "' must be a whole number");
    }
  }

  private static Optional<TicketId> ticketOf(String run) {
    try {
      return Optional.of(RunId.parse(run).ticket());
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
