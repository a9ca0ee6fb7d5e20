package dev.vigil.coordination.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.Control;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A verb that meets a row another session holds past the lock timeout (SQLState 55P03) runs its whole
 * transaction again, {@value PostgresCoordination#CONFLICT_ATTEMPTS} times at most: it decides once the
 * row is free, and past the bound fails as broken infrastructure, having changed nothing.
 */
class PostgresConflictTest {
  @Test
  void aVerbBehindALockedRow_runsAgain_andDecidesOnceTheRowIsFree() throws Exception {
    PostgresServer server = PostgresServer.get();
    PostgresOptions o = server.freshOptions().withLockTimeout(Duration.ofMillis(100));
    try (PostgresCoordination pg = PostgresCoordination.open(o)) {
      TicketId t = ((Submission.Accepted) pg.submit(NewTicket.of(Lane.DEFAULT, "command", "{}"), 1)).ticket().id();
      try (Connection other = server.connect(); Statement s = other.createStatement()) {
        other.setAutoCommit(false);
        s.execute("SELECT id FROM " + o.schema() + ".tickets WHERE id = " + t.seq() + " FOR UPDATE");
        PostgresStoreException e = assertThrows(PostgresStoreException.class, () -> pg.cancel(t, 2));
        assertTrue(e.getMessage().contains("gave up after " + PostgresCoordination.CONFLICT_ATTEMPTS + " conflicts"),
            e.getMessage());
        assertEquals(TicketState.READY, pg.store().ticket(t).orElseThrow().state(), "a verb that gave up changed nothing");
        assertTrue(pg.store().events(0, 10).isEmpty(), "a verb that gave up wrote no event");

        Thread release = new Thread(() -> {
          try {
            Thread.sleep(250);
            other.rollback();
          } catch (Exception x) {
            throw new IllegalStateException(x);
          }
        });
        release.start();
        assertInstanceOf(Control.Done.class, pg.cancel(t, 3), "the cancel decided once the row was free");
        release.join();
      }
      assertEquals(TicketState.CANCELLED, pg.store().ticket(t).orElseThrow().state());
      assertEquals(1, pg.store().events(0, 10).size());
    }
    server.release(o.schema());
  }
}
