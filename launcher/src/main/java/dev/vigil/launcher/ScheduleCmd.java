package dev.vigil.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code vigil schedule add|list|pause|resume|rm}: recurring schedules (Q15). Each fire of a schedule
 * starts one task (a ticket keyed {@code schedule:NAME:FIRE_TIME}, labelled {@code schedule=NAME} and
 * {@code fire=FIRE_TIME}); the daemon keeps the schedules in its store and fires them while it runs.
 */
@Command(name = "schedule", mixinStandardHelpOptions = true, description = {"Recurring tasks: each fire of a "
    + "schedule starts one task, never two, whatever crashes or restarts happen. Fires missed while no daemon ran "
    + "follow the schedule's catch-up policy.", "Commands: add, list, pause, resume, rm."},
    subcommands = {ScheduleCmd.Add.class, ScheduleCmd.ListCmd.class, ScheduleCmd.Pause.class, ScheduleCmd.Resume.class,
        ScheduleCmd.Remove.class},
    footer = {"", "Examples:", "  vigil schedule add nightly --cron '0 3 * * *' -- ./backup.sh",
        "  vigil schedule add tick --cron '*/10 * * * * ?' --overlap queue -- ./poll.sh", "  vigil schedule list"})
final class ScheduleCmd implements Runnable {
  @CommandLine.ParentCommand
  Main root;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "schedule needs a command: add, list, pause, resume "
        + "or rm (see vigil schedule --help)");
  }

  /** A subcommand: its home is the root's. */
  abstract static class Verb implements Callable<Integer> {
    @CommandLine.ParentCommand
    ScheduleCmd parent;

    ObjectNode call(String op, ObjectNode args) {
      return Main.call(Main.home(parent.root), op, args);
    }
  }

  @Command(name = "add", mixinStandardHelpOptions = true, description = {"Add a schedule: at each time its cron "
      + "names, a task of the command after -- is queued, with the options given (as vigil submit takes them).",
      "Cron: 5 fields (minute hour day-of-month month day-of-week, like '0 3 * * *'), or 6 with seconds first as "
          + "Quartz writes them (like '*/10 * * * * ?', where one of day-of-month and day-of-week is ?).",
      "Prints what it added and when it fires next."},
      footer = {"", "Examples:", "  vigil schedule add nightly --cron '0 3 * * *' --zone Europe/Berlin -- ./backup.sh",
          "  vigil schedule add reports --cron '30 6 * * MON-FRI' --lane batch --catch-up none -- make report"})
  static final class Add extends Verb {
    @Parameters(index = "0", paramLabel = "NAME", description = "the schedule's name: 1-32 lower-case letters, digits, "
        + "_ or -")
    String name;

    @Parameters(index = "1..*", paramLabel = "CMD", arity = "0..*", description = "the command and its arguments, "
        + "after -- (nothing is expanded: write sh -c '...' for a shell line)")
    List<String> command = new ArrayList<>();

    @Option(names = "--cron", required = true, paramLabel = "CRON", description = "when it fires (see above)")
    String cron;

    @Option(names = "--zone", paramLabel = "ZONE", description = "the time zone the cron is read in, like UTC, "
        + "Europe/Berlin or +02:00 (default: this machine's). Clocks going forward skip a time that does not exist "
        + "that day; a time that happens twice fires once.")
    String zone;

    @Option(names = "--catch-up", paramLabel = "POLICY", description = "fires missed while no daemon ran (or "
        + "reached more than a minute late): none (start none of them), latest (one task for the latest; the default) "
        + "or all (one task each, at most the latest 100)")
    String catchUp;

    @Option(names = "--overlap", paramLabel = "POLICY", description = "a fire while the previous fire's task is "
        + "still waiting, running or held: skip (start nothing; the default), queue (start it once that task ends; "
        + "one fire at most waits) or parallel (start it anyway)")
    String overlap;

    @Option(names = "--lane", paramLabel = "LANE", description = "the lane its tasks wait in (default: default)")
    String lane;

    @Option(names = "--max-attempts", paramLabel = "N", description = "attempts of each task before it is held "
        + "(default: the configuration's maxAttempts)")
    Integer maxAttempts;

    @Option(names = "--priority", paramLabel = "N", description = "a higher number starts first in its lane (default: 0)")
    Integer priority;

    @Option(names = "--type", paramLabel = "TYPE", description = "the worker type that runs its tasks (default: command)")
    String type;

    @Option(names = "--payload", paramLabel = "JSON", description = "a JSON object handed to the worker type; for the "
        + "command type the command after -- is added to it as argv (default: {})")
    String payload;

    @Option(names = "--timeout", paramLabel = "DURATION", description = "a time limit per run, like 90s or 30m "
        + "(default: its lane's limit, if any)")
    String timeout;

    @Option(names = "--cwd", paramLabel = "DIR", description = "the directory its command runs in (default: the "
        + "current directory)")
    String cwd;

    @Option(names = "--env", paramLabel = "NAME=VALUE", description = "set a variable for its command (repeatable)")
    List<String> env = new ArrayList<>();

    @Option(names = "--clean-env", description = "start from PATH, HOME, LANG and USER only, not your whole environment")
    boolean cleanEnv;

    @Option(names = "--label", paramLabel = "NAME=VALUE", description = "a label of each of its tasks (repeatable; "
        + "schedule and fire are set on each task by the schedule)")
    List<String> labels = new ArrayList<>();

    @Override
    public Integer call() {
      if (command.isEmpty() && payload == null) {
        throw new IllegalArgumentException("schedule add needs a command after -- or a --payload");
      }
      Main.SubmitCmd submit = new Main.SubmitCmd(); // the one place that turns task options into a submission
      submit.lane = lane;
      submit.maxAttempts = maxAttempts;
      submit.priority = priority;
      submit.type = type;
      submit.payload = payload;
      submit.timeout = timeout;
      submit.cwd = cwd;
      submit.env = env;
      submit.cleanEnv = cleanEnv;
      submit.labels = labels;
      ObjectNode a = Main.args();
      a.put("name", name);
      a.put("cron", cron);
      a.put("zone", zone == null ? ZoneId.systemDefault().getId() : zone);
      if (catchUp != null) {
        a.put("catchUp", catchUp);
      }
      if (overlap != null) {
        a.put("overlap", overlap);
      }
      a.set("ticket", submit.ticketFor(command));
      check(a);
      ObjectNode r = call("schedule-add", a);
      JsonNode s = r.path("schedule");
      System.out.println(r.path("message").asText() + (s.hasNonNull("nextFireMs") ? "; next fire "
          + Views.fireTime(s.path("nextFireMs").asLong(), s.path("zone").asText(), System.currentTimeMillis()) : ""));
      return 0;
    }

    /** Every value checked here, before anything is sent, so that a bad one changes nothing. */
    private static void check(ObjectNode a) {
      dev.vigil.launcher.internal.Wire.schedule(a, dev.vigil.coordination.NewTicket.DEFAULT_MAX_ATTEMPTS);
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true, description = "Every schedule, one a line: its cron and "
      + "zone, its next fire (or that it is paused), and its last fire's task with its state and last run's verdict. "
      + "The built-in maintenance schedules are shown by vigil status instead.")
  static final class ListCmd extends Verb {
    @Option(names = "--json", description = Main.JSON_HELP)
    boolean json;

    @Override
    public Integer call() {
      JsonNode all = Views.userSchedules(call("schedule-list", Main.args()).path("schedules"));
      if (json) {
        System.out.println(Main.pretty(all));
        return 0;
      }
      if (all.isEmpty()) {
        System.out.println("No schedules (vigil schedule add NAME --cron CRON -- CMD adds one).");
      }
      long now = System.currentTimeMillis();
      all.forEach(s -> System.out.println(Views.scheduleLine(s, now)));
      return 0;
    }
  }

  /** pause, resume, rm: a schedule by name (the op is {@code schedule-} and the command's name), printing what changed. */
  abstract static class Named extends Verb {
    @Parameters(paramLabel = "NAME", description = "the schedule")
    String name;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec self;

    @Override
    public Integer call() {
      ObjectNode a = Main.args();
      a.put("name", name);
      System.out.println(call("schedule-" + self.name(), a).path("message").asText());
      return 0;
    }
  }

  @Command(name = "pause", mixinStandardHelpOptions = true, description = "Pause a schedule: it starts nothing "
      + "until resumed (kept across restarts). Its tasks already queued or running are untouched.")
  static final class Pause extends Named {}

  @Command(name = "resume", mixinStandardHelpOptions = true, description = "Resume a paused schedule: it fires again "
      + "from now on; the fires it missed while paused start nothing.")
  static final class Resume extends Named {}

  @Command(name = "rm", mixinStandardHelpOptions = true, description = "Remove a schedule added with vigil schedule "
      + "add (one from the configuration file is removed there). Its tasks stay.")
  static final class Remove extends Named {}
}
