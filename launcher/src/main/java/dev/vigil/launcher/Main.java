package dev.vigil.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.launcher.internal.BuildInfo;
import dev.vigil.launcher.internal.Client;
import dev.vigil.launcher.internal.CommandFile;
import dev.vigil.launcher.internal.ConfigException;
import dev.vigil.launcher.internal.ConfigLoader;
import dev.vigil.launcher.internal.DaemonWait;
import dev.vigil.launcher.internal.Daemon;
import dev.vigil.launcher.internal.Demo;
import dev.vigil.launcher.internal.Home;
import dev.vigil.launcher.internal.LogFollow;
import dev.vigil.launcher.internal.LogTail;
import dev.vigil.launcher.internal.Pages;
import dev.vigil.launcher.internal.StatusFile;
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
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ScopeType;

/**
 * The {@code vigil} command line (DESIGN.md §8). Exit codes: 0 ok, 1 failed, 2 bad usage or input
 * (one line naming what was wrong), 3 refused (busy, denied), 4 no daemon.
 */
@Command(name = "vigil", mixinStandardHelpOptions = true, versionProvider = Main.VersionProvider.class, subcommands = {
    CommandLine.HelpCommand.class,
    Main.DaemonCmd.class, Main.UpCmd.class, Main.DownCmd.class, Main.SubmitCmd.class, Main.StatusCmd.class,
    Main.TasksCmd.class, Main.RunsCmd.class, Main.ShowCmd.class, Main.WaitCmd.class, Main.ParkCmd.class,
    Main.UnparkCmd.class, Main.HoldCmd.class, Main.ReleaseCmd.class, Main.CancelCmd.class, Main.LogsCmd.class,
    Main.VersionCmd.class, Main.DemoCmd.class, Main.ServicesCmd.class, Main.WatchCmd.class, Main.RunCmd.class,
    Main.PauseCmd.class, Main.ResumeCmd.class, KillCmd.class, RetryCmd.class, EventsCmd.class},
    description = "Vigil: a crash-legible process supervisor.")
