package dev.vigil.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.supervisor.Durations;
import java.util.ArrayList;
import java.util.List;

/**
 * How tickets, runs and events read for people: one line per ticket and per run, the details of one
 * ticket, one line per event. An environment is shown by its variables' names only.
 */
final class Views {
  /** The longest command a list line shows before it is cut. */
  static final int COMMAND_WIDTH = 40;
  /** The most of a run's result a ticket's detail shows, characters; {@code --json} shows it whole. */
  static final int RESULT_WIDTH = 300;

  private Views() {}

  /**
   * Which attempt a ticket is at, counted against the attempts it may spend (its own and those granted):
   * "attempt 1 of 3" while its first runs, "attempt 4 of 4 (1 granted)" after a release, "3 attempts, none
   * used" before its first.
   */
  static String attempts(JsonNode t) {
    int used = t.path("attemptsUsed").asInt();
    int granted = t.path("attemptsGranted").asInt(0);
    int allowed = t.path("allowedAttempts").asInt(t.path("maxAttempts").asInt() + granted);
    String g = granted > 0 ? " (" + granted + " granted)" : "";
    if (t.path("state").asText().equals("LEASED")) {
      return "attempt " + (used + 1) + " of " + allowed + g;
    }
    return used == 0 ? allowed + (allowed == 1 ? " attempt" : " attempts") + ", none used" + g
        : "attempt " + used + " of " + allowed + g;
  }

  /** The command a ticket runs, shell-quoted where needed, or its worker type when it is not a command. */
  static String command(JsonNode t) {
    JsonNode argv = t.path("payload").isTextual() ? parse(t.path("payload").asText()).path("argv")
        : t.path("payload").path("argv");
    if (!argv.isArray() || argv.isEmpty()) {
      return "(" + t.path("type").asText() + ")";
    }
    List<String> words = new ArrayList<>();
    argv.forEach(a -> words.add(quote(a.asText())));
    return String.join(" ", words);
  }

  private static JsonNode parse(String json) {
    try {
      return dev.vigil.launcher.internal.Wire.JSON.readTree(json);
    } catch (java.io.IOException e) {
      return dev.vigil.launcher.internal.Wire.JSON.createObjectNode();
    }
  }

  private static String quote(String w) {
    return !w.isEmpty() && w.chars().allMatch(c -> Character.isLetterOrDigit(c) || "-_./=:,@%+".indexOf(c) >= 0) ? w
        : "'" + w.replace("'", "'\\''") + "'";
  }

  static String shortened(String s, int width) {
    return s.length() <= width ? s : s.substring(0, width - 1) + "…";
  }

  /** A ticket's labels as {@code name=value, …}, or empty. */
  static String labels(JsonNode t) {
    List<String> out = new ArrayList<>();
    t.path("labels").properties().forEach(e -> out.add(e.getKey() + "=" + e.getValue().asText()));
    return String.join(", ", out);
  }

  /**
   * A ticket in one line: id, state, lane, attempts, its command (shortened) and labels, when it is due,
   * what it still waits for, why it is held.
   */
  static String ticketLine(JsonNode t) {
    String labels = labels(t);
    long wait = waitMs(t, System.currentTimeMillis());
    String waits = t.path("state").asText().equals("READY") ? waitsFor(t) : "";
    return String.format("%-8s %-10s lane %-10s %-28s %s%s%s%s%s%s%s", t.path("id").asText(), t.path("state").asText(),
        t.path("lane").asText(), attempts(t), shortened(command(t), COMMAND_WIDTH),
        labels.isEmpty() ? "" : " [" + labels + "]", t.path("parked").asBoolean() ? " parked" : "",
        wait > 0 ? " due in " + Durations.format(roundedUp(wait)) : "", waits.isEmpty() ? "" : " waits for " + waits,
        t.hasNonNull("holdReason") ? " (" + t.path("holdReason").asText() + ")" : "",
        onHost(t) + stalled(t, System.currentTimeMillis()));
  }

  /** " on host H" for a run, or a running ticket, of a store that several hosts share; else nothing. */
  static String onHost(JsonNode n) {
    return n.hasNonNull("host") ? " on host " + n.path("host").asText() : "";
  }

