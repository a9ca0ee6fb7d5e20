package dev.vigil.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedding API: a real daemon in this JVM over a real H2 file and real worker processes. */
class VigilEmbeddedTest {
  @TempDir
  Path tmp;

  @Test
  void anEmbeddedDaemonRunsATask_refusesASecondDaemon_andShutsDownWhenIdle() throws Exception {
    Path home = tmp.resolve("home");
    try (Vigil v = Vigil.builder().home(home).start()) {
      assertTrue(Files.exists(home.resolve("daemon.json")), "status file written at boot (D1)");
      IllegalStateException refused = assertThrows(IllegalStateException.class, () -> Vigil.builder().home(home).start());
      assertTrue(refused.getMessage().contains("already runs"), refused.getMessage());
      TicketId t = v.submit(List.of("sh", "-c", "exit 0"));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      Ticket ticket = v.ticket(t).orElseThrow();
      while (ticket.state() != TicketState.SUCCEEDED && System.nanoTime() < deadline) {
        Thread.sleep(200);
        ticket = v.ticket(t).orElseThrow();
      }
      assertEquals(TicketState.SUCCEEDED, ticket.state());
      assertEquals(1, v.status().tickets().get(TicketState.SUCCEEDED));
      assertTrue(v.shutdownIfIdle(), "idle: the daemon stops (S5)");
    }
    assertFalse(Files.exists(home.resolve("daemon.json")), "a clean exit deletes daemon.json (D1)");
  }
}
