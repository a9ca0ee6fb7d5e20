package dev.vigil.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.launcher.internal.Client;
import dev.vigil.launcher.internal.Wire;
import dev.vigil.supervisor.Durations;
import dev.vigil.supervisor.engine.HostView;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code vigil hosts [--json]} and {@code vigil release-host HOST} (H1): the hosts whose daemons have used the
 * store, and an operator's word that one of them never comes back. A daemon watches and recovers only its own
 * host's runs; another host's runs are settled only by a release, never because time passed.
 */
final class HostsCmd {
  private HostsCmd() {}

  @Command(name = "hosts", mixinStandardHelpOptions = true, description = {"The hosts whose daemons have used this "
      + "store: each with its names, its latest daemon, its live runs and until when its daemon holds that work "
      + "(a running daemon renews its hold every few seconds). A daemon looks after the runs of its own host only.",
      "Works with the daemon stopped too (it reads the store)."},
      footer = {"", "Examples:", "  vigil hosts", "  vigil hosts --json"})
  static final class ListCmd extends Main.Sub {
    @Option(names = "--json", description = Main.JSON_HELP)
    boolean json;

    @Override
    public Integer call() {
      ArrayNode hosts = QuestionsCmd.onStoreOrDaemon(home(), store -> Wire.hosts(HostView.of(store.store(), null)),
          client -> (ArrayNode) Client.ok(client.call("hosts", Main.args())).path("hosts"));
      if (json) {
        out().println(hosts.toString());
      } else if (hosts.isEmpty()) {
        out().println("no daemon has used this store yet");
      } else {
        long now = System.currentTimeMillis();
        for (JsonNode h : hosts) {
          out().println(line(h, now));
        }
      }
      return 0;
    }

    /** One host in words: {@code host b-7 (build-2): 1 live run; latest daemon ... started ...; holds its work ...}. */
    static String line(JsonNode h, long nowMs) {
      List<String> names = new ArrayList<>();
      h.path("names").forEach(n -> names.add(n.asText()));
      String who = h.path("thisHost").asBoolean() ? "this host" + (h.path("host").isNull() ? ""
          : " " + h.path("host").asText()) : "host " + h.path("host").asText();
      int live = h.path("liveRuns").asInt();
      String leases;
      if (h.path("heldUntilMs").isNull()) {
        leases = "holds no work";
      } else {
        long until = h.path("heldUntilMs").asLong();
        leases = until < nowMs ? "its hold on its work ran out at " + Views.clockOf(until) + " ("
            + Durations.format(Math.max(0, nowMs - until) / 1000 * 1000) + " ago) and was not renewed"
            : "holds its work until " + Views.clockOf(until);
      }
      return who + " (" + String.join(", ", names) + "): " + live + " live run" + (live == 1 ? "" : "s")
          + "; latest daemon " + h.path("latestDaemon").asText() + " started "
          + Views.clockOf(h.path("latestDaemonStartedAtMs").asLong()) + "; " + leases;
    }
  }

  @Command(name = "release-host", mixinStandardHelpOptions = true, description = {"Say that a host will never come "
      + "back (its machine is gone): the running daemon settles that host's live runs as lost, through the retry "
      + "policy (a task with attempts left runs again here or elsewhere), and rolls back its claims that never "
      + "started. Nothing else ever settles another host's runs, however long it is silent.",
      "Only for a host that is really gone: if it still runs, its work may now run twice at once, until its daemon "
      + "next reaches the store, finds those runs settled here and stops their workers as lost. This host's own runs "
      + "need no release (exit 3); a host the store never saw is exit 2."},
      footer = {"", "Examples:", "  vigil hosts", "  vigil release-host build-box-2"})
  static final class ReleaseCmd extends Main.Sub {
    @Parameters(index = "0", paramLabel = "HOST", description = "the host's id, as vigil hosts shows it")
    String host;

    @Option(names = "--json", description = Main.JSON_HELP)
    boolean json;

    @Override
    public Integer call() {
      ObjectNode args = Main.args();
      args.put("host", host);
      JsonNode reply = Main.call(home(), "release-host", args);
      out().println(json ? reply.toString() : reply.path("message").asText());
      return 0;
    }
  }
}
