package dev.vigil.bridge;

import dev.vigil.supervisor.Durations;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * One bridge scenario: a small text a person reads and writes, run by both runners (the
 * simulation and the real stack), whose normalised transcripts must be equal line for line, and
 * equal to the transcript written at its end.
 *
 * <pre>
 * # Q2 a stall is free: a STALLED verdict spends no attempt; the ticket is READY at the hint.
 * lanes default=2                      configuration: lanes and their concurrency
 * max-attempts 3                       the attempts of a submission that names none
 * service idx                          a service of the scripted type, and what each launch does
 *   launch 1-6: crash after 200ms
 *   launch *: serve
 * build b2 version 1.0.0               the version a build label stands for (default 1.0.0)
 * transcript renewals                  also show renewal denials and re-armed leases (C3, C4)
 *
 * boot                                 steps, one per line
 * submit a attempts=1                  a task of the scripted type, and what its N-th run does
 *   1: stall 2s after 300ms
 *   *: exit 0 after 300ms
 * await a SUCCEEDED within 20s
 * show a
 * --- transcript
 * (the expected transcript)
 * </pre>
 *
 * Steps: {@code boot [BUILD]}, {@code crash} (kill -9 of the daemon), {@code sigterm} (the daemon
 * closes, leaving its workers), {@code suspend D} (SIGSTOP for D, then SIGCONT), {@code submit
 * LABEL [lane=L] [attempts=N] [priority=P] [timeout=D]}, {@code tell LABEL [fork]} (a run "until told" ends),
 * {@code kill worker LABEL}, {@code kill service NAME}, {@code kill LABEL [retry|hold]} (an
 * operator's kill, Q13),
 * {@code park|unpark LABEL}, {@code park|unpark lane L}, {@code hold|release|cancel LABEL},
 * {@code run LABEL} (by hand), {@code pause}, {@code resume}, {@code down if-idle|stop-workers},
 * {@code service start|stop NAME}, {@code service work NAME D}, {@code await CONDITION [within D]},
 * {@code wait D}, {@code show LABEL}, {@code show lease LABEL}, {@code status}, {@code second
 * daemon}, {@code claim LABEL by dead-owner|live-owner [age D]}, {@code exit LABEL by dead-owner},
 * {@code finish LABEL again}, {@code forge hello LABEL}, {@code up BUILD}, {@code client BUILD
 * status}, {@code watch BUILD}. Conditions: {@code LABEL working|running|done|gone|runs N|STATE},
 * {@code service NAME up|down|given-up|busy|gone}, {@code daemon stopped}.
 *
 * @param name     the file's name without {@code .txt}; it starts with the law id
 * @param config   lanes, attempts, services, builds
 * @param steps    the steps in order
 * @param expected the expected transcript, or null when the file has none yet
 */
public record Scenario(String name, Config config, List<Step> steps, List<String> expected) {
  /** The marker before the expected transcript. */
  public static final String TRANSCRIPT = "--- transcript";
  /** The default of an {@code await}'s {@code within}. */
  static final long AWAIT_MS = 30_000;

  public Scenario {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(config, "config");
    steps = List.copyOf(steps);
    expected = expected == null ? null : List.copyOf(expected);
  }

  /**
   * The configuration.
   *
   * @param lanes       lane → concurrency, in order
   * @param maxAttempts attempts of a submission that names none
   * @param services    service name → launch number (or "*") → behaviour
   * @param versions    build label → version
   * @param renewals    whether renewal denials and re-armed leases are in the transcript
   */
  public record Config(Map<String, Integer> lanes, int maxAttempts, Map<String, Map<String, Behaviour>> services,
                       Map<String, String> versions, boolean renewals) {
    public Config {
      lanes = new LinkedHashMap<>(lanes);
      services = new TreeMap<>(services);
      versions = new TreeMap<>(versions);
    }

    /** The version of a build label. */
    public String version(String build) {
      return versions.getOrDefault(build, "1.0.0");
    }

    /** The build id a label runs as: {@code VERSION+LABEL}. */
    public String buildId(String build) {
      return version(build) + "+" + build;
    }
  }

  /** One step. */
  public sealed interface Step {
    /** The step as written. */
    String text();
  }

  record Boot(String text, String build) implements Step {}

  record Crash(String text) implements Step {}

  record Sigterm(String text) implements Step {}

  record Suspend(String text, long ms) implements Step {}

  /** A submission; {@code after} names the labels of the tickets it waits for (Q14). */
  record Submit(String text, String label, String lane, Integer attempts, int priority, long timeoutMs,
                Map<String, Behaviour> behaviours, List<String> after) implements Step {}

  /** An operator's kill of the ticket's live run (Q13): then cancel, retry or hold. */
  record Kill(String text, String label, String then) implements Step {}

  record KillWorker(String text, String label) implements Step {}

  record KillService(String text, String service) implements Step {}

  /** The worker (or, with {@code fork}, the grandchild) of the ticket's latest run, "until told", ends now. */
  record Tell(String text, String label, boolean fork) implements Step {}

  /** park, unpark, hold, release, cancel, run (by hand) of a ticket. */
  record TicketVerb(String text, String verb, String label) implements Step {}

  /** park or unpark of a lane. */
  record LaneVerb(String text, String verb, String lane) implements Step {}

  /** pause or resume. */
  record Dispatch(String text, String verb) implements Step {}

  record Down(String text, boolean ifIdle) implements Step {}

  /** start or stop a service. */
  record ServiceVerb(String text, String verb, String service) implements Step {}

  record ServiceWork(String text, String service, long ms) implements Step {}

  record Await(String text, List<String> condition, long withinMs) implements Step {}

  record Wait(String text, long ms) implements Step {}

  record Show(String text, String label) implements Step {}

  record ShowLease(String text, String label) implements Step {}

  record StatusFileStep(String text) implements Step {}

  record SecondDaemon(String text) implements Step {}

  /** A claim of a ticket by another daemon: a dead one, or a live one whose claim is {@code ageMs} old. */
  record ForeignClaim(String text, String label, boolean liveOwner, long ageMs) implements Step {}

  /** A dead daemon claimed, started and took the exit of the ticket's run, then died before its finish. */
  record ForeignExit(String text, String label) implements Step {}

  /** A second finish of a run ({@code LABEL.N}, or the ticket's latest run), by a later recovery. */
  record FinishAgain(String text, String label) implements Step {}

  record ForgeHello(String text, String label) implements Step {}

  record Up(String text, String build) implements Step {}

  record ClientStatus(String text, String build) implements Step {}

  record Watch(String text, String build) implements Step {}

  /**
   * Whether a step starts a new part of the transcript: every step but waiting ({@code await},
   * {@code wait}) and a submission right after another (submissions in a row are one act), so a
   * part holds what followed one act or one look.
   */
  static boolean startsPart(Step previous, Step s) {
    return !(s instanceof Await || s instanceof Wait || (s instanceof Submit && previous instanceof Submit));
  }

  // ---- reading ----

  /** Reads a scenario file. */
  public static Scenario read(Path file) throws IOException {
    String n = file.getFileName().toString();
    return parse(n.endsWith(".txt") ? n.substring(0, n.length() - 4) : n,
        Files.readAllLines(file, StandardCharsets.UTF_8));
  }

  /**
   * Parses a scenario.
   *
   * @throws IllegalArgumentException naming the line that is wrong
   */
  public static Scenario parse(String name, List<String> lines) {
    Map<String, Integer> lanes = new LinkedHashMap<>();
    int maxAttempts = 3;
    Map<String, Map<String, Behaviour>> services = new TreeMap<>();
    Map<String, String> versions = new TreeMap<>();
    boolean renewals = false;
    List<Step> steps = new ArrayList<>();
    List<String> expected = null;
    Map<String, Behaviour> indented = null;
    for (int i = 0; i < lines.size(); i++) {
      String raw = lines.get(i);
      if (expected != null) {
        expected.add(raw);
        continue;
      }
      if (raw.equals(TRANSCRIPT)) {
        expected = new ArrayList<>();
        continue;
      }
      String line = raw.contains("#") ? raw.substring(0, raw.indexOf('#')) : raw;
      if (line.isBlank()) {
        continue;
      }
      String where = name + " line " + (i + 1) + " '" + raw.trim() + "'";
      try {
        if (Character.isWhitespace(line.charAt(0))) {
          if (indented == null) {
            throw new IllegalArgumentException("an indented line belongs to a submit or a service");
          }
          behaviours(indented, line.trim());
          continue;
        }
        indented = null;
        String[] w = line.trim().split("\\s+");
        String text = String.join(" ", w);
        switch (w[0]) {
          case "lanes" -> {
            for (int k = 1; k < w.length; k++) {
              String[] kv = w[k].split("=", 2);
              lanes.put(kv[0], Integer.parseInt(kv[1]));
            }
          }
          case "max-attempts" -> maxAttempts = Integer.parseInt(w[1]);
          case "service" -> {
            if (w.length == 2) {
              indented = new TreeMap<>();
              services.put(w[1], indented);
            } else {
              steps.add(serviceStep(text, w));
            }
          }
          case "build" -> versions.put(w[1], w[3]);
          case "transcript" -> renewals = w[1].equals("renewals");
          case "submit" -> {
            String lane = "default";
            Integer attempts = null;
            int priority = 0;
            long timeout = 0;
            List<String> after = new ArrayList<>();
            for (int k = 2; k < w.length; k++) {
              String[] kv = w[k].split("=", 2);
              switch (kv[0]) {
                case "lane" -> lane = kv[1];
                case "attempts" -> attempts = Integer.parseInt(kv[1]);
                case "priority" -> priority = Integer.parseInt(kv[1]);
                case "timeout" -> timeout = Durations.parse(kv[1]);
                case "after" -> after.addAll(List.of(kv[1].split(",")));
                default -> throw new IllegalArgumentException("unknown submit option " + kv[0]);
              }
            }
            indented = new TreeMap<>();
            steps.add(new Submit(text, w[1], lane, attempts, priority, timeout, indented, after));
          }
          default -> steps.add(step(text, w));
        }
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
      }
    }
    if (lanes.isEmpty()) {
      lanes.put("default", 2);
    }
    if (expected != null) {
      while (!expected.isEmpty() && expected.get(expected.size() - 1).isBlank()) {
        expected.remove(expected.size() - 1);
      }
    }
    return new Scenario(name, new Config(lanes, maxAttempts, services, versions, renewals), steps, expected);
  }

  /** {@code N: B}, {@code N-M: B}, {@code *: B}, with an optional leading {@code launch}. */
  private static void behaviours(Map<String, Behaviour> into, String line) {
    String l = line.startsWith("launch ") ? line.substring("launch ".length()) : line;
    int colon = l.indexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("write 'N: behaviour', 'N-M: behaviour' or '*: behaviour'");
    }
    String which = l.substring(0, colon).trim();
    Behaviour b = Behaviour.parse(l.substring(colon + 1));
    if (which.equals("*")) {
      into.put("*", b);
    } else if (which.contains("-")) {
      String[] r = which.split("-");
      for (int n = Integer.parseInt(r[0]); n <= Integer.parseInt(r[1]); n++) {
        into.put(Integer.toString(n), b);
      }
    } else {
      into.put(Integer.toString(Integer.parseInt(which)), b);
    }
  }

  private static Step serviceStep(String text, String[] w) {
    return switch (w[1]) {
      case "start", "stop" -> new ServiceVerb(text, w[1], w[2]);
      case "work" -> new ServiceWork(text, w[2], Durations.parse(w[3]));
      default -> throw new IllegalArgumentException("service start|stop NAME or service work NAME DURATION");
    };
  }

  private static final Set<String> TICKET_VERBS = Set.of("park", "unpark", "hold", "release", "cancel", "run");

  private static Step step(String text, String[] w) {
    String verb = w[0];
    if (TICKET_VERBS.contains(verb)) {
      if (w[1].equals("lane")) {
        return new LaneVerb(text, verb, w[2]);
      }
      return new TicketVerb(text, verb, w[1]);
    }
    return switch (verb) {
      case "boot" -> new Boot(text, w.length > 1 ? w[1] : null);
      case "crash" -> new Crash(text);
      case "sigterm" -> new Sigterm(text);
      case "suspend" -> new Suspend(text, Durations.parse(w[1]));
      case "kill" -> w[1].equals("worker") ? new KillWorker(text, w[2]) : w[1].equals("service")
          ? new KillService(text, w[2]) : new Kill(text, w[1], w.length > 2 ? w[2] : "cancel");
      case "tell" -> new Tell(text, w[1], w.length > 2 && w[2].equals("fork"));
      case "pause", "resume" -> new Dispatch(text, verb);
      case "down" -> new Down(text, w[1].equals("if-idle"));
      case "await" -> {
        List<String> cond = new ArrayList<>();
        long within = AWAIT_MS;
        for (int k = 1; k < w.length; k++) {
          if (w[k].equals("within")) {
            within = Durations.parse(w[++k]);
          } else {
            cond.add(w[k]);
          }
        }
        yield new Await(text, cond, within);
      }
      case "wait" -> new Wait(text, Durations.parse(w[1]));
      case "show" -> w[1].equals("lease") ? new ShowLease(text, w[2]) : new Show(text, w[1]);
      case "status" -> new StatusFileStep(text);
      case "second" -> new SecondDaemon(text);
      case "claim" -> new ForeignClaim(text, w[1], w[3].equals("live-owner"),
          w.length > 5 && w[4].equals("age") ? Durations.parse(w[5]) : 0);
      case "exit" -> new ForeignExit(text, w[1]);
      case "finish" -> new FinishAgain(text, w[1]);
      case "forge" -> new ForgeHello(text, w[2]);
      case "up" -> new Up(text, w[1]);
      case "client" -> new ClientStatus(text, w[1]);
      case "watch" -> new Watch(text, w[1]);
      default -> throw new IllegalArgumentException("unknown step '" + verb.toLowerCase(Locale.ROOT) + "'");
    };
  }

  /** The scenario's text, with {@code transcript} as its expected transcript. */
  public static List<String> withTranscript(List<String> lines, List<String> transcript) {
    List<String> out = new ArrayList<>();
    for (String l : lines) {
      if (l.equals(TRANSCRIPT)) {
        break;
      }
      out.add(l);
    }
    while (!out.isEmpty() && out.get(out.size() - 1).isBlank()) {
      out.remove(out.size() - 1);
    }
    out.add(TRANSCRIPT);
    out.addAll(transcript);
    return out;
  }
}