  /**
   * {@code vigil status} while no daemon runs: that it does not, how many tickets are in each state,
   * and the runs that had not ended, each with whether it is stalled.
   */
  static List<String> storeStatus(java.nio.file.Path home, java.util.Map<dev.vigil.coordination.TicketState, Integer> counts,
      List<JsonNode> live, long nowMs) {
    List<String> out = new ArrayList<>();
    out.add("No daemon is running on " + home + ". Its store says:");
    StringBuilder tickets = new StringBuilder("Tasks:");
    counts.forEach((state, n) -> {
      if (n > 0) {
        tickets.append(' ').append(state.name()).append(' ').append(n);
      }
    });
    out.add(tickets.length() == "Tasks:".length() ? "Tasks: none" : tickets.toString());
    if (live.isEmpty()) {
      out.add("No run was running.");
    } else {
      out.add("Runs that had not ended (their workers may still be working; the next daemon takes them over):");
      live.forEach(r -> out.add("  " + runLine(r)));
    }
    return out;
  }

  /**
   * For a run, or a running ticket, that no daemon has watched for {@code stalledRunning}: since
   * when, in words; else nothing.
   */
  static String stalled(JsonNode n, long nowMs) {
    if (!n.hasNonNull("stalledSinceMs")) {
      return "";
    }
    long since = n.path("stalledSinceMs").asLong();
    return " stalled: no daemon since " + clock(since) + " (" + Durations.format(Math.max(0, nowMs - since) / 1000 * 1000)
        + " ago)";
  }

  /** A wall-clock time of day on this machine, to the second ({@code 14:03:07}). */
  static String clockOf(long ms) {
    return clock(ms);
  }

  private static String clock(long ms) {
    return java.time.Instant.ofEpochMilli(ms).atZone(java.time.ZoneId.systemDefault()).toLocalTime()
        .withNano(0).toString();
  }

  /** The tickets it still waits for, with what each is doing ({@code t-3 (running)}), or empty. */
  static String waitsFor(JsonNode t) {
    List<String> out = new ArrayList<>();
    for (JsonNode w : t.path("waitsFor")) {
      out.add(w.path("id").asText() + " (" + stateWords(w.path("state").asText("")) + ")");
    }
    return String.join(", ", out);
  }

  /** A ticket's state as a person says it, in the words of the status counts ({@link #COUNTED}); READY is waiting. */
  static String stateWords(String state) {
    if (state.equals("READY")) {
      return "waiting";
    }
    for (String[] c : COUNTED) {
      if (c[0].equals(state)) {
        return c[1];
      }
    }
    return state.isEmpty() ? "unknown" : state.toLowerCase(java.util.Locale.ROOT);
  }

  /** How long a READY ticket still waits for its due time ({@code --at}, {@code --in}), ms; 0 when due. */
  static long waitMs(JsonNode t, long nowMs) {
    return t.path("state").asText().equals("READY") ? Math.max(0, t.path("notBeforeMs").asLong(0) - nowMs) : 0;
  }

  /** A wait to the whole second above it, so that "due in" never reads 0s for a ticket not yet due. */
  private static long roundedUp(long ms) {
    return (ms + 999) / 1000 * 1000;
  }

  /** How a run ended, as its command's own exit: {@code exit 1}, {@code signal 9}, or {@code -}. */
  static String exit(JsonNode r) {
    return r.hasNonNull("exitCode") ? "exit " + r.path("exitCode").asText()
        : r.hasNonNull("signal") ? "signal " + r.path("signal").asText() : "-";
  }

  /** A run in one line: its attempt, state, verdict, pid, its command's exit and the settlement's diagnosis. */
  static String runLine(JsonNode r) {
    return String.format("%-10s attempt %d %-8s %-17s pid %-7s %-10s %s%s", r.path("id").asText(),
        r.path("attempt").asInt(), r.path("state").asText(), r.hasNonNull("verdict") ? r.path("verdict").asText() : "-",
        r.hasNonNull("pid") ? r.path("pid").asText() : "-", exit(r),
        r.hasNonNull("diagnosis") ? r.path("diagnosis").asText() : r.hasNonNull("stopIntent")
            ? (r.path("stopIntent").asText().equals("TIMEOUT") ? "timed out: being stopped" : "killed: being stopped") : "",
        r.path("handStarted").asBoolean() ? " (by hand)" : "") + onHost(r) + stalled(r, System.currentTimeMillis());
  }

