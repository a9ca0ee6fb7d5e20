package dev.vigil.launcher.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code vigil logs RUN|TICKET [--follow]}: copies a run's {@code stdout.log} and {@code stderr.log}
 * to the terminal's stdout and stderr.
 *
 * <p>Without {@code --follow} it copies what there is: a run's logs, or a ticket's latest run's.
 *
 * <p>With {@code --follow} it copies what is written until the run settles, then prints the
 * verdict line on stderr ({@code vigil: t-3.1 FAILED: exit code 2}) and ends: exit 0 when it
 * succeeded, 1 for any other end.
 *
 * <ul>
 *   <li>A run that has not started yet is waited for while its ticket can still start it (READY or
 *       running); if the ticket is HELD or finished first, it ends (exit 1, or exit 2 when the run
 *       can never exist).
 *   <li>A ticket is followed through its runs: the current one, or the next one once it starts. A
 *       run that settles and leaves the ticket queued again (a retry after a failure, a stall) is
 *       followed by the next attempt. It ends when the ticket settles (exit 0 when it SUCCEEDED) or
 *       is HELD (exit 1, with how to release it). A ticket that finished before is shown as it
 *       ended: its latest run's logs and verdict.
 *   <li>A service's worker ({@code s-NAME}) has no end: its logs are followed until Ctrl-C.
 * </ul>
 *
 * <p>The logs are read from the run directory every {@value #POLL_MS} ms and the daemon is asked
 * about the run at the same pace, over one connection; when the daemon restarts, the follow
 * reconnects (waiting as {@code --wait-daemon} says) and goes on.
 */
public final class LogFollow {
  /** The pause between two reads of the logs and of the run's state, ms. */
  static final long POLL_MS = 250;

  private static final Pattern RUN = Pattern.compile("t-[0-9]+\\.[0-9]+");
  private static final Pattern TICKET = Pattern.compile("t-[0-9]+");
  private static final Pattern SERVICE = Pattern.compile("s-[a-z0-9_-]+");

  /** A connection to the daemon, made again when lost. */
  public interface Daemon {
    /**
     * The {@code show} reply's ticket, or empty when there is no such ticket.
     *
     * @throws Client.Failure when the daemon cannot be reached
     */
    Optional<JsonNode> show(String ticket);
  }

  private final Home home;
  private final Daemon daemon;
  private final PrintStream out;
  private final PrintStream err;
  private final List<String> said = new ArrayList<>();

  public LogFollow(Home home, Daemon daemon, PrintStream out, PrintStream err) {
    this.home = Objects.requireNonNull(home, "home");
    this.daemon = Objects.requireNonNull(daemon, "daemon");
    this.out = Objects.requireNonNull(out, "out");
    this.err = Objects.requireNonNull(err, "err");
  }

  /** {@code logs ID}: the exit code. */
  public int run(String id, boolean follow) throws IOException, InterruptedException {
    if (SERVICE.matcher(id).matches()) {
      return service(id, follow);
    }
    if (RUN.matcher(id).matches()) {
      return follow ? followRun(id) : printRun(id);
    }
    if (TICKET.matcher(id).matches()) {
      return follow ? followTicket(id) : printTicket(id);
    }
    throw new IllegalArgumentException("'" + id + "' is not a run or ticket id (like t-12.1 or t-12)");
  }

  // ---- without --follow ----

  private int printRun(String run) throws IOException {
    Path dir = home.runs().resolve(run);
    if (Files.isDirectory(dir)) {
      new LogTail(dir).copyNew(out, err);
      return 0;
    }
    if (daemon.show(ticketOf(run)).flatMap(t -> runIn(t, run)).isEmpty()) {
      throw new Client.Failure(2, "no such run: " + run);
    }
    return 0; // claimed a moment ago: no output yet
  }

  private int printTicket(String ticket) throws IOException {
    JsonNode t = ticket(ticket);
    JsonNode runs = t.path("runs");
    if (runs.isEmpty()) {
      err.println("vigil: " + ticket + " has not run yet (" + state(t) + ")");
      return 0;
    }
    new LogTail(home.runs().resolve(runs.get(runs.size() - 1).path("id").asText())).copyNew(out, err);
    return 0;
  }

  // ---- --follow ----

  private int followRun(String run) throws IOException, InterruptedException {
    String ticket = ticketOf(run);
    LogTail tail = new LogTail(home.runs().resolve(run));
    while (true) {
      JsonNode t = ticket(ticket);
      Optional<JsonNode> r = runIn(t, run);
      tail.copyNew(out, err);
      if (r.isPresent() && settled(r.get())) {
        tail.copyNew(out, err);
        verdictLine(r.get());
        return succeeded(r.get()) ? 0 : 1;
      }
      if (r.isEmpty()) {
        String state = state(t);
        if (terminal(state)) {
          throw new Client.Failure(2, "no such run: " + run + " (" + ticket + " is " + state + " after "
              + t.path("runs").size() + " runs)");
        }
        if (state.equals("HELD")) {
          err.println("vigil: " + run + " has not started: " + heldLine(t));
          return 1;
        }
        sayOnce(ticket + " is " + waiting(t) + "; " + run + " has not started yet, waiting for it");
      }
      Thread.sleep(POLL_MS);
    }
  }

  private int followTicket(String ticket) throws IOException, InterruptedException {
    JsonNode t = ticket(ticket);
    String state = state(t);
    JsonNode runs = t.path("runs");
    if (liveRun(t).isEmpty() && (terminal(state) || state.equals("HELD")) && !runs.isEmpty()) {
      JsonNode last = runs.get(runs.size() - 1); // finished before: show how it ended
      new LogTail(home.runs().resolve(last.path("id").asText())).copyNew(out, err);
      verdictLine(last);
    }
    String following = null;
    LogTail tail = null;
    boolean followedOne = false;
    while (true) {
      if (following == null) {
        Optional<JsonNode> live = liveRun(t);
        if (live.isPresent()) {
          following = live.get().path("id").asText();
          tail = new LogTail(home.runs().resolve(following));
          if (followedOne) {
            err.println("vigil: following " + following + " (attempt " + live.get().path("attempt").asInt() + " of "
                + t.path("maxAttempts").asInt() + ")");
          }
        } else {
          state = state(t);
          if (state.equals("SUCCEEDED")) {
            return 0;
          } else if (terminal(state)) {
            err.println("vigil: " + ticket + " " + state + reason(t));
            return 1;
          } else if (state.equals("HELD")) {
            err.println("vigil: " + heldLine(t));
            return 1;
          }
          sayOnce(ticket + " is " + waiting(t) + "; waiting for its " + (runs.isEmpty() ? "first" : "next") + " run");
        }
      }
      if (tail != null) {
        tail.copyNew(out, err);
      }
      if (following != null) {
        Optional<JsonNode> r = runIn(t, following);
        if (r.isPresent() && settled(r.get())) {
          tail.copyNew(out, err);
          verdictLine(r.get());
          following = null;
          tail = null;
          followedOne = true;
          said.clear();
          continue; // the same view says what the ticket does next
        }
      }
      Thread.sleep(POLL_MS);
      t = ticket(ticket);
      runs = t.path("runs");
    }
  }

  private int service(String id, boolean follow) throws IOException, InterruptedException {
    Path dir = home.runs().resolve(id);
    if (!Files.isDirectory(dir)) {
      throw new Client.Failure(2, "no such service worker: " + id);
    }
    LogTail tail = new LogTail(dir);
    do {
      tail.copyNew(out, err);
      if (follow) {
        Thread.sleep(2 * POLL_MS);
      }
    } while (follow);
    return 0;
  }

  // ---- reading the daemon's view ----

  private JsonNode ticket(String ticket) {
    return daemon.show(ticket).orElseThrow(() -> new Client.Failure(2, "no such ticket " + ticket));
  }

  private static String ticketOf(String run) {
    return run.substring(0, run.indexOf('.'));
  }

  private static Optional<JsonNode> runIn(JsonNode ticket, String run) {
    for (JsonNode r : ticket.path("runs")) {
      if (r.path("id").asText().equals(run)) {
        return Optional.of(r);
      }
    }
    return Optional.empty();
  }

  /** The ticket's run that has not settled (at most one: one lease per ticket). */
  private static Optional<JsonNode> liveRun(JsonNode ticket) {
    for (JsonNode r : ticket.path("runs")) {
      if (!settled(r)) {
        return Optional.of(r);
      }
    }
    return Optional.empty();
  }

  private static boolean settled(JsonNode run) {
    return run.path("state").asText().equals("SETTLED");
  }

  private static boolean succeeded(JsonNode run) {
    return run.path("verdict").asText().equals("SUCCEEDED");
  }

  private static String state(JsonNode ticket) {
    return ticket.path("state").asText();
  }

  private static boolean terminal(String state) {
    return state.equals("SUCCEEDED") || state.equals("FAILED") || state.equals("CANCELLED");
  }

  private static String reason(JsonNode ticket) {
    return ticket.hasNonNull("holdReason") ? ": " + ticket.path("holdReason").asText() : "";
  }

  private static String heldLine(JsonNode ticket) {
    String id = ticket.path("id").asText();
    return id + " is HELD" + reason(ticket) + "; vigil release " + id + " to let it run again";
  }

  /** Why a ticket without a live run has not started one: queued, not due, parked. */
  private static String waiting(JsonNode ticket) {
    StringBuilder b = new StringBuilder("queued");
    long due = ticket.path("notBeforeMs").asLong(0);
    if (due > System.currentTimeMillis()) {
      b.append(", due at ").append(Instant.ofEpochMilli(due).atZone(ZoneId.systemDefault())
          .truncatedTo(ChronoUnit.SECONDS).toLocalDateTime());
    }
    if (ticket.path("parked").asBoolean()) {
      b.append(", parked");
    }
    return b.toString();
  }

  /** {@code vigil: t-3.1 FAILED: exit code 2}: how a run ended, in plain words. */
  private void verdictLine(JsonNode run) {
    String diagnosis = run.hasNonNull("diagnosis") ? run.path("diagnosis").asText() : "";
    err.println("vigil: " + run.path("id").asText() + " " + run.path("verdict").asText()
        + (diagnosis.isEmpty() ? "" : ": " + diagnosis));
    err.flush();
  }

  private void sayOnce(String line) {
    if (!said.contains(line)) {
      said.add(line);
      err.println("vigil: " + line);
    }
  }

  /** A {@link Daemon} over one connection, made again (waiting up to {@code waitMs}) when it is lost. */
  public static Daemon over(Home home, long waitMs) {
    return new Daemon() {
      private Client client;

      @Override
      public Optional<JsonNode> show(String ticket) {
        ObjectNode a = Wire.JSON.createObjectNode();
        a.put("ticket", ticket);
        for (int attempt = 0; ; attempt++) {
          if (client == null) {
            client = Client.connect(home, false, waitMs);
          }
          ObjectNode r;
          try {
            r = client.call("show", a);
          } catch (Client.Failure f) {
            client.close();
            client = null;
            if ((f.exitCode() == 4 || f.exitCode() == 1) && attempt == 0) {
              continue; // the connection was lost (the daemon went away): connect again, waiting as a new command would
            }
            throw f;
          }
          if ("NotFound".equals(r.path("kind").asText())) {
            return Optional.empty();
          }
          return Optional.of(Client.ok(r).path("ticket"));
        }
      }
    };
  }
}
