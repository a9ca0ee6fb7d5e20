package dev.vigil.bridge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Finish;
import dev.vigil.coordination.Lease;
import dev.vigil.coordination.Owner;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunStart;
import dev.vigil.coordination.Snapshot;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.Verdict;
import dev.vigil.coordination.law.CoordinationInvariants;
import dev.vigil.launcher.internal.Wire;
import dev.vigil.supervisor.DaemonLiveness;
import dev.vigil.supervisor.Durations;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs a {@link Scenario} on a {@link Stack} and writes its normalised transcript.
 *
 * <p>Normalisation, so that real-time nondeterminism (thread timing, which tick a thing happens in,
 * renewals, pids, wall times) stays out while every decision a law is about stays in:
 *
 * <ol>
 *   <li>The transcript is cut into parts at every step but waits, awaits and a submission right
 *       after another: a part begins with its steps ({@code > crash}, {@code > show a}), each
 *       with what it was answered or showed, then the decisions the daemon journalled until the
 *       next part. Scenarios act and look only when the decisions they are about are apart in
 *       time (an await after every act whose decisions the next step could overtake).
 *   <li>Within a part, decisions are grouped by subject (the daemon first, then tickets in
 *       submission order, then services by name) and keep their order within a subject: the order
 *       between two tickets, which depends on ticks, is dropped; the order within one run, which is
 *       causal, is kept.
 *   <li>Only decisions are written: claims, starts, the first go per run and daemon, exits taken
 *       and by which daemon, settlements (verdict, where the verdict came from, the ticket's move), claim
 *       roll-backs, recovery actions, stops and their kind, service ups, exits, revivals, restarts
 *       (with their pause) and give-ups, quiesce rounds and their decisions, shutdowns. Renewals,
 *       signals, launches, hellos, pids, exit codes and free-text details are left out (renewal
 *       denials and re-armed leases are written when the scenario asks for them).
 *   <li>Names are renamed: tickets by the scenario's labels (runs {@code LABEL.N}), daemons
 *       {@code D1, D2, ...} in boot order, builds by their labels.
 *   <li>The transcript ends with the store as it was left: every ticket's state, attempts, runs and
 *       verdicts, leases and parked lanes.
 * </ol>
 */
public final class ScenarioRun {
  private static final Pattern RUN_OR_TICKET = Pattern.compile("\\bt-(\\d+)(?:\\.(\\d+))?\\b");
  private static final long POLL_MS = 50;

  private final Scenario scenario;
  private final Stack stack;
  private final Map<TicketId, String> labels = new LinkedHashMap<>();
  private final Map<String, TicketId> ids = new HashMap<>();
  private final Map<String, String> owners = new LinkedHashMap<>();
  private final Map<Long, String> daemonPids = new HashMap<>();
  private final List<Part> parts = new ArrayList<>();
  private final Set<String> toldGo = new java.util.HashSet<>();
  private int journalSeen;
  /** The daemon that made the decision being read, by its name here. */
  private String currentOwner = "?";
  private String build = "b1";

  /** One part of the transcript: its steps with their answers, then the decisions that followed. */
  private static final class Part {
    final List<String> lines = new ArrayList<>();
    final TreeMap<String, List<String>> decisions = new TreeMap<>();
    final Answers answers = a -> lines.add("  " + a);
  }

  /** Where a step's answers go. */
  private interface Answers {
    void add(String answer);
  }

  private ScenarioRun(Scenario scenario, Stack stack) {
    this.scenario = scenario;
    this.stack = stack;
  }

  /**
   * Runs {@code scenario} on {@code stack} (closing it) and returns its transcript; the store's
   * invariants are checked at the end, and each one broken is a line of the transcript.
   */
  public static List<String> transcript(Scenario scenario, Stack stack) {
    try (stack) {
      return new ScenarioRun(scenario, stack).run();
    }
  }

  private List<String> run() {
    parts.add(new Part());
    Scenario.Step previous = null;
    for (Scenario.Step s : scenario.steps()) {
      try {
        if (Scenario.startsPart(previous, s)) {
          drain();
          parts.add(new Part());
        }
        if (!(s instanceof Scenario.Await || s instanceof Scenario.Wait)) {
          part().lines.add("> " + s.text());
        }
        previous = s;
        step(s);
      } catch (NotMet e) {
        // a condition the scenario waits for never came: the transcript says so and ends here,
        // so that its difference from the expected one shows where the two parted
        drain();
        note("9", "! " + e.getMessage());
        break;
      } catch (RuntimeException | AssertionError e) {
        throw new AssertionError(stack.name() + ": step '" + s.text() + "' failed: " + e.getMessage()
            + "\n  transcript so far:\n" + String.join("\n", render(List.of())), e);
      }
    }
    drain();
    List<String> end = new ArrayList<>();
    if (stack.up()) {
      for (JsonNode sv : status().path("services")) {
        end.add("final service " + sv.path("name").asText() + " " + sv.path("state").asText());
      }
    }
    Snapshot snapshot = stack.finish();
    end.addAll(finalStore(snapshot));
    for (String broken : CoordinationInvariants.violations(snapshot)) {
      end.add("! " + rename(broken)); // an invariant the store broke: no expected transcript has one
    }
    return render(end);
  }

  private List<String> render(List<String> end) {
    List<String> out = new ArrayList<>();
    for (Part p : parts) {
      out.addAll(p.lines);
      p.decisions.values().forEach(ds -> ds.forEach(d -> out.add("  " + d)));
    }
    out.addAll(end);
    return out;
  }

  private Part part() {
    return parts.get(parts.size() - 1);
  }

  // ---- steps ----

  private void step(Scenario.Step s) {
    if (s instanceof Scenario.Boot b) {
      build = b.build() != null ? b.build() : build;
      stack.boot(build);
    } else if (s instanceof Scenario.Crash) {
      stack.crash();
    } else if (s instanceof Scenario.Sigterm) {
      stack.sigterm();
    } else if (s instanceof Scenario.Suspend su) {
      stack.suspend(su.ms());
    } else if (s instanceof Scenario.Submit su) {
      submit(su);
    } else if (s instanceof Scenario.Kill k) {
      ObjectNode a = args();
      a.put("ticket", id(k.label()).toString());
      a.put("then", k.then());
      answer(stack.command("kill", a));
    } else if (s instanceof Scenario.KillWorker k) {
      stack.killWorker(latestRun(k.label()));
    } else if (s instanceof Scenario.Tell t) {
      stack.tell(latestRun(t.label()), t.fork());
    } else if (s instanceof Scenario.KillService k) {
      stack.killService(k.service());
    } else if (s instanceof Scenario.TicketVerb v) {
      ObjectNode a = args();
      a.put("ticket", id(v.label()).toString());
      answer(stack.command(v.verb(), a));
    } else if (s instanceof Scenario.LaneVerb v) {
      ObjectNode a = args();
      a.put("lane", v.lane());
      answer(stack.command(v.verb(), a));
    } else if (s instanceof Scenario.Dispatch d) {
      answer(stack.command(d.verb(), args()));
    } else if (s instanceof Scenario.Down d) {
      answer(stack.shutdown(d.ifIdle()));
    } else if (s instanceof Scenario.ServiceVerb v) {
      ObjectNode a = args();
      a.put("service", v.service());
      answer(stack.command(v.verb() + "-service", a));
    } else if (s instanceof Scenario.ServiceWork w) {
      stack.serviceWork(w.service(), w.ms());
    } else if (s instanceof Scenario.Await a) {
      await(a);
    } else if (s instanceof Scenario.Wait w) {
      stack.pass(w.ms());
    } else if (s instanceof Scenario.Show sh) {
      part().answers.add(lineOf(show(sh.label())));
    } else if (s instanceof Scenario.ShowLease sl) {
      TicketId t = id(sl.label());
      Optional<Lease> l = stack.store(c -> c.store().lease(t));
      part().answers.add(l.map(x -> "held for " + rename(x.run().toString())
          + (x.expiresAtMs() <= stack.nowWallMs() ? ", expired" : "")).orElse("none"));
    } else if (s instanceof Scenario.StatusFileStep) {
      part().answers.add(statusReading());
    } else if (s instanceof Scenario.SecondDaemon) {
      Optional<Long> named = stack.secondDaemon();
      part().answers.add(named.map(p -> "refused: a daemon runs (" + daemonName(p) + ")").orElse("it started"));
    } else if (s instanceof Scenario.ForeignClaim fc) {
      foreignClaim(fc);
    } else if (s instanceof Scenario.ForeignExit fe) {
      foreignExit(fe);
    } else if (s instanceof Scenario.FinishAgain fa) {
      RunId run = fa.label().contains(".") ? new RunId(id(fa.label().substring(0, fa.label().indexOf('.'))),
          Integer.parseInt(fa.label().substring(fa.label().indexOf('.') + 1))) : latestRun(fa.label());
      OwnerId later = new OwnerId("d-later-recovery");
      Object d = stack.store(c -> {
        c.registerOwner(new Owner(later, "elsewhere", stack.deadIdentity(), scenario.config().buildId(build),
            stack.nowWallMs()));
        return c.finish(Finish.as(ExitOwner.recovery(later), run, Verdict.LOST, "settled again").forDeadExitOwner(),
            stack.nowWallMs());
      });
      part().answers.add("a second finish of " + rename(run.toString()) + ": " + decision(d));
    } else if (s instanceof Scenario.ForgeHello fh) {
      part().answers.add("hello for " + rename(latestRun(fh.label()).toString()) + " with a token that is not its "
          + "run's: " + stack.forgeHello(latestRun(fh.label())));
    } else if (s instanceof Scenario.Up u) {
      long before = stack.daemonPid();
      Stack.Told t = stack.up(u.build());
      build = u.build();
      part().answers.add("exit " + t.code() + (t.pid() < 0 ? "" : t.pid() == before ? ", the daemon that serves is "
          + daemonName(before) : ", a new daemon serves") + (t.told().isEmpty() ? "" : ", told: " + told(t.told())));
    } else if (s instanceof Scenario.ClientStatus c) {
      Stack.Told t = stack.clientStatus(c.build());
      part().answers.add("exit " + t.code() + (t.told().isEmpty() ? "" : ", told: " + told(t.told())));
    } else if (s instanceof Scenario.Watch w) {
      long lost = stack.daemonPid();
      Optional<Long> relaunched = stack.watch(w.build());
      if (relaunched.isPresent()) {
        build = w.build();
      }
      part().answers.add(relaunched.map(p -> "relaunched the lost daemon " + daemonName(lost) + ": a new daemon serves")
          .orElse("did not relaunch the lost daemon " + daemonName(lost)));
    } else {
      throw new AssertionError(s);
    }
  }

  private static ObjectNode args() {
    return Wire.JSON.createObjectNode();
  }

  private void submit(Scenario.Submit s) {
    ObjectNode a = args();
    a.put("lane", s.lane());
    a.put("type", ScriptedWorker.NAME);
    if (s.attempts() != null) {
      a.put("maxAttempts", s.attempts());
    }
    a.put("priority", s.priority());
    if (s.timeoutMs() > 0) {
      a.put("timeoutMs", s.timeoutMs());
    }
    if (!s.after().isEmpty()) {
      var after = a.putArray("after");
      s.after().forEach(l -> after.add(id(l).toString()));
    }
    ObjectNode payload = a.putObject("payload");
    ObjectNode attempts = payload.putObject("runs");
    s.behaviours().forEach((n, b) -> attempts.put(n, b.toString()));
    ObjectNode reply = stack.command("submit", a);
    if (reply.path("kind").asText().equals("Submitted")) {
      TicketId id = TicketId.parse(reply.path("ticket").path("id").asText());
      labels.put(id, s.label());
      ids.put(s.label(), id);
      part().answers.add(s.label() + " accepted" + (reply.path("duplicate").asBoolean() ? " (a duplicate)" : ""));
    } else {
      answer(reply);
    }
  }

  private void answer(ObjectNode reply) {
    String kind = reply.path("kind").asText();
    // a busy round's message lists the workers that had not answered yet when the first busy came: timing
    String message = kind.equals("Busy") ? "" : reply.path("message").asText("");
    part().answers.add(kind + (message.isEmpty() ? "" : ": " + rename(message)));
  }

  private void foreignClaim(Scenario.ForeignClaim fc) {
    TicketId t = id(fc.label());
    OwnerId other = new OwnerId(fc.liveOwner() ? "d-other-live" : "d-other-dead");
    Object d = stack.store(c -> {
      c.registerOwner(new Owner(other, "elsewhere", fc.liveOwner() ? stack.liveIdentity() : stack.deadIdentity(),
          scenario.config().buildId(build), stack.nowWallMs()));
      return c.claim(t, other, stack.nowWallMs() - fc.ageMs(), BridgeTimeouts.leaseTtlMs());
    });
    part().answers.add("claimed by a " + (fc.liveOwner() ? "live" : "dead") + " daemon"
        + (fc.ageMs() > 0 ? " " + Durations.format(fc.ageMs()) + " ago" : "") + ": " + decision(d));
  }

  private void foreignExit(Scenario.ForeignExit fe) {
    TicketId t = id(fe.label());
    OwnerId other = new OwnerId("d-other-dead");
    List<Object> ds = stack.store(c -> {
      List<Object> out = new ArrayList<>();
      c.registerOwner(new Owner(other, "elsewhere", stack.deadIdentity(), scenario.config().buildId(build),
          stack.nowWallMs()));
      Object claim = c.claim(t, other, stack.nowWallMs(), BridgeTimeouts.leaseTtlMs());
      out.add(claim);
      if (claim instanceof dev.vigil.coordination.Claim.Granted g) {
        RunId run = g.run().id();
        out.add(c.start(run, other, new RunStart(stack.deadIdentity(), scenario.config().buildId(build),
            "ab".repeat(32), stack.nowWallMs())));
        out.add(c.takeExit(run, ExitOwner.supervisor(other), RunExit.code(0, stack.nowWallMs())));
      }
      return out;
    });
    List<String> said = new ArrayList<>();
    for (Object d : ds) {
      said.add(decision(d));
    }
    part().answers.add("a dead daemon claimed, started and took the exit, then died: " + String.join(", ", said));
  }

  /** A coordination decision as its variant and reason, ids renamed. */
  private String decision(Object d) {
    String kind = d.getClass().getSimpleName();
    if (d instanceof dev.vigil.coordination.Claim.Granted g) {
      return kind + " " + rename(g.run().id().toString());
    } else if (d instanceof dev.vigil.coordination.Claim.Denied x) {
      return kind + " " + x.reason();
    } else if (d instanceof dev.vigil.coordination.Settlement.Denied x) {
      return kind + " " + x.reason();
    } else if (d instanceof dev.vigil.coordination.Start.Denied x) {
      return kind + " " + x.reason();
    } else if (d instanceof dev.vigil.coordination.Exit.Denied x) {
      return kind + " " + x.reason();
    }
    return kind;
  }

  /** An await whose condition did not hold in time. */
  private static final class NotMet extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NotMet(String message) {
      super(message, null, false, false);
    }
  }

  private void await(Scenario.Await a) {
    long waited = 0;
    while (!holds(a.condition())) {
      if (waited >= a.withinMs()) {
        throw new NotMet("'" + a.text() + "' did not hold within " + Durations.format(a.withinMs()));
      }
      stack.pass(POLL_MS);
      waited += POLL_MS;
    }
  }

  private boolean holds(List<String> c) {
    if (c.get(0).equals("daemon")) {
      return switch (c.get(1)) {
        case "stopped" -> !stack.up();
        case "serves" -> stack.up();
        default -> throw new IllegalArgumentException("await daemon stopped|serves");
      };
    }
    if (c.get(0).equals("service")) {
      String name = c.get(1);
      return switch (c.get(2)) {
        case "busy" -> stack.busyRecord(name);
        case "gone" -> !stack.serviceWorkerAlive(name);
        default -> stack.up() && serviceState(name).equals(c.get(2).toUpperCase(java.util.Locale.ROOT).replace('-', '_'));
      };
    }
    JsonNode t = show(c.get(0));
    JsonNode runs = t.path("runs");
    JsonNode latest = runs.isEmpty() ? null : runs.get(runs.size() - 1);
    String what = c.get(1);
    return switch (what) {
      case "working" -> latest != null && latest.path("state").asText().equals("RUNNING") && toldGoSinceBoot(
          latest.path("id").asText()) && stack.workerBegan(RunId.parse(latest.path("id").asText()));
      case "running" -> latest != null && latest.path("state").asText().equals("RUNNING");
      case "stopping" -> latest != null && latest.hasNonNull("stopIntent") && !latest.path("state").asText()
          .equals("SETTLED");
      case "done" -> Set.of("SUCCEEDED", "FAILED", "HELD", "CANCELLED").contains(t.path("state").asText())
          && (latest == null || latest.path("state").asText().equals("SETTLED"));
      case "runs" -> runs.size() >= Integer.parseInt(c.get(2));
      case "gone" -> latest != null && !stack.workerAlive(RunId.parse(latest.path("id").asText()));
      default -> t.path("state").asText().equals(what);
    };
  }

  private boolean toldGoSinceBoot(String run) {
    List<ObjectNode> j = stack.journal();
    for (int i = j.size() - 1; i >= 0; i--) {
      ObjectNode e = j.get(i);
      String ev = e.path("event").asText();
      if (ev.equals("Booted")) {
        return false;
      }
      if (ev.equals("Welcomed") && e.path("key").asText().equals(run) && e.path("go").asBoolean()) {
        return true;
      }
    }
    return false;
  }

  private JsonNode status() {
    return stack.command("status", args()).path("status");
  }

  private String serviceState(String name) {
    for (JsonNode sv : status().path("services")) {
      if (sv.path("name").asText().equals(name)) {
        return sv.path("state").asText();
      }
    }
    throw new IllegalArgumentException("no service " + name);
  }

  /** The ticket with its runs, as {@code vigil show --json} has it: from the daemon, or from the store when none runs. */
  private JsonNode show(String label) {
    TicketId t = id(label);
    if (stack.up()) {
      ObjectNode a = args();
      a.put("ticket", t.toString());
      return stack.command("show", a).path("ticket");
    }
    return stack.store(c -> {
      ObjectNode o = Wire.ticket(c.store().ticket(t).orElseThrow());
      var runs = o.putArray("runs");
      c.store().runsOf(t).forEach(r -> runs.add(Wire.run(r)));
      return o;
    });
  }

  private RunId latestRun(String label) {
    JsonNode runs = show(label).path("runs");
    if (runs.isEmpty()) {
      throw new IllegalArgumentException(label + " has no run");
    }
    return RunId.parse(runs.get(runs.size() - 1).path("id").asText());
  }

  private TicketId id(String label) {
    TicketId t = ids.get(label);
    if (t == null) {
      throw new IllegalArgumentException("no ticket labelled " + label);
    }
    return t;
  }

  private String statusReading() {
    Optional<JsonNode> f = stack.statusFile();
    if (f.isEmpty()) {
      return "none";
    }
    DaemonLiveness liveness = DaemonLiveness.from(BridgeTimeouts.LATTICE);
    long pid = f.get().path("pid").asLong();
    DaemonLiveness.Reading r = liveness.read(Optional.of(new DaemonLiveness.Status(pid,
        f.get().path("heartbeat_at").asLong())), stack.nowWallMs());
    return daemonName(pid) + (r instanceof DaemonLiveness.Reading.Live ? " live (a fresh heartbeat)"
        : " dead (its heartbeat is 6 beats old)");
  }

  // ---- names ----

  private String daemonName(long pid) {
    return daemonPids.getOrDefault(pid, "an unknown daemon");
  }

  private String told(String message) {
    String m = rename(message.replaceFirst("^vigil: ", ""));
    for (Map.Entry<Long, String> d : daemonPids.entrySet()) {
      m = m.replace("pid " + d.getKey(), d.getValue());
    }
    int cut = m.indexOf(" is not replaced: ");
    if (cut >= 0) {
      m = m.substring(0, cut) + " is not replaced"; // what follows names the busy workers as they answered: timing
    }
    return m.replaceAll("pid [0-9]+", "pid ?");
  }

  /** Tickets, runs, owners and builds in {@code text} renamed. */
  private String rename(String text) {
    Matcher m = RUN_OR_TICKET.matcher(text);
    StringBuilder b = new StringBuilder();
    while (m.find()) {
      TicketId t = new TicketId(Long.parseLong(m.group(1)));
      String label = labels.getOrDefault(t, "t?" + t.seq());
      m.appendReplacement(b, Matcher.quoteReplacement(label + (m.group(2) == null ? "" : "." + m.group(2))));
    }
    m.appendTail(b);
    String s = b.toString();
    for (Map.Entry<String, String> o : owners.entrySet()) {
      s = s.replace(o.getKey(), o.getValue());
    }
    for (String label : labelsOfBuilds()) {
      s = s.replace(scenario.config().buildId(label), label);
    }
    return s;
  }

  private Set<String> labelsOfBuilds() {
    Set<String> b = new TreeSet<>(scenario.config().versions().keySet());
    b.add("b1");
    b.add(build);
    return b;
  }

  // ---- the journal ----

  private void drain() {
    List<ObjectNode> j = stack.journal();
    for (; journalSeen < j.size(); journalSeen++) {
      decide(j.get(journalSeen));
    }
  }

  private void decide(ObjectNode e) {
    String ev = e.path("event").asText();
    currentOwner = owners.computeIfAbsent(e.path("by").asText(), k -> "D" + (owners.size() + 1));
    if (ev.equals("Booted")) {
      String d = currentOwner;
      daemonPids.put(stack.daemonPid(), d);
      note("0", d + " booted on " + rename(e.path("build").asText()) + " (" + e.path("liveRunsFound").asInt()
          + " live runs in the store)");
      return;
    }
    String run = e.path("run").asText(null);
    String key = e.path("key").asText(null);
    String service = e.path("service").asText(null);
    if (key != null && key.startsWith("service:")) {
      service = key.substring("service:".length());
    } else if (key != null) {
      run = key;
    }
    String subject = run != null ? ticketSubject(run) : service != null ? "2 " + service : "0";
    String who = run != null ? rename(run) : service != null ? "service " + service : "";
    String line = switch (ev) {
      case "Recovered" -> who + " recovered: " + e.path("action").asText();
      case "Claimed" -> who + " claimed";
      case "LaunchFailed" -> who + " launch failed";
      case "Started" -> who + " started on " + rename(e.path("build").asText());
      case "VerbDenied" -> who + " " + e.path("verb").asText() + " denied: " + e.path("reason").asText();
      case "Welcomed" -> run != null && e.path("go").asBoolean() && toldGo.add(run + " " + currentOwner)
          ? who + " told go" : null;
      case "HandoffTimedOut" -> who + " handoff timed out";
      case "ClaimAborted" -> who + " claim rolled back -> " + e.path("ticketState").asText();
      case "RenewalDenied" -> scenario.config().renewals() ? who + " renewal denied: " + e.path("reason").asText() : null;
      case "LeaseRearmed" -> scenario.config().renewals() ? who + " lapsed lease re-armed by readopt" : null;
      // by which daemon, not by which of its paths: whether the shell's exit report or the next
      // liveness probe comes first for the daemon's own child is thread timing
      case "ExitTaken" -> who + " exit taken by " + currentOwner;
      case "ExitLost" -> who + " exit lost: " + rename(e.path("reason").asText());
      case "Settled" -> who + " settled " + e.path("verdict").asText() + " (" + source(e.path("diagnosis").asText(""))
          + ") -> " + e.path("ticketState").asText();
      case "SettleDenied" -> who + " settle denied: " + e.path("reason").asText();
      case "StopRequested" -> who + " stop requested: " + switch (e.path("intent").asText()) {
        case "TIMEOUT" -> "timed out";
        case "KILL" -> "killed, then cancel";
        case "KILL_RETRY" -> "killed, then retry";
        case "KILL_HOLD" -> "killed, then hold";
        default -> e.path("intent").asText();
      };
      case "StopBegun" -> who + " stop: " + e.path("kind").asText();
      case "ServiceUp" -> who + (e.path("adopted").asBoolean() ? " adopted" : " up");
      case "ServiceExited" -> who + (e.path("how").asText().startsWith("not adopted") ? " not adopted"
          : e.path("how").asText().startsWith("stopped") ? " stopped" : " exited");
      case "ServiceRevival" -> who + (e.path("revived").asBoolean() ? " revived at boot" : " not revived at boot");
      case "ServiceRestartScheduled" -> who + " restart in " + Durations.format(e.path("delayMs").asLong());
      case "ServiceGivenUp" -> who + " given up";
      case "ServiceDown" -> who + " down";
      case "QuiesceStarted" -> {
        List<String> members = new ArrayList<>();
        e.path("workers").forEach(w -> members.add(rename(w.asText()).replace("service:", "service ")));
        members.sort(null);
        yield "quiesce round asks " + members;
      }
      case "QuiesceDecided" -> "quiesce round decided: " + (e.path("stopAll").asBoolean() ? "every worker quiesced, stop"
          : "busy, release every worker");
      case "ShutdownAborted" -> "idle shutdown abandoned";
      case "ShutdownComplete" -> "shutdown complete: " + e.path("how").asText();
      default -> null; // Launched, HelloDenied, Signalled: mechanics, not decisions
    };
    if (line != null) {
      note(subject, line);
    }
  }

  private String ticketSubject(String run) {
    Matcher m = RUN_OR_TICKET.matcher(run);
    if (!m.find()) {
      return "1 ?";
    }
    List<TicketId> order = new ArrayList<>(labels.keySet());
    int i = order.indexOf(new TicketId(Long.parseLong(m.group(1))));
    return String.format("1 %04d", i < 0 ? 9999 : i);
  }

  private void note(String subject, String line) {
    part().decisions.computeIfAbsent(subject, k -> new ArrayList<>()).add(line);
  }

  /** Where a settlement's verdict came from, by the engine's own words for it. */
  static String source(String diagnosis) {
    if (diagnosis.startsWith("timed out after ")) {
      return "timed out";
    } else if (diagnosis.startsWith("killed by an operator")) {
      return "killed";
    }
    Matcher stop = Pattern.compile("after a ([A-Z_]+) stop without an outcome").matcher(diagnosis);
    if (stop.find()) {
      return "no outcome after a " + stop.group(1) + " stop";
    } else if (diagnosis.contains("before it was told to go")) {
      return "never told go";
    } else if (diagnosis.contains("without an outcome")) {
      return "no outcome";
    }
    return "outcome";
  }

  // ---- the store ----

  private static String line(JsonNode t) {
    List<String> runs = new ArrayList<>();
    for (JsonNode r : t.path("runs")) {
      runs.add(r.path("id").asText() + " " + (r.hasNonNull("verdict") ? r.path("verdict").asText()
          : r.path("state").asText()) + (r.path("handStarted").asBoolean() ? " by hand" : ""));
    }
    return t.path("id").asText() + " " + t.path("state").asText() + (t.path("parked").asBoolean() ? " parked" : "")
        + " attempts " + t.path("attemptsUsed").asInt() + "/" + t.path("maxAttempts").asInt()
        + (t.path("spawnFailures").asInt() > 0 ? " spawn failures " + t.path("spawnFailures").asInt() : "")
        + " runs " + runs;
  }

  private String lineOf(JsonNode t) {
    return rename(line(t));
  }

  private List<String> finalStore(Snapshot s) {
    List<String> out = new ArrayList<>();
    Map<TicketId, List<Run>> runs = new TreeMap<>();
    for (Run r : s.runs()) {
      runs.computeIfAbsent(r.ticket(), k -> new ArrayList<>()).add(r);
    }
    for (Ticket t : s.tickets()) {
      ObjectNode o = Wire.ticket(t);
      var a = o.putArray("runs");
      runs.getOrDefault(t.id(), List.of()).forEach(r -> a.add(Wire.run(r)));
      out.add("final " + lineOf(o));
    }
    for (Lease l : s.leases()) {
      out.add("final lease held for " + rename(l.run().toString()));
    }
    s.parkedLanes().forEach(l -> out.add("final lane " + l + " parked"));
    return out;
  }

  @Override
  public String toString() {
    return scenario.name() + " on " + stack.name();
  }
}
