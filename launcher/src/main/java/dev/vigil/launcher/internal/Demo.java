package dev.vigil.launcher.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
 * {@code vigil demo}: a guided run in a fresh temporary home.
 *
 * <ol>
 *   <li>starts a detached daemon ({@code vigil up});
 *   <li>submits real tasks: two that succeed, one that fails once then succeeds, one that stalls
 *       (exit 75) without spending an attempt, one that exhausts its attempts and is HELD, and a
 *       long one;
 *   <li>kills the daemon with SIGKILL in the middle of the work, shows the workers still alive (D4),
 *       starts a new daemon and shows it adopting the same worker pids;
 *   <li>waits for every ticket to settle and prints a summary that compares, per ticket, how many
 *       times its command started with how many runs it had: a double launch would show.
 * </ol>
 */
public final class Demo {
  private record Task(String label, String lane, int maxAttempts, String payloadExtra, String script) {}

  private Demo() {}

  /** Runs the demo, printing to {@code out}; returns 0 when no task ran twice. */
  public static int run(PrintStream out) throws Exception {
    Path dir = Files.createTempDirectory("vigil-demo-", PosixFilePermissions.asFileAttribute(
        PosixFilePermissions.fromString("rwx------")));
    Home home = new Home(dir.resolve("home"));
    Path work = Files.createDirectory(dir.resolve("work"));
    Path starts = work.resolve("starts.log");
    out.println("== vigil demo: a fresh home in " + home.dir());
    long pid1 = Up.up(home, null);
    out.println("== vigil up: daemon pid " + pid1);

    String log = "echo \"$VIGIL_DEMO_LABEL $$\" >> " + starts + "; ";
    List<Task> tasks = List.of(
        new Task("quick", "default", 3, null, "sleep 1; echo done"),
        new Task("steady", "default", 3, null, "sleep 3; echo done"),
        new Task("flaky", "default", 3, null,
            "if [ -f " + work + "/flaky.once ]; then exit 0; else touch " + work + "/flaky.once; exit 1; fi"),
        new Task("quota", "default", 3, "{\"stallFor\":\"2s\"}",
            "if [ -f " + work + "/quota.once ]; then exit 0; else touch " + work + "/quota.once; exit 75; fi"),
        new Task("broken", "default", 2, null, "echo 'cannot work' >&2; exit 2"),
        new Task("long", "default", 3, null, "sleep 8; echo done"));
    Map<String, String> tickets = new LinkedHashMap<>();
    try (Client c = Client.connect(home, true)) {
      for (Task t : tasks) {
        ObjectNode payload = t.payloadExtra() == null ? Wire.JSON.createObjectNode()
            : (ObjectNode) Wire.JSON.readTree(t.payloadExtra());
        payload.putArray("argv").add("sh").add("-c").add(log + t.script());
        payload.putObject("env").put("VIGIL_DEMO_LABEL", t.label());
        ObjectNode a = Wire.JSON.createObjectNode();
        a.set("payload", payload);
        a.put("lane", t.lane());
        a.put("maxAttempts", t.maxAttempts());
        String id = Client.ok(c.call("submit", a)).path("ticket").path("id").asText();
        tickets.put(id, t.label());
        out.println("   vigil submit " + t.label() + " -> " + id + "   (" + t.script().replace(work.toString(), "$W") + ")");
      }
    }
    for (int i = 0; i < 4; i++) {
      progress(home, tickets, out);
      Thread.sleep(1000);
    }
    List<JsonNode> live = liveRuns(home);
    out.println("== kill -9 " + pid1 + " (the daemon) while " + live.size() + " workers run");
    new ProcessBuilder("kill", "-9", Long.toString(pid1)).inheritIO().start().waitFor();
    while (ProcessHandle.of(pid1).map(ProcessHandle::isAlive).orElse(false)) {
      Thread.sleep(100);
    }
    Map<String, Long> pidsBefore = new HashMap<>();
    for (JsonNode r : live) {
      long p = r.path("pid").asLong();
      pidsBefore.put(r.path("run").asText(), p);
      out.println("   worker of " + r.path("run").asText() + " (pid " + p + ") is "
          + (ProcessHandle.of(p).map(ProcessHandle::isAlive).orElse(false) ? "still alive (D4)" : "gone"));
    }
    long pid2 = Up.up(home, null);
    out.println("== vigil up: a new daemon, pid " + pid2 + ", recovers from the store and the run directories");
    for (JsonNode r : liveRuns(home)) {
      Long before = pidsBefore.get(r.path("run").asText());
      out.println("   " + r.path("run").asText() + " pid " + r.path("pid").asText("-") + " "
          + r.path("supervision").asText() + (before != null && before == r.path("pid").asLong()
          ? "  <- adopted: the same worker" : ""));
    }
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (!settled(home, tickets.keySet()) && System.nanoTime() < deadline) {
      progress(home, tickets, out);
      Thread.sleep(1000);
    }
    progress(home, tickets, out);

    Map<String, Integer> started = new HashMap<>();
    for (String line : Files.readAllLines(starts, StandardCharsets.UTF_8)) {
      started.merge(line.split(" ")[0], 1, Integer::sum);
    }
    out.println();
    out.println(String.format("%-7s %-7s %-10s %-9s %-5s %-8s %s", "ticket", "task", "state", "attempts", "runs",
        "started", "verdicts"));
    int doubles = 0;
    try (Client c = Client.connect(home, true)) {
      for (Map.Entry<String, String> e : tickets.entrySet()) {
        ObjectNode a = Wire.JSON.createObjectNode();
        a.put("ticket", e.getKey());
        JsonNode t = Client.ok(c.call("show", a)).path("ticket");
        int runs = t.path("runs").size();
        int s = started.getOrDefault(e.getValue(), 0);
        List<String> verdicts = new ArrayList<>();
        t.path("runs").forEach(r -> verdicts.add(r.path("verdict").asText("-")));
        if (s > runs) {
          doubles += s - runs;
        }
        out.println(String.format("%-7s %-7s %-10s %-9s %-5d %-8d %s", e.getKey(), e.getValue(), t.path("state").asText(),
            t.path("attemptsUsed").asInt() + "/" + t.path("maxAttempts").asInt(), runs, s, String.join(",", verdicts)));
      }
      Client.ok(c.shutdown(false));
    }
    Up.waitGone(home, pid2);
    out.println();
    out.println("double launches: " + doubles + " (every command started once per run; a daemon was killed mid-work)");
    out.println("the home is kept for a look: vigil --home " + home.dir() + " ... (its daemon is down)");
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

  private static void progress(Home home, Map<String, String> tickets, PrintStream out) {
    StringBuilder b = new StringBuilder("   ");
    try (Client c = Client.connect(home, true)) {
      for (JsonNode t : Client.ok(c.call("list", Wire.JSON.createObjectNode())).path("tickets")) {
        String label = tickets.get(t.path("id").asText());
        if (label != null) {
          b.append(label).append('=').append(t.path("state").asText()).append(' ');
        }
      }
    } catch (Client.Failure e) {
      b.append("(no daemon: ").append(e.getMessage()).append(')');
    }
    out.println(b.toString().stripTrailing());
  }
}