  /**
   * One ticket in detail: its line, then what it runs, where, with which variables, its limit, labels,
   * retries and its runs, each with the result its worker returned, if any.
   */
  static List<String> ticketDetail(JsonNode t) {
    List<String> out = new ArrayList<>();
    out.add(ticketLine(t));
    out.add("  command      " + command(t));
    JsonNode spec = t.path("spec");
    out.add("  directory    " + (spec.hasNonNull("workDir") ? spec.path("workDir").asText() : "its run directory"));
    if (spec.path("env").isArray()) {
      List<String> names = new ArrayList<>();
      spec.path("env").forEach(n -> names.add(n.asText()));
      out.add("  environment  " + names.size() + " variables (values not shown): " + String.join(" ", names));
    } else {
      out.add("  environment  the daemon's default (PATH, HOME, LANG)");
    }
    long wait = waitMs(t, System.currentTimeMillis());
    if (wait > 0) {
      out.add("  due          " + java.time.Instant.ofEpochMilli(t.path("notBeforeMs").asLong())
          .atZone(java.time.ZoneId.systemDefault()).withNano(0).toOffsetDateTime() + " (in "
          + Durations.format(roundedUp(wait)) + ")");
    }
    long timeout = spec.path("timeoutMs").asLong(0);
    out.add("  time limit   " + (timeout > 0 ? Durations.format(timeout) : "its lane's, if any"));
    String labels = labels(t);
    if (!labels.isEmpty()) {
      out.add("  labels       " + labels);
    }
    if (t.path("after").size() > 0) {
      List<String> after = new ArrayList<>();
      t.path("after").forEach(a -> after.add(a.asText()));
      String waits = waitsFor(t);
      out.add("  after        " + String.join(", ", after) + (waits.isEmpty() ? " (all succeeded)"
          : "; still waits for " + waits));
    }
    if (t.hasNonNull("retryOf")) {
      out.add("  retry of     " + t.path("retryOf").asText());
    }
    if (t.hasNonNull("retriedAs")) {
      out.add("  retried as   " + t.path("retriedAs").asText());
    }
    for (JsonNode r : t.path("runs")) {
      out.add("  " + runLine(r));
      if (r.hasNonNull("result")) {
        out.add("    result   " + result(r.path("result"), t.path("id").asText()));
      }
    }
    if (t.hasNonNull("checkpoint")) {
      out.add("  " + checkpointLine(t.path("checkpoint")));
    }
    return out;
  }

  /**
   * The ticket's latest checkpoint (Q17) on one line: which run saved it, when and how large; the next attempt
   * of a resumable type starts from it.
   */
  static String checkpointLine(JsonNode c) {
    long bytes = c.path("bytes").asLong();
    return "checkpoint   the last one " + c.path("run").asText() + " saved, kept since "
        + java.time.Instant.ofEpochMilli(c.path("savedAtMs").asLong()).atZone(java.time.ZoneId.systemDefault())
        .withNano(0).toOffsetDateTime() + ", " + String.format("%,d", bytes) + (bytes == 1 ? " byte" : " bytes")
        + ": a resumable type's next attempt starts from it";
  }

  /**
   * A run's result on one line as compact JSON; one longer than {@value #RESULT_WIDTH} characters is
   * cut there, with its whole length and where to see all of it.
   */
  static String result(JsonNode result, String ticket) {
    String json = result.toString();
    if (json.length() <= RESULT_WIDTH) {
      return json;
    }
    return json.substring(0, RESULT_WIDTH - 1) + "… (cut: " + String.format("%,d", json.length())
        + " characters in all; vigil show " + ticket + " --json shows it whole)";
  }

  /** An event in one line: id, kind, what it is about, and what happened. */
  static String eventLine(JsonNode e) {
    String about = e.hasNonNull("run") ? e.path("run").asText() : e.hasNonNull("ticket") ? e.path("ticket").asText()
        : "service " + e.path("service").asText();
    String what = switch (e.path("kind").asText()) {
      case "SETTLED" -> e.path("verdict").asText() + (e.hasNonNull("ticketState") ? ", ticket "
          + e.path("ticketState").asText() : "");
      case "HELD" -> "held";
      case "CANCELLED" -> "cancelled";
      case "KILL" -> "kill asked";
      case "TIMEOUT" -> "time limit reached";
      case "SERVICE_GIVEN_UP" -> "given up";
      case "QUESTION" -> "asks a person";
      default -> e.path("kind").asText();
    };
    String text = e.path("text").asText("");
    return String.format("%-6d %s %-22s %s%s", e.path("id").asLong(),
        java.time.Instant.ofEpochMilli(e.path("atMs").asLong()).toString(), about, what,
        text.isEmpty() ? "" : ": " + text);
  }

