package dev.vigil.worker.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.coordination.Verdict;
import dev.vigil.supervisor.engine.WorkerTypeSpec;
import dev.vigil.supervisor.engine.port.OutcomeRecord;
import dev.vigil.worker.Outcome;
import dev.vigil.worker.engine.DiskRunDirectories;
import dev.vigil.worker.process.LaunchedWorker;
import dev.vigil.worker.process.Processes;
import dev.vigil.worker.protocol.Message;
import dev.vigil.worker.protocol.Subject;
import dev.vigil.worker.rundir.OutcomeRead;
import dev.vigil.worker.rundir.RunDirectory;
import dev.vigil.worker.testkit.Poll;
import dev.vigil.worker.testkit.TestDaemon;
import dev.vigil.worker.testkit.Workers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Results and typed payloads in real worker hosts (real JVMs, a real socket, a stand-in daemon): a
 * record result is written durably with the outcome before it is reported, and read back as the
 * daemon reads it; a payload that does not bind, a result over the bound and one that cannot be
 * written each end the run PERMANENT_FAILURE with one line saying why.
 */
class ResultsHostTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path home;
  private TestDaemon daemon;
  private final List<LaunchedWorker> launched = new ArrayList<>();

  @BeforeEach
  void startDaemon() throws Exception {
    daemon = TestDaemon.start(home);
  }

  @AfterEach
  void cleanUp() {
    for (LaunchedWorker w : launched) {
      w.identity().ifPresent(id -> Processes.stop(id, 0).join());
    }
    daemon.close();
  }

  private record Probe(Subject subject, LaunchedWorker worker, RunDirectory dir) {
    int exitStatus() throws InterruptedException {
      assertTrue(worker.process().waitFor(Poll.PATIENCE_MS, TimeUnit.MILLISECONDS), "worker " + subject.id() + " exits");
      return worker.process().exitValue();
    }

    Outcome onDisk() {
      return assertInstanceOf(OutcomeRead.Recorded.class, dir.readOutcome()).outcome().outcome();
    }
  }

  private Probe probe(String run, String payload) throws Exception {
    WorkerArgs args = new WorkerArgs(home, run, Optional.empty(), Optional.empty(), 1, ResultProbe.NAME,
        new WorkerTypeSpec.Declared(ResultProbe.class.getName()), TestDaemon.BUILD, home.resolve("vigil.sock"), Map.of());
    Subject subject = new Subject.Run(run);
    LaunchedWorker w = Workers.launch(args, daemon.register(subject), JSON.readTree(payload));
    launched.add(w);
    return new Probe(subject, w, RunDirectory.of(home, run));
  }

  private Outcome reported(Probe p) throws InterruptedException {
    return daemon.await(p.subject(), Message.OutcomeReport.class).outcome();
  }

  @Test
  void aRecordResult_isWrittenWithTheOutcomeBeforeTheReport_andReadsBackAsTheDaemonReadsIt() throws Exception {
    Probe p = probe("t-1.1", "{\"mode\":\"count\",\"below\":30,\"asOf\":\"2026-01-31T09:30:00Z\"}");
    assertEquals(new Outcome.Succeeded("10 primes below 30"), reported(p), "the report carries no result");
    assertEquals(0, p.exitStatus());
    assertEquals(Optional.of(true), daemon.outcomeWasOnDiskAtReport(p.subject()), "effect before receipt");
    JsonNode expected = JSON.readTree("{\"below\":30,\"primes\":10,\"firstFive\":[2,3,5,7,11],"
        + "\"asOf\":\"2026-01-31T09:30:00Z\"}");
    Outcome.Succeeded s = assertInstanceOf(Outcome.Succeeded.class, p.onDisk());
    assertEquals(expected, s.result());
    assertEquals("10 primes below 30", s.detail());
    OutcomeRecord.Written w = assertInstanceOf(OutcomeRecord.Written.class,
        new DiskRunDirectories(home).outcome(dev.vigil.coordination.RunId.parse("t-1.1")));
    assertEquals(Verdict.SUCCEEDED, w.verdict());
    assertEquals(expected.toString(), w.result(), "the daemon reads it as the JSON text the store keeps");
  }

  @Test
  void aPayloadThatDoesNotBind_failsPermanently_namingTheTypeAndTheField() throws Exception {
    Probe p = probe("t-2.1", "{\"mode\":\"count\",\"below\":\"thirty\"}");
    Outcome.PermanentFailure f = assertInstanceOf(Outcome.PermanentFailure.class, reported(p));
    assertTrue(f.detail().startsWith("payload does not bind to dev.vigil.worker.host.ResultProbe.Job: field 'below': "),
        f.detail());
    assertEquals(1, f.detail().lines().count(), f.detail());
    assertEquals(f, p.onDisk());
    Probe unknown = probe("t-2.2", "{\"mode\":\"count\",\"below\":30,\"colour\":\"red\"}");
    assertTrue(assertInstanceOf(Outcome.PermanentFailure.class, reported(unknown)).detail().contains("field 'colour'"));
  }

  @Test
  void aResultOverTheBound_orOneThatCannotBeWritten_failsPermanently_sayingWhy() throws Exception {
    Probe huge = probe("t-3.1", "{\"mode\":\"huge\"}");
    Probe unwritable = probe("t-4.1", "{\"mode\":\"unwritable\"}");
    Probe caught = probe("t-5.1", "{\"mode\":\"caught\"}");
    Outcome.PermanentFailure h = assertInstanceOf(Outcome.PermanentFailure.class, reported(huge));
    assertEquals("result refused: it is 65538 bytes of JSON, more than the 65536 a run keeps (keep large output"
        + " elsewhere and return where it is)", h.detail());
    Outcome.PermanentFailure u = assertInstanceOf(Outcome.PermanentFailure.class, reported(unwritable));
    assertTrue(u.detail().startsWith("result refused: a dev.vigil.worker.host.ResultProbe.Unwritable cannot be written"
        + " as JSON: ") && u.detail().contains("no value today"), u.detail());
    assertEquals(h, huge.onDisk());
    assertEquals(u, unwritable.onDisk());
    assertNull(((Outcome.Succeeded) reported(caught)).result());
    assertEquals(JSON.getNodeFactory().textNode("stored elsewhere"), ((Outcome.Succeeded) caught.onDisk()).result(),
        "a worker that catches the refusal returns what it chooses");
    assertTrue(Files.size(huge.dir().file(RunDirectory.OUTCOME)) < 4_096, "the refused result is not written");
  }
}
