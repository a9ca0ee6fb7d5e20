package dev.vigil.launcher;

import static dev.vigil.launcher.CliEndToEndTest.json;
import static dev.vigil.launcher.CliEndToEndTest.poll;
import static dev.vigil.launcher.CliEndToEndTest.vigil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.launcher.CliEndToEndTest.Result;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Questions for a person end to end (Q16), every command a separate JVM running {@link Main} against a daemon of
 * {@code vigil up} on real worker processes: the daemon asks about a task it holds, the answer is recorded while
 * the daemon is dead (killed with {@code kill -9}), and the next daemon applies it exactly once.
 */
class QuestionsCliTest {
  @TempDir
  Path tmp;

  private final List<Path> homes = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (Path h : homes) {
      vigil(h, "down", "--stop-workers");
    }
  }

  /** Polls {@code vigil questions --all --json} until one question passes {@code until}; returns it. */
  private static JsonNode question(Path home, Predicate<JsonNode> until) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (true) {
      JsonNode all = json(vigil(home, "questions", "--all", "--json"));
      for (JsonNode q : all) {
        if (until.test(q)) {
          return q;
        }
      }
      assertTrue(System.nanoTime() < deadline, "no question as awaited: " + all);
      Thread.sleep(200);
    }
  }

  /** Every field of the questions is documented in docs/CLI.md's "Shape: question" with its type, and every documented field was printed. */
  private static void documented(List<JsonNode> questions) throws Exception {
    JsonShapesTest.assertDocumented("question", questions);
  }

  private static void killed(long pid) throws Exception {
    assertTrue(pid > 1 && pid != ProcessHandle.current().pid(), "not a process to kill: " + pid); // kill -9 0 would end this group
    new ProcessBuilder("kill", "-9", Long.toString(pid)).start().waitFor();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertTrue(ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true), "the daemon died");
  }

  /** A worker type that asks a person whether to deploy and returns the answer as its result: {@code asking.Asker}. */
  private static final String ASKER = """
      package asking;

      import dev.vigil.worker.Outcome;
      import dev.vigil.worker.Question;
      import dev.vigil.worker.WorkContext;
      import java.util.Map;
      import java.util.Optional;

      public final class Asker implements dev.vigil.worker.WorkerType {
        @Override
        public String name() {
          return "asker";
        }

        @Override
        public Outcome run(WorkContext ctx) throws Exception {
          Optional<Question.Answer> a = ctx.ask(Question.of("Deploy build 42 to production?")
              .option("yes", "deploy it", Map.of("deploy", true))
              .option("no", "leave it", Map.of("deploy", false)));
          if (a.isEmpty()) {
            return ctx.stalled(System.currentTimeMillis(), "stopped while asking");
          }
          return Outcome.succeeded(Map.of("answer", a.get().option(), "value", a.get().value()));
        }
      }
      """;

  private static Path compileAsker(Path dir) throws Exception {
    Path src = java.nio.file.Files.createDirectories(dir.resolveSibling("asker-src").resolve("asking"));
    Path file = java.nio.file.Files.writeString(src.resolve("Asker.java"), ASKER);
    java.nio.file.Files.createDirectories(dir);
    int status = javax.tools.ToolProvider.getSystemJavaCompiler().run(null, null, null, "--release", "17", "-cp",
        System.getProperty("java.class.path"), "-d", dir.toString(), file.toString());
    assertEquals(0, status, "the asking worker type compiles");
    return dir;
  }

  @Test
  void Q16_aWorkerAsks_waitsAcrossAKill9OfItsDaemon_withoutAskingTwice_andReceivesTheChosenValue() throws Exception {
    Path classes = compileAsker(tmp.resolve("asker-classes"));
    Path home = CliEndToEndTest.ownerOnlyHome(tmp, "asker", homes);
    Path config = java.nio.file.Files.writeString(tmp.resolve("vigil.json"), "{\"workerTypes\": {\"asker\": "
        + "{\"class\": \"asking.Asker\", \"classpath\": [\"" + classes + "\"]}}}");
    long daemon = Long.parseLong(vigil(home, "up", "--config", config.toString()).line().substring(4));
    Result sub = vigil(home, "submit", "--type", "asker", "--payload", "{}");
    assertEquals(0, sub.code(), sub.err());
    String t = sub.line();
    JsonNode asked = question(home, q -> (t + ".1").equals(q.path("askedBy").asText()));
    String q = asked.path("id").asText();
    assertEquals("Deploy build 42 to production?", asked.path("text").asText());
    assertEquals(t, asked.path("ticket").asText());
    assertEquals("reply {\"deploy\":true}", asked.path("options").get(0).path("actions").get(0).path("action").asText());
    JsonNode running = json(vigil(home, "show", t, "--json"));
    assertEquals("LEASED", running.path("state").asText(), "the asking task holds its slot");
    long worker = running.path("runs").get(0).path("pid").asLong();

    // the daemon dies while the worker waits; the next one is asked again and knows the question
    killed(daemon);
    assertEquals(0, vigil(home, "up", "--config", config.toString()).code());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (daemonLog(home).split(java.util.regex.Pattern.quote("Welcomed[key=" + t + ".1,"), -1).length < 3) {
      assertTrue(System.nanoTime() < deadline, "the worker says hello to the new daemon");
      Thread.sleep(200);
    }
    Thread.sleep(1_000); // time for it to ask again
    JsonNode all = json(vigil(home, "questions", "--all", "--json"));
    assertEquals(1, all.size(), "asked once, across the restart: " + all);
    assertTrue(ProcessHandle.of(worker).map(ProcessHandle::isAlive).orElse(false), "the same worker waits on");

    Result answered = vigil(home, "answer", q, "yes");
    assertEquals(0, answered.code(), answered.err());
    JsonNode done = poll(home, t, x -> x.path("state").asText().equals("SUCCEEDED"));
    assertEquals(1, done.path("runs").size(), "one run: the worker waited and went on");
    assertEquals("{\"answer\":\"yes\",\"value\":{\"deploy\":true}}",
        new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(done.path("runs").get(0).path("result")
            .isObject() ? sorted(done.path("runs").get(0).path("result")) : done.path("runs").get(0).path("result")));
    JsonNode applied = question(home, x -> x.path("id").asText().equals(q) && x.path("state").asText().equals("APPLIED"));
    assertEquals("{\"deploy\":true}", applied.path("reply").toString());
    assertEquals("done: answer the worker with {\"deploy\":true}", applied.path("outcome").asText());
    documented(List.of(applied));
  }

  private static JsonNode sorted(JsonNode n) throws Exception {
    com.fasterxml.jackson.databind.ObjectMapper m = new com.fasterxml.jackson.databind.ObjectMapper()
        .configure(com.fasterxml.jackson.databind.SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);
    return m.readTree(m.writeValueAsString(m.treeToValue(n, java.util.TreeMap.class)));
  }

  private static String daemonLog(Path home) throws Exception {
    return java.nio.file.Files.readString(home.resolve("logs").resolve("daemon.log"),
        java.nio.charset.StandardCharsets.ISO_8859_1);
  }

  @Test
  void Q16_aHeldTaskIsAskedAbout_theAnswerGivenWhileTheDaemonIsDead_isAppliedOnceByTheNextDaemon() throws Exception {
    Path home = CliEndToEndTest.ownerOnlyHome(tmp, "held", homes);
    Path mark = tmp.resolve("ran-once");
    long daemon = Long.parseLong(vigil(home, "up").line().substring(4));
    Result sub = vigil(home, "submit", "--max-attempts", "1", "--", "sh", "-c",
        "test -f '" + mark + "' && exit 0; touch '" + mark + "'; exit 3");
    assertEquals(0, sub.code(), sub.err());
    String t = sub.line();
    assertEquals("HELD", poll(home, t, x -> x.path("state").asText().equals("HELD")).path("state").asText());

    JsonNode asked = question(home, q -> t.equals(q.path("ticket").asText()));
    String q = asked.path("id").asText();
    assertEquals("OPEN", asked.path("state").asText());
    assertTrue(asked.path("askedBy").isNull(), "the daemon asked: " + asked);
    assertTrue(asked.path("text").asText().startsWith(t + " (command in lane default) is held"), asked.toString());
    List<String> options = new ArrayList<>();
    asked.path("options").forEach(o -> options.add(o.path("name").asText()));
    assertEquals(List.of("retry", "release", "cancel"), options);
    String listed = vigil(home, "questions").out();
    assertTrue(listed.startsWith(q + "  " + t) && listed.contains("release it with 3 more attempts"), listed);

    // bad answers change nothing and say why in one line
    Result unknown = vigil(home, "answer", q, "banana");
    assertEquals(2, unknown.code());
    assertEquals("vigil: question " + q + " has no option 'banana' (options: retry, release, cancel); nothing was "
        + "recorded", unknown.err().trim());
    assertEquals(2, vigil(home, "answer", "q-99", "retry").code());
    Result notAnId = vigil(home, "answer", "banana", "retry");
    assertEquals(2, notAnId.code());
    assertEquals("vigil: not a question id: 'banana' (expected q-<number>)", notAnId.err().trim());
    assertEquals("OPEN", question(home, x -> x.path("id").asText().equals(q)).path("state").asText());

    // the daemon dies; the answer is recorded with no daemon to apply it
    killed(daemon);
    JsonNode answered = json(vigil(home, "answer", q, "release", "--json"));
    assertEquals("QuestionAnswered", answered.path("kind").asText());
    assertTrue(answered.path("message").asText().startsWith(q + " answered 'release'; the daemon applies it"),
        answered.toString());
    assertEquals("ANSWERED", answered.path("question").path("state").asText());
    JsonNode waiting = question(home, x -> x.path("id").asText().equals(q));
    assertEquals("ANSWERED", waiting.path("state").asText(), "the deputy records the answer and does nothing else");
    assertEquals(3, vigil(home, "answer", q, "cancel").code(), "an answer is given once");

    // the next daemon applies it, once
    assertEquals(0, vigil(home, "up").code());
    JsonNode applied = question(home, x -> x.path("id").asText().equals(q) && x.path("state").asText().equals("APPLIED"));
    assertEquals("done: release " + t + " with 3 more attempts", applied.path("outcome").asText());
    JsonNode done = poll(home, t, x -> x.path("state").asText().equals("SUCCEEDED"));
    assertEquals(2, done.path("runs").size(), "released once: one more run, and it succeeded");
    assertEquals(4, done.path("allowedAttempts").asInt(), "the grant was given once: " + done);
    Result again = vigil(home, "answer", q, "cancel");
    assertEquals(3, again.code());
    assertEquals("vigil: denied: question " + q + " was answered before ('release'); an answer is given once",
        again.err().trim());
    assertEquals("no open questions", vigil(home, "questions").line());
    List<JsonNode> printed = new ArrayList<>();
    json(vigil(home, "questions", "--all", "--json")).forEach(printed::add);
    printed.add(asked);
    printed.add(answered.path("question"));
    documented(printed);
    String all = vigil(home, "questions", "--all").out();
    assertTrue(all.contains("answered 'release'; applied: done: release " + t + " with 3 more attempts"), all);
  }
}
