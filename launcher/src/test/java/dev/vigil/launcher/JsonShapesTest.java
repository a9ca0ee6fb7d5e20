package dev.vigil.launcher;

import static dev.vigil.launcher.CliEndToEndTest.json;
import static dev.vigil.launcher.CliEndToEndTest.poll;
import static dev.vigil.launcher.CliEndToEndTest.vigil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.launcher.CliEndToEndTest.Result;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every field that {@code --json} prints is documented in docs/CLI.md with its type: real commands
 * against a real daemon (tickets that succeed, are held, parked and running, a service, events), each
 * field of their output looked up in the "Shape:" tables.
 */
class JsonShapesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern ROW = Pattern.compile("^\\| `([^`]+)` \\| ([^|]+?) \\|");
  /** Arrays whose elements are another shape. */
  private static final Map<String, String> ELEMENTS = Map.of("ticket runs[]", "run", "status services[]", "service",
      "status schedules[]", "schedule", "status maintenance.schedules[]", "schedule");

  @TempDir
  Path tmp;

  private final List<Path> homes = new ArrayList<>();
  private final Set<String> seen = new TreeSet<>();

  @AfterEach
  void stopDaemons() throws Exception {
    for (Path h : homes) {
      vigil(h, "down", "--stop-workers");
    }
  }

  /** The "Shape: NAME" tables of docs/CLI.md: shape → field path → type. */
  static Map<String, Map<String, String>> shapes() throws Exception {
    Map<String, Map<String, String>> out = new HashMap<>();
    Map<String, String> current = null;
    for (String line : Files.readAllLines(CliReferenceTest.CLI_MD, StandardCharsets.UTF_8)) {
      if (line.startsWith("### Shape: ")) {
        current = new HashMap<>();
        out.put(line.substring("### Shape: ".length()).strip(), current);
      } else if (line.startsWith("#")) {
        current = null;
      } else if (current != null) {
        Matcher m = ROW.matcher(line);
        if (m.find()) {
          current.put(m.group(1), m.group(2).strip());
        }
      }
    }
    return out;
  }

  static String typeOf(JsonNode n) {
    return n.isNull() ? "null" : n.isTextual() ? "string" : n.isNumber() ? "number" : n.isBoolean() ? "boolean"
        : n.isObject() ? "object" : n.isArray() ? "array" : n.getNodeType().toString();
  }

  /** Checks every field of {@code n} against {@code shape}, collecting what is wrong. */
  private void check(Map<String, Map<String, String>> shapes, String shape, JsonNode n, List<String> wrong) {
    n.properties().forEach(e -> field(shapes, shape, e.getKey(), e.getValue(), wrong));
  }

  private void field(Map<String, Map<String, String>> shapes, String shape, String path, JsonNode n, List<String> wrong) {
    String documented = shapes.get(shape).get(path);
    seen.add(shape + " " + path);
    if (documented == null) {
      wrong.add(shape + ": '" + path + "' (" + typeOf(n) + ") is not documented");
      return;
    }
    List<String> types = Arrays.asList(documented.split(" or "));
    String t = typeOf(n);
    boolean ok = types.contains("json") || types.contains(t) || (t.equals("object") && types.contains("map"));
    if (!ok) {
      wrong.add(shape + ": '" + path + "' is " + t + ", documented as " + documented);
      return;
    }
    if (types.contains("json") || types.contains("map")) {
      return;
    }
    if (n.isObject()) {
      n.properties().forEach(e -> field(shapes, shape, path + "." + e.getKey(), e.getValue(), wrong));
    } else if (n.isArray()) {
      String other = ELEMENTS.get(shape + " " + path + "[]");
      for (JsonNode el : n) {
        if (other != null) {
          check(shapes, other, el, wrong);
        } else {
          field(shapes, shape, path + "[]", el, wrong);
        }
      }
    }
  }

  @Test
  void everyFieldOfEveryJsonOutputIsDocumentedWithItsType() throws Exception {
    Map<String, Map<String, String>> shapes = shapes();
    // "store unavailable" is checked where a store fails: StoreOutageDaemonTest; "question" where questions are
    // asked and answered: QuestionsCliTest; "host" where another host shares the store: HostsCliTest; "transcript" here (a restore notice and output lines: AttachCliTest)
    assertEquals(Set.of("ticket", "run", "status", "service", "event", "store unavailable", "schedule", "question",
        "transcript", "prune", "host"),
        shapes.keySet());
    Path home = CliEndToEndTest.ownerOnlyHome(tmp, "shapes", homes);
    Path config = Files.writeString(tmp.resolve("vigil.json"),
        "{\"services\": [{\"name\": \"idx\", \"type\": \"command\", \"payload\": {\"argv\": [\"sleep\", \"60\"]}}]}");
    assertEquals(0, vigil(home, "up", "--config", config.toString()).code());
    String ok = vigil(home, "submit", "--label", "team=a", "--env", "X=1", "--timeout", "30s", "--", "true").line();
    String held = vigil(home, "submit", "--max-attempts", "1", "--", "sh", "-c", "exit 3").line();
    String later = vigil(home, "submit", "--in", "1h", "--", "true").line();
    assertEquals(0, vigil(home, "park", later).code());
    String cancelled = vigil(home, "submit", "--in", "1h", "--", "true").line();
    assertEquals(0, vigil(home, "cancel", cancelled).code());
    assertEquals(0, vigil(home, "wait", ok, "--timeout", "90s").code());
    assertEquals(1, vigil(home, "wait", held, "--timeout", "90s").code());
    assertEquals(0, vigil(home, "schedule", "add", "tick", "--cron", "* * * * * ?", "--zone", "UTC", "--env", "Y=2",
        "--label", "team=b", "--", "true").code());
    assertEquals(0, vigil(home, "schedule", "add", "night", "--cron", "0 3 * * *", "--overlap", "queue", "--", "true").code());
    Thread.sleep(2_500); // tick fires
    assertEquals(0, vigil(home, "schedule", "pause", "tick").code());
    String running = vigil(home, "submit", "--", "sleep", "60").line();
    poll(home, running, t -> t.path("runs").size() == 1 && "RUNNING".equals(t.path("runs").get(0).path("state").asText()));
    String waits = vigil(home, "submit", "--after", running, "--after", ok, "--", "true").line();
    String heldFor = vigil(home, "submit", "--after", held, "--", "true").line();

    List<String> wrong = new ArrayList<>();
    JsonNode status = json(vigil(home, "status", "--json"));
    assertTrue(status.path("runs").size() >= 1 && status.path("services").size() == 1, status.toString());
    check(shapes, "status", status, wrong);
    JsonNode tasks = json(vigil(home, "tasks", "--json"));
    assertTrue(tasks.size() >= 8, "seven tasks submitted and at least one fired: " + tasks);
    JsonNode schedules = json(vigil(home, "schedule", "list", "--json"));
    assertEquals(2, schedules.size());
    schedules.forEach(s -> check(shapes, "schedule", s, wrong));
    tasks.forEach(t -> check(shapes, "ticket", t, wrong));
    for (String t : List.of(ok, held, running, waits, heldFor)) {
      check(shapes, "ticket", json(vigil(home, "show", t, "--json")), wrong);
    }
    json(vigil(home, "runs", "--json")).forEach(r -> check(shapes, "run", r, wrong));
    JsonNode services = json(vigil(home, "services", "--json"));
    assertEquals(1, services.size());
    services.forEach(s -> check(shapes, "service", s, wrong));
    Result events = vigil(home, "events", "--json");
    assertEquals(0, events.code(), events.err());
    List<String> lines = events.out().lines().filter(l -> !l.isBlank()).toList();
    assertTrue(lines.size() >= 3, events.out());
    assertTrue(lines.stream().anyMatch(l -> l.contains("\"kind\":\"CANCELLED\"")), "a cancel is an event: " + events.out());
    for (String l : lines) {
      check(shapes, "event", JSON.readTree(l), wrong);
    }
    Result attach = vigil(home, "attach", "idx", "--json");
    assertEquals(0, attach.code(), attach.err());
    List<String> entries = attach.out().lines().filter(l -> !l.isBlank()).toList();
    assertTrue(entries.stream().anyMatch(l -> l.contains("\"kind\":\"LAUNCHED\"")), "a launch is in the transcript: "
        + attach.out());
    for (String l : entries) {
      check(shapes, "transcript", JSON.readTree(l), wrong);
    }
    JsonNode dry = json(vigil(home, "prune", "--older-than", "0s", "--dry-run", "--json"));
    check(shapes, "prune", dry, wrong);
    JsonNode pruned = json(vigil(home, "prune", "--older-than", "0s", "--json"));
    assertTrue(pruned.path("tickets").size() >= 1, "a finished task was pruned: " + pruned);
    check(shapes, "prune", pruned, wrong);
    check(shapes, "status", json(vigil(home, "status", "--json")), wrong); // with a maintenance job's line
    assertEquals(List.of(), wrong, "fields of --json output missing from docs/CLI.md or with another type");
    assertTrue(tasks.get(0).path("payload").isObject(), "a payload is a JSON object, not a string: " + tasks.get(0));
    for (String f : List.of("status runs[].supervision", "status lanes[].parkedTickets", "ticket spec.env[]",
        "run start.identity.pid", "run result", "service failuresInWindow", "event verdict", "event ticketState",
        "ticket labels", "ticket after[]", "ticket heldFor", "ticket waitsFor[].id", "ticket waitsFor[].state",
        "schedule lastTicket.verdict", "schedule env[]", "status schedules", "status maintenance.jobs[].summary",
        "status maintenance.schedules", "prune kept.linked", "prune directories[]", "prune bytes", "prune cutoffMs")) {
      assertTrue(seen.contains(f), "the commands printed " + f + ": " + seen);
    }
  }

  /** Each field path of {@code n} (arrays as {@code path[]}) with the JSON types it had. */
  private static void fields(JsonNode n, String path, java.util.Map<String, java.util.Set<String>> out) {
    if (!path.isEmpty()) {
      out.computeIfAbsent(path, k -> new java.util.TreeSet<>()).add(typeOf(n));
    }
    if (n.isObject()) {
      n.properties().forEach(e -> fields(e.getValue(), path.isEmpty() ? e.getKey() : path + "." + e.getKey(), out));
    } else if (n.isArray()) {
      n.forEach(el -> fields(el, path + "[]", out));
    }
  }

  /**
   * Every field of {@code printed} is documented in docs/CLI.md's "Shape: {@code name}" with its type, and every
   * documented field was printed (for shapes checked by the test of their own command).
   */
  static void assertDocumented(String name, List<JsonNode> printed) throws Exception {
    java.util.Map<String, String> shape = shapes().get(name);
    java.util.Map<String, java.util.Set<String>> seen = new java.util.TreeMap<>();
    printed.forEach(q -> fields(q, "", seen));
    // below a field documented as any JSON value nothing more is documented
    seen.keySet().removeIf(path -> shape.entrySet().stream().anyMatch(e -> e.getValue().contains("json")
        && path.startsWith(e.getKey() + ".")));
    List<String> wrong = new ArrayList<>();
    seen.forEach((path, types) -> {
      String doc = shape.get(path);
      List<String> allowed = doc == null ? List.of() : List.of(doc.split(" or "));
      for (String t : types) {
        if (!allowed.contains(t) && !allowed.contains("json")) {
          wrong.add(path + " is " + t + ", documented as " + doc);
        }
      }
    });
    assertEquals(List.of(), wrong, name + " fields missing from docs/CLI.md or with another type");
    java.util.Set<String> notPrinted = new java.util.TreeSet<>(shape.keySet());
    notPrinted.removeAll(seen.keySet());
    assertEquals(java.util.Set.of(), notPrinted, "documented " + name + " fields no command printed");
  }
}
