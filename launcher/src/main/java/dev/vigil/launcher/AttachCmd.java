package dev.vigil.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.launcher.internal.Client;
import dev.vigil.launcher.internal.Home;
import dev.vigil.launcher.internal.Wire;
import dev.vigil.supervisor.RestoreNotices;
import dev.vigil.supervisor.Step;
import dev.vigil.worker.rundir.OutputFile;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code vigil attach SERVICE [--follow] [--json]}: a service's transcript (S7, DESIGN.md "Service
 * transcripts"). The lifecycle entries come from the store (through the daemon, or read from the store when no
 * daemon runs); the output lines from the service's {@code stdout.log}, each entry placed after the output that
 * was written before it (its output mark).
 *
 * <p>One invocation is one view. Every attach (the first, and each after the daemon came back or a worker was
 * launched) rebuilds the view from the stored entries: lifecycle entries past the last one printed are printed,
 * and which restore notices are shown is decided by {@link RestoreNotices.View}, so each notice is shown once
 * per view however often it attaches.
 */
@Command(name = "attach", mixinStandardHelpOptions = true, description = {"A service's transcript: when its workers "
    + "were launched, taken over by a new daemon, exited, restarted (after what pause) or given up on, when a worker "
    + "started over a saved snapshot, and the service's output lines (stdout) in between, in order. A service keeps "
    + "its last 1000 such events and its last 100 snapshot notices; its output is bounded as vigil logs says.",
    "With --follow: keeps printing new lines until Ctrl-C, also across a restart of the daemon or of the worker; "
        + "each snapshot notice is shown once. Without a daemon: what the store holds (with --follow, then waits for "
        + "a daemon)."}, footer = {"", "Examples:", "  vigil attach indexer", "  vigil attach indexer --follow"})
final class AttachCmd extends Main.Sub {
  /** Pause between looks for new lines while following, ms. */
  static final long FOLLOW_POLL_MS = 300;
  /** Entries asked for per call. */
  static final int PAGE = 500;

  @Parameters(paramLabel = "SERVICE", description = "a service's name, as in the configuration (vigil services lists them)")
  String service;

  @Option(names = "--follow", description = "keep printing new lines until Ctrl-C (default: print the transcript and exit)")
  boolean follow;

  @Option(names = "--json", description = "one JSON object per line (its fields: docs/CLI.md)")
  boolean json;

  /** The last lifecycle entry this view printed. */
  private long lastId;
  /** Which restore notices this view has shown (S7). */
  private RestoreNotices.View view = RestoreNotices.View.fresh();
  private OutputFile.Reader output;
  /** Output bytes read but not yet printed as a line (JSON mode). */
  private final ByteArrayOutputStream partial = new ByteArrayOutputStream();
  /** Whether the text printed last ended a line. */
  private boolean atLineStart = true;

  @Override
  public Integer call() throws InterruptedException {
    if (!service.matches("[a-z0-9_-]{1,64}")) {
      throw new IllegalArgumentException("'" + service + "' is not a service name (lower-case letters, digits, _ and -)");
    }
    Home h = home();
    output = OutputFile.at(h.runs().resolve("s-" + service).resolve("stdout.log")).reader();
    if (!follow) {
      List<JsonNode> stored = Main.daemonOrStore(h, () -> {
        try (Client c = Main.connect(h, false)) {
          return all(c);
        }
      }, r -> entries(p -> r.call("transcript", p)));
      if (stored.isEmpty()) {
        System.err.println("vigil: the store holds no transcript of service " + service
            + " (vigil services lists the configured services)");
      }
      attach(stored);
      flushPartial();
      return 0;
    }
    boolean waiting = false;
    boolean first = true;
    while (true) {
      try (Client c = Main.connect(h, false)) {
        if (waiting) {
          System.err.println("vigil: the daemon answers again; the transcript goes on");
          waiting = false;
        }
        attach(all(c));
        first = false;
        while (true) {
          List<JsonNode> fresh = page(c, lastId);
          boolean relaunched = false;
          for (JsonNode e : fresh) {
            String kind = e.path("kind").asText();
            relaunched |= kind.equals("LAUNCHED") || kind.equals("ADOPTED");
          }
          if (relaunched) {
            attach(all(c)); // a worker restarted: the view is rebuilt from what is stored
          } else {
            live(fresh);
          }
          copyOutput(Long.MAX_VALUE);
          Thread.sleep(FOLLOW_POLL_MS);
        }
      } catch (Client.Failure f) {
        if (f.exitCode() != Client.NO_DAEMON && f.exitCode() != 1) {
          throw f;
        }
        if (first) {
          first = false;
          try {
            attach(Main.daemonOrStore(h, () -> {
              throw f;
            }, r -> entries(p -> r.call("transcript", p))));
          } catch (Client.Failure none) {
            // no store yet either: wait for a daemon
          }
        }
        if (!waiting) {
          System.err.println("vigil: " + f.getMessage() + "; waiting for it (nothing is lost meanwhile)");
          waiting = true;
        }
        copyOutput(Long.MAX_VALUE);
        Thread.sleep(FOLLOW_POLL_MS);
      }
    }
  }

