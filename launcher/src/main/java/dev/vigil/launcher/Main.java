package dev.vigil.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.launcher.internal.BuildInfo;
import dev.vigil.launcher.internal.Client;
import dev.vigil.launcher.internal.MaintenanceJobs;
import dev.vigil.launcher.internal.CommandFile;
import dev.vigil.launcher.internal.ConfigException;
import dev.vigil.launcher.internal.ConfigLoader;
import dev.vigil.launcher.internal.DaemonWait;
import dev.vigil.launcher.internal.Daemon;
import dev.vigil.launcher.internal.DaemonArchive;
import dev.vigil.launcher.internal.Demo;
import dev.vigil.launcher.internal.Home;
import dev.vigil.launcher.internal.LogFollow;
import dev.vigil.launcher.internal.LogTail;
import dev.vigil.launcher.internal.Pages;
import dev.vigil.launcher.internal.StatusFile;
import dev.vigil.launcher.internal.StoreReading;
import dev.vigil.launcher.internal.SubmitBatches;
import dev.vigil.launcher.internal.Up;
import dev.vigil.launcher.internal.VigilConfig;
import dev.vigil.launcher.internal.When;
import dev.vigil.launcher.internal.Wire;
import dev.vigil.supervisor.Durations;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ScopeType;

/**
 * The {@code vigil} command line (DESIGN.md §8). Exit codes: 0 ok, 1 failed, 2 bad usage or input
 * (one line naming what was wrong), 3 refused (busy, denied), 4 no daemon, 5 the daemon's store is
 * unavailable (its work runs on; nothing new starts).
 */
@Command(name = "vigil", mixinStandardHelpOptions = true, versionProvider = Main.VersionProvider.class,
    description = "Vigil: a crash-legible process supervisor. It runs queued tasks and long-lived services as "
        + "worker processes, keeps who owns what in a database in its home, and survives its own crash or upgrade "
        + "without starting work twice or losing an outcome.",
    footer = {"", "Exit codes: 0 ok, 1 failed, 2 bad usage or input (nothing changed), 3 refused (busy or denied), "
        + "4 no daemon, 5 the store is unavailable (running work continues).", "Start here: vigil demo. Every command takes --help."})
public final class Main implements Runnable {
  /**
   * Every command, in the order {@code vigil --help} lists them. A call builds the command model of the one
   * it names only (see {@link #commandLine}).
   */
  static final List<Class<?>> COMMANDS = List.of(CommandLine.HelpCommand.class,
      DaemonCmd.class, UpCmd.class, DownCmd.class, SubmitCmd.class, StatusCmd.class,
      TasksCmd.class, RunsCmd.class, ShowCmd.class, WaitCmd.class, ParkCmd.class,
      UnparkCmd.class, HoldCmd.class, ReleaseCmd.class, CancelCmd.class, LogsCmd.class,
      VersionCmd.class, DemoCmd.class, ServicesCmd.class, WatchCmd.class, RunCmd.class,
      PauseCmd.class, ResumeCmd.class, RestartCmd.class, KillCmd.class, RetryCmd.class, EventsCmd.class,
      AttachCmd.class, ScheduleCmd.class, PruneCmd.class, StoreCmd.class, CompletionCmd.class,
      QuestionsCmd.ListCmd.class, QuestionsCmd.AnswerCmd.class, HostsCmd.ListCmd.class, HostsCmd.ReleaseCmd.class);

  @Option(names = "--home", scope = ScopeType.INHERIT, paramLabel = "DIR",
      description = "Vigil's home: the directory of its database, socket, logs and run "
          + "directories (default: $VIGIL_HOME, else ~/.vigil)")
  Path homeOption;

  @Option(names = "--wait-daemon", scope = ScopeType.INHERIT, paramLabel = "DURATION",
      converter = WaitDaemon.class,
      description = "how long a command waits for a daemon that is starting or restarting before it gives up "
          + "(default 10s; 0 not to wait; like 500ms, 30s, 2m). Where clearly no daemon runs, it does not wait.")
  Long waitDaemonMs;

  /** This run's {@code --wait-daemon}, ms, for every connection the command makes (set for the run's duration). */
  private static final ThreadLocal<Long> WAIT_DAEMON_MS = ThreadLocal.withInitial(() -> DaemonWait.DEFAULT_MS);

  /** {@code --wait-daemon}'s value: a duration, one line naming the option when it is not. */
  static final class WaitDaemon implements CommandLine.ITypeConverter<Long> {
    @Override
    public Long convert(String text) {
      try {
        return Durations.parse(text.equals("0") ? "0ms" : text);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException("'" + text + "' is not a duration (like 0, 500ms, 10s, 2m)");
      }
    }
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(commandLine(), "a command is required (see vigil --help; "
        + "to begin: vigil demo)");
  }

