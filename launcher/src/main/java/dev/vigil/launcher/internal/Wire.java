package dev.vigil.launcher.internal;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import dev.vigil.coordination.Environment;
import dev.vigil.coordination.Event;
import dev.vigil.coordination.Labels;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.Prerequisite;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunQuery;
import dev.vigil.coordination.RunSpec;
import dev.vigil.coordination.StopIntent;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketQuery;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.schedule.CatchUp;
import dev.vigil.coordination.schedule.Cron;
import dev.vigil.coordination.schedule.Overlap;
import dev.vigil.coordination.schedule.Schedule;
import dev.vigil.coordination.schedule.ScheduleName;
import dev.vigil.coordination.schedule.ScheduleSpec;
import dev.vigil.coordination.schedule.ScheduleView;
import dev.vigil.supervisor.engine.Command;
import dev.vigil.supervisor.engine.Reply;
import dev.vigil.supervisor.engine.Status;
import java.io.IOException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * The control protocol's payloads (DESIGN.md §6): a client command's {@code args} to an engine
 * {@link Command}, and an engine {@link Reply} to the JSON body of a {@code reply} frame. One op per
 * command: {@code submit}, {@code submit-all} (many submissions in one transaction, all or nothing;
 * the reply names only the ids), {@code status}, {@code list} (tickets), {@code runs}, {@code show},
 * {@code park}/{@code unpark} (a {@code ticket} or a {@code lane}), {@code hold}, {@code release},
 * {@code cancel}, {@code run} (hand-started, Q8), {@code pause}, {@code resume},
 * {@code start-service}, {@code stop-service}, {@code kill} (Q13), {@code retry} and {@code events}; and for
 * recurring schedules (Q15) {@code schedule-add}, {@code schedule-list}, {@code schedule-pause},
 * {@code schedule-resume} and {@code schedule-rm}.
 *
 * <p>An environment recorded with a ticket travels from the client to the daemon in a submission's
 * {@code env} (over the 0600 socket) and never back: every reply, the journal and the status name
 * its variables only ({@link #JSON} writes an {@link Environment} as the list of its names).
 */
public final class Wire {
  /** Jackson with ids, lanes and owners written as their text, an environment as its variables' names. */
  public static final ObjectMapper JSON = new ObjectMapper()
      .registerModule(new SimpleModule()
          .addSerializer(TicketId.class, ToStringSerializer.instance)
          .addSerializer(RunId.class, ToStringSerializer.instance)
          .addSerializer(Lane.class, ToStringSerializer.instance)
          .addSerializer(OwnerId.class, ToStringSerializer.instance)
          .addSerializer(Environment.class, new NamesOnly()))
      .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

  /** An environment as the sorted list of its variables' names: its values are never written. */
  private static final class NamesOnly extends StdSerializer<Environment> {
    private static final long serialVersionUID = 1L;

    NamesOnly() {
      super(Environment.class);
    }

    @Override
    public void serialize(Environment env, JsonGenerator g, SerializerProvider p) throws IOException {
      g.writeStartArray();
      for (String name : env.names()) {
        g.writeString(name);
      }
      g.writeEndArray();
    }
  }

  private Wire() {}

  /**
   * The engine command for a wire command.
   *
   * @throws IllegalArgumentException with a one-line message naming the bad field
   */
  public static Command command(String op, ObjectNode args, int defaultMaxAttempts) {
    switch (op) {
      case "submit":
        return new Command.Submit(submission(args, defaultMaxAttempts));
      case "submit-all": {
        JsonNode tickets = args.get("tickets");
        if (tickets == null || !tickets.isArray()) {
          throw new IllegalArgumentException("submit-all: tickets must be an array of submissions");
        }
        List<NewTicket> all = new ArrayList<>(tickets.size());
        for (int i = 0; i < tickets.size(); i++) {
          JsonNode t = tickets.get(i);
          if (!t.isObject()) {
            throw new IllegalArgumentException("submit-all: submission " + (i + 1) + " is not an object");
          }
          try {
            all.add(submission((ObjectNode) t, defaultMaxAttempts));
          } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("submission " + (i + 1) + " of " + tickets.size() + ": " + e.getMessage()
                + "; nothing was queued", e);
          }
        }
        return new Command.SubmitAll(all);
      }
      case "kill": {
        TicketId t;
        RunId run = null;
        String target = required(args, "ticket");
        if (target.contains(".")) {
          try {
            run = RunId.parse(target);
          } catch (RuntimeException e) {
            throw new IllegalArgumentException("'" + target + "' is not a ticket or a run (like t-12 or t-12.1)");
          }
          t = run.ticket();
        } else {
          t = ticket(args);
        }
        StopIntent intent = switch (text(args, "then", "cancel")) {
          case "cancel" -> StopIntent.KILL;
          case "retry" -> StopIntent.KILL_RETRY;
          case "hold" -> StopIntent.KILL_HOLD;
          default -> throw new IllegalArgumentException("then '" + args.get("then").asText()
              + "' is not cancel, retry or hold");
        };
        return new Command.Kill(t, run, intent);
      }
      case "retry":
        return new Command.Retry(ticket(args));
      case "questions":
        return new Command.Questions(questionStates(args));
      case "transcript": {
        long after = 0;
        if (args.hasNonNull("after")) {
          JsonNode n = args.get("after");
          after = n.isIntegralNumber() && n.canConvertToLong() ? n.longValue() : -1;
          if (after < 0) {
            throw new IllegalArgumentException("after '" + n.asText() + "' is not a transcript entry id (a whole number)");
          }
        }
        return new Command.Transcript(required(args, "service"), after,
            args.hasNonNull("limit") ? limit(args) : MAX_PAGE);
      }
      case "answer":
        return new Command.Answer(questionId(required(args, "question")), required(args, "option"));
      case "events": {
        long after = 0;
        if (args.hasNonNull("after")) {
          JsonNode n = args.get("after");
          try {
            after = n.isIntegralNumber() ? n.longValue() : Long.parseLong(n.asText());
          } catch (NumberFormatException e) {
            after = -1;
          }
          if (after < 0) {
            throw new IllegalArgumentException("after '" + n.asText() + "' is not an event id (a whole number)");
          }
        }
        return new Command.Events(after, args.hasNonNull("limit") ? limit(args) : MAX_PAGE);
      }
      case "status":
        return new Command.StatusQuery();
      case "restart":
        return new Command.Shutdown(Command.Shutdown.Mode.LEAVE_WORKERS);
      case "pause":
        return new Command.Pause();
      case "resume":
        return new Command.Resume();
      case "start-service":
        return new Command.StartService(required(args, "service"));
      case "stop-service":
        return new Command.StopService(required(args, "service"));
      case "runs": {
        RunQuery q = RunQuery.all();
        if (args.path("live").asBoolean(false)) {
          q = q.live();
        }
        if (args.hasNonNull("after")) {
          String after = args.get("after").asText();
          try {
            q = q.after(RunId.parse(after));
          } catch (RuntimeException e) {
            throw new IllegalArgumentException("after '" + after + "' is not a run id (like t-12.1)");
          }
        }
        return new Command.ListRuns(args.hasNonNull("limit") ? q.limit(limit(args)) : q);
      }
      case "run":
        return new Command.RunByHand(ticket(args), args.path("resume").asBoolean(false));
      case "list": {
        TicketQuery q = TicketQuery.all();
        if (args.hasNonNull("state")) {
          String s = args.get("state").asText().toUpperCase(Locale.ROOT);
          try {
            q = q.inState(TicketState.valueOf(s));
          } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--state '" + args.get("state").asText() + "' is not one of "
                + java.util.Arrays.toString(TicketState.values()));
          }
        }
        if (args.hasNonNull("lane")) {
          q = q.inLane(new Lane(args.get("lane").asText()));
        }
        if (args.hasNonNull("after")) {
          q = q.after(ticket(args, "after"));
        }
        if (args.has("labels")) {
          q = q.withLabels(stringMap(args, "labels"));
        }
        return new Command.ListTickets(args.hasNonNull("limit") ? q.limit(limit(args)) : q);
      }
      case "show":
        return new Command.Show(ticket(args));
      case "park":
        return args.hasNonNull("lane") ? new Command.ParkLane(new Lane(args.get("lane").asText()))
            : new Command.Park(ticket(args));
      case "unpark":
        return args.hasNonNull("lane") ? new Command.UnparkLane(new Lane(args.get("lane").asText()))
            : new Command.Unpark(ticket(args));
      case "hold":
        return new Command.Hold(ticket(args), text(args, "reason", "held by an operator"));
      case "release": {
        OptionalInt attempts = OptionalInt.empty();
        if (args.hasNonNull("attempts")) {
          JsonNode n = args.get("attempts");
          if (!n.isIntegralNumber() || !n.canConvertToInt() || n.intValue() < 1 || n.intValue() > NewTicket.MAX_ATTEMPTS) {
            throw new IllegalArgumentException("attempts '" + n + "' must be a whole number 1-" + NewTicket.MAX_ATTEMPTS);
          }
          attempts = OptionalInt.of(n.intValue());
        }
        return new Command.Release(ticket(args), attempts);
      }
      case "cancel":
        return new Command.Cancel(ticket(args));
      case "schedule-add":
        return new Command.ScheduleAdd(schedule(args, defaultMaxAttempts));
      case "schedule-list":
        return new Command.ScheduleList();
      case "schedule-pause":
        return new Command.SchedulePause(scheduleName(args));
      case "schedule-resume":
        return new Command.ScheduleResume(scheduleName(args));
      case "schedule-rm":
        return new Command.ScheduleRemove(scheduleName(args));
      case "prune": {
        JsonNode older = args.get("olderThanMs");
        if (older == null || !older.isIntegralNumber() || !older.canConvertToLong() || older.longValue() < 0) {
          throw new IllegalArgumentException("prune: olderThanMs must be a whole number of milliseconds, 0 or more");
        }
        return new Command.Prune(text(args, "job", "prune"), older.longValue(), args.path("dryRun").asBoolean(false));
      }
      case "prune-done": {
        JsonNode runs = args.get("runs");
        if (runs == null || !runs.isArray()) {
          throw new IllegalArgumentException("prune-done: runs must be an array of run ids");
        }
        List<RunId> ids = new ArrayList<>();
        for (JsonNode n : runs) {
          ids.add(RunId.parse(n.asText()));
        }
        return new Command.DirectoriesRemoved(text(args, "job", "prune"), ids, required(args, "summary"));
      }
      case "compact":
        return new Command.Compact(text(args, "job", "compact"));
      case "maintenance":
        return new Command.Maintenance();
      case "hosts":
        return new Command.Hosts();
      case "release-host":
        return new Command.ReleaseHost(required(args, "host"));
      default:
        throw new IllegalArgumentException("unknown command '" + op + "'");
    }
  }

  /** H1: the hosts of a store, as {@code vigil hosts --json} prints them. */
  public static ArrayNode hosts(List<dev.vigil.supervisor.engine.HostView> hosts) {
    ArrayNode a = JsonNodeFactory.instance.arrayNode();
    for (dev.vigil.supervisor.engine.HostView h : hosts) {
      ObjectNode n = a.addObject();
      n.put("host", h.hostId());
      h.names().forEach(n.putArray("names")::add);
      n.put("thisHost", h.thisHost());
      n.put("latestDaemon", h.latestOwner().value());
      n.put("latestDaemonStartedAtMs", h.latestStartedAtMs());
      n.put("liveRuns", h.liveRuns());
      if (h.leasesUntilMs() > 0) {
        n.put("heldUntilMs", h.leasesUntilMs());
      } else {
        n.putNull("heldUntilMs");
      }
    }
    return a;
  }

  /**
   * One submission's wire form to the ticket it queues: {@code lane}, {@code type}, {@code payload},
   * {@code maxAttempts} (else {@code defaultMaxAttempts}), {@code priority}, {@code notBeforeMs},
   * {@code key}, and what task control records: {@code workDir}, {@code env} (an object, the whole
   * environment), {@code timeoutMs} and {@code labels} (an object); and what it waits for (Q14):
   * {@code after}, an array of ticket ids, and, in a {@code submit-all}, {@code afterIndex}, an array
   * of the places (from 0) of earlier submissions of the same batch.
   *
   * @throws IllegalArgumentException with a one-line message naming the bad field
   */
  public static NewTicket submission(ObjectNode args, int defaultMaxAttempts) {
    Lane lane = new Lane(text(args, "lane", "default"));
    String type = text(args, "type", "command");
    JsonNode payload = args.get("payload");
    if (payload == null || payload.isNull()) {
      throw new IllegalArgumentException("submit: payload is required");
    }
    int max = args.has("maxAttempts") ? args.get("maxAttempts").asInt() : defaultMaxAttempts;
    int priority = args.has("priority") ? args.get("priority").asInt() : 0;
    long notBefore = args.has("notBeforeMs") ? args.get("notBeforeMs").asLong() : 0;
    String key = args.hasNonNull("key") ? args.get("key").asText() : null;
    String workDir = args.hasNonNull("workDir") ? args.get("workDir").asText() : null;
    Environment env = args.has("env") && !args.get("env").isNull() ? Environment.of(stringMap(args, "env")) : null;
    long timeout = args.hasNonNull("timeoutMs") ? args.get("timeoutMs").asLong() : 0;
    Map<String, String> labels = args.has("labels") ? stringMap(args, "labels") : Map.of();
    return new NewTicket(lane, type, payload.toString(), max, priority, notBefore, key,
        new RunSpec(workDir, env, timeout), new TreeMap<>(Labels.check(labels)), prerequisites(args));
  }

  /** Q14: {@code after} (ticket ids) and {@code afterIndex} (earlier places of a batch) as prerequisites. */
  private static List<Prerequisite> prerequisites(ObjectNode args) {
    List<Prerequisite> out = new ArrayList<>();
    JsonNode after = args.get("after");
    if (after != null && !after.isNull()) {
      if (!after.isArray()) {
        throw new IllegalArgumentException("after must be an array of ticket ids");
      }
      for (JsonNode a : after) {
        try {
          out.add(new Prerequisite.Existing(TicketId.parse(a.asText())));
        } catch (RuntimeException e) {
          throw new IllegalArgumentException("after '" + a.asText() + "' is not a ticket id (like t-12)");
        }
      }
    }
    JsonNode earlier = args.get("afterIndex");
    if (earlier != null && !earlier.isNull()) {
      if (!earlier.isArray()) {
        throw new IllegalArgumentException("afterIndex must be an array of places in the batch");
      }
      for (JsonNode i : earlier) {
        if (!i.canConvertToInt() || !i.isIntegralNumber() || i.intValue() < 0) {
          throw new IllegalArgumentException("afterIndex '" + i + "' is not a place in the batch (0, 1, ...)");
        }
        out.add(new Prerequisite.Earlier(i.intValue()));
      }
    }
    return out;
  }

  /**
   * A schedule's wire form (Q15): {@code name}, {@code cron}, {@code zone}, {@code catchUp}
   * ({@code none}, {@code latest}, {@code all}), {@code overlap} ({@code skip}, {@code queue},
   * {@code parallel}) and {@code ticket}, the submission each fire makes ({@link #submission}, without a
   * key or a due time).
   *
   * @throws IllegalArgumentException with a one-line message naming the bad field
   */
  public static ScheduleSpec schedule(ObjectNode args, int defaultMaxAttempts) {
    ScheduleName name = scheduleName(args);
    Cron cron = Cron.parse(required(args, "cron"));
    ZoneId zone = ScheduleSpec.zone(required(args, "zone"));
    JsonNode t = args.get("ticket");
    if (t == null || !t.isObject()) {
      throw new IllegalArgumentException("schedule-add: ticket must be a submission object");
    }
    NewTicket template = submission((ObjectNode) t, defaultMaxAttempts);
    return new ScheduleSpec(name, cron, zone, template, CatchUp.parse(text(args, "catchUp", "latest")),
        Overlap.parse(text(args, "overlap", "skip")));
  }

  private static ScheduleName scheduleName(ObjectNode args) {
    return new ScheduleName(required(args, "name"));
  }

  /**
   * A schedule as {@code vigil schedule list --json} prints it: its definition, its next fire
   * ({@code nextFireMs}, null when paused), the fire waiting for a live ticket ({@code waitingFireMs}),
   * and its last fire's ticket with the ticket's state and its latest run's verdict ({@code lastTicket},
   * null before the first).
   */
  public static ObjectNode schedule(ScheduleView v) {
    Schedule s = v.schedule();
    NewTicket t = s.spec().template();
    ObjectNode o = JSON.createObjectNode();
    o.put("name", s.name().name());
    o.put("cron", s.spec().cron().text());
    o.put("zone", s.spec().zone().getId());
    o.put("catchUp", s.spec().catchUp().word());
    o.put("overlap", s.spec().overlap().word());
    o.put("origin", s.origin() == Schedule.Origin.CONFIG ? "config" : "command");
    o.put("paused", s.paused());
    o.put("lane", t.lane().name());
    o.put("type", t.type());
    o.set("payload", payload(t.payload()));
    o.put("maxAttempts", t.maxAttempts());
    o.put("priority", t.priority());
    o.put("workDir", t.spec().workDir());
    o.set("env", t.spec().env() == null ? JSON.getNodeFactory().nullNode() : JSON.valueToTree(t.spec().env()));
    o.put("timeoutMs", t.spec().timeoutMs());
    o.set("labels", JSON.valueToTree(t.labels()));
    o.put("createdAtMs", s.createdAtMs());
    o.put("lastFireMs", s.lastFireMs());
    o.put("nextFireMs", v.nextFireMs());
    o.put("waitingFireMs", s.pendingFireMs());
    if (s.lastTicket() == null) {
      o.putNull("lastTicket");
    } else {
      ObjectNode last = o.putObject("lastTicket");
      last.put("id", s.lastTicket().toString());
      last.put("fireMs", s.lastTicketFireMs());
      last.put("state", v.lastTicket() == null ? null : v.lastTicket().state().name());
      last.put("verdict", v.lastVerdict() == null ? null : v.lastVerdict().name());
    }
    return o;
  }

  /** An object of strings, e.g. {@code env} or {@code labels}. */
  private static Map<String, String> stringMap(ObjectNode args, String field) {
    JsonNode n = args.get(field);
    if (n == null || !n.isObject()) {
      throw new IllegalArgumentException(field + " must be an object of strings");
    }
    Map<String, String> out = new TreeMap<>();
    for (Map.Entry<String, JsonNode> e : n.properties()) {
      if (!e.getValue().isTextual()) {
        throw new IllegalArgumentException(field + "." + e.getKey() + " must be a string");
      }
      out.put(e.getKey(), e.getValue().textValue());
    }
    return out;
  }

  private static TicketId ticket(ObjectNode args) {
    return ticket(args, "ticket");
  }

  private static TicketId ticket(ObjectNode args, String field) {
    String t = required(args, field);
    try {
      return TicketId.parse(t);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(field + " '" + t + "' is not a ticket id (like t-12)");
    }
  }

  /** The most items one list reply may ask for. */
  public static final int MAX_PAGE = 10_000;

  private static int limit(ObjectNode args) {
    JsonNode l = args.get("limit");
    if (!l.canConvertToInt() || !l.isIntegralNumber() || l.intValue() < 1 || l.intValue() > MAX_PAGE) {
      throw new IllegalArgumentException("limit '" + l + "' must be a whole number 1-" + MAX_PAGE);
    }
    return l.intValue();
  }

  private static String required(ObjectNode args, String field) {
    if (!args.hasNonNull(field)) {
      throw new IllegalArgumentException(field + " is required");
    }
    return args.get(field).asText();
  }

  private static String text(ObjectNode args, String field, String dflt) {
    return args.hasNonNull(field) ? args.get(field).asText() : dflt;
  }

  /** The JSON body of a reply: {@code kind} plus the reply's fields. */
  public static ObjectNode reply(Reply r) {
    ObjectNode o = JSON.createObjectNode();
    o.put("kind", r.getClass().getSimpleName());
    if (r instanceof Reply.Submitted s) {
      o.set("ticket", ticket(s.ticket()));
      o.put("duplicate", s.duplicate());
    } else if (r instanceof Reply.SubmittedAll all) {
      ArrayNode a = o.putArray("tickets"); // ids only: the reply stays small however large the payloads
      for (Reply.Submitted s : all.tickets()) {
        a.addObject().put("id", s.ticket().id().toString()).put("duplicate", s.duplicate());
      }
    } else if (r instanceof Reply.StatusReport s) {
      o.set("status", status(s.status()));
    } else if (r instanceof Reply.TicketList l) {
      ArrayNode a = o.putArray("tickets");
      l.tickets().forEach(t -> a.add(ticket(t, l.prerequisites())));
    } else if (r instanceof Reply.TicketDetail d) {
      ObjectNode t = ticket(d.ticket(), d.prerequisites());
      ArrayNode a = t.putArray("runs");
      d.runs().forEach(run -> a.add(run(run)));
      t.set("checkpoint", checkpoint(d.checkpoint()));
      o.set("ticket", t);
    } else if (r instanceof Reply.RunList l) {
      ArrayNode a = o.putArray("runs");
      l.runs().forEach(run -> a.add(run(run)));
    } else if (r instanceof Reply.EventList l) {
      ArrayNode a = o.putArray("events");
      l.events().forEach(e -> a.add(event(e)));
    } else if (r instanceof Reply.TranscriptPage t) {
      o.put("service", t.service());
      ArrayNode a = o.putArray("entries");
      t.entries().forEach(e -> a.add(transcriptEntry(e)));
    } else if (r instanceof Reply.Killing k) {
      o.set("run", run(k.run()));
      o.put("message", k.message());
    } else if (r instanceof Reply.Retried t) {
      o.set("ticket", ticket(t.ticket()));
      o.set("original", ticket(t.original()));
      o.put("message", t.ticket().id() + " queued: a retry of " + t.original().id());
    } else if (r instanceof Reply.TicketChanged c) {
      o.set("ticket", ticket(c.ticket()));
      o.put("message", c.ticket().id() + " is " + c.ticket().state() + (c.ticket().parked() ? " (parked)" : "")
          + (c.note().isEmpty() ? "" : ": " + c.note()));
    } else if (r instanceof Reply.LaneChanged c) {
      o.put("lane", c.lane().toString());
      o.put("parked", c.parked());
      o.put("message", "lane " + c.lane() + (c.parked() ? " is parked" : " is not parked")
          + (c.changed() ? "" : " (unchanged)") + (c.workersTold() > 0 ? "; " + c.workersTold()
          + " running workers asked to stop where they can stop safely; their work runs again once unparked" : ""));
    } else if (r instanceof Reply.HandStarted h) {
      o.set("run", run(h.run()));
      o.put("message", h.run().id() + " started by hand (attempt " + h.run().attempt() + ")"
          + (h.resumedFrom() == null ? "" : ", resuming from checkpoint " + h.resumedFrom().seq() + " of "
          + h.resumedFrom().run()));
    } else if (r instanceof Reply.Schedules l) {
      ArrayNode a = o.putArray("schedules");
      l.schedules().forEach(s -> a.add(schedule(s)));
    } else if (r instanceof Reply.ScheduleChanged c) {
      o.set("schedule", schedule(c.schedule()));
      o.put("message", c.message());
    } else if (r instanceof Reply.QuestionList l) {
      ArrayNode a = o.putArray("questions");
      l.questions().forEach(q -> a.add(question(q)));
    } else if (r instanceof Reply.QuestionAnswered a) {
      o.set("question", question(a.question()));
      o.put("message", answeredLine(a.question()));
    } else if (r instanceof Reply.Pruned p) {
      o.set("pruning", pruning(p.pruning()));
    } else if (r instanceof Reply.DirectoriesRecorded d) {
      o.put("removed", d.removed());
    } else if (r instanceof Reply.Compacted k) {
      o.put("bytesBefore", k.compacted().bytesBefore());
      o.put("bytesAfter", k.compacted().bytesAfter());
    } else if (r instanceof Reply.MaintenanceLines l) {
      ArrayNode a = o.putArray("maintenance");
      l.lines().forEach(m -> a.addObject().put("job", m.job()).put("atMs", m.atMs()).put("summary", m.summary()));
    } else if (r instanceof Reply.HostList l) {
      o.set("hosts", hosts(l.hosts()));
    } else if (r instanceof Reply.HostReleased h) {
      o.put("host", h.hostId());
      h.runs().forEach(run -> o.withArray("runs").add(run.toString()));
      o.withArray("runs");
      o.put("message", "host " + h.hostId() + " released: " + (h.runs().isEmpty() ? "it had no live runs"
          : h.runs().size() + " live run" + (h.runs().size() == 1 ? "" : "s") + " rolled back or settled as lost ("
          + String.join(", ", h.runs().stream().map(Object::toString).toList()) + ")"));
    } else if (r instanceof Reply.Acknowledged a) {
      o.put("message", a.message());
    } else if (r instanceof Reply.ShuttingDown s) {
      o.put("message", s.message());
    } else if (r instanceof Reply.Busy b) {
      o.put("message", b.message());
    } else if (r instanceof Reply.Denied d) {
      o.put("message", d.reason());
    } else if (r instanceof Reply.Invalid i) {
      o.put("message", i.reason());
    } else if (r instanceof Reply.NotFound n) {
      o.put("message", "no such " + n.what());
    } else {
      throw new AssertionError(r);
    }
    return o;
  }

  // ---- maintenance (Q18) ----

  /** A prune's decision: what it deleted (or would), the directories still to remove, what stays and why. */
  static ObjectNode pruning(dev.vigil.coordination.Pruning p) {
    ObjectNode o = JSON.createObjectNode();
    o.put("dryRun", p.dryRun());
    o.put("cutoffMs", p.cutoffMs());
    ArrayNode t = o.putArray("tickets");
    p.tickets().forEach(id -> t.add(id.toString()));
    ArrayNode r = o.putArray("runs");
    p.runs().forEach(id -> r.add(id.toString()));
    ArrayNode d = o.putArray("directories");
    p.directories().forEach(id -> d.add(id.toString()));
    ObjectNode k = o.putObject("kept");
    k.put("notFinished", p.kept().get(dev.vigil.coordination.Retention.Reason.NOT_FINISHED));
    k.put("tooRecent", p.kept().get(dev.vigil.coordination.Retention.Reason.TOO_RECENT));
    k.put("pinned", p.kept().get(dev.vigil.coordination.Retention.Reason.PINNED));
    k.put("linked", p.kept().get(dev.vigil.coordination.Retention.Reason.LINKED));
    return o;
  }

  // ---- questions (Q16) ----

  /** A question id as typed ({@code q-3} or {@code 3}); a one-line error names the bad text. */
  public static dev.vigil.coordination.QuestionId questionId(String text) {
    return dev.vigil.coordination.QuestionId.parse(text);
  }

  /** The states asked for: {@code all} true for every question, else the open ones. */
  private static java.util.Set<dev.vigil.coordination.Question.State> questionStates(ObjectNode args) {
    return args.path("all").asBoolean(false) ? java.util.Set.of()
        : java.util.Set.of(dev.vigil.coordination.Question.State.OPEN);
  }

  /** The line that says an answer was recorded and what comes next. */
  public static String answeredLine(dev.vigil.coordination.Question q) {
    return q.id() + " answered '" + q.answer() + "'; the daemon applies it (vigil questions --all shows what it did)";
  }

  /**
   * A question: {@code id}, {@code text}, {@code state}, {@code askedBy} (a run, or null when the daemon asked),
   * {@code ticket}, {@code service}, {@code options} (each {@code name}, {@code label} and {@code actions}: each
   * {@code action}, its one-line text, and {@code description}), {@code answer}, {@code outcome}, {@code reply}
   * and the times ({@code askedAtMs}, {@code answeredAtMs}, {@code appliedAtMs}, 0 when not yet).
   */
  public static ObjectNode question(dev.vigil.coordination.Question q) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("id", q.id().toString());
    o.put("text", q.question().text());
    o.put("state", q.state().name());
    o.put("askedBy", q.question().askedBy() == null ? null : q.question().askedBy().toString());
    o.put("ticket", q.question().ticket() == null ? null : q.question().ticket().toString());
    o.put("service", q.question().service());
    ArrayNode options = o.putArray("options");
    for (dev.vigil.coordination.QuestionOption opt : q.question().options()) {
      ObjectNode n = options.addObject();
      n.put("name", opt.name());
      n.put("label", opt.label());
      ArrayNode actions = n.putArray("actions");
      for (dev.vigil.coordination.Action a : opt.actions()) {
        actions.addObject().put("action", a.encode()).put("description", a.describe());
      }
    }
    o.put("answer", q.answer());
    o.put("outcome", q.outcome());
    o.set("reply", q.reply().map(Wire::payload).orElse(null));
    o.put("askedAtMs", q.askedAtMs());
    o.put("answeredAtMs", q.answeredAtMs());
    o.put("appliedAtMs", q.appliedAtMs());
    return o;
  }

  /** The daemon's state in its status file while its store is unavailable (D5). */
  public static final String STORE_UNAVAILABLE = "STORE_UNAVAILABLE";

  /**
   * The reply to every command while the store is unavailable (D5): kind {@code Unavailable}, the
   * one-line {@code message}, and the outage's fields under {@code store}.
   */
  public static ObjectNode unavailable(dev.vigil.supervisor.StoreOutage outage) {
    ObjectNode o = error("Unavailable", outage.line());
    o.set("store", outage(outage));
    return o;
  }

  /** An outage's fields: {@code file}, {@code reason}, {@code sinceWallMs}, {@code failedReopenAttempts}. */
  public static ObjectNode outage(dev.vigil.supervisor.StoreOutage outage) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("file", outage.file());
    o.put("reason", outage.reason());
    o.put("sinceWallMs", outage.sinceWallMs());
    o.put("failedReopenAttempts", outage.failedAttempts());
    return o;
  }

  /** An error reply of {@code kind} (Invalid, Denied…) with a one-line message. */
  public static ObjectNode error(String kind, String message) {
    ObjectNode o = JSON.createObjectNode();
    o.put("kind", kind);
    o.put("message", message);
    return o;
  }

  /**
   * A ticket, with {@code allowedAttempts} (its attempts plus those granted) at the top; its
   * environment as the names of its variables only.
   */
  public static ObjectNode ticket(Ticket t) {
    ObjectNode o = JSON.valueToTree(t);
    o.put("allowedAttempts", t.allowedAttempts());
    o.set("payload", payload(t.payload()));
    o.putNull("stalledSinceMs"); // set only by a reading of the store while no daemon runs (StoreReading)
    o.putNull("host"); // the host of its run while it runs, on a store that several hosts share (RunHosts)
    return o;
  }

  /**
   * A ticket as {@link #ticket(Ticket)} writes it, with {@code waitsFor}: each of its prerequisites
   * that has not SUCCEEDED, with its state (Q14), in id order; empty when it waits for nothing.
   */
  public static ObjectNode ticket(Ticket t, Map<TicketId, TicketState> prerequisites) {
    ObjectNode o = ticket(t);
    ArrayNode waits = o.putArray("waitsFor");
    for (TicketId p : t.after()) {
      TicketState s = prerequisites.get(p);
      if (s != TicketState.SUCCEEDED) {
        ObjectNode w = waits.addObject();
        w.put("id", p.toString());
        w.put("state", s == null ? null : s.name());
      }
    }
    return o;
  }

  /**
   * A payload or a result as the JSON it holds (a payload is an object for every submission made
   * through the CLI), else as its text.
   */
  /** Stored JSON text (a payload, a result) as the JSON value it holds, else as a JSON string of its text. */
  public static JsonNode json(String text) {
    return payload(text);
  }

  static JsonNode payload(String text) {
    try {
      JsonNode n = JSON.readTree(text);
      return n == null || n.isMissingNode() ? JSON.getNodeFactory().textNode(text) : n;
    } catch (IOException e) {
      return JSON.getNodeFactory().textNode(text);
    }
  }

  /** The latest checkpoint of a ticket (Q17) as {@code vigil show --json} prints it; JSON null for none. */
  static JsonNode checkpoint(dev.vigil.coordination.Checkpoint c) {
    if (c == null) {
      return JSON.getNodeFactory().nullNode();
    }
    ObjectNode o = JSON.createObjectNode();
    o.put("run", c.run().toString());
    o.put("seq", c.seq());
    o.put("savedAtMs", c.savedAtMs());
    o.put("bytes", c.bytes());
    o.set("value", payload(c.value()));
    return o;
  }

  /** An event as {@code vigil events --json} prints it: one object, its fields by name. */
  /** S7: one transcript entry as the {@code transcript} op and {@code vigil attach --json} give it. */
  public static ObjectNode transcriptEntry(dev.vigil.coordination.TranscriptEntry e) {
    ObjectNode o = JSON.createObjectNode();
    o.put("id", e.id());
    o.put("atMs", e.atMs());
    o.put("kind", e.kind().name());
    o.put("text", e.text());
    o.put("outputAt", e.outputAt());
    if (e.restoreId() != null) {
      o.put("restoreId", e.restoreId());
    }
    return o;
  }

  public static ObjectNode event(Event e) {
    ObjectNode o = JSON.createObjectNode();
    o.put("id", e.id());
    o.put("atMs", e.atMs());
    o.put("kind", e.kind().name());
    if (e.ticket() != null) {
      o.put("ticket", e.ticket().toString());
    }
    if (e.run() != null) {
      o.put("run", e.run().toString());
    }
    if (e.service() != null) {
      o.put("service", e.service());
    }
    if (e.verdict() != null) {
      o.put("verdict", e.verdict().name());
    }
    if (e.ticketState() != null) {
      o.put("ticketState", e.ticketState().name());
    }
    o.put("text", e.text());
    return o;
  }

  /**
   * A run, with {@code verdict}, {@code exitCode}, {@code signal} and {@code pid} at the top, and its
   * {@code result} as the JSON value the worker returned (not a string holding it), or {@code null}.
   */
  public static ObjectNode run(Run r) {
    ObjectNode o = JSON.valueToTree(r);
    o.set("result", r.result() == null ? JSON.getNodeFactory().nullNode() : payload(r.result()));
    o.put("pid", r.start() == null ? null : r.start().identity().pid());
    o.put("exitCode", r.exit() == null ? null : r.exit().exitCode());
    o.put("signal", r.exit() == null ? null : r.exit().signal());
    o.putNull("stalledSinceMs"); // set only by a reading of the store while no daemon runs (StoreReading)
    o.putNull("host"); // its daemon's host, on a store that several hosts share (RunHosts)
    return o;
  }

  public static ObjectNode status(Status s) {
    ObjectNode o = JSON.valueToTree(s);
    o.path("runs").forEach(r -> ((ObjectNode) r).putNull("host")); // on a shared store, its daemon's host (RunHosts)
    return o;
  }

  /** The first line of a text, for one-line errors. */
  public static String oneLine(String s) {
    if (s == null) {
      return "";
    }
    int i = s.indexOf('\n');
    return i < 0 ? s : s.substring(0, i);
  }
}
