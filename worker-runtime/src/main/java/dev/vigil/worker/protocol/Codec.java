package dev.vigil.worker.protocol;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.coordination.Verdict;
import dev.vigil.supervisor.WorkSet;
import dev.vigil.worker.Outcome;
import dev.vigil.worker.internal.Json;
import dev.vigil.worker.internal.JsonWriter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;

/**
 * Frames to and from JSON ({@link Json}, no {@code ObjectMapper}). Decoding is strict: malformed JSON, duplicate keys, trailing data, a
 * missing or other version, an unknown op and a field of the wrong type are each a one-line reason
 * ({@link Decoded.Bad}); fields the op does not define are ignored (newer senders within version 1).
 */
final class Codec {
  /** The protocol version every frame carries as {@code "v"}. */
  static final int VERSION = 1;
  /** Longest reason text in an error frame, characters. */
  private static final int MAX_REASON = 300;

  private Codec() {}

  /** A decoded frame, or why it was refused. */
  sealed interface Decoded<M extends Message> {
    record Ok<M extends Message>(M message) implements Decoded<M> {}

    record Bad<M extends Message>(String reason) implements Decoded<M> {}
  }

  // ------------------------------------------------------------------ encode

  /**
   * One frame and its newline: the bytes {@link Json#write} writes for {@link #encode}'s tree, written
   * by {@link JsonWriter} (a worker host sends a few frames in its life and need not start Jackson's
   * generator for them).
   */
  static byte[] encodeLine(Message m) {
    JsonWriter w = new JsonWriter().beginObject().name("v").value(VERSION).name("op").value(m.op());
    if (m instanceof Message.Hello h) {
      w.name(h.subject() instanceof Subject.Session ? "session" : "run").value(h.subject().id())
          .name("token").value(h.token()).name("build").value(h.build()).name("pid").value(h.pid());
    } else if (m instanceof Message.Busy b) {
      w.name("work").beginArray();
      for (WorkSet.Item i : b.work().items()) {
        w.beginObject().name("kind").value(kindName(i.kind())).name("id").value(i.id()).endObject();
      }
      w.endArray();
    } else if (m instanceof Message.Progress p) {
      w.name("message").value(p.message());
      if (p.fraction().isPresent()) {
        w.name("fraction").value(p.fraction().getAsDouble());
      }
    } else if (m instanceof Message.OutcomeReport r) {
      w.name("verdict").value(r.outcome().verdict().name()).name("detail").value(r.outcome().detail());
      if (r.outcome() instanceof Outcome.Stalled s) {
        w.name("untilMs").value(s.untilMs());
      }
    } else if (m instanceof Message.Ask a) {
      w.name("seq").value(a.seq()).name("text").value(a.text()).name("options")
          .value(dev.vigil.coordination.QuestionOption.encodeAll(a.options()));
    } else if (m instanceof Message.Restored r) {
      w.name("restoreId").value(r.restoreId()).name("snapshot").value(r.snapshot());
    } else if (m instanceof Message.Answer a) {
      w.name("seq").value(a.seq()).name("option").value(a.option());
      if (a.reply() != null) {
        w.name("reply").value(a.reply());
      }
    } else if (m instanceof Message.ClientHello h) {
      w.name("version").value(h.version()).name("build").value(h.build()).name("protocol").value(h.protocol())
          .name("interactive").value(h.interactive());
    } else if (m instanceof Message.Command c) {
      fields(w, c.args());
    } else if (m instanceof Message.Shutdown s) {
      w.name("ifIdle").value(s.ifIdle());
    } else if (m instanceof Message.Welcome wl) {
      w.name("build").value(wl.build()).name("go").value(wl.go());
    } else if (m instanceof Message.AdoptDenied a) {
      w.name("reason").value(a.reason());
    } else if (m instanceof Message.Stop s) {
      w.name("graceMs").value(s.graceMs());
    } else if (m instanceof Message.Capabilities c) {
      w.name("capabilities").beginArray();
      for (String cap : c.capabilities()) {
        w.value(cap);
      }
      w.endArray().name("build").value(c.build()).name("version").value(c.version()).name("protocol")
          .value(c.protocol()).name("pid").value(c.pid());
    } else if (m instanceof Message.Reply r) {
      fields(w, r.body());
    } else if (m instanceof Message.Error e) {
      w.name("reason").value(e.reason());
    } else if (!(m instanceof Message.Idle || m instanceof Message.Quiesced || m instanceof Message.Quiesce
        || m instanceof Message.Release)) {
      throw new AssertionError(m);
    }
    return w.endObject().toLine();
  }