  /**
   * A question for people: its id and text, who asked, then one line per option (its name and what it does);
   * an answered one says its answer, and an applied one what was done and skipped.
   */
  static java.util.List<String> questionLines(JsonNode q) {
    java.util.List<String> out = new java.util.ArrayList<>();
    String who = q.hasNonNull("askedBy") ? "asked by task run " + q.path("askedBy").asText() : "asked by the daemon";
    out.add(q.path("id").asText() + "  " + q.path("text").asText() + "  (" + who + ")");
    for (JsonNode o : q.path("options")) {
      String label = o.path("label").asText("");
      if (label.isEmpty()) {
        java.util.List<String> parts = new java.util.ArrayList<>();
        o.path("actions").forEach(a -> parts.add(a.path("description").asText()));
        label = parts.isEmpty() ? "nothing more" : String.join(", ", parts);
      }
      out.add(String.format("      %-10s %s", o.path("name").asText(), label));
    }
    switch (q.path("state").asText()) {
      case "ANSWERED" -> out.add("      answered '" + q.path("answer").asText() + "'; the daemon has not applied it yet");
      case "APPLIED" -> out.add("      answered '" + q.path("answer").asText() + "'; applied: "
          + q.path("outcome").asText());
      default -> { }
    }
    return out;
  }

  /** Whether a reply says that the daemon's store is unavailable (its work runs on, nothing new starts). */
  static boolean unavailable(JsonNode reply) {
    return reply.path("kind").asText().equals("Unavailable");
  }

