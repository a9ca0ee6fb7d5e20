package dev.vigil.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.launcher.internal.Client;
import dev.vigil.launcher.internal.MaintenanceJobs;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vigil prune [--older-than AGE] [--dry-run] [--json]} (Q18): deletes finished tasks (succeeded, failed
 * or cancelled) that ended more than AGE ago (default: the configuration's {@code retention}, 30 days), with
 * their runs, events and run directories. A task that waits, runs or is held stays, and so does one linked to
 * it (a prerequisite, a dependent, a retry). A dry run asks the daemon what would go and changes nothing; a real
 * prune queues a maintenance job (a worker process like any task) and waits for it to finish, so a daemon
 * restart or crash in the middle neither cuts it nor runs it twice.
 */
@Command(name = "prune", mixinStandardHelpOptions = true, description = {"Delete finished tasks (succeeded, "
    + "failed or cancelled) that ended more than an age ago, with their runs, events and run directories. Tasks "
    + "that wait, run or are held stay, and so does every task linked to one of them (one it waits for, one "
    + "waiting for it, a retry). The work is done by a maintenance job that the daemon runs like any task; this "
    + "command waits for it and prints what it deleted.",
    "Exit codes: 0 done, 1 the job failed, 2 bad input, 4 no daemon."})
final class PruneCmd extends Main.Sub {
  /** How long the command waits for its job to finish, ms. */
  static final long JOB_WAIT_MS = 30 * 60_000L;

  @Option(names = "--older-than", paramLabel = "AGE", description = "delete tasks that ended more than this long "
      + "ago: whole days like 30d, or a duration like 12h or 90m (default: the configuration's retention, 30d "
      + "unless set)")
  String olderThan;

  @Option(names = "--dry-run", description = "only print what would be deleted; change nothing")
  boolean dryRun;

  @Option(names = "--json", description = Main.JSON_HELP)
  boolean json;

  @Override
  public Integer call() throws Exception {
    ObjectNode a = Main.args();
    if (olderThan != null) {
      a.put("olderThanMs", MaintenanceJobs.age("--older-than", olderThan));
    }
    if (dryRun) {
      a.put("job", "prune").put("dryRun", true);
      JsonNode p = Main.call(home(), "prune", a).path("pruning");
      if (json) {
        out().println(Main.pretty(p));
      } else {
        lines(p, System.currentTimeMillis()).forEach(out()::println);
      }
      return 0;
    }
    a.put("job", "prune");
    ObjectNode submit = Main.args();
    submit.put("lane", MaintenanceJobs.LANE.name());
    submit.put("type", MaintenanceJobs.TYPE);
    submit.set("payload", a);
    submit.put("maxAttempts", 5);
    String ticket = Main.call(home(), "submit", submit).path("ticket").path("id").asText();
    JsonNode t = waitFor(ticket);
    JsonNode last = t.path("runs").isEmpty() ? null : t.path("runs").get(t.path("runs").size() - 1);
    if (!t.path("state").asText().equals("SUCCEEDED") || last == null) {
      String why = last == null ? "" : ": " + last.path("diagnosis").asText("");
      System.err.println("vigil: the prune job " + ticket + " ended " + t.path("state").asText() + why
          + " (vigil show " + ticket + ")");
      return 1;
    }
    JsonNode r = last.path("result");
    if (json) {
      ObjectNode o = r.deepCopy();
      o.put("job", ticket);
      out().println(Main.pretty(o));
      return 0;
    }
    out().println("pruned " + count(r.path("tickets").size(), "task") + " " + ids(r.path("tickets")) + " and "
        + count(r.path("runs").size(), "run") + "; removed " + count(r.path("directories").size(), "run directory")
        + " (" + r.path("bytes").asLong() + " bytes) by job " + ticket);
    out().println(kept(r.path("kept")));
    return 0;
  }

  /** The job's ticket once it finished (or is held), asked again of a daemon that restarts meanwhile. */
  private JsonNode waitFor(String ticket) throws InterruptedException {
    long deadline = System.nanoTime() + JOB_WAIT_MS * 1_000_000;
    ObjectNode a = Main.args();
    a.put("ticket", ticket);
    while (true) {
      try {
        JsonNode t = Main.call(home(), "show", a).path("ticket");
        String s = t.path("state").asText();
        if (s.equals("SUCCEEDED") || s.equals("FAILED") || s.equals("CANCELLED") || s.equals("HELD")) {
          return t;
        }
      } catch (Client.Failure f) {
        if (f.exitCode() != Client.NO_DAEMON && f.exitCode() != Client.STORE_UNAVAILABLE) {
          throw f;
        }
      }
      if (System.nanoTime() > deadline) {
        throw new Client.Failure(1, "the prune job " + ticket + " did not finish within "
            + JOB_WAIT_MS / 60_000 + " minutes; it goes on (vigil show " + ticket + ")");
      }
      Thread.sleep(300);
    }
  }

  /** A dry run's lines. */
  static List<String> lines(JsonNode p, long nowWallMs) {
    List<String> out = new ArrayList<>();
    out.add("would prune " + count(p.path("tickets").size(), "task") + " " + ids(p.path("tickets")) + " and "
        + count(p.path("runs").size(), "run") + " that ended more than "
        + MaintenanceJobs.ageText(Math.max(0, nowWallMs - p.path("cutoffMs").asLong()) / 60_000 * 60_000) + " ago; "
        + count(p.path("directories").size(), "run directory") + " would be removed");
    out.add(kept(p.path("kept")));
    out.add("nothing was changed (a dry run)");
    return out;
  }

  private static String kept(JsonNode k) {
    return "staying: " + k.path("notFinished").asInt() + " not finished (waiting, running or held), "
        + k.path("tooRecent").asInt() + " too recent, " + k.path("pinned").asInt()
        + " named by a schedule or an open question, " + k.path("linked").asInt() + " linked to a task that stays";
  }

  private static String count(int n, String what) {
    String plural = what.endsWith("y") ? what.substring(0, what.length() - 1) + "ies" : what + "s";
    return n + " " + (n == 1 ? what : plural);
  }

  private static String ids(JsonNode ids) {
    if (ids.isEmpty()) {
      return "";
    }
    List<String> all = new ArrayList<>();
    ids.forEach(i -> all.add(i.asText()));
    String shown = String.join(", ", all.subList(0, Math.min(20, all.size())));
    return "(" + shown + (all.size() > 20 ? ", and " + (all.size() - 20) + " more" : "") + ")";
  }
}
