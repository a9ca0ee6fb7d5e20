package dev.vigil.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import dev.vigil.supervisor.engine.ServiceSpec;
import dev.vigil.supervisor.engine.Status;
import dev.vigil.worker.process.GroupSignal;
import dev.vigil.worker.process.Processes;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a configuration says about worker types and services reaches every worker, whichever way its
 * work was submitted: a real embedded daemon, real worker processes, the real socket.
 */
class ConfiguredWorkerTypesTest {
  @TempDir
  Path tmp;

  private static Ticket await(Vigil v, TicketId t, Predicate<Ticket> until) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    Ticket ticket = v.ticket(t).orElseThrow();
    while (!until.test(ticket)) {
      assertTrue(System.nanoTime() < deadline, "ticket " + t + " settles in time: " + ticket);
      Thread.sleep(200);
      ticket = v.ticket(t).orElseThrow();
    }
    return ticket;
  }

  /** Its first run settled: an attempt was spent (a failure), or it is due again later (a stall, or a retry's backoff). */
  private static boolean settledOnce(Ticket t) {
    return t.attemptsUsed() > 0 || t.notBeforeMs() > 0 || t.state() != TicketState.READY && t.state() != TicketState.LEASED;
  }

  private Path config(String json) throws Exception {
    return Files.writeString(tmp.resolve("vigil-" + System.nanoTime() + ".json"), json);
  }

  @Test
  void theConfiguredStallExitCode_holdsForEmbeddedAndSocketSubmissionsAlike() throws Exception {
    Path file = config("""
        {"workerTypes": {"command": {"builtin": "command", "stallExitCode": 42}}}
        """);
    Path home = tmp.resolve("home");
    try (Vigil v = Vigil.builder().home(home).config(file).start()) {
      TicketId embedded = v.submit(List.of("sh", "-c", "exit 42"));
      TicketId byTicket = v.submit(NewTicket.of(Lane.DEFAULT, "command", "{\"argv\": [\"sh\", \"-c\", \"exit 42\"]}"));
      CliEndToEndTest.Result cli = CliEndToEndTest.vigil(home, "submit", "--", "sh", "-c", "exit 42");
      assertEquals(0, cli.code(), cli.err());
      TicketId bySocket = TicketId.parse(cli.line());
      for (TicketId t : List.of(embedded, byTicket, bySocket)) {
        Ticket settled = await(v, t, ConfiguredWorkerTypesTest::settledOnce);
        assertEquals(0, settled.attemptsUsed(), "Q2: exit 42 is the configured stall, which spends no attempt: " + settled);
        assertEquals(TicketState.READY, settled.state(), "Q2: a stalled ticket is due again later: " + settled);
      }
    }
  }

  @Test
  void theConfiguredMaxAttempts_holdsForEmbeddedAndSocketSubmissionsAlike() throws Exception {
    Path home = tmp.resolve("home");
    try (Vigil v = Vigil.builder().home(home).config(config("{\"maxAttempts\": 1}")).start()) {
      TicketId embedded = v.submit(List.of("sh", "-c", "exit 0"));
      CliEndToEndTest.Result cli = CliEndToEndTest.vigil(home, "submit", "--", "sh", "-c", "exit 0");
      assertEquals(0, cli.code(), cli.err());
      assertEquals(1, v.ticket(embedded).orElseThrow().maxAttempts(), "Q1: the configured attempts, embedded");
      assertEquals(1, v.ticket(TicketId.parse(cli.line())).orElseThrow().maxAttempts(), "Q1: the configured attempts, CLI");
    }
  }

  @Test
  void aCustomTypeRunsItsDeclaredClass_fromItsOwnClasspathOnly() throws Exception {
    Path own = ProbeTypes.compileInto(tmp.resolve("probe-classes"));
    Path other = Files.createDirectories(tmp.resolve("other-classes"));
    Path file = config("""
        {"workerTypes": {
           "probe-a": {"class": "%s", "classpath": ["%s"]},
           "probe-b": {"class": "%s", "classpath": ["%s", "%s"]}}}
        """.formatted(ProbeTypes.PROBE, own, ProbeTypes.PROBE, own, other));
    try (Vigil v = Vigil.builder().home(tmp.resolve("home")).config(file)
        .workerType("probe-c", ProbeTypes.PROBE, List.of(own.toString())).start()) {
      for (String type : List.of("probe-a", "probe-b", "probe-c")) {
        Path seen = tmp.resolve(type + ".classpath");
        TicketId t = v.submit(NewTicket.of(Lane.DEFAULT, type, "{\"out\": \"" + seen + "\"}"));
        Ticket done = await(v, t, x -> x.state() != TicketState.READY && x.state() != TicketState.LEASED);
        assertEquals(TicketState.SUCCEEDED, done.state(), type + " runs " + ProbeTypes.PROBE + ": " + done);
        List<String> classpath = List.of(Files.readString(seen).split(File.pathSeparator));
        assertTrue(classpath.contains(own.toString()), type + " gets its own entries: " + classpath);
        assertEquals(type.equals("probe-b"), classpath.contains(other.toString()),
            type + " gets no other type's entries: " + classpath);
      }
    }
  }

  @Test
  void anOnDemandService_isNotStartedAtBoot_whileAnAlwaysServiceIs() throws Exception {
    Path file = config("""
        {"services": [
           {"name": "idx", "type": "command", "payload": {"argv": ["sleep", "60"]}, "activation": "on-demand"},
           {"name": "web", "type": "command", "payload": {"argv": ["sleep", "60"]}}]}
        """);
    Optional<ProcessIdentity> worker = Optional.empty();
    try (Vigil v = Vigil.builder().home(tmp.resolve("home")).config(file).start()) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      Status s = v.status();
      while (s.services().get(1).state() != Status.ServiceState.UP) {
        assertTrue(System.nanoTime() < deadline, "the always service comes up: " + s.services());
        Thread.sleep(200);
        s = v.status();
      }
      Status.ServiceStatus idx = s.services().get(0);
      assertEquals("idx", idx.name());
      assertEquals(ServiceSpec.Activation.ON_DEMAND, idx.activation());
      assertEquals(Status.ServiceState.DOWN, idx.state(), "an on-demand service waits to be started: " + idx);
      assertEquals(ServiceSpec.Activation.ALWAYS, s.services().get(1).activation(), "always is the default");
      worker = Processes.identityOf(s.services().get(1).pid());
    } finally {
      worker.ifPresent(id -> Processes.signalWhatIsLeft(id, GroupSignal.KILL)); // the daemon leaves it running (D4)
    }
  }
}
