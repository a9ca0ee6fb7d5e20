package dev.vigil.coordination.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import org.junit.jupiter.api.Test;

/**
 * A pooled connection idle long enough for the pool to check it before lending it again still starts
 * a clean transaction: the snapshot's isolation is set by its first statement, and a verb after the
 * pause decides as any other.
 */
class PostgresIdleConnectionTest {
  @Test
  void aSnapshotAndAVerb_afterTheConnectionsWereIdle_workAsBefore() throws Exception {
    PostgresOptions o = PostgresServer.get().freshOptions().withPoolSize(1);
    try (PostgresCoordination pg = PostgresCoordination.open(o)) {
      pg.submit(NewTicket.of(Lane.DEFAULT, "command", "{}"), 1);
      Thread.sleep(700); // past the 500 ms in which the pool lends a connection without a check
      assertEquals(1, pg.store().snapshot().tickets().size());
      Thread.sleep(700);
      pg.submit(NewTicket.of(Lane.DEFAULT, "command", "{}"), 1);
      Thread.sleep(700);
      assertEquals(2, pg.store().snapshot().tickets().size());
    }
    PostgresServer.get().release(o.schema());
  }
}
