package dev.vigil.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.TicketId;
import dev.vigil.supervisor.engine.WorkerTypeSpec;
import dev.vigil.worker.Outcome;
import dev.vigil.worker.host.WorkerArgs;
import dev.vigil.worker.process.LaunchedWorker;
import dev.vigil.worker.protocol.Message;
import dev.vigil.worker.protocol.Subject;
import dev.vigil.worker.rundir.OutcomeRead;
import dev.vigil.worker.rundir.RunDirectory;
import dev.vigil.worker.testkit.TestDaemon;
import dev.vigil.worker.testkit.Workers;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The example type runs in a real worker host, which loads the class the type declares. */
class PrimeCountWorkerTest {
  private static final WorkerTypeSpec.Declared DECLARED = new WorkerTypeSpec.Declared(PrimeCountWorker.class.getName());

  @TempDir Path home;

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void aCustomTypeRunsInARealWorkerHost_reportsProgress_andItsOutcomeIsDurable() throws Exception {
    try (TestDaemon daemon = TestDaemon.start(home)) {
      RunId good = new RunId(new TicketId(1), 1);
      RunId bad = new RunId(new TicketId(2), 1);
      Subject goodSubject = new Subject.Run(good.toString());
      Subject badSubject = new Subject.Run(bad.toString());
      LaunchedWorker g = Workers.launch(WorkerArgs.task(home, good, 1, "prime-count", DECLARED, TestDaemon.BUILD),
          daemon.register(goodSubject), JSON.readTree("{\"below\": 100000}"));
      LaunchedWorker b = Workers.launch(WorkerArgs.task(home, bad, 1, "prime-count", DECLARED, TestDaemon.BUILD),
          daemon.register(badSubject), JSON.readTree("{\"below\": \"lots\"}"));

      Message.Progress p = daemon.await(goodSubject, Message.Progress.class);
      assertTrue(p.message().startsWith("checked "), p.message());
      assertEquals(new Outcome.Succeeded("9592 primes below 100000"),
          daemon.await(goodSubject, Message.OutcomeReport.class).outcome());
      assertEquals(new Outcome.PermanentFailure("payload field 'below' must be a whole number in [2, 50000000]"),
          daemon.await(badSubject, Message.OutcomeReport.class).outcome());
      assertTrue(g.process().waitFor(20, TimeUnit.SECONDS) && b.process().waitFor(20, TimeUnit.SECONDS));
      assertEquals(0, g.process().exitValue());
      OutcomeRead onDisk = RunDirectory.of(home, good.toString()).readOutcome();
      assertEquals(new Outcome.Succeeded("9592 primes below 100000"), ((OutcomeRead.Recorded) onDisk).outcome().outcome());
    }
  }

  @Test
  void primesAreCounted() {
    long count = 0;
    for (long k = 0; k < 100; k++) {
      count += PrimeCountWorker.isPrime(k) ? 1 : 0;
    }
    assertEquals(25, count);
  }
}