  /** Runs the CLI and exits with its code. */
  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs the CLI and returns its exit code. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    Optional<? extends Sub> quick = quickStatus(args).map(Sub.class::cast).or(() -> quickDaemon(args));
    if (quick.isPresent()) {
      WAIT_DAEMON_MS.set(quick.get().root.waitDaemonMs == null ? DaemonWait.DEFAULT_MS : quick.get().root.waitDaemonMs);
      try {
        return quick.get().call();
      } catch (Exception e) {
        return failed(e, err);
      } finally {
        WAIT_DAEMON_MS.remove();
      }
    }
    CommandLine cl = commandLine(args);
    cl.setOut(new java.io.PrintWriter(out, true));
    cl.setErr(new java.io.PrintWriter(err, true));
    cl.setParameterExceptionHandler((ex, a) -> {
      err.println("vigil: " + usageError(ex));
      return 2;
    });
    cl.setExecutionExceptionHandler((ex, c, parsed) -> failed(ex, err));
    CommandLine.IExecutionStrategy runLast = new CommandLine.RunLast();
    cl.setExecutionStrategy(parsed -> {
      Main root = parsed.commandSpec().commandLine().getCommand();
      WAIT_DAEMON_MS.set(root.waitDaemonMs == null ? DaemonWait.DEFAULT_MS : root.waitDaemonMs);
      try {
        return runLast.execute(parsed);
      } finally {
        WAIT_DAEMON_MS.remove();
      }
    });
    return cl.execute(args);
  }

  /** The whole command model: every command, as {@code vigil --help} and the shell completion show them. */
  static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new Main());
    COMMANDS.forEach(cl::addSubcommand);
    return cl;
  }

  /**
   * The command model {@code args} need: the root with the one command they name, when they name one
   * after the root's options as {@link #quickRoot} reads them (other than {@code help} and {@code completion},
   * which look at every command);
   * else the whole model, so that picocli says what is wrong as it always does. Building the model of one
   * command instead of all of them takes about 0.4 CPU-s off a call (docs/PERFORMANCE.md).
   */
  static CommandLine commandLine(String[] args) {
    String word = quickRoot(args).map(QuickRoot::next).filter(i -> i < args.length).map(i -> args[i]).orElse("help");
    if (word.equals("help") || word.equals("completion")) {
      return commandLine();
    }
    for (Class<?> c : COMMANDS) {
      Command named = c.getAnnotation(Command.class);
      if (named.name().equals(word) || List.of(named.aliases()).contains(word)) {
        CommandLine cl = new CommandLine(new Main());
        cl.addSubcommand(c);
        return cl;
      }
    }
    return commandLine();
  }

  /** A command that failed: its one line on {@code err}, and its exit code. */
  private static int failed(Exception ex, PrintStream err) {
    if (ex instanceof Client.Failure f) {
      err.println("vigil: " + f.getMessage());
      return f.exitCode();
    } else if (ex instanceof ConfigException || ex instanceof IllegalArgumentException) {
      err.println("vigil: " + Wire.oneLine(ex.getMessage()));
      return 2;
    }
    err.println("vigil: " + Wire.oneLine(String.valueOf(ex)));
    return 1;
  }

  /**
   * {@code vigil [--home DIR] [--wait-daemon D] status [--json]}, the most frequent call, without
   * building the command model: picocli's classes target Java 5, so no class archive holds them and
   * every call loads and verifies them afresh (docs/PERFORMANCE.md). Any other form, a bad value
   * included, is left to picocli, which says what is wrong.
   */
  static Optional<StatusCmd> quickStatus(String[] args) {
    Optional<QuickRoot> q = quickRoot(args);
    if (q.isEmpty()) {
      return Optional.empty();
    }
    int i = q.get().next();
    if (i >= args.length || !args[i].equals("status") || args.length - i > 2
        || (args.length - i == 2 && !args[i + 1].equals("--json"))) {
      return Optional.empty();
    }
    StatusCmd c = new StatusCmd();
    c.root = q.get().root();
    c.json = args.length - i == 2;
    return Optional.of(c);
  }

  /**
   * {@code vigil [--home DIR] [--wait-daemon D] daemon [--config FILE] [--paused]}, the form {@code vigil up}
   * starts the daemon with, without building the command model: it is most of what a daemon does before it
   * opens its store (docs/PERFORMANCE.md, B4). As {@link #quickStatus}, any other form is left to picocli.
   */
  static Optional<DaemonCmd> quickDaemon(String[] args) {
    Optional<QuickRoot> q = quickRoot(args);
    if (q.isEmpty()) {
      return Optional.empty();
    }
    int i = q.get().next();
    if (i >= args.length || !args[i].equals("daemon")) {
      return Optional.empty();
    }
    DaemonCmd c = new DaemonCmd();
    c.root = q.get().root();
    for (i++; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--paused") && !c.paused) {
        c.paused = true;
      } else if (a.startsWith("--config=") && c.config == null && a.length() > "--config=".length()) {
        c.config = Path.of(a.substring("--config=".length()));
      } else if (a.equals("--config") && c.config == null && i + 1 < args.length && !args[i + 1].isEmpty()
          && !args[i + 1].startsWith("-")) {
        c.config = Path.of(args[++i]);
      } else {
        return Optional.empty();
      }
    }
    return Optional.of(c);
  }

  /** The root options before the command, and where the command begins. */
  private record QuickRoot(Main root, int next) {}

  /** {@code [--home DIR] [--wait-daemon D]}, each once, with a value picocli would take the same way; else empty. */
  private static Optional<QuickRoot> quickRoot(String[] args) {
    Main root = new Main();
    int i = 0;
    while (i < args.length && args[i].startsWith("--")) {
      String a = args[i];
      String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
      String value;
      if (a.contains("=")) {
        value = a.substring(a.indexOf('=') + 1);
        i++;
      } else if (i + 1 < args.length) {
        value = args[i + 1];
        i += 2;
      } else {
        return Optional.empty();
      }
      if (name.equals("--home") && root.homeOption == null && !value.isEmpty()) {
        root.homeOption = Path.of(value);
      } else if (name.equals("--wait-daemon") && root.waitDaemonMs == null) {
        try {
          root.waitDaemonMs = Durations.parse(value.equals("0") ? "0ms" : value);
        } catch (IllegalArgumentException e) {
          return Optional.empty();
        }
      } else {
        return Optional.empty();
      }
    }
    return Optional.of(new QuickRoot(root, i));
  }

  /**
   * The one line for a usage error: an unknown command is named as such (with where to look), an
   * unknown option names the command it was given to.
   */
  static String usageError(CommandLine.ParameterException ex) {
    if (ex instanceof CommandLine.UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
      String first = u.getUnmatched().get(0);
      CommandLine at = u.getCommandLine();
      boolean root = at.getCommand() instanceof Main;
      if (root && !first.startsWith("-")) {
        return "unknown command '" + first + "' (see vigil --help)";
      }
      String cmd = at.getCommandSpec().qualifiedName();
      if (first.startsWith("-")) {
        return "unknown option '" + first + "' for " + cmd + " (see " + cmd + " --help)";
      }
      return "unexpected argument '" + first + "' for " + cmd + " (see " + cmd + " --help)";
    }
    String cmd = ex.getCommandLine() == null ? "vigil" : ex.getCommandLine().getCommandSpec().qualifiedName();
    return Wire.oneLine(ex.getMessage()) + (ex instanceof CommandLine.MissingParameterException
        || ex instanceof CommandLine.OverwrittenOptionException ? " (see " + cmd + " --help)" : "");
  }

  /** How long this run's connections wait for a daemon that is starting ({@code --wait-daemon}), ms. */
  static long waitDaemonMs() {
    return WAIT_DAEMON_MS.get();
  }

  static Home home(Main root) {
    return Home.resolve(root.homeOption, System.getenv(), System.getProperty("user.home"));
  }

  /** A command's arguments; a plain node, so that a short call never builds Jackson's ObjectMapper (Wire.JSON). */
  static ObjectNode args() {
    return JsonNodeFactory.instance.objectNode();
  }

  static long duration(String option, String text) {
    try {
      return Durations.parse(text);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(option + " '" + text + "' is not a duration (like 250ms, 30s, 5m, 1h)");
    }
  }

  static ObjectNode call(Home home, String op, ObjectNode args) {
    try (Client c = connect(home, false)) {
      return Client.ok(c.call(op, args));
    }
  }

  /**
   * A view's reply ({@code show}): from the daemon, or, when none runs, read from the store with each
   * live run's watch ({@link StoreReading}). Loops that wait for a daemon's progress use {@link #call}.
   */
  static ObjectNode view(Home home, String op, ObjectNode args) {
    return Client.ok(daemonOrStore(home, () -> {
      try (Client c = connect(home, false)) {
        return c.call(op, args);
      }
    }, r -> r.call(op, args)));
  }

  /**
   * {@code daemon}'s answer; when no daemon answers (exit 4, after the wait {@code --wait-daemon}
   * allows for one that is starting), {@code store}'s reading of its store instead, said on stderr
   * ({@link StoreReading}); when the store cannot be read either (a daemon holds it but does not
   * answer, there is none yet), the failure stands.
   */
  static <T> T daemonOrStore(Home home, java.util.function.Supplier<T> daemon,
      java.util.function.Function<StoreReading.Reader, T> store) {
    try {
      return daemon.get();
    } catch (Client.Failure f) {
      if (f.exitCode() != Client.NO_DAEMON) {
        throw f;
      }
      Optional<T> read = StoreReading.withoutDaemon(home, store);
      if (read.isEmpty()) {
        throw f;
      }
      System.err.println("vigil: " + f.getMessage() + "; this was read from its store (vigil up starts the daemon)");
      return read.get();
    }
  }

  /** A whole list ({@code list} or {@code runs}), read page by page; from the store when no daemon runs. */
  static ArrayNode list(Home home, String op, ObjectNode args, String field) {
    return daemonOrStore(home, () -> {
      try (Client c = connect(home, false)) {
        ArrayNode out = JsonNodeFactory.instance.arrayNode();
        Pages.all(c, op, args, field).forEach(out::add);
        return out;
      }
    }, r -> {
      ArrayNode out = JsonNodeFactory.instance.arrayNode();
      Pages.all(a -> r.call(op, a), op, args, field).forEach(out::add);
      return out;
    });
  }

  /** A connection to the daemon of {@code home}, waiting for one that is starting as {@code --wait-daemon} says. */
  static Client connect(Home home, boolean interactive) {
    return Client.connect(home, interactive, waitDaemonMs());
  }

  static String pretty(JsonNode n) {
    try {
      return Wire.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(n);
    } catch (IOException e) {
      return n.toString();
    }
  }

  static VigilConfig config(Path file) {
    return file == null ? VigilConfig.defaults() : ConfigLoader.load(file);
  }

  /** The description of {@code --config}, shared by {@code up} and {@code daemon}. */
  static final String CONFIG_HELP = "the daemon's JSON configuration file: lanes, attempts, worker types, "
      + "services, timeouts (default: one lane 'default' running 2 at once, 3 attempts, the command type; see "
      + "docs/CONFIG.md)";

  /** What the views say of reading the store while no daemon runs. */
  static final String READ_WITHOUT_DAEMON = "When no daemon answers, it reads the daemon's store (only reads it) and "
      + "says so on stderr; a run that no daemon has watched for stalledRunning (1m; docs/CONFIG.md) is called stalled.";

  /** The description of {@code --json}. */
  static final String JSON_HELP = "print JSON instead of text (its fields: docs/CLI.md)";

  /** The commands that need the root's home. */
  abstract static class Sub implements Callable<Integer> {
    @CommandLine.ParentCommand
    Main root;

    Home home() {
      return Main.home(root);
    }

    PrintStream out() {
      return System.out;
    }
  }

  @Command(name = "daemon", mixinStandardHelpOptions = true, description = "Run the daemon in the foreground. "
      + "Ctrl-C or SIGTERM stop the daemon only: the workers keep running, and the next daemon takes them over.")
  static final class DaemonCmd extends Sub {
    @Option(names = "--config", paramLabel = "FILE", description = CONFIG_HELP)
    Path config;

    @Option(names = "--paused", description = "start paused: nothing is dispatched until vigil resume")
    boolean paused;

    @Override
    public Integer call() {
      if (System.getProperty("vigil.log.level") == null) {
        System.setProperty("vigil.log.level", "INFO");
      }
      VigilConfig c = Main.config(config);
      Daemon d;
      try {
        d = Daemon.start(home(), c, Daemon.Changes.NONE, java.util.function.UnaryOperator.identity(), paused);
      } catch (Daemon.Refused e) {
        System.err.println("vigil: " + e.getMessage());
        return e.exitCode();
      }
      Runtime.getRuntime().addShutdownHook(new Thread(d::close, "vigil-shutdown"));
      if (System.getProperty(DaemonArchive.TRAINING) != null) { // the daemon that writes the class archive
        DaemonArchive.exercise(home());
        d.close();
        d.done().join();
        DaemonArchive.discard(home());
      } else {
        DaemonArchive.prepare(home());
      }
      d.done().join();
      return 0;
    }
  }

  @Command(name = "up", mixinStandardHelpOptions = true, description = {"Start the daemon in the background and "
      + "print its pid (pid N). One daemon serves a home: when one already runs, up prints its pid and changes "
      + "nothing.", "An older idle daemon is replaced by this version; a busy one is left alone (exit 3).", "A daemon that holds "
      + "the home but does not answer (stopped or frozen) is named with when it last answered, and no second one is "
      + "started (exit 3)."},
      footer = {"", "Examples:", "  vigil up", "  vigil up --config ~/vigil.json"})
  static final class UpCmd extends Sub {
    @Option(names = "--config", paramLabel = "FILE", description = CONFIG_HELP)
    Path config;

    @Override
    public Integer call() {
      try { // before an older daemon is replaced: nothing changes
        Daemon.checkWorkerTypes(Main.config(config), Daemon.hostClasspath());
      } catch (Daemon.Refused e) {
        throw new Client.Failure(e.exitCode(), e.getMessage());
      }
      long pid = Up.up(home(), config == null ? null : config.toAbsolutePath());
      out().println("pid " + pid);
      return 0;
    }
  }

  @Command(name = "down", mixinStandardHelpOptions = true, description = "Stop the daemon. By default only when no worker is busy (exit 3 otherwise); with "
      + "--stop-workers, stop every worker gracefully first.")
  static final class DownCmd extends Sub {
    @Option(names = "--if-idle", description = "stop only when every worker is idle; when one is in the middle of work, nothing "
        + "is stopped and down exits 3 (the default)")
    boolean ifIdle;

    @Option(names = "--stop-workers", description = "stop every worker gracefully, then the daemon")
    boolean stopWorkers;

    @Override
    public Integer call() {
      if (ifIdle && stopWorkers) {
        throw new IllegalArgumentException("--if-idle and --stop-workers exclude each other");
      }
      Home h = home();
      long pid = new StatusFile(h.statusFile()).read().map(s -> s.pid()).orElse(-1L);
      try (Client c = Main.connect(h, true)) {
        ObjectNode r = Client.ok(c.shutdown(!stopWorkers));
        out().println(r.path("message").asText("shutting down"));
      }
      Up.waitGone(h, pid);
      return 0;
    }
  }

  @Command(name = "submit", mixinStandardHelpOptions = true, description = {"Queue a task; prints only its ticket id. The command runs where you "
      + "stand (or --cwd DIR) with your environment (or only PATH, HOME, LANG and USER with --clean-env), plus each "
      + "--env NAME=VALUE; the daemon keeps their values to itself and shows only the variables' names.",
      "With --file, queue one task per line of a file, all or none, and print one ticket id per line, in order.",
      "With --after, it starts only once each task named has succeeded; if one of them fails, is held or is "
          + "cancelled, this one is held too, and it goes on by itself when that one is released or retried."},
      footer = {"", "Examples:", "  vigil submit -- make test", "  vigil submit --lane batch --max-attempts 5 "
          + "--timeout 30m -- ./nightly.sh --full", "  t=$(vigil submit -- sleep 5) && vigil wait $t",
          "  b=$(vigil submit -- make build) && vigil submit --after $b -- make test"})
  static final class SubmitCmd extends Sub {
    @Option(names = "--lane", paramLabel = "LANE", description = "the lane it waits in; a lane runs a configured "
        + "number of tasks at once and must be in the daemon's configuration (default: default)")
    String lane;

    @Option(names = "--max-attempts", paramLabel = "N", description = "how many times it may be started before it "
        + "is held for you to look at: a failed run is retried after a pause while attempts are left (1 to "
        + dev.vigil.coordination.NewTicket.MAX_ATTEMPTS + "; default: the configuration's maxAttempts, 3 unless set)")
    Integer maxAttempts;

    @Option(names = "--priority", paramLabel = "N", description = "a higher number is started first among the "
        + "tasks of its lane that are due (default: 0)")
    Integer priority;

    @Option(names = "--type", paramLabel = "TYPE", description = "the worker type that runs it, one of the "
        + "configuration's workerTypes (default: command, which runs the command after --)")
    String type;

    @Option(names = "--payload", paramLabel = "JSON", description = "a JSON object handed to the worker type; "
        + "for the command type the command after -- is added to it as argv (default: {})")
    String payload;

    @Option(names = "--at", paramLabel = "TIME", description = "when to run it, by the local clock: HH:MM for the "
        + "next time the clock shows it (today, or tomorrow if that has passed), or a date and time like "
        + "2025-06-01T09:30, with an offset or zone if wanted (2025-06-01T09:30Z); a date and time that has passed is "
        + "refused (default: now; not with --in)")
    String at;

    @Option(names = "--in", paramLabel = "DURATION", description = "run it this long from now: a duration like 90s, "
        + "30m or 2h30m (default: now; not with --at)")
    String in;

    @Option(names = "--not-before", paramLabel = "DURATION", description = "the older name of --in")
    String notBefore;

    @Option(names = "--key", paramLabel = "KEY", description = "a name for this submission: submitting the same key "
        + "again queues nothing and prints the ticket queued the first time (default: none)")
    String key;

    @Option(names = "--cwd", paramLabel = "DIR", description = "the directory the command runs in (default: the current directory)")
    String cwd;

    @Option(names = "--env", paramLabel = "NAME=VALUE", description = "set a variable for the command (repeatable)")
    List<String> env = new ArrayList<>();

    @Option(names = "--clean-env", description = "start from PATH, HOME, LANG and USER only, not your whole environment")
    boolean cleanEnv;

    @Option(names = "--timeout", paramLabel = "DURATION",
        description = "a time limit per run, like 90s, 30m or 2h: a run that takes longer is "
            + "stopped (TERM, then KILL) and counts as a failed attempt (default: its lane's limit, if any)")
    String timeout;

    @Option(names = "--label", paramLabel = "NAME=VALUE", description = "a label to find it by (repeatable)")
    List<String> labels = new ArrayList<>();

    @Option(names = "--file", paramLabel = "FILE", description = "queue one task per line of FILE (- reads standard "
        + "input). Each line is split into words as a shell would, with quotes and backslashes, but nothing is "
        + "expanded (no variables, wildcards or ~; write sh -c '...' for those, and for pipes and redirections). "
        + "Blank lines and # comments are skipped. Every other option applies to each line; with --key K, line N gets "
        + "the key K:N, so the same file can be submitted again safely. A line may begin with --after=N to wait for "
        + "the task of line N of the same file (an earlier line), or --after=TICKET. A line that cannot be split "
        + "queues nothing.")
    String file;

    @Option(names = "--after", paramLabel = "TICKET", description = "start it only once this task has succeeded "
        + "(repeatable: all of them); if that task fails, is held or is cancelled, this one is held until it is "
        + "released or retried (default: none)")
    List<String> after = new ArrayList<>();

    @Parameters(paramLabel = "CMD", arity = "0..*", description = "the command and its arguments, after -- "
        + "(nothing is expanded: write sh -c '...' for a shell line)")
    List<String> command = new ArrayList<>();

    /** When the task becomes due ({@code --at}, {@code --in}), wall-clock ms, or null for now. */
    private Long dueAtMs;

    @Override
    public Integer call() {
      dueAtMs = When.dueAtMs(at, in, notBefore, ZonedDateTime.now()).orElse(null);
      if (file != null) {
        if (!command.isEmpty()) {
          throw new IllegalArgumentException("--file and a command after -- exclude each other: give one");
        }
        return submitFile();
      }
      ObjectNode a = ticketFor(command);
      if (command.isEmpty() && payload == null) {
        throw new IllegalArgumentException("submit needs a command after -- or a --payload");
      }
      ObjectNode r = Main.call(home(), "submit", a);
      out().println(r.path("ticket").path("id").asText());
      return 0;
    }

    /**
     * The one place that turns this command's options plus one command line into a submission (the
     * wire form of one ticket: see {@code Wire.submission}), for a single command and for every line
     * of {@code --file} alike. Every option is checked here, before anything is sent, so a bad value
     * changes nothing.
     *
     * @param argv the command and its arguments; empty only with {@code --payload}
     * @throws IllegalArgumentException one line naming the option that is wrong
     */
    ObjectNode ticketFor(List<String> argv) {
      ObjectNode a = args();
      ObjectNode p;
      if (payload != null) {
        try {
          JsonNode n = Wire.JSON.readTree(payload);
          if (n == null || !n.isObject()) {
            throw new IllegalArgumentException("--payload must be a JSON object");
          }
          p = (ObjectNode) n;
        } catch (IOException e) {
          throw new IllegalArgumentException("--payload is not JSON: " + Wire.oneLine(e.getMessage()));
        }
      } else {
        p = args();
      }
      if (!argv.isEmpty()) {
        ArrayNode words = p.putArray("argv");
        argv.forEach(words::add);
      }
      a.set("payload", p);
      if (lane != null) {
        a.put("lane", lane);
      }
      if (type != null) {
        a.put("type", type);
      }
      if (maxAttempts != null) {
        a.put("maxAttempts", maxAttempts);
      }
      if (priority != null) {
        a.put("priority", priority);
      }
      if (dueAtMs != null) {
        a.put("notBeforeMs", dueAtMs);
      }
      if (key != null) {
        a.put("key", key);
      }
      TaskOptions.place(a, cwd, env, cleanEnv, System.getenv(), Path.of(System.getProperty("user.dir")));
      if (timeout != null) {
        a.put("timeoutMs", TaskOptions.timeout("--timeout", timeout));
      }
      TaskOptions.labels(a.putObject("labels"), labels, "--label");
      if (!after.isEmpty()) {
        ArrayNode ids = a.putArray("after");
        after.forEach(t -> ids.add(afterTicket("--after", t)));
      }
      return a;
    }

    /** A ticket id to wait for, checked: {@code t-12}, or refused naming {@code option}. */
    static String afterTicket(String option, String text) {
      try {
        return dev.vigil.coordination.TicketId.parse(text).toString();
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(option + " '" + text + "': not a ticket id (like t-12)");
      }
    }

    /** {@code --file}: every line checked before anything is sent; then one round trip per frame-sized batch. */
    private int submitFile() {
      List<CommandFile.Line> lines = CommandFile.read(file, System.in);
      String name = file.equals(CommandFile.STDIN) ? "- (standard input)" : file;
      if (lines.isEmpty()) {
        System.err.println("vigil: --file " + name + ": no commands (only blank lines and comments); nothing was queued");
        return 0;
      }
      List<ObjectNode> tickets = new ArrayList<>(lines.size());
      java.util.Set<Integer> earlier = new java.util.HashSet<>();
      for (CommandFile.Line whole : lines) {
        CommandFile.Line line = CommandFile.withoutAfter(name, whole);
        ObjectNode t = ticketFor(line.argv());
        CommandFile.after(name, whole, earlier, t);
        earlier.add(whole.number());
        if (key != null) {
          String k = key + ":" + line.number();
          if (k.length() > SubmitBatches.MAX_KEY) {
            throw new IllegalArgumentException("--key '" + key + "' is too long for a file of commands: line "
                + line.number() + " gets the key '" + k + "', and a key is at most " + SubmitBatches.MAX_KEY
                + " characters");
          }
          t.put("key", k);
        }
        tickets.add(t);
      }
      List<SubmitBatches.Batch> batches = SubmitBatches.plan(name, lines, tickets);
      try (Client c = Main.connect(home(), false)) {
        SubmitBatches.send(c, name, batches, out());
      }
      return 0;
    }
  }

  @Command(name = "status", mixinStandardHelpOptions = true, description = {"The daemon: its pid and version, "
      + "each lane's running and waiting tasks, running work, services, how many tasks are in each state, and each "
      + "schedule's next fire and last task.",
      "When no daemon answers: says so (exit 4) and what its store says: how many tasks are in each state and the "
      + "runs that had not ended, each called stalled once no daemon has watched it for stalledRunning (1m; "
      + "docs/CONFIG.md). Its store is only read. --json needs a daemon."})
  static final class StatusCmd extends Sub {
    @Option(names = "--json", description = JSON_HELP)
    boolean json;

    @Override
    public Integer call() {
      if (json) {
        return fromTheDaemon();
      }
      return daemonOrStore(home(), this::fromTheDaemon, r -> { // no daemon: what its store says, exit 4
        Views.storeStatus(home().dir(), r.counts(), r.liveRuns(), System.currentTimeMillis()).forEach(out()::println);
        return Client.NO_DAEMON;
      });
    }

    private int fromTheDaemon() {
      ObjectNode reply;
      ObjectNode schedules;
      ObjectNode maintenance = null;
      try (Client c = connect(home(), false)) {
        reply = c.call("status", args());
        schedules = Views.unavailable(reply) ? null : c.call("schedule-list", args());
        if (schedules != null && !Views.unavailable(schedules) && c.capabilities().capabilities().contains(MaintenanceJobs.CAPABILITY)) {
          maintenance = c.call("maintenance", args());
        }
      }
      if (Views.unavailable(schedules == null ? reply : schedules)
          || maintenance != null && Views.unavailable(maintenance)) { // the daemon runs but decides nothing (the
        // store may fail between the calls): say since when and why
        ObjectNode outage = Views.unavailable(reply) ? reply : Views.unavailable(schedules) ? schedules : maintenance;
        out().println(json ? pretty(outage) : Views.outage(outage, System.currentTimeMillis()));
        return Client.exitCodeOf(outage);
      }
      JsonNode s = Client.ok(reply).path("status");
      JsonNode all = Client.ok(schedules).path("schedules");
      JsonNode each = Views.userSchedules(all);
      ObjectNode jobs = Views.maintenance(maintenance == null ? null : Client.ok(maintenance).path("maintenance"), all);
      if (json) {
        ((ObjectNode) s).set("schedules", each);
        ((ObjectNode) s).set("maintenance", jobs);
        out().println(pretty(s));
        return 0;
      }
      long now = System.currentTimeMillis();
      Views.status(s, now).forEach(out()::println);
      if (!each.isEmpty()) {
        out().println("Schedules (" + each.size() + "):");
        each.forEach(one -> out().println("  " + Views.scheduleLine(one, now)));
      }
      Views.maintenanceLines(jobs, now).forEach(out()::println);
      return 0;
    }
  }

  @Command(name = "tasks", mixinStandardHelpOptions = true, description = {"Tasks (tickets), one a line in id "
      + "order: id, state, lane, attempts, command, labels.", READ_WITHOUT_DAEMON})
  static final class TasksCmd extends Sub {
    @Option(names = "--state", paramLabel = "STATE", description = "only tickets in this state: READY, LEASED "
        + "(running), SUCCEEDED, FAILED, HELD or CANCELLED (default: all)")
    String state;

    @Option(names = "--lane", paramLabel = "LANE", description = "only tickets of this lane (default: all)")
    String lane;

    @Option(names = "--label", paramLabel = "NAME=VALUE", description = "only tickets with this label (repeatable: all)")
    List<String> labels = new ArrayList<>();

    @Option(names = "--json", description = JSON_HELP)
    boolean json;

    @Override
    public Integer call() {
      ObjectNode a = args();
      if (state != null) {
        a.put("state", state);
      }
      if (lane != null) {
        a.put("lane", lane);
      }
      if (!labels.isEmpty()) {
        TaskOptions.labels(a.putObject("labels"), labels, "--label");
      }
      JsonNode ts = Main.list(home(), "list", a, "tickets");
      if (json) {
        out().println(pretty(ts));
        return 0;
      }
      for (JsonNode t : ts) {
        out().println(ticketLine(t));
      }
      return 0;
    }
  }

  static String ticketLine(JsonNode t) {
    return Views.ticketLine(t);
  }

  @Command(name = "runs", mixinStandardHelpOptions = true, description = {"Runs (each start of a ticket is a run, "
      + "like t-12.1), one a line in id order: attempt, state, verdict, pid, exit and why it ended.", READ_WITHOUT_DAEMON})
  static final class RunsCmd extends Sub {
    @Option(names = "--live", description = "only runs that have not ended")
    boolean live;

    @Option(names = "--json", description = JSON_HELP)
    boolean json;

    @Override
    public Integer call() {
      ObjectNode a = args();
      a.put("live", live);
      JsonNode rs = Main.list(home(), "runs", a, "runs");
      if (json) {
        out().println(pretty(rs));
        return 0;
      }
      for (JsonNode r : rs) {
        out().println(runLine(r));
      }
      return 0;
    }
  }

  /** A run in one line: its verdict, its command's own exit and the settlement's diagnosis. */
  static String runLine(JsonNode r) {
    return Views.runLine(r);
  }

  @Command(name = "show", mixinStandardHelpOptions = true, description = {"One ticket in detail: its command, "
      + "directory, environment (names only), time limit, labels and every run, with the result its worker "
      + "returned (cut to a line here; --json shows it whole).", READ_WITHOUT_DAEMON})
  static final class ShowCmd extends Sub {
    @Parameters(paramLabel = "TICKET", description = "a ticket id, like t-12")
    String ticket;

    @Option(names = "--json", description = JSON_HELP)
    boolean json;

    @Override
    public Integer call() {
      ObjectNode a = args();
      a.put("ticket", ticket);
      JsonNode t = Main.view(home(), "show", a).path("ticket");
      if (json) {
        out().println(pretty(t));
        return 0;
      }
      Views.ticketDetail(t).forEach(out()::println);
      return 0;
    }
  }

  @Command(name = "wait", mixinStandardHelpOptions = true, description = "Wait until a ticket has finished and "
      + "print how: exit 0 when it SUCCEEDED, 1 when it FAILED, was CANCELLED or is HELD (out of attempts, waiting for "
      + "you), 3 when --timeout passed first.", footer = {"", "Examples:", "  vigil wait t-12",
          "  vigil wait t-12 --timeout 10m || vigil logs t-12"})
  static final class WaitCmd extends Sub {
    @Parameters(paramLabel = "TICKET", description = "a ticket id, like t-12")
    String ticket;

    @Option(names = "--timeout", paramLabel = "DURATION", description = "give up after this long, like 30s or 10m "
        + "(default: wait as long as it takes)")
    String timeout;

    @Override
    public Integer call() throws InterruptedException {
      long limit = timeout == null ? Long.MAX_VALUE : duration("--timeout", timeout);
      long deadline = System.nanoTime() / 1_000_000 + Math.min(limit, Long.MAX_VALUE / 4);
      ObjectNode a = args();
      a.put("ticket", ticket);
      while (true) {
        JsonNode t = Main.call(home(), "show", a).path("ticket");
        String state = t.path("state").asText();
        if (state.equals("SUCCEEDED")) {
          out().println(ticket + " SUCCEEDED");
          return 0;
        }
        if (state.equals("FAILED") || state.equals("CANCELLED") || state.equals("HELD")) {
          out().println(ticket + " " + state + (t.hasNonNull("holdReason") ? " (" + t.path("holdReason").asText() + ")" : ""));
          return 1;
        }
        if (System.nanoTime() / 1_000_000 >= deadline) {
          System.err.println("vigil: timeout: " + ticket + " is still " + state);
          return 3;
        }
        Thread.sleep(250);
      }
    }
  }

  abstract static class TicketVerb extends Sub {
    @Parameters(paramLabel = "TICKET", arity = "0..1", description = "a ticket id, like t-12")
    String ticket;

    abstract String op();

    ObjectNode verbArgs() {
      if (ticket == null) {
        throw new IllegalArgumentException(op() + " needs a TICKET");
      }
      ObjectNode a = args();
      a.put("ticket", ticket);
      return a;
    }

    @Override
    public Integer call() {
      ObjectNode r = Main.call(home(), op(), verbArgs());
      out().println(r.path("message").asText(r.path("kind").asText()));
      return 0;
    }
  }

  abstract static class LaneVerb extends TicketVerb {
    @Option(names = "--lane", paramLabel = "LANE", description = "a whole lane instead of one ticket")
    String lane;

    @Override
    ObjectNode verbArgs() {
      if (lane != null && ticket != null) {
        throw new IllegalArgumentException(op() + " takes a TICKET or --lane, not both");
      }
      if (lane != null) {
        ObjectNode a = args();
        a.put("lane", lane);
        return a;
      }
      return super.verbArgs();
    }
  }

  @Command(name = "park", mixinStandardHelpOptions = true, description = "Park a ticket or a whole lane: it is not started until you "
      + "unpark it, even across restarts. Work of it that is running is stopped where its worker can stop safely "
      + "and runs again once unparked.")
  static final class ParkCmd extends LaneVerb {
    @Override
    String op() {
      return "park";
    }
  }

  @Command(name = "unpark", mixinStandardHelpOptions = true, description = "Unpark a ticket or a lane: it may be started again.")
  static final class UnparkCmd extends LaneVerb {
    @Override
    String op() {
      return "unpark";
    }
  }

  @Command(name = "hold", mixinStandardHelpOptions = true, description = "Hold a waiting (READY) ticket: it is not started until you "
      + "release it. For a running one: vigil kill TICKET --hold.")
  static final class HoldCmd extends TicketVerb {
    @Option(names = "--reason", paramLabel = "TEXT", description = "why, shown with the ticket (default: held by an "
        + "operator)")
    String reason;

    @Override
    String op() {
      return "hold";
    }

    @Override
    ObjectNode verbArgs() {
      ObjectNode a = super.verbArgs();
      if (reason != null) {
        a.put("reason", reason);
      }
      return a;
    }
  }

  @Command(name = "release", mixinStandardHelpOptions = true, description = "Release a HELD ticket so that it runs again; when it has no attempt "
      + "left it gets one more (or --attempts N more).")
  static final class ReleaseCmd extends TicketVerb {
    @Option(names = "--attempts", paramLabel = "N", description = "attempts to grant it on top of those it had")
    String attempts;

    @Override
    String op() {
      return "release";
    }

    @Override
    ObjectNode verbArgs() {
      ObjectNode a = super.verbArgs();
      if (attempts != null) {
        int n;
        try {
          n = Integer.parseInt(attempts);
        } catch (NumberFormatException e) {
          n = 0;
        }
        if (n < 1 || n > dev.vigil.coordination.NewTicket.MAX_ATTEMPTS) {
          throw new IllegalArgumentException("--attempts '" + attempts + "': a whole number from 1 to "
              + dev.vigil.coordination.NewTicket.MAX_ATTEMPTS);
        }
        a.put("attempts", n);
      }
      return a;
    }
  }

  @Command(name = "cancel", mixinStandardHelpOptions = true, description = "Cancel a READY or HELD ticket (a running one: vigil kill TICKET).")
  static final class CancelCmd extends TicketVerb {
    @Override
    String op() {
      return "cancel";
    }
  }

  @Command(name = "logs", mixinStandardHelpOptions = true, footer = {"", "Examples:", "  vigil logs t-12",
      "  vigil logs t-12.2", "  vigil logs t-12 --follow"}, description = {"A run's stdout and stderr, or those of a ticket's latest run. A run keeps at most its lane's "
        + "maxOutput of each (64MiB unless configured): beyond it, the first and the last part are kept, a line in the "
        + "output says how many bytes were dropped between them, and logs says so on stderr.",
    "With --follow: waits for the run to start if it has not, copies its output as it is written, and when the run "
        + "ends prints how it ended on stderr (like: t-3.1 FAILED: exit code 2); exit 0 when it succeeded, 1 "
        + "otherwise. A ticket is followed through its retries until it finishes or is held."})
  static final class LogsCmd extends Sub {
    @Parameters(paramLabel = "RUN|TICKET", description = "a run (like t-12.2), a ticket (like t-12: its latest run) "
        + "or a service (like s-indexer)")
    String run;

    @Option(names = "--follow", description = "keep copying the output until the run ends (a ticket: until it "
        + "finishes or is held); a service's output is followed until Ctrl-C")
    boolean follow;

    @Override
    public Integer call() throws Exception {
      if (!run.matches("t-[0-9]+(\\.[0-9]+)?|s-[a-z0-9_-]+")) {
        throw new IllegalArgumentException("'" + run + "' is not a run or ticket id (like t-12.1 or t-12)");
      }
      try {
        return new LogFollow(home(), LogFollow.over(home(), waitDaemonMs()), System.out, System.err).run(run, follow);
      } catch (Client.Failure f) {
        if (follow && f.exitCode() == 4) {
          throw new Client.Failure(4, f.getMessage() + "; the work goes on: vigil logs " + run + " --follow to follow "
              + "it again");
        }
        throw f;
      }
    }
  }

  @Command(name = "run", mixinStandardHelpOptions = true, description = "Start a waiting (READY) ticket now, by hand, ahead of the queue and "
      + "during a pause (it still needs a free place in its lane), and follow its output: exit 0 when it succeeds, 1 for another end. Ctrl-C "
      + "stops following; the run goes on under the daemon.", footer = {"", "Examples:", "  vigil run t-12",
          "  vigil run --resume t-12"})
  static final class RunCmd extends Sub {
    @Parameters(paramLabel = "TICKET", description = "a ticket id, like t-12")
    String ticket;

    @Option(names = "--resume", description = "start it only if it would pick up where an earlier attempt left off "
        + "(its worker type is resumable and an earlier attempt saved a checkpoint); otherwise say why and exit 3, "
        + "starting nothing")
    boolean resume;

    @Override
    public Integer call() throws Exception {
      ObjectNode a = args();
      a.put("ticket", ticket);
      ObjectNode start = a.deepCopy();
      if (resume) {
        start.put("resume", true);
      }
      JsonNode started = Main.call(home(), "run", start);
      String run = started.path("run").path("id").asText();
      System.err.println("vigil: " + started.path("message").asText() + "; its output follows (Ctrl-C detaches, the run "
          + "goes on)");
      LogTail tail = new LogTail(home().runs().resolve(run));
      while (true) {
        tail.copyNew(System.out, System.err);
        JsonNode t = Main.call(home(), "show", a).path("ticket");
        for (JsonNode r : t.path("runs")) {
          if (r.path("id").asText().equals(run) && r.path("state").asText().equals("SETTLED")) {
            tail.copyNew(System.out, System.err);
            String verdict = r.path("verdict").asText();
            System.err.println("vigil: " + runLine(r).replaceAll(" +", " ") + "; ticket " + ticketLine(t).replaceAll(" +", " ")
                + (t.path("state").asText().equals("HELD") ? "; vigil release " + t.path("id").asText() + " to let it run again"
                    : ""));
            return verdict.equals("SUCCEEDED") ? 0 : 1;
          }
        }
        Thread.sleep(250);
      }
    }
  }

  @Command(name = "pause", mixinStandardHelpOptions = true, description = "Stop dispatching new work now (not durable: a restarted daemon dispatches); "
      + "running workers are untouched.")
  static final class PauseCmd extends Sub {
    @Override
    public Integer call() {
      out().println(Main.call(home(), "pause", args()).path("message").asText());
      return 0;
    }
  }

  @Command(name = "resume", mixinStandardHelpOptions = true, description = "Dispatch again after a pause.")
  static final class ResumeCmd extends Sub {
    @Override
    public Integer call() {
      out().println(Main.call(home(), "resume", args()).path("message").asText());
      return 0;
    }
  }

  @Command(name = "version", mixinStandardHelpOptions = true, description = "This vigil's version, build and protocol.")
  static final class VersionCmd extends Sub {
    @Override
    public Integer call() {
      out().println("vigil " + BuildInfo.VERSION + " (build " + BuildInfo.BUILD + ", protocol " + BuildInfo.PROTOCOL + ")");
      return 0;
    }
  }

  @Command(name = "demo", mixinStandardHelpOptions = true, description = "A guided tour (about 30 seconds) in a fresh temporary home: "
      + "tasks run, the daemon is killed in the middle, a new one takes over the running work, and nothing runs twice.")
  static final class DemoCmd extends Sub {
    @Override
    public Integer call() throws Exception {
      return Demo.run(System.out);
    }
  }

  @Command(name = "services", mixinStandardHelpOptions = true, description = "Services (long-lived workers from the configuration) and how "
      + "often each failed lately; a service that fails too often is given up on. services start NAME starts one "
      + "(and forgets its failures); services stop NAME stops one and leaves it down.")
  static final class ServicesCmd extends Sub {
    @Option(names = "--json", description = JSON_HELP)
    boolean json;

    @Parameters(index = "0", arity = "0..1", paramLabel = "start|stop", description = "start or stop the service NAME "
        + "(default: list the services)")
    String action;

    @Parameters(index = "1", arity = "0..1", paramLabel = "NAME", description = "a service's name")
    String name;

    @Override
    public Integer call() {
      if (action != null) {
        if (!action.equals("start") && !action.equals("stop")) {
          throw new IllegalArgumentException("services: '" + action + "' is not start or stop");
        }
        if (name == null) {
          throw new IllegalArgumentException("services " + action + " needs a service NAME");
        }
        ObjectNode a = args();
        a.put("service", name);
        out().println(Main.call(home(), action + "-service", a).path("message").asText());
        return 0;
      }
      JsonNode sv = Main.call(home(), "status", args()).path("status").path("services");
      if (json) {
        out().println(pretty(sv));
        return 0;
      }
      if (sv.isEmpty()) {
        out().println("no services configured");
      }
      for (JsonNode v : sv) {
        out().println(serviceLine(v));
      }
      return 0;
    }
  }

  static String serviceLine(JsonNode v) {
    return String.format("%-16s %-9s %-10s pid %-7s failures %d%s%s", v.path("name").asText(), v.path("activation").asText(),
        v.path("state").asText(), v.hasNonNull("pid") ? v.path("pid").asText() : "-", v.path("failuresInWindow").asInt(),
        v.hasNonNull("restartInMs") ? ", restart in " + Durations.format(v.path("restartInMs").asLong()) : "",
        v.hasNonNull("note") ? " (" + v.path("note").asText() + ")" : "");
  }

  @Command(name = "watch", mixinStandardHelpOptions = true, description = {"A live view, refreshed every second. When the daemon goes "
      + "away it starts it again if the daemon was this same build; another build's daemon is left for you to start "
      + "(vigil up).", "While no daemon runs, it shows what the store says, as status does: the tasks in each state and "
      + "the runs that had not ended, each called stalled once no daemon has watched it for stalledRunning (1m). "
      + "--once without a daemon exits 4."})
  static final class WatchCmd extends Sub {
    @Option(names = "--once", description = "print one view and exit")
    boolean once;

    @Override
    public Integer call() throws InterruptedException {
      Home h = home();
      if (once) {
        return daemonOrStore(h, () -> {
          try (Client c = Main.connect(h, false)) {
            out().print(frame(h, c));
          }
          return 0;
        }, r -> { // no daemon: what its store says, exit 4
          out().print(storeFrame(h, r));
          return Client.NO_DAEMON;
        });
      }
      new dev.vigil.launcher.internal.Watch(h, c -> frame(h, c),
          home -> StoreReading.withoutDaemon(home, r -> storeFrame(home, r)), out()).run();
      return 0;
    }

    /** What the store says while no daemon runs: the tasks in each state, the runs not ended and which are stalled. */
    static String storeFrame(Home h, StoreReading.Reader r) {
      StringBuilder b = new StringBuilder();
      Views.storeStatus(h.dir(), r.counts(), r.liveRuns(), System.currentTimeMillis())
          .forEach(line -> b.append(line).append('\n'));
      return b.toString();
    }

    /** One frame: the daemon, its lanes, running work, services and the latest settlements. */
    static String frame(Home h, Client c) {
      StringBuilder b = new StringBuilder();
      ObjectNode reply = c.call("status", args());
      long now = System.currentTimeMillis();
      if (Views.unavailable(reply)) {
        return "vigil " + h.dir() + " - daemon pid " + c.capabilities().pid() + "\n" + Views.outage(reply, now) + "\n";
      }
      JsonNode s = Client.ok(reply).path("status");
      b.append("vigil ").append(h.dir()).append(" - daemon pid ").append(s.path("pid").asLong()).append(", ")
          .append(Views.daemonState(s.path("state").asText())).append(", version ").append(s.path("version").asText())
          .append('\n');
      for (JsonNode l : s.path("lanes")) {
        b.append(String.format("lane %-12s %d of %d running, %d waiting%s%s%n", l.path("lane").asText(),
            l.path("occupied").asInt(), l.path("concurrency").asInt(), l.path("ready").asInt(),
            l.path("parkedTickets").asInt() > 0 ? ", " + l.path("parkedTickets").asInt() + " parked" : "",
            l.path("parked").asBoolean() ? " (lane parked)" : ""));
      }
      b.append("running work:\n");
      for (JsonNode r : s.path("runs")) {
        long since = r.hasNonNull("startedAtWallMs") ? r.path("startedAtWallMs").asLong() : r.path("claimedAtWallMs").asLong();
        b.append(String.format("  %-10s pid %-7s %-14s %s%n", r.path("run").asText(),
            r.hasNonNull("pid") ? r.path("pid").asText() : "-", Views.supervision(r.path("supervision").asText()),
            Durations.format(Math.max(0, now - since) / 1000 * 1000)));
      }
      if (!s.path("services").isEmpty()) {
        b.append("services:\n");
        s.path("services").forEach(v -> b.append("  ").append(serviceLine(v)).append('\n'));
      }
      b.append("recent settlements:\n");
      JsonNode recent = s.path("recentSettlements");
      for (int i = Math.max(0, recent.size() - 5); i < recent.size(); i++) {
        JsonNode r = recent.get(i);
        JsonNode x = r.path("exit");
        String exit = x.hasNonNull("exitCode") ? "exit " + x.path("exitCode").asText()
            : x.hasNonNull("signal") ? "signal " + x.path("signal").asText() : "-";
        b.append(String.format("  %-10s %-17s %-10s %s -> ticket %s%n", r.path("run").asText(), r.path("verdict").asText(),
            exit, r.path("diagnosis").asText("-"), r.path("ticketState").asText()));
      }
      List<String> lines = Views.status(s, now);
      b.append(lines.stream().filter(l -> l.startsWith("Tasks: ")).findFirst().orElse("")).append('\n');
      return b.toString();
    }
  }

  @Command(name = "completion", mixinStandardHelpOptions = true, description = {"Print a shell completion script "
      + "for vigil's commands and options.", "bash: add  source <(vigil completion bash)  to ~/.bashrc. zsh: add  "
      + "source <(vigil completion zsh)  to ~/.zshrc; it loads bash completions through zsh's bashcompinit."})
  static final class CompletionCmd extends Sub {
    @Parameters(paramLabel = "SHELL", description = "bash or zsh")
    String shell;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      if (!shell.equals("bash") && !shell.equals("zsh")) {
        throw new IllegalArgumentException("completion: '" + shell + "' is not a shell vigil completes (bash or zsh)");
      }
      String script = completionScript(spec.root().commandLine());
      java.io.PrintWriter w = spec.commandLine().getOut();
      if (shell.equals("zsh")) {
        w.println("autoload -U +X compinit && compinit");
        w.println("autoload -U +X bashcompinit && bashcompinit");
      }
      w.print(script);
      w.flush();
      return 0;
    }
  }

  /** The bash completion script of the whole command tree under {@code root}. */
  static String completionScript(CommandLine root) {
    return picocli.AutoComplete.bash("vigil", root);
  }

  /** {@code vigil --version}. */
  static final class VersionProvider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"vigil " + BuildInfo.VERSION + " (build " + BuildInfo.BUILD + ", protocol " + BuildInfo.PROTOCOL + ")"};
    }
  }
}