public final class Main implements Runnable {
  @Option(names = "--home", scope = ScopeType.INHERIT, paramLabel = "DIR",
      description = "Vigil's home (default $VIGIL_HOME, else ~/.vigil)")
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
    throw new CommandLine.ParameterException(new CommandLine(this), "a subcommand is required (try: vigil demo)");
  }

  /** Runs the CLI and exits with its code. */
  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs the CLI and returns its exit code. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    CommandLine cl = new CommandLine(new Main());
    cl.setOut(new java.io.PrintWriter(out, true));
    cl.setErr(new java.io.PrintWriter(err, true));
    cl.setParameterExceptionHandler((ex, a) -> {
      err.println("vigil: " + Wire.oneLine(ex.getMessage()));
      return 2;
    });
    cl.setExecutionExceptionHandler((ex, c, parsed) -> {
      if (ex instanceof Client.Failure f) {
        err.println("vigil: " + f.getMessage());
        return f.exitCode();
      } else if (ex instanceof ConfigException || ex instanceof IllegalArgumentException) {
        err.println("vigil: " + Wire.oneLine(ex.getMessage()));
        return 2;
      }
      err.println("vigil: " + Wire.oneLine(String.valueOf(ex)));
      return 1;
    });
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

  /** A whole list ({@code list} or {@code runs}), read page by page. */
  static ArrayNode list(Home home, String op, ObjectNode args, String field) {
    try (Client c = connect(home, false)) {
      ArrayNode out = JsonNodeFactory.instance.arrayNode();
      Pages.all(c, op, args, field).forEach(out::add);
      return out;
    }
  }

  /** A connection to the daemon of {@code home}, waiting for one that is starting as {@code --wait-daemon} says. */
  static Client connect(Home home, boolean interactive) {
    return Client.connect(home, interactive, waitDaemonMs());
  }

  /**
   * An object of counts as compact JSON ({@code {"READY":2,...}}), as {@code JsonNode.toString()}
   * writes it but without building Jackson's ObjectMapper, which a short call would pay for.
   */
  static String compactCounts(JsonNode counts) {
    if (!counts.isObject()) {
      return counts.toString();
    }
    StringBuilder b = new StringBuilder("{");
    counts.fields().forEachRemaining(e -> {
      if (!e.getValue().isIntegralNumber() || !e.getKey().matches("[A-Za-z_]+")) {
        throw new IllegalStateException("not a count: " + e.getKey());
      }
      b.append(b.length() > 1 ? "," : "").append('"').append(e.getKey()).append("\":").append(e.getValue().asLong());
    });
    return b.append('}').toString();
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

  @Command(name = "daemon", description = "Run the daemon in the foreground; SIGINT/SIGTERM leave workers running (D4).")
  static final class DaemonCmd extends Sub {
    @Option(names = "--config", paramLabel = "FILE")
    Path config;

    @Override
    public Integer call() {
      if (System.getProperty("vigil.log.level") == null) {
        System.setProperty("vigil.log.level", "INFO");
      }
      VigilConfig c = Main.config(config);
      Daemon d;
      try {
        d = Daemon.start(home(), c);
      } catch (Daemon.Refused e) {
        System.err.println("vigil: " + e.getMessage());
        return e.exitCode();
      }
      Runtime.getRuntime().addShutdownHook(new Thread(d::close, "vigil-shutdown"));
      d.done().join();
      return 0;
    }
  }

  @Command(name = "up", description = "Start a detached daemon (a singleton); prints its pid.")
  static final class UpCmd extends Sub {
    @Option(names = "--config", paramLabel = "FILE")
    Path config;

    @Override
    public Integer call() {
      Daemon.checkWorkerTypes(Main.config(config)); // before an older daemon is replaced: nothing changes
      long pid = Up.up(home(), config == null ? null : config.toAbsolutePath());
      out().println("pid " + pid);
      return 0;
    }
  }

  @Command(name = "down", description = "Stop the daemon: only if idle (default, S5), or --stop-workers.")
  static final class DownCmd extends Sub {
    @Option(names = "--if-idle", description = "stop only if every worker quiesces (the default)")
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

  @Command(name = "submit", description = {"Queue a task; prints only its ticket id. The command runs where you "
      + "stand (or --cwd DIR) with your environment (or only PATH, HOME, LANG and USER with --clean-env), plus each "
      + "--env NAME=VALUE; the daemon keeps their values to itself and shows only the variables' names.",
      "With --file, queue one task per line of a file, all or none, and print one ticket id per line, in order."})
  static final class SubmitCmd extends Sub {
    @Option(names = "--lane")
    String lane;

    @Option(names = "--max-attempts")
    Integer maxAttempts;

    @Option(names = "--priority")
    Integer priority;

    @Option(names = "--type")
    String type;

    @Option(names = "--payload", paramLabel = "JSON")
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

    @Option(names = "--key", description = "idempotency key")
    String key;

    @Option(names = "--cwd", paramLabel = "DIR", description = "the directory the command runs in (default: this one)")
    String cwd;

    @Option(names = "--env", paramLabel = "NAME=VALUE", description = "set a variable for the command (repeatable)")
    List<String> env = new ArrayList<>();

    @Option(names = "--clean-env", description = "start from PATH, HOME, LANG and USER only, not your whole environment")
    boolean cleanEnv;

    @Option(names = "--timeout", paramLabel = "DURATION",
        description = "stop a run that takes longer (TERM, then KILL); it counts as a failed attempt")
    String timeout;

    @Option(names = "--label", paramLabel = "NAME=VALUE", description = "a label to find it by (repeatable)")
    List<String> labels = new ArrayList<>();

    @Option(names = "--file", paramLabel = "FILE", description = "queue one task per line of FILE (- reads standard "
        + "input). Each line is split into words as a shell would, with quotes and backslashes, but nothing is "
        + "expanded (no variables, wildcards or ~; write sh -c '...' for those, and for pipes and redirections). "
        + "Blank lines and # comments are skipped. Every other option applies to each line; with --key K, line N gets "
        + "the key K:N, so the same file can be submitted again safely. A line that cannot be split queues nothing.")
    String file;

    @Parameters(paramLabel = "CMD", arity = "0..*")
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
      return a;
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
      for (CommandFile.Line line : lines) {
        ObjectNode t = ticketFor(line.argv());
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

  @Command(name = "status", description = "The daemon's status.")
  static final class StatusCmd extends Sub {
    @Option(names = "--json")
    boolean json;

    @Override
    public Integer call() {
      JsonNode s = Main.call(home(), "status", args()).path("status");
      if (json) {
        out().println(pretty(s));
        return 0;
      }
      out().println("daemon pid " + s.path("pid").asLong() + ", " + s.path("state").asText() + ", version "
          + s.path("version").asText() + " (build " + s.path("build").asText() + ")");
      for (JsonNode l : s.path("lanes")) {
        out().println("lane " + l.path("lane").asText() + ": " + l.path("occupied").asInt() + "/"
            + l.path("concurrency").asInt() + " running, " + l.path("ready").asInt() + " ready"
            + (l.path("parked").asBoolean() ? ", parked" : ""));
      }
      for (JsonNode r : s.path("runs")) {
        out().println("run " + r.path("run").asText() + " " + r.path("state").asText() + " pid "
            + r.path("pid").asText("-") + " (" + r.path("supervision").asText() + ")");
      }
      for (JsonNode v : s.path("services")) {
        out().println("service " + v.path("name").asText() + " " + v.path("state").asText());
      }
      out().println("tickets " + compactCounts(s.path("tickets")));
      return 0;
    }
  }

  @Command(name = "tasks", description = "Tickets, in id order.")
  static final class TasksCmd extends Sub {
    @Option(names = "--state")
    String state;

    @Option(names = "--lane")
    String lane;

    @Option(names = "--label", paramLabel = "NAME=VALUE", description = "only tickets with this label (repeatable: all)")
    List<String> labels = new ArrayList<>();

    @Option(names = "--json")
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

  @Command(name = "runs", description = "Runs, in id order.")
  static final class RunsCmd extends Sub {
    @Option(names = "--live")
    boolean live;

    @Option(names = "--json")
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

  @Command(name = "show", description = "One ticket with its runs.")
  static final class ShowCmd extends Sub {
    @Parameters(paramLabel = "TICKET")
    String ticket;

    @Option(names = "--json")
    boolean json;

    @Override
    public Integer call() {
      ObjectNode a = args();
      a.put("ticket", ticket);
      JsonNode t = Main.call(home(), "show", a).path("ticket");
      if (json) {
        out().println(pretty(t));
        return 0;
      }
      Views.ticketDetail(t).forEach(out()::println);
      return 0;
    }
  }

  @Command(name = "wait", description = "Wait for a ticket to settle: 0 SUCCEEDED, 1 another end (or HELD), 3 timeout.")
  static final class WaitCmd extends Sub {
    @Parameters(paramLabel = "TICKET")
    String ticket;

    @Option(names = "--timeout", paramLabel = "DURATION")
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
    @Parameters(paramLabel = "TICKET", arity = "0..1")
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
    @Option(names = "--lane")
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

  @Command(name = "park", description = "Park a ticket or a lane (Q9): never claimed until unparked.")
  static final class ParkCmd extends LaneVerb {
    @Override
    String op() {
      return "park";
    }
  }

  @Command(name = "unpark", description = "Unpark a ticket or a lane.")
  static final class UnparkCmd extends LaneVerb {
    @Override
    String op() {
      return "unpark";
    }
  }

  @Command(name = "hold", description = "Hold a READY ticket (a running one: vigil kill TICKET --hold).")
  static final class HoldCmd extends TicketVerb {
    @Option(names = "--reason")
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

  @Command(name = "release", description = "Release a HELD ticket so that it runs again; when it has no attempt "
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

  @Command(name = "cancel", description = "Cancel a READY or HELD ticket (a running one: vigil kill TICKET).")
  static final class CancelCmd extends TicketVerb {
    @Override
    String op() {
      return "cancel";
    }
  }

  @Command(name = "logs", description = {"A run's stdout and stderr, or those of a ticket's latest run.",
    "With --follow: waits for the run to start if it has not, copies its output as it is written, and when the run "
        + "ends prints how it ended on stderr (like: t-3.1 FAILED: exit code 2); exit 0 when it succeeded, 1 "
        + "otherwise. A ticket is followed through its retries until it finishes or is held."})
  static final class LogsCmd extends Sub {
    @Parameters(paramLabel = "RUN|TICKET")
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

  @Command(name = "run", description = "Start a READY ticket now, by hand, and follow its output (Q8): exit 0 when it "
      + "succeeds, 1 for another end. Ctrl-C detaches; the run goes on under the daemon.")
  static final class RunCmd extends Sub {
    @Parameters(paramLabel = "TICKET")
    String ticket;

    @Override
    public Integer call() throws Exception {
      ObjectNode a = args();
      a.put("ticket", ticket);
      JsonNode started = Main.call(home(), "run", a);
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

  @Command(name = "pause", description = "Stop dispatching new work now (not durable: a restarted daemon dispatches); "
      + "running workers are untouched.")
  static final class PauseCmd extends Sub {
    @Override
    public Integer call() {
      out().println(Main.call(home(), "pause", args()).path("message").asText());
      return 0;
    }
  }

  @Command(name = "resume", description = "Dispatch again after a pause.")
  static final class ResumeCmd extends Sub {
    @Override
    public Integer call() {
      out().println(Main.call(home(), "resume", args()).path("message").asText());
      return 0;
    }
  }

  @Command(name = "version", description = "This vigil's version, build and protocol.")
  static final class VersionCmd extends Sub {
    @Override
    public Integer call() {
      out().println("vigil " + BuildInfo.VERSION + " (build " + BuildInfo.BUILD + ", protocol " + BuildInfo.PROTOCOL + ")");
      return 0;
    }
  }

  @Command(name = "demo", description = "A guided run in a fresh temporary home, with a daemon killed mid-work.")
  static final class DemoCmd extends Sub {
    @Override
    public Integer call() throws Exception {
      return Demo.run(System.out);
    }
  }

  @Command(name = "services", description = "Services and their restart budgets (S1); `services start|stop NAME` "
      + "starts one (with a fresh restart budget) or stops one and leaves it down.")
  static final class ServicesCmd extends Sub {
    @Option(names = "--json")
    boolean json;

    @Parameters(index = "0", arity = "0..1", paramLabel = "start|stop")
    String action;

    @Parameters(index = "1", arity = "0..1", paramLabel = "NAME")
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

  @Command(name = "watch", description = "A live view, refreshed every second; relaunches a lost daemon of its own build (S9).")
  static final class WatchCmd extends Sub {
    @Option(names = "--once", description = "print one frame and exit")
    boolean once;

    @Override
    public Integer call() throws InterruptedException {
      Home h = home();
      if (once) {
        try (Client c = Main.connect(h, false)) {
          out().print(frame(h, c));
        }
        return 0;
      }
      new dev.vigil.launcher.internal.Watch(h, c -> frame(h, c), out()).run();
      return 0;
    }

    /** One frame: the daemon, its lanes, running work, services and the latest settlements. */
    static String frame(Home h, Client c) {
      StringBuilder b = new StringBuilder();
      JsonNode s = Client.ok(c.call("status", args())).path("status");
      long now = System.currentTimeMillis();
      b.append("vigil ").append(h.dir()).append(" - daemon pid ").append(s.path("pid").asLong()).append(", ")
          .append(s.path("state").asText()).append(", version ").append(s.path("version").asText()).append('\n');
      for (JsonNode l : s.path("lanes")) {
        b.append(String.format("lane %-12s %d/%d running, %d ready%s%n", l.path("lane").asText(),
            l.path("occupied").asInt(), l.path("concurrency").asInt(), l.path("ready").asInt(),
            l.path("parked").asBoolean() ? ", parked" : ""));
      }
      b.append("running work:\n");
      for (JsonNode r : s.path("runs")) {
        long since = r.hasNonNull("startedAtWallMs") ? r.path("startedAtWallMs").asLong() : r.path("claimedAtWallMs").asLong();
        b.append(String.format("  %-10s %-8s pid %-7s %-9s %s%n", r.path("run").asText(), r.path("state").asText(),
            r.hasNonNull("pid") ? r.path("pid").asText() : "-", r.path("supervision").asText(),
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
      b.append("tickets ").append(s.path("tickets")).append('\n');
      return b.toString();
    }
  }

  /** {@code vigil --version}. */
  static final class VersionProvider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"vigil " + BuildInfo.VERSION + " (build " + BuildInfo.BUILD + ", protocol " + BuildInfo.PROTOCOL + ")"};
    }
  }
}
