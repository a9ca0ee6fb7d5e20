package dev.vigil.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.launcher.internal.Client;
import dev.vigil.launcher.internal.Home;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vigil events [--follow] [--json] [--since ID]}: the daemon's settlements, holds,
 * cancellations, kills, time-outs and service give-ups, in order, each with its id. The stream is kept in the store and
 * each event is written with the decision it reports, so a consumer that remembers the last id it
 * saw and asks {@code --since} it misses nothing, across restarts of the daemon and of itself.
 */
@Command(name = "events", mixinStandardHelpOptions = true, description = {"Settlements, holds, cancellations, kills, time-outs, service give-ups and questions for a person, in order, each "
    + "with its id. Without --follow: every event (or those after --since); with --follow: the events from now on "
    + "(or after --since), printed as they come, across daemon restarts.",
    "A desktop notification for each: vigil events --follow | while read -r e; do notify-send vigil \"$e\"; done"})
final class EventsCmd extends Main.Sub {
  /** Pause between looks for new events while following, ms. */
  static final long FOLLOW_POLL_MS = 500;
  /** Events asked for per call. */
  static final int PAGE = 500;

  @Option(names = "--follow", description = "keep printing events as they come, until Ctrl-C (default: print those there are and exit)")
  boolean follow;

  @Option(names = "--json", description = "one JSON object per line (its fields: docs/CLI.md)")
  boolean json;

  @Option(names = "--since", paramLabel = "ID", description = "only events after this id (default: all; with --follow, from now on)")
  String since;

  @Override
  public Integer call() throws InterruptedException {
    long after = since == null ? 0 : parseId(since);
    Home h = home();
    if (!follow) {
      try (Client c = Client.connect(h, false)) {
        while (true) {
          List<JsonNode> page = page(c, after);
          page.forEach(this::print);
          if (page.size() < PAGE) {
            return 0;
          }
          after = page.get(page.size() - 1).path("id").asLong();
        }
      }
    }
    if (since == null) {
      after = latest(h);
    }
    boolean waiting = false;
    while (true) {
      try (Client c = Client.connect(h, false)) {
        if (waiting) {
          System.err.println("vigil: the daemon answers again; following from event " + after);
          waiting = false;
        }
        while (true) {
          List<JsonNode> page = page(c, after);
          for (JsonNode e : page) {
            print(e);
            after = e.path("id").asLong();
          }
          if (page.size() < PAGE) {
            Thread.sleep(FOLLOW_POLL_MS);
          }
        }
      } catch (Client.Failure f) {
        if (f.exitCode() != 4 && f.exitCode() != 1) {
          throw f;
        }
        if (!waiting) {
          System.err.println("vigil: " + f.getMessage() + "; waiting for it (no event is lost meanwhile)");
          waiting = true;
        }
        Thread.sleep(FOLLOW_POLL_MS);
      }
    }
  }

  private static long parseId(String text) {
    try {
      long id = Long.parseLong(text);
      if (id >= 0) {
        return id;
      }
    } catch (NumberFormatException e) {
      // below
    }
    throw new IllegalArgumentException("--since '" + text + "': not an event id (a whole number, like 42)");
  }

  /** The id of the latest event, so that following starts from now. */
  private static long latest(Home h) {
    long after = 0;
    try (Client c = Client.connect(h, false)) {
      while (true) {
        List<JsonNode> page = page(c, after);
        if (page.isEmpty()) {
          return after;
        }
        after = page.get(page.size() - 1).path("id").asLong();
        if (page.size() < PAGE) {
          return after;
        }
      }
    }
  }

  private static List<JsonNode> page(Client c, long after) {
    ObjectNode a = Main.args();
    a.put("after", after);
    a.put("limit", PAGE);
    JsonNode events = Client.ok(c.call("events", a)).path("events");
    List<JsonNode> out = new java.util.ArrayList<>();
    events.forEach(out::add);
    return out;
  }

  private void print(JsonNode e) {
    out().println(json ? e.toString() : Views.eventLine(e));
    out().flush();
  }
}