  /** The fields of {@code n}, in order, into the object {@code w} is writing. */
  private static void fields(JsonWriter w, ObjectNode n) {
    for (java.util.Map.Entry<String, JsonNode> e : n.properties()) {
      w.name(e.getKey()).value(e.getValue());
    }
  }

  /** The frame as a tree, with the fields in the order {@link #encodeLine} writes them. */
  static ObjectNode encode(Message m) {
    ObjectNode n = Json.object().put("v", VERSION).put("op", m.op());
    if (m instanceof Message.Hello h) {
      n.put(h.subject() instanceof Subject.Session ? "session" : "run", h.subject().id())
          .put("token", h.token()).put("build", h.build()).put("pid", h.pid());
    } else if (m instanceof Message.Busy b) {
      ArrayNode work = n.putArray("work");
      for (WorkSet.Item i : b.work().items()) {
        work.addObject().put("kind", kindName(i.kind())).put("id", i.id());
      }
    } else if (m instanceof Message.Progress p) {
      n.put("message", p.message());
      p.fraction().ifPresent(f -> n.put("fraction", f));
    } else if (m instanceof Message.OutcomeReport r) {
      n.put("verdict", r.outcome().verdict().name()).put("detail", r.outcome().detail());
      if (r.outcome() instanceof Outcome.Stalled s) {
        n.put("untilMs", s.untilMs());
      }
    } else if (m instanceof Message.Ask a) {
      n.put("seq", a.seq()).put("text", a.text()).put("options", dev.vigil.coordination.QuestionOption.encodeAll(
          a.options()));
    } else if (m instanceof Message.Restored r) {
      n.put("restoreId", r.restoreId()).put("snapshot", r.snapshot());
    } else if (m instanceof Message.Answer a) {
      n.put("seq", a.seq()).put("option", a.option());
      if (a.reply() != null) {
        n.put("reply", a.reply());
      }
    } else if (m instanceof Message.ClientHello h) {
      n.put("version", h.version()).put("build", h.build()).put("protocol", h.protocol()).put("interactive", h.interactive());
    } else if (m instanceof Message.Command c) {
      c.args().properties().forEach(e -> n.set(e.getKey(), e.getValue()));
    } else if (m instanceof Message.Shutdown s) {
      n.put("ifIdle", s.ifIdle());
    } else if (m instanceof Message.Welcome w) {
      n.put("build", w.build()).put("go", w.go());
    } else if (m instanceof Message.AdoptDenied a) {
      n.put("reason", a.reason());
    } else if (m instanceof Message.Stop s) {
      n.put("graceMs", s.graceMs());
    } else if (m instanceof Message.Capabilities c) {
      ArrayNode caps = n.putArray("capabilities");
      c.capabilities().forEach(caps::add);
      n.put("build", c.build()).put("version", c.version()).put("protocol", c.protocol()).put("pid", c.pid());
    } else if (m instanceof Message.Reply r) {
      r.body().properties().forEach(e -> n.set(e.getKey(), e.getValue()));
    } else if (m instanceof Message.Error e) {
      n.put("reason", e.reason());
    } else if (!(m instanceof Message.Idle || m instanceof Message.Quiesced || m instanceof Message.Quiesce
        || m instanceof Message.Release)) {
      throw new AssertionError(m);
    }
    return n;
  }

  static String kindName(WorkSet.Kind kind) {
    return kind.name().toLowerCase(Locale.ROOT);
  }

  // ------------------------------------------------------------------ decode

  /** A frame sent to the daemon (by a worker or a client). */
  static Decoded<Message.ToDaemon> decodeToDaemon(byte[] frame) {
    return decode(frame, Codec::toDaemon);
  }

  /** A frame sent by the daemon. */
  static Decoded<Message.FromDaemon> decodeFromDaemon(byte[] frame) {
    return decode(frame, Codec::fromDaemon);
  }

  private interface Reader<M> {
    M read(String op, ObjectNode n);
  }

