package dev.vigil.launcher;

import static dev.vigil.launcher.CliEndToEndTest.json;
import static dev.vigil.launcher.CliEndToEndTest.poll;
import static dev.vigil.launcher.CliEndToEndTest.vigil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.Verdict;
import dev.vigil.launcher.CliEndToEndTest.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Worker results and typed payloads end to end, on real daemons (an embedded one, and one started by
 * {@code vigil up} and killed with {@code kill -9}) with real worker processes running
 * {@code results.CountPrimes} ({@link ResultTypes}): a record result is stored with its run and read
 * back by {@code vigil show} and {@link Vigil#runResult}; a payload that does not bind and a result over
 * the bound settle PERMANENT_FAILURE without another attempt; and a result written while no daemon
 * runs is settled by the next one.
 */
class WorkerResultsTest {
  private static final Duration LONG = Duration.ofSeconds(90);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant AS_OF = Instant.parse("2026-01-31T09:30:00Z");

  @TempDir
  Path tmp;

  private final List<Path> homes = new ArrayList<>();

  @AfterEach
  void stopDaemons() throws Exception {
    for (Path h : homes) {
      vigil(h, "down", "--stop-workers");
    }
  }

  /** The submitter's side of the payload: the fields of the worker's {@code Job}. */
  public record Job(int below, Instant asOf, String waitFor, Boolean huge) {}

  /** The application's own type for the worker's result: bound by its field names. */
  public record Primes(int below, int primes, List<Integer> firstFive, Instant asOf) {}

  /** A type the result does not fit: it declares one of its fields only. */
  public record BelowOnly(int below) {}

  private static final String EXPECTED = "{\"below\":30,\"primes\":10,\"firstFive\":[2,3,5,7,11],"
      + "\"asOf\":\"2026-01-31T09:30:00Z\"}";

  @Test
  void aRecordResult_isStoredWithItsRun_andReadBackByShowAndByTheFacade() throws Exception {
    Path classes = ResultTypes.compileInto(tmp.resolve("result-classes"));
    Path home = CliEndToEndTest.ownerOnlyHome(tmp, "embedded", new ArrayList<>());
    try (Vigil v = Vigil.builder().home(home).workerType(ResultTypes.NAME, ResultTypes.COUNT_PRIMES,
        List.of(classes.toString())).start()) {
      Submitted s = v.submit(Task.worker(ResultTypes.NAME, new Job(30, AS_OF, null, null)).build());
      Ticket done = v.await(s.id(), LONG);
      assertEquals(TicketState.SUCCEEDED, done.state(), done.toString());
      List<Run> runs = v.runs(s.id());
      assertEquals(1, runs.size());
      Run run = runs.get(0);
      assertEquals(Verdict.SUCCEEDED, run.verdict());
      assertEquals("10 primes below 30", run.diagnosis());
      assertEquals(JSON.readTree(EXPECTED), JSON.readTree(run.result()), "the run keeps the result as JSON text");

      assertEquals(Optional.of(new Primes(30, 10, List.of(2, 3, 5, 7, 11), AS_OF)), v.runResult(run.id(), Primes.class));
      assertEquals(Optional.of(JSON.readTree(EXPECTED)), v.runResult(run.id()));
      IllegalArgumentException wrong = assertThrows(IllegalArgumentException.class,
          () -> v.runResult(run.id(), BelowOnly.class));
      assertTrue(wrong.getMessage().startsWith("the result of " + run.id() + ": JSON does not bind to "
          + BelowOnly.class.getCanonicalName() + ": field 'primes': "), wrong.getMessage());
      assertEquals(1, wrong.getMessage().lines().count(), wrong.getMessage());

      // the CLI beside the embedded daemon: --json has the result as a JSON value, the view a line of it
      JsonNode shown = json(vigil(home, "show", s.id().toString(), "--json"));
      assertEquals(JSON.readTree(EXPECTED), shown.path("runs").get(0).path("result"), "a JSON value, not a string");
      Result view = vigil(home, "show", s.id().toString());
      assertEquals(0, view.code(), view.err());
      assertTrue(view.out().contains("\n    result   " + JSON.readTree(EXPECTED) + "\n"), view.out());
      JsonNode listed = json(vigil(home, "runs", "--json"));
      assertEquals(JSON.readTree(EXPECTED), listed.get(0).path("result"));

      Ticket command = v.await(v.submit(Task.command("true").build()).id(), LONG);
      Run commandRun = v.runs(command.id()).get(0);
      assertEquals(Verdict.SUCCEEDED, commandRun.verdict());
      assertEquals(Optional.empty(), v.runResult(commandRun.id()), "the command type returns no result");
      assertEquals(Optional.empty(), v.runResult(commandRun.id(), Primes.class));
      assertTrue(json(vigil(home, "show", command.id().toString(), "--json")).path("runs").get(0).path("result").isNull());
      assertEquals(Optional.empty(), v.runResult(new dev.vigil.coordination.RunId(s.id(), 2)), "no such run: none");
    }
  }

  @Test
  void aPayloadThatDoesNotBind_andAResultOverTheBound_failPermanently_withoutAnotherAttempt() throws Exception {
    Path classes = ResultTypes.compileInto(tmp.resolve("result-classes"));
    try (Vigil v = Vigil.builder().home(tmp.resolve("home")).workerType(ResultTypes.NAME, ResultTypes.COUNT_PRIMES,
        List.of(classes.toString())).start()) {
      Submitted bad = v.submit(Task.worker(ResultTypes.NAME, Map.of("below", "thirty")).attempts(3).build());
      Submitted huge = v.submit(Task.worker(ResultTypes.NAME, new Job(30, AS_OF, null, true)).attempts(3).build());
      for (Submitted s : List.of(bad, huge)) {
        Ticket t = v.await(s.id(), LONG);
        assertEquals(TicketState.FAILED, t.state(), "a permanent failure fails the ticket: " + t);
        List<Run> runs = v.runs(s.id());
        assertEquals(1, runs.size(), "no retry: " + runs);
        assertEquals(Verdict.PERMANENT_FAILURE, runs.get(0).verdict());
        assertEquals(null, runs.get(0).result());
        assertEquals(Optional.empty(), v.runResult(runs.get(0).id()));
        assertFalse(t.state() == TicketState.READY || t.state() == TicketState.HELD, "not queued again");
      }
      String binding = v.runs(bad.id()).get(0).diagnosis();
      assertTrue(binding.startsWith("payload does not bind to results.CountPrimes.Job: field 'below': "), binding);
      assertEquals(1, binding.lines().count(), binding);
      assertTrue(v.runs(huge.id()).get(0).diagnosis().startsWith("result refused: it is 70004 bytes of JSON, more than "
          + "the 65536 a run keeps"), v.runs(huge.id()).get(0).diagnosis());
    }
  }

  @Test
  void aResultWrittenWhileNoDaemonRuns_isSettledWithItsRunByTheNextDaemon_afterKill9() throws Exception {
    Path classes = ResultTypes.compileInto(tmp.resolve("result-classes"));
    Path home = CliEndToEndTest.ownerOnlyHome(tmp, "killed", homes);
    Path config = Files.writeString(tmp.resolve("vigil.json"), "{\"workerTypes\": {\"" + ResultTypes.NAME
        + "\": {\"class\": \"" + ResultTypes.COUNT_PRIMES + "\", \"classpath\": [\"" + classes + "\"]}}}");
    Path go = tmp.resolve("go");
    String up1 = vigil(home, "up", "--config", config.toString()).line();
    long daemon1 = Long.parseLong(up1.substring(4));
    Result submitted = vigil(home, "submit", "--type", ResultTypes.NAME, "--payload",
        JSON.writeValueAsString(Map.of("below", 30, "asOf", AS_OF.toString(), "waitFor", go.toString())));
    assertEquals(0, submitted.code(), submitted.err());
    String ticket = submitted.line();
    JsonNode running = poll(home, ticket, t -> t.path("runs").size() == 1
        && "RUNNING".equals(t.path("runs").get(0).path("state").asText()));
    long workerPid = running.path("runs").get(0).path("pid").asLong();
    String run = running.path("runs").get(0).path("id").asText();

    new ProcessBuilder("kill", "-9", Long.toString(daemon1)).start().waitFor();
    awaitDead(daemon1);
    assertEquals(4, vigil(home, "--wait-daemon", "0", "status").code(), "no daemon after kill -9");
    Files.createFile(go); // the worker finishes now, with no daemon to report to
    Path outcome = home.resolve("runs").resolve(run).resolve("outcome.json");
    awaitDead(workerPid);
    assertTrue(Files.exists(outcome), "the worker wrote its outcome before it exited");
    assertEquals(JSON.readTree(EXPECTED), JSON.readTree(Files.readString(outcome)).path("result"),
        "the result is in outcome.json, durable before anyone is told");

    assertEquals(0, vigil(home, "up", "--config", config.toString()).code());
    assertEquals(0, vigil(home, "wait", ticket, "--timeout", "90s").code());
    JsonNode done = json(vigil(home, "show", ticket, "--json"));
    assertEquals(1, done.path("runs").size(), "nothing ran twice");
    assertEquals("SUCCEEDED", done.path("runs").get(0).path("verdict").asText());
    assertEquals("RECOVERY", done.path("runs").get(0).path("exitOwner").path("role").asText(),
        "settled by the next daemon's recovery, from the run directory");
    assertEquals(JSON.readTree(EXPECTED), done.path("runs").get(0).path("result"));
    assertEquals(1, done.path("attemptsUsed").asInt());
    assertEquals(List.of(run), Files.readAllLines(Path.of(go + ".starts")), "the work started once");
  }

  private static void awaitDead(long pid) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
      assertTrue(System.nanoTime() < deadline, "process " + pid + " ended in time");
      Thread.sleep(100);
    }
  }
}
