package dev.vigil.launcher.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.coordination.Lane;
import dev.vigil.worker.process.Processes;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code vigil demo}: a guided run in a fresh temporary home, with the default configuration, each
 * step printed once with one sentence on what it shows.
 *
 * <ol>
 *   <li>starts a detached daemon ({@code vigil up});
 *   <li>submits real tasks: two that succeed, one that fails once then succeeds, one that stalls
 *       (exit 75) without spending an attempt, one that uses up its attempts and is HELD, and a
 *       long one; then prints only the changes of their states;
 *   <li>kills the daemon with SIGKILL in the middle of the work, shows the workers still alive (D4),
 *       starts a new daemon and shows it adopting the same worker pids;
 *   <li>waits for every ticket to settle and prints a table that compares, per ticket, how many
 *       times its command started with how many runs it had (a double launch would show), then a
 *       summary: launches, adoptions, double launches, and what to do about the held ticket.
 * </ol>
 */
public final class Demo {
  /** The demo's daemons live a minute on a home that is then deleted: no class archive of their own. */
  private static final java.util.Map<String, String> NO_ARCHIVE = java.util.Map.of(DaemonArchive.ENV, "off");

  private record Task(String label, String payloadExtra, String script, String why) {}

  private Demo() {}

  /** Runs the demo, printing to {@code out}; returns 0 when no task ran twice. */
  public static int run(PrintStream out) throws Exception {
    Path dir = Files.createTempDirectory("vigil-demo-", PosixFilePermissions.asFileAttribute(
        PosixFilePermissions.fromString("rwx------")));
    Home home = new Home(dir.resolve("home"));
    Path work = Files.createDirectory(dir.resolve("work"));
    Path starts = work.resolve("starts.log");
    VigilConfig config = VigilConfig.defaults();
    int attempts = config.maxAttempts();
    out.println("vigil demo: a fresh home in " + home.dir() + ", with the default configuration: lane 'default' runs "
        + config.workload().concurrency(Lane.DEFAULT) + " tasks at once, and a task gets " + attempts + " attempts.");
    out.println();
    out.println("1. Start a daemon (vigil up).");
    out.println("   It runs each task as its own worker process and writes every decision to a database in the home"
        + " before acting on it, so it may be killed at any moment.");
    long pid1 = Up.up(home, null, NO_ARCHIVE);
    out.println("   daemon pid " + pid1);
    out.println();

    String log = "echo \"$VIGIL_DEMO_LABEL $$\" >> " + starts + "; ";
    List<Task> tasks = List.of(
        new Task("quick", null, "sleep 1; echo done", "succeeds"),
        new Task("steady", null, "sleep 3; echo done", "succeeds after 3 s"),
        new Task("flaky", null,
            "if [ -f " + work + "/flaky.once ]; then exit 0; else touch " + work + "/flaky.once; exit 1; fi",
            "fails once, is retried after a pause, then succeeds"),
        new Task("quota", "{\"stallFor\":\"2s\"}",
            "if [ -f " + work + "/quota.once ]; then exit 0; else touch " + work + "/quota.once; exit 75; fi",
            "exits 75 (\"not now\"): it waits 2 s and runs again without spending an attempt"),
        new Task("broken", null, "echo cannot work >&2; exit 2",
            "always fails: after its " + attempts + " attempts it is held for you"),
        new Task("long", null, "sleep 8; echo done", "runs for 8 s, across the crash below"));
    out.println("2. Queue six tasks (vigil submit); each is a shell command ($W is the demo's work directory):");
    Map<String, String> tickets = new LinkedHashMap<>();
    try (Client c = Client.connect(home, true)) {
      for (Task t : tasks) {
        ObjectNode payload = t.payloadExtra() == null ? Wire.JSON.createObjectNode()
            : (ObjectNode) Wire.JSON.readTree(t.payloadExtra());
        payload.putArray("argv").add("sh").add("-c").add(log + t.script());
        payload.putObject("env").put("VIGIL_DEMO_LABEL", t.label());
        ObjectNode a = Wire.JSON.createObjectNode();
        a.set("payload", payload);
        String id = Client.ok(c.call("submit", a)).path("ticket").path("id").asText();
        tickets.put(id, t.label());
        out.println(String.format("   %-5s %-7s %s", id, t.label(), t.why()));
        out.println(String.format("   %-5s %-7s   sh -c '%s'", "", "", t.script().replace(work.toString(), "$W")));
      }
    }
    out.println("   What happens, as it happens:");
    Map<String, String> seen = new HashMap<>();
    long begin = System.nanoTime();
    for (int i = 0; i < 4; i++) {
      changes(home, tickets, seen, begin, out);
      Thread.sleep(1000);
    }
    changes(home, tickets, seen, begin, out);
    out.println();

    List<JsonNode> live = liveRuns(home);
    out.println("3. Kill the daemon with kill -9 while " + (live.size() == 1 ? "1 task runs." : live.size() + " tasks run."));
    out.println("   A crash gives it no chance to clean up; its workers are separate processes, so they keep running.");
    new ProcessBuilder("kill", "-9", Long.toString(pid1)).inheritIO().start().waitFor();
    while (Processes.running(pid1)) {
      Thread.sleep(100);
    }
    Map<String, Long> pidsBefore = new HashMap<>();
    for (JsonNode r : live) {
      long p = r.path("pid").asLong();
      pidsBefore.put(r.path("run").asText(), p);
      out.println("   the worker of " + r.path("run").asText() + " (" + tickets.getOrDefault(r.path("run").asText()
          .replaceFirst("\\.[0-9]+$", ""), "?") + ", pid " + p + ") is "
          + (Processes.running(p) ? "still running" : "gone"));
    }
    out.println();

    long pid2 = Up.up(home, null, NO_ARCHIVE);
    out.println("4. Start a new daemon (vigil up): pid " + pid2 + ".");
    out.println("   It reads the database and the run directories, finds the workers still running and takes them over"
        + " (adopts them) instead of starting their tasks again.");
    int adopted = 0;
    for (JsonNode r : liveRuns(home)) {
      Long before = pidsBefore.get(r.path("run").asText());
      boolean same = before != null && before == r.path("pid").asLong();
      adopted += same ? 1 : 0;
      out.println("   " + r.path("run").asText() + " pid " + r.path("pid").asText("-")
          + (same ? ": adopted, the same worker" : ""));
    }
    out.println("   What happens next:");
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (!settled(home, tickets.keySet()) && System.nanoTime() < deadline) {
      changes(home, tickets, seen, begin, out);
      Thread.sleep(1000);
    }
    changes(home, tickets, seen, begin, out);

    Map<String, Integer> started = new HashMap<>();
    for (String line : Files.readAllLines(starts, StandardCharsets.UTF_8)) {
      started.merge(line.split(" ")[0], 1, Integer::sum);
    }
    out.println();
    out.println("5. Every task has finished. Per task: its runs (each start the daemon recorded) and how often its "
        + "command really started:");
    out.println(String.format("   %-6s %-7s %-10s %-9s %-5s %-8s %s", "ticket", "task", "state", "attempts", "runs",
        "started", "how each run ended"));
    int doubles = 0;
    int launches = 0;
    int runsTotal = 0;
    List<String> held = new ArrayList<>();
    try (Client c = Client.connect(home, true)) {
      for (Map.Entry<String, String> e : tickets.entrySet()) {
        ObjectNode a = Wire.JSON.createObjectNode();
        a.put("ticket", e.getKey());
        JsonNode t = Client.ok(c.call("show", a)).path("ticket");
        int runs = t.path("runs").size();
        int s = started.getOrDefault(e.getValue(), 0);
        runsTotal += runs;
        launches += s;
        List<String> verdicts = new ArrayList<>();
        t.path("runs").forEach(r -> verdicts.add(r.path("verdict").asText("-")));
        if (s > runs) {
          doubles += s - runs;
        }
        if (t.path("state").asText().equals("HELD")) {
          held.add(e.getKey());
        }
        out.println(String.format("   %-6s %-7s %-10s %-9s %-5d %-8d %s", e.getKey(), e.getValue(),
            t.path("state").asText(), t.path("attemptsUsed").asInt() + " of " + t.path("allowedAttempts").asInt(), runs,
            s, String.join(",", verdicts)));
      }
      Client.ok(c.shutdown(false));
    }
    Up.waitGone(home, pid2);
    out.println();
    out.println("Summary:");
    out.println("   launches: " + launches + " commands started, for " + runsTotal + " runs");
    out.println("   adoptions: " + adopted + " running " + (adopted == 1 ? "worker" : "workers")
        + " taken over by the second daemon");
    out.println("   double launches: " + doubles + (doubles == 0 ? " (every command started once per run, although the "
        + "daemon was killed in the middle)" : " (a command started more often than its runs: a bug)"));
    out.println();
    out.println("The home is kept for a look; its daemon is down. To use it:  export VIGIL_HOME=" + home.dir()
        + "  then  vigil up  and  vigil tasks");
    for (String h : held) {
      out.println(h + " (" + tickets.get(h) + ") is HELD: it used its attempts and waits for you.  vigil logs " + h
          + "  shows why;  vigil release " + h + "  gives it one more attempt;  vigil cancel " + h + "  drops it.");
    }
    out.println("When done:  vigil down  and  rm -r " + dir);
    return doubles == 0 ? 0 : 1;
  }