  private static <M extends Message> Decoded<M> decode(byte[] frame, Reader<M> reader) {
    JsonNode tree;
    try {
      tree = Json.parse(frame);
    } catch (IOException e) {
      String why = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
      return new Decoded.Bad<>("malformed JSON: " + oneLine(why));
    }
    if (!tree.isObject()) {
      return new Decoded.Bad<>("a frame must be a JSON object");
    }
    ObjectNode n = (ObjectNode) tree;
    JsonNode v = n.get("v");
    if (v == null || !v.isIntegralNumber() || !v.canConvertToInt() || v.intValue() != VERSION) {
      return new Decoded.Bad<>("field 'v' must be " + VERSION + " (protocol version)");
    }
    JsonNode op = n.get("op");
    if (op == null || !op.isTextual()) {
      return new Decoded.Bad<>("field 'op' must be a string");
    }
    try {
      return new Decoded.Ok<>(reader.read(op.textValue(), n));
    } catch (IllegalArgumentException e) {
      return new Decoded.Bad<>(oneLine(e.getMessage()));
    }
  }

  private static Message.ToDaemon toDaemon(String op, ObjectNode n) {
    return switch (op) {
      case "hello" -> n.has("run") || n.has("session") ? workerHello(op, n)
          : new Message.ClientHello(text(op, n, "version"), text(op, n, "build"), integral(op, n, "protocol"),
              bool(op, n, "interactive"));
      case "busy" -> new Message.Busy(work(op, n));
      case "idle" -> new Message.Idle();
      case "progress" -> new Message.Progress(text(op, n, "message"), fraction(op, n));
      case "outcome" -> new Message.OutcomeReport(outcome(op, n));
      case "quiesced" -> new Message.Quiesced();
      case "ask" -> new Message.Ask(positive(op, n, "seq"), text(op, n, "text"), options(op, n));
      case "restored" -> new Message.Restored(text(op, n, "restoreId"), text(op, n, "snapshot"));
      case "shutdown" -> new Message.Shutdown(bool(op, n, "ifIdle"));
      default -> {
        if (!Message.Command.OPS.contains(op)) {
          throw new IllegalArgumentException("unknown op '" + cut(op) + "'");
        }
        yield new Message.Command(op, n);
      }
    };
  }

  private static Message.Hello workerHello(String op, ObjectNode n) {
    if (n.has("run") && n.has("session")) {
      throw bad(op, "names both 'run' and 'session'");
    }
    Subject subject = n.has("run") ? new Subject.Run(nonBlank(op, n, "run")) : new Subject.Session(nonBlank(op, n, "session"));
    return new Message.Hello(subject, text(op, n, "token"), text(op, n, "build"), positive(op, n, "pid"));
  }

  private static Message.FromDaemon fromDaemon(String op, ObjectNode n) {
    return switch (op) {
      case "welcome" -> new Message.Welcome(text(op, n, "build"), bool(op, n, "go"));
      case "adopt-denied" -> new Message.AdoptDenied(text(op, n, "reason"));
      case "quiesce" -> new Message.Quiesce();
      case "release" -> new Message.Release();
      case "stop" -> {
        long grace = integral(op, n, "graceMs");
        if (grace < 0) {
          throw bad(op, "field 'graceMs' must be >= 0");
        }
        yield new Message.Stop(grace);
      }
      case "capabilities" -> new Message.Capabilities(strings(op, n, "capabilities"), text(op, n, "build"),
          text(op, n, "version"), integral(op, n, "protocol"), positive(op, n, "pid"));
      case "reply" -> new Message.Reply(n);
      case "answer" -> new Message.Answer(positive(op, n, "seq"), text(op, n, "option"),
          n.hasNonNull("reply") ? text(op, n, "reply") : null);
      case "error" -> new Message.Error(text(op, n, "reason"));
      default -> throw new IllegalArgumentException("unknown op '" + cut(op) + "'");
    };
  }

  private static List<String> strings(String op, ObjectNode n, String field) {
    JsonNode arr = n.get(field);
    if (arr == null || !arr.isArray()) {
      throw bad(op, "field '" + field + "' must be an array of strings");
    }
    List<String> list = new ArrayList<>();
    for (JsonNode c : arr) {
      if (!c.isTextual()) {
        throw bad(op, "field '" + field + "' must be an array of strings");
      }
      list.add(c.textValue());
    }
    return list;
  }

  private static String nonBlank(String op, ObjectNode n, String field) {
    String s = text(op, n, field);
    if (s.isBlank()) {
      throw bad(op, "field '" + field + "' must not be blank");
    }
    return s;
  }

