package dev.vigil.coordination.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunStart;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.TicketId;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The schema itself carries the laws: writes that would break them are refused by the database,
 * whatever code issues them (here: plain SQL on the closed file).
 */
class H2SchemaTest {
  @TempDir
  Path dir;
  private Path file;

  /** Ticket t-1 LEASED by run t-1.1 (RUNNING); ticket t-2 READY with no runs. */
  @BeforeEach
  void twoTickets() {
    file = dir.resolve("schema.mv.db");
    OwnerId a = new OwnerId("d-alpha");
    try (H2Coordination h2 = H2Coordination.open(file, H2Options.defaults())) {
      TicketId t1 = ((Submission.Accepted) h2.submit(NewTicket.of(Lane.DEFAULT, "command", "{}"), 1)).ticket().id();
      h2.submit(NewTicket.of(Lane.DEFAULT, "command", "{}"), 1);
      h2.claim(t1, a, 1, 1_000);
      h2.start(new RunId(t1, 1), a, new RunStart(new ProcessIdentity("b", 1, 1, 1), "1", "0".repeat(64), 1));
    }
  }

  private Connection raw() throws SQLException {
    String s = file.toString();
    return DatabaseFile.connect("jdbc:h2:file:" + s.substring(0, s.length() - ".mv.db".length()) + ";IFEXISTS=TRUE");
  }

  /** The SQLState with which the database refuses {@code sql}. */
  private String sqlState(String sql) throws SQLException {
    try (Connection c = raw(); Statement st = c.createStatement()) {
      return assertThrows(SQLException.class, () -> st.executeUpdate(sql), sql).getSQLState();
    }
  }

  private void exec(String sql) throws SQLException {
    try (Connection c = raw(); Statement st = c.createStatement()) {
      st.executeUpdate(sql);
    }
  }

  @Test
  void C1_aSecondLeaseForATicket_isADuplicateKey() throws Exception {
    assertEquals("23505", sqlState("INSERT INTO leases VALUES (1, 't-1.2', 'd-beta', 5)"));
  }

  @Test
  void C1_leasesAreKeyedByTicket_andUniqueByRun() throws Exception {
    List<String> keys = new ArrayList<>();
    try (Connection c = raw(); Statement st = c.createStatement();
         ResultSet rs = st.executeQuery("SELECT tc.CONSTRAINT_TYPE, k.COLUMN_NAME FROM"
             + " INFORMATION_SCHEMA.TABLE_CONSTRAINTS tc JOIN INFORMATION_SCHEMA.KEY_COLUMN_USAGE k"
             + " ON k.CONSTRAINT_NAME = tc.CONSTRAINT_NAME AND k.TABLE_NAME = tc.TABLE_NAME"
             + " WHERE tc.TABLE_NAME = 'LEASES' AND tc.CONSTRAINT_TYPE IN ('PRIMARY KEY', 'UNIQUE')"
             + " ORDER BY tc.CONSTRAINT_TYPE")) {
      while (rs.next()) {
        keys.add(rs.getString(1) + " " + rs.getString(2));
      }
    }
    assertEquals(List.of("PRIMARY KEY TICKET_ID", "UNIQUE RUN_ID"), keys);
  }

  @Test
  void aLeaseMustNameARunOfItsOwnTicket_andRunsMustBelongToKnownTickets() throws Exception {
    assertEquals("23513", sqlState("INSERT INTO leases VALUES (2, 't-1.1', 'd-beta', 5)"));
    assertEquals("23506", sqlState("INSERT INTO runs(run_id, ticket_id, number, attempt, state, owner_id,"
        + " claimed_at_ms, hand_started) VALUES ('t-9.1', 9, 1, 1, 'CLAIMED', 'd-beta', 1, FALSE)"));
    assertEquals("23513", sqlState("INSERT INTO runs(run_id, ticket_id, number, attempt, state, owner_id,"
        + " claimed_at_ms, hand_started) VALUES ('t-2.7', 2, 1, 1, 'CLAIMED', 'd-beta', 1, FALSE)"));
  }

  @Test
  void statesAreChecked_andEachStateHasTheColumnsItNeeds() throws Exception {
    assertEquals("23513", sqlState("UPDATE tickets SET state = 'LOST' WHERE id = 2"));
    assertEquals("23513", sqlState("UPDATE tickets SET state = 'HELD' WHERE id = 2"));
    assertEquals("23513", sqlState("UPDATE runs SET state = 'SETTLED' WHERE run_id = 't-1.1'"));
    assertEquals("23513", sqlState("UPDATE runs SET state = 'EXITED' WHERE run_id = 't-1.1'"));
    assertEquals("23513", sqlState("UPDATE runs SET started_at_ms = NULL WHERE run_id = 't-1.1'"));
    assertEquals("23513", sqlState("UPDATE runs SET verdict = 'SUPERSEDED' WHERE run_id = 't-1.1'"));
  }

  @Test
  void idempotencyKeysAreUnique() throws Exception {
    exec("UPDATE tickets SET idempotency_key = 'k' WHERE id = 1");
    try (H2Coordination h2 = H2Coordination.open(file, H2Options.defaults())) {
      h2.submit(new NewTicket(Lane.DEFAULT, "command", "{}", 3, 0, 0, "order-1"), 1);
      h2.takeExit(new RunId(new TicketId(1), 1), ExitOwner.supervisor(new OwnerId("d-alpha")), RunExit.code(0, 1));
    }
    assertEquals("23505", sqlState("UPDATE tickets SET idempotency_key = 'order-1' WHERE id = 2"));
  }
}