  /**
   * A store outage for people, from an {@code Unavailable} reply: the reply's line and since when,
   * like {@code the store is unavailable: no space left on device in /h/vigil.mv.db; running work
   * continues; nothing new starts (since 06:12:03, 2m10s ago; 5 failed reopen attempts)}.
   */
  static String outage(JsonNode reply, long nowWallMs) {
    JsonNode o = reply.path("store");
    StringBuilder b = new StringBuilder(reply.path("message").asText());
    if (o.has("sinceWallMs")) {
      long since = o.path("sinceWallMs").asLong();
      b.append(" (since ").append(java.time.LocalTime.ofInstant(java.time.Instant.ofEpochMilli(since),
          java.time.ZoneId.systemDefault()).truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
      b.append(", ").append(Durations.format(Math.max(0, nowWallMs - since) / 1000 * 1000)).append(" ago");
      int n = o.path("failedReopenAttempts").asInt();
      b.append("; ").append(n).append(n == 1 ? " failed reopen attempt)" : " failed reopen attempts)");
    }
    return b.toString();
  }

  /** What the daemon is doing, in words, from its status {@code state}. */
  static String daemonState(String state) {
    return switch (state) {
      case "RUNNING" -> "running and starting work";
      case "PAUSED" -> "paused: no new work starts until vigil resume (running work goes on)";
      case "QUIESCING" -> "about to stop: checking that every worker is idle";
      case "DRAINING" -> "stopping its workers, then itself";
      case "STOPPED" -> "stopped";
      case "STORE_UNAVAILABLE" -> "its store is unavailable: running work continues, nothing new starts";
      default -> state.toLowerCase(java.util.Locale.ROOT);
    };
  }

  /** How the daemon relates to a live run, in words. */
  static String supervision(String s) {
    return switch (s) {
      case "HANDOFF" -> "starting";
      case "RUNNING" -> "running";
      case "STOPPING" -> "being stopped";
      case "ABORTING" -> "failed to start, cleaning up";
      case "OTHER" -> "not watched by this daemon (started elsewhere, or being recovered)";
      default -> s.toLowerCase(java.util.Locale.ROOT);
    };
  }

  /** The order and words of the ticket counts; READY is split into waiting and parked by the caller. */
  private static final List<String[]> COUNTED = List.of(new String[] {"LEASED", "running"},
      new String[] {"SUCCEEDED", "succeeded"}, new String[] {"FAILED", "failed"}, new String[] {"HELD", "held"},
      new String[] {"CANCELLED", "cancelled"});

  /**
   * {@code vigil status} for people: the daemon in a sentence, one line per lane, the running work,
   * the services and the tasks counted by state (a parked task counts as parked, not as waiting).
   */
  static List<String> status(JsonNode s, long nowWallMs) {
    List<String> out = new ArrayList<>();
    out.add("The daemon (pid " + s.path("pid").asLong() + ", version " + s.path("version").asText() + ", build "
        + s.path("build").asText() + ") is " + daemonState(s.path("state").asText()) + ".");
    int parkedTickets = 0;
    for (JsonNode l : s.path("lanes")) {
      int parked = l.path("parkedTickets").asInt();
      parkedTickets += parked;
      if (l.path("lane").asText().equals(dev.vigil.launcher.internal.MaintenanceJobs.LANE.name()) && parked == 0
          && l.path("occupied").asInt() == 0 && l.path("ready").asInt() == 0 && !l.path("parked").asBoolean()) {
        continue; // the built-in maintenance lane, shown only while it has work
      }
      out.add("Lane " + l.path("lane").asText() + ": " + l.path("occupied").asInt() + " of "
          + l.path("concurrency").asInt() + " running, " + l.path("ready").asInt() + " waiting"
          + (parked > 0 ? ", " + parked + " parked" : "")
          + (l.path("parked").asBoolean() ? "; the lane is parked: nothing starts in it until vigil unpark --lane "
              + l.path("lane").asText() : "") + ".");
    }
    JsonNode runs = s.path("runs");
    if (runs.isEmpty()) {
      out.add("Nothing is running.");
    } else {
      out.add("Running (" + runs.size() + "):");
      for (JsonNode r : runs) {
        long since = r.hasNonNull("startedAtWallMs") ? r.path("startedAtWallMs").asLong()
            : r.path("claimedAtWallMs").asLong();
        out.add("  " + r.path("run").asText() + " in lane " + r.path("lane").asText() + ", pid "
            + (r.hasNonNull("pid") ? r.path("pid").asText() : "not known yet") + ", "
            + supervision(r.path("supervision").asText()) + " for "
            + Durations.format(Math.max(0, nowWallMs - since) / 1000 * 1000)
            + (r.path("handStarted").asBoolean() ? " (started by hand)" : "") + onHost(r));
      }
    }
    for (JsonNode v : s.path("services")) {
      out.add("Service " + v.path("name").asText() + ": " + v.path("state").asText().toLowerCase(java.util.Locale.ROOT)
          .replace('_', ' ') + (v.hasNonNull("pid") ? ", pid " + v.path("pid").asText() : "") + ".");
    }
    JsonNode t = s.path("tickets");
    int ready = t.path("READY").asInt();
    List<String> counts = new ArrayList<>();
    counts.add((ready - parkedTickets) + " waiting");
    if (parkedTickets > 0) {
      counts.add(parkedTickets + " parked");
    }
    for (String[] c : COUNTED) {
      counts.add(t.path(c[0]).asInt() + " " + c[1]);
    }
    out.add("Tasks: " + String.join(", ", counts) + ".");
    int held = t.path("HELD").asInt();
    if (held > 0) {
      out.add(held + (held == 1 ? " task is" : " tasks are") + " held, waiting for you: vigil tasks --state HELD "
          + "lists them; vigil logs TICKET shows why; vigil release TICKET runs one again.");
    }
    return out;
  }

  private static final java.time.format.DateTimeFormatter LOCAL =
      java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

  /** A ticket's state as the counts of {@link #status} word it (a READY one is waiting). */
  static String stateWord(String state) {
    for (String[] c : COUNTED) {
      if (c[0].equals(state)) {
        return c[1];
      }
    }
    return state.equals("READY") ? "waiting" : state.toLowerCase(java.util.Locale.ROOT);
  }

  /** A fire time for people: in the schedule's zone, and how far from now. */
  static String fireTime(long ms, String zone, long nowWallMs) {
    String at = java.time.Instant.ofEpochMilli(ms).atZone(java.time.ZoneId.of(zone)).format(LOCAL);
    long d = ms - nowWallMs;
    String rel = d > 0 ? "in " + Durations.format(roundedUp(d)) : d > -1_000 ? "now" : Durations.format(-d / 1000 * 1000) + " ago";
    return at + " (" + rel + ")";
  }

  /**
   * One schedule for people (Q15): its name, cron and zone, its policies when not the defaults, its next
   * fire (or that it is paused), a fire waiting for the previous task, and its last fire's task with the
   * task's state and its latest run's verdict.
   */
  /** The schedules a person made (the command or the configuration file): all but the built-in maintenance ones. */
  static com.fasterxml.jackson.databind.node.ArrayNode userSchedules(JsonNode all) {
    com.fasterxml.jackson.databind.node.ArrayNode out = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
        .arrayNode();
    all.forEach(s -> {
      if (!dev.vigil.launcher.internal.MaintenanceJobs.builtIn(s.path("name").asText())) {
        out.add(s);
      }
    });
    return out;
  }

  /**
   * Q18: {@code vigil status}'s {@code maintenance}: {@code jobs}, each job's last line ({@code job},
   * {@code atMs}, {@code summary}; empty when the daemon keeps none), and {@code schedules}, the built-in
   * maintenance schedules as {@code vigil schedule list --json} shows a schedule.
   */
  static com.fasterxml.jackson.databind.node.ObjectNode maintenance(JsonNode lines, JsonNode allSchedules) {
    com.fasterxml.jackson.databind.node.ObjectNode o = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
        .objectNode();
    com.fasterxml.jackson.databind.node.ArrayNode jobs = o.putArray("jobs");
    if (lines != null) {
      lines.forEach(jobs::add);
    }
    com.fasterxml.jackson.databind.node.ArrayNode schedules = o.putArray("schedules");
    allSchedules.forEach(s -> {
      if (dev.vigil.launcher.internal.MaintenanceJobs.builtIn(s.path("name").asText())) {
        schedules.add(s);
      }
    });
    return o;
  }

  /**
   * Q18: when each maintenance job last ran and what it did, with the next fire of each built-in schedule;
   * nothing while no job has run yet.
   */
  static List<String> maintenanceLines(JsonNode m, long nowWallMs) {
    List<String> out = new ArrayList<>();
    if (m.path("jobs").isEmpty()) {
      return out;
    }
    out.add("Maintenance:");
    for (JsonNode j : m.path("jobs")) {
      out.add("  " + j.path("job").asText() + " last ran " + Durations.format(Math.max(0, nowWallMs
          - j.path("atMs").asLong()) / 1000 * 1000) + " ago: " + j.path("summary").asText());
    }
    for (JsonNode s : m.path("schedules")) {
      out.add("  " + scheduleLine(s, nowWallMs));
    }
    return out;
  }

  static String scheduleLine(JsonNode s, long nowWallMs) {
    String zone = s.path("zone").asText();
    StringBuilder b = new StringBuilder(s.path("name").asText()).append("  '").append(s.path("cron").asText())
        .append("' ").append(zone);
    if (!s.path("catchUp").asText().equals("latest")) {
      b.append(", catch-up ").append(s.path("catchUp").asText());
    }
    if (!s.path("overlap").asText().equals("skip")) {
      b.append(", overlap ").append(s.path("overlap").asText());
    }
    b.append(": ");
    if (s.path("paused").asBoolean()) {
      b.append("paused (vigil schedule resume ").append(s.path("name").asText()).append(")");
    } else if (s.hasNonNull("nextFireMs")) {
      b.append("next ").append(fireTime(s.path("nextFireMs").asLong(), zone, nowWallMs));
    } else {
      b.append("fires no more");
    }
    if (s.hasNonNull("waitingFireMs")) {
      b.append("; the fire of ").append(fireTime(s.path("waitingFireMs").asLong(), zone, nowWallMs))
          .append(" waits for the last task to end");
    }
    JsonNode last = s.path("lastTicket");
    if (last.isObject()) {
      b.append("; last ").append(last.path("id").asText()).append(" (fired ")
          .append(fireTime(last.path("fireMs").asLong(), zone, nowWallMs)).append(") ")
          .append(last.hasNonNull("state") ? stateWord(last.path("state").asText()) : "gone");
      if (last.hasNonNull("verdict") && !last.path("verdict").asText().equals(last.path("state").asText())) {
        b.append(", its last run ").append(last.path("verdict").asText().toLowerCase(java.util.Locale.ROOT)
            .replace('_', ' '));
      }
    } else {
      b.append("; not fired yet");
    }
    if (s.path("origin").asText().equals("config")) {
      b.append(" [from the configuration]");
    }
    return b.toString();
  }
}