  private static WorkSet work(String op, ObjectNode n) {
    JsonNode arr = n.get("work");
    if (arr == null || !arr.isArray()) {
      throw bad(op, "field 'work' must be an array of {kind, id}");
    }
    WorkSet work = WorkSet.EMPTY;
    for (JsonNode item : arr) {
      if (!item.isObject()) {
        throw bad(op, "field 'work' must be an array of {kind, id}");
      }
      String kind = text(op, (ObjectNode) item, "kind");
      WorkSet.Kind k = null;
      for (WorkSet.Kind candidate : WorkSet.Kind.values()) {
        if (kindName(candidate).equals(kind)) {
          k = candidate;
        }
      }
      if (k == null) {
        throw bad(op, "work kind '" + cut(kind) + "' is not one of run, queued_input, admitted_run_start, background_job, unsettled_child");
      }
      work = work.plus(k, text(op, (ObjectNode) item, "id"));
    }
    return work;
  }

  /** The verdicts a worker may report. */
  private static final List<Verdict> WORKER_VERDICTS = List.of(Verdict.SUCCEEDED, Verdict.FAILED, Verdict.PERMANENT_FAILURE,
      Verdict.STALLED, Verdict.BLOCKED);

  private static Outcome outcome(String op, ObjectNode n) {
    String v = text(op, n, "verdict");
    Verdict verdict = WORKER_VERDICTS.stream().filter(w -> w.name().equals(v)).findFirst()
        .orElseThrow(() -> bad(op, "verdict '" + cut(v) + "' is not one of SUCCEEDED, FAILED, PERMANENT_FAILURE, STALLED, BLOCKED"));
    long until = verdict == Verdict.STALLED ? integral(op, n, "untilMs") : 0;
    if (until < 0) {
      throw bad(op, "field 'untilMs' must be >= 0");
    }
    try {
      return Outcome.of(verdict, text(op, n, "detail"), until);
    } catch (IllegalArgumentException e) {
      throw bad(op, e.getMessage());
    }
  }

  private static OptionalDouble fraction(String op, ObjectNode n) {
    JsonNode f = n.get("fraction");
    if (f == null || f.isNull()) {
      return OptionalDouble.empty();
    }
    if (!f.isNumber() || !(f.doubleValue() >= 0 && f.doubleValue() <= 1)) {
      throw bad(op, "field 'fraction' must be a number in [0, 1]");
    }
    return OptionalDouble.of(f.doubleValue());
  }

  private static String text(String op, ObjectNode n, String field) {
    JsonNode f = n.get(field);
    if (f == null || !f.isTextual()) {
      throw bad(op, "field '" + field + "' must be a string");
    }
    return f.textValue();
  }

  private static long integral(String op, ObjectNode n, String field) {
    JsonNode f = n.get(field);
    if (f == null || !f.isIntegralNumber() || !f.canConvertToLong()) {
      throw bad(op, "field '" + field + "' must be an integer");
    }
    return f.longValue();
  }

  /** The options of an {@code ask}: the text of {@code QuestionOption.encodeAll}. */
  private static List<dev.vigil.coordination.QuestionOption> options(String op, ObjectNode n) {
    String text = text(op, n, "options");
    try {
      return dev.vigil.coordination.QuestionOption.decodeAll(text);
    } catch (IllegalArgumentException e) {
      throw bad(op, "field 'options': " + e.getMessage());
    }
  }

  private static long positive(String op, ObjectNode n, String field) {
    long v = integral(op, n, field);
    if (v <= 0) {
      throw bad(op, "field '" + field + "' must be > 0");
    }
    return v;
  }

  private static boolean bool(String op, ObjectNode n, String field) {
    JsonNode f = n.get(field);
    if (f == null || !f.isBoolean()) {
      throw bad(op, "field '" + field + "' must be true or false");
    }
    return f.booleanValue();
  }

  private static IllegalArgumentException bad(String op, String why) {
    return new IllegalArgumentException(op + ": " + why);
  }

  private static String cut(String s) {
    return s.length() <= 40 ? s : s.substring(0, 40) + "…";
  }

  /** A reason on one line, at most {@link #MAX_REASON} characters. */
  static String oneLine(String s) {
    String line = String.valueOf(s).replaceAll("[\\r\\n\\t]+", " ").trim();
    return line.length() <= MAX_REASON ? line : line.substring(0, MAX_REASON) + "…";
  }
}