  private static List<JsonNode> liveRuns(Home home) {
    List<JsonNode> out = new ArrayList<>();
    try (Client c = Client.connect(home, true)) {
      Client.ok(c.call("status", Wire.JSON.createObjectNode())).path("status").path("runs").forEach(out::add);
    }
    return out;
  }

  private static boolean settled(Home home, Iterable<String> ids) throws IOException {
    try (Client c = Client.connect(home, true)) {
      for (String id : ids) {
        ObjectNode a = Wire.JSON.createObjectNode();
        a.put("ticket", id);
        String s = Client.ok(c.call("show", a)).path("ticket").path("state").asText();
        if (!s.equals("SUCCEEDED") && !s.equals("HELD") && !s.equals("FAILED") && !s.equals("CANCELLED")) {
          return false;
        }
      }
    }
    return true;
  }

  /** A ticket's state in words, with its attempts. */
  private static String state(JsonNode t) {
    int used = t.path("attemptsUsed").asInt();
    return switch (t.path("state").asText()) {
      case "READY" -> used == 0 ? "waiting" : "waiting to run again (" + used + " attempt" + (used == 1 ? "" : "s")
          + " used)";
      case "LEASED" -> "running (attempt " + (used + 1) + ")";
      case "SUCCEEDED" -> "succeeded";
      case "HELD" -> "held, out of attempts";
      case "FAILED" -> "failed";
      case "CANCELLED" -> "cancelled";
      default -> t.path("state").asText();
    };
  }

  /** Prints one line with the tickets whose state changed since the last look, if any did. */
  private static void changes(Home home, Map<String, String> tickets, Map<String, String> seen, long beginNanos,
                              PrintStream out) {
    List<String> changed = new ArrayList<>();
    try (Client c = Client.connect(home, true)) {
      for (JsonNode t : Client.ok(c.call("list", Wire.JSON.createObjectNode())).path("tickets")) {
        String label = tickets.get(t.path("id").asText());
        String now = state(t);
        if (label != null && !now.equals(seen.put(label, now))) {
          changed.add(label + " " + now);
        }
      }
    } catch (Client.Failure e) {
      changed.add("(no daemon: " + e.getMessage() + ")");
    }
    if (!changed.isEmpty()) {
      out.println(String.format("   %3ds  %s", (System.nanoTime() - beginNanos) / 1_000_000_000L,
          String.join("; ", changed)));
    }
  }
}
