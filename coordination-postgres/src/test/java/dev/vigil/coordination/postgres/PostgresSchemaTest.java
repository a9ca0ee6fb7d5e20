package dev.vigil.coordination.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.Submission;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;

/**
 * The schema is created and migrated forward only, once, by whichever daemon opens it first: a new
 * schema reaches the current version, a reopen changes nothing, daemons opening at once migrate it
 * once, and a schema of other tables or of a newer version is refused without being changed.
 */
class PostgresSchemaTest {
  private final PostgresServer server = PostgresServer.get();

  @Test
  void aNewSchemaIsMigratedToTheCurrentVersion_once_andAReopenKeepsEveryRow() throws Exception {
    PostgresOptions o = server.freshOptions().withSchema("s_new_" + ProcessHandle.current().pid());
    try (PostgresCoordination pg = PostgresCoordination.open(o)) {
      assertInstanceOf(Submission.Accepted.class, pg.submit(NewTicket.of(Lane.DEFAULT, "command", "{}"), 1));
    }
    try (PostgresCoordination pg = PostgresCoordination.open(o)) {
      assertEquals(1, pg.store().tickets(dev.vigil.coordination.TicketQuery.all()).size());
    }
    assertEquals(java.util.stream.IntStream.rangeClosed(1, Schema.CURRENT_VERSION).boxed().toList(), versions(o.schema()));
    server.drop(o.schema());
  }

  @Test
  void daemonsOpeningANewSchemaAtOnce_migrateItOnce() throws Exception {
    PostgresOptions o = server.freshOptions().withSchema("s_race_" + ProcessHandle.current().pid());
    ConcurrentLinkedQueue<Throwable> failed = new ConcurrentLinkedQueue<>();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      threads.add(new Thread(() -> {
        try (PostgresCoordination pg = PostgresCoordination.open(o)) {
          pg.submit(NewTicket.of(Lane.DEFAULT, "command", "{}"), 1);
        } catch (Throwable e) {
          failed.add(e);
        }
      }));
    }
    threads.forEach(Thread::start);
    for (Thread t : threads) {
      t.join();
    }
    assertTrue(failed.isEmpty(), failed.toString());
    assertEquals(java.util.stream.IntStream.rangeClosed(1, Schema.CURRENT_VERSION).boxed().toList(), versions(o.schema()));
    server.drop(o.schema());
  }

  @Test
  void aSchemaOfOtherTables_orOfANewerVersion_isRefusedUnchanged() throws Exception {
    String foreign = "s_foreign_" + ProcessHandle.current().pid();
    try (Connection c = server.connect(); Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + foreign + "; CREATE TABLE " + foreign + ".accounts (id INT)");
    }
    PostgresStoreException e = assertThrows(PostgresStoreException.class,
        () -> PostgresCoordination.open(server.options(foreign)));
    assertTrue(e.getMessage().contains("not a Vigil store"), e.getMessage());
    server.drop(foreign);

    PostgresOptions o = server.freshOptions().withSchema("s_newer_" + ProcessHandle.current().pid());
    PostgresCoordination.open(o).close();
    try (Connection c = server.connect(); Statement s = c.createStatement()) {
      s.execute("INSERT INTO " + o.schema() + ".schema_version VALUES (" + (Schema.CURRENT_VERSION + 1)
          + ", 'from the future', CURRENT_TIMESTAMP)");
    }
    e = assertThrows(PostgresStoreException.class, () -> PostgresCoordination.open(o));
    assertTrue(e.getMessage().contains("newer than this build supports"), e.getMessage());
    server.drop(o.schema());
  }

  private List<Integer> versions(String schema) throws Exception {
    List<Integer> out = new ArrayList<>();
    try (Connection c = server.connect(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT version FROM " + schema + ".schema_version ORDER BY version")) {
      while (rs.next()) {
        out.add(rs.getInt(1));
      }
    }
    return out;
  }
}