  /**
   * One attach: the view rebuilt from every stored entry. Lifecycle entries past the last one printed are printed
   * in order, each after the output written before it; the restore notices the view has not shown are shown
   * (at their place when it is still ahead, else at once).
   */
  private void attach(List<JsonNode> stored) {
    List<RestoreNotices.Notice> notices = new ArrayList<>();
    for (JsonNode e : stored) {
      if (e.path("kind").asText().equals("RESTORED")) {
        notices.add(notice(e));
      }
    }
    Step<RestoreNotices.View, RestoreNotices.Shown> s = view.attach(RestoreNotices.of(notices));
    view = s.next();
    Set<String> toShow = new HashSet<>();
    if (s.decision() instanceof RestoreNotices.Shown.Show show) {
      show.notices().forEach(n -> toShow.add(n.restoreId()));
    } else if (!(s.decision() instanceof RestoreNotices.Shown.NothingNew)) {
      throw new AssertionError(s.decision());
    }
    for (JsonNode e : stored) {
      if (e.path("id").asLong() <= lastId) {
        continue;
      }
      copyOutput(e.path("outputAt").asLong());
      if (!e.path("kind").asText().equals("RESTORED") || toShow.remove(e.path("restoreId").asText())) {
        printEntry(e);
      }
      lastId = e.path("id").asLong();
    }
    for (JsonNode e : stored) { // notices this view has not shown whose place it passed already
      if (e.path("kind").asText().equals("RESTORED") && toShow.remove(e.path("restoreId").asText())) {
        printEntry(e);
      }
    }
    copyOutput(Long.MAX_VALUE);
  }

  /** Entries stored while this view follows: a restore notice is shown when the view has not shown it. */
  private void live(List<JsonNode> fresh) {
    for (JsonNode e : fresh) {
      copyOutput(e.path("outputAt").asLong());
      if (e.path("kind").asText().equals("RESTORED")) {
        Step<RestoreNotices.View, RestoreNotices.Shown> s = view.onNotice(notice(e));
        view = s.next();
        if (s.decision() instanceof RestoreNotices.Shown.Show) {
          printEntry(e);
        } else if (!(s.decision() instanceof RestoreNotices.Shown.NothingNew)) {
          throw new AssertionError(s.decision());
        }
      } else {
        printEntry(e);
      }
      lastId = e.path("id").asLong();
    }
  }

  private static RestoreNotices.Notice notice(JsonNode e) {
    return new RestoreNotices.Notice(e.path("restoreId").asText(), e.path("text").asText(), e.path("atMs").asLong());
  }

  private void printEntry(JsonNode e) {
    PrintStream out = out();
    if (json) {
      ObjectNode o = ((ObjectNode) e).deepCopy();
      o.put("service", service);
      out.println(o);
    } else {
      if (!atLineStart) {
        out.println();
      }
      String kind = e.path("kind").asText();
      String what = kind.equals("RESTORED") ? notice(e).text()
          : kind.toLowerCase(java.util.Locale.ROOT).replace('_', ' ') + ": " + e.path("text").asText();
      out.println("-- " + java.time.Instant.ofEpochMilli(e.path("atMs").asLong()) + " " + what);
    }
    atLineStart = true;
    out.flush();
  }

  /** Copies the service's output up to stream offset {@code upTo}: raw text, or one JSON object per whole line. */
  private void copyOutput(long upTo) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try {
      output.copyNew(bytes, upTo);
    } catch (IOException e) {
      System.err.println("vigil: cannot read the output of service " + service + ": " + e.getMessage());
      return;
    }
    byte[] b = bytes.toByteArray();
    if (b.length == 0) {
      return;
    }
    PrintStream out = out();
    if (!json) {
      out.write(b, 0, b.length);
      atLineStart = b[b.length - 1] == '\n';
      out.flush();
      return;
    }
    int from = 0;
    for (int i = 0; i < b.length; i++) {
      if (b[i] == '\n') {
        partial.write(b, from, i - from);
        printLine(partial.toString(StandardCharsets.UTF_8));
        partial.reset();
        from = i + 1;
      }
    }
    partial.write(b, from, b.length - from);
    out.flush();
  }

  private void flushPartial() {
    if (json && partial.size() > 0) {
      printLine(partial.toString(StandardCharsets.UTF_8));
      partial.reset();
    } else if (!json && !atLineStart) {
      out().println();
      atLineStart = true;
    }
    out().flush();
  }

  private void printLine(String line) {
    ObjectNode o = Wire.JSON.createObjectNode();
    o.put("service", service);
    o.put("kind", "OUTPUT");
    o.put("text", line);
    out().println(o);
  }

  /** Every stored entry of the service, page by page. */
  private List<JsonNode> all(Client c) {
    return entries(a -> Client.ok(c.call("transcript", a)));
  }

  private List<JsonNode> entries(java.util.function.Function<ObjectNode, ObjectNode> call) {
    List<JsonNode> out = new ArrayList<>();
    long after = 0;
    while (true) {
      ObjectNode a = Main.args();
      a.put("service", service);
      a.put("after", after);
      a.put("limit", PAGE);
      JsonNode page = Client.ok(call.apply(a)).path("entries");
      page.forEach(out::add);
      if (page.size() < PAGE) {
        return out;
      }
      after = page.get(page.size() - 1).path("id").asLong();
    }
  }

  private List<JsonNode> page(Client c, long after) {
    ObjectNode a = Main.args();
    a.put("service", service);
    a.put("after", after);
    a.put("limit", PAGE);
    List<JsonNode> out = new ArrayList<>();
    Client.ok(c.call("transcript", a)).path("entries").forEach(out::add);
    return out;
  }
}
