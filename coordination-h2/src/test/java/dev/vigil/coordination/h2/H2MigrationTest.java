package dev.vigil.coordination.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.Control;
import dev.vigil.coordination.Event;
import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Finish;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.Retry;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunSpec;
import dev.vigil.coordination.RunState;
import dev.vigil.coordination.Settlement;
import dev.vigil.coordination.StopIntent;
import dev.vigil.coordination.StopRequest;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketQuery;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.Verdict;
import dev.vigil.coordination.law.CoordinationInvariants;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Schema versions 2 and 3 upgrade a home written by version 1: a store built here by migration 1 alone
 * and filled with the rows that version wrote (a finished ticket, one held after three failures, one
 * running under a lease, an idempotency key, a parked lane) opens under this build, keeps every row,
 * reads every new field at its default, reports the earlier settlements once in the event stream,
 * keeps the store's invariants, and takes the new verbs. Schema version 3 upgrades a home written by
 * version 2 the same way: its runs read without results, the next run that succeeds keeps one, and
 * it takes the events of cancellations after its other events.
 */
class H2MigrationTest {
  @TempDir
  Path dir;

  private static final long T = 1_700_000_000_000L;

  /** A version-1 store, as a daemon of the previous build left it (rows written with that schema's SQL). */
  private Path versionOneStore() throws Exception {
    Path file = dir.resolve("v1.mv.db");
    String base = file.toString().substring(0, file.toString().length() - ".mv.db".length());
    try (Connection c = DatabaseFile.connect("jdbc:h2:file:" + base)) {
      c.setAutoCommit(false);
      assertEquals(1, Schema.migrate(c, file.toString(), 1));
      try (Statement s = c.createStatement()) {
        s.execute("INSERT INTO lanes VALUES ('default', FALSE), ('batch', TRUE)");
        s.execute("UPDATE counters SET issued = 3 WHERE name = 'ticket_seq'");
        s.execute("INSERT INTO owners VALUES ('d-old', 'host', 'boot', 4242, 99, 4242, '0.9.0', " + T + ")");
        s.execute("INSERT INTO tickets VALUES (1, 'default', 'command', '{\"argv\":[\"true\"]}', 'SUCCEEDED', 1, 3, 0,"
            + " 0, " + T + ", FALSE, NULL, 0, 'order-1')");
        s.execute("INSERT INTO tickets VALUES (2, 'batch', 'command', '{\"argv\":[\"false\"]}', 'HELD', 3, 3, 5, 0, "
            + T + ", FALSE, 'attempts exhausted (3 of 3), last FAILED: exit code 1', 0, NULL)");
        s.execute("INSERT INTO tickets VALUES (3, 'default', 'command', '{\"argv\":[\"sleep\",\"60\"]}', 'LEASED', 0, 3,"
            + " 0, 0, " + T + ", FALSE, NULL, 0, NULL)");
        s.execute(settled("t-1.1", 1, 1, 1, "SUCCEEDED", "exit code 0"));
        for (int n = 1; n <= 3; n++) {
          s.execute(settled("t-2." + n, 2, n, n, "FAILED", "exit code 1"));
        }
        s.execute("INSERT INTO runs(run_id, ticket_id, number, attempt, state, owner_id, claimed_at_ms, hand_started,"
            + " boot_id, pid, start_ticks, pgid, build, token_hash, started_at_ms) VALUES ('t-3.1', 3, 1, 1, 'RUNNING',"
            + " 'd-old', " + T + ", FALSE, 'boot', 777, 55, 777, '0.9.0', '" + "ab".repeat(32) + "', " + (T + 1) + ")");
        s.execute("INSERT INTO leases VALUES (3, 't-3.1', 'd-old', " + (T + 30_000) + ")");
      }
      c.commit();
      try (Statement s = c.createStatement()) {
        s.execute("SHUTDOWN");
      }
    }
    return file;
  }

  private static String settled(String run, int ticket, int number, int attempt, String verdict, String diagnosis) {
    return "INSERT INTO runs VALUES ('" + run + "', " + ticket + ", " + number + ", " + attempt + ", 'SETTLED', 'd-old', "
        + T + ", FALSE, 'boot', 100, 5, 100, '0.9.0', '" + "cd".repeat(32) + "', " + (T + 1) + ", "
        + (verdict.equals("SUCCEEDED") ? 0 : 1) + ", NULL, " + (T + 2 + number) + ", 'SUPERVISOR', 'd-old', '" + verdict
        + "', '" + diagnosis + "')";
  }

  @Test
  void aStoreWrittenByVersionOneOpens_keepsEveryRow_andReadsTheNewFieldsAtTheirDefaults() throws Exception {
    Path file = versionOneStore();
    OwnerId me = new OwnerId("d-new");
    try (H2Coordination h2 = H2Coordination.open(file, H2Options.defaults())) {
      CoordinationInvariants.check(h2.store());
      List<Ticket> tickets = h2.store().tickets(TicketQuery.all());
      assertEquals(List.of(new TicketId(1), new TicketId(2), new TicketId(3)), tickets.stream().map(Ticket::id).toList());
      Ticket held = tickets.get(1);
      assertEquals(new Ticket(new TicketId(2), new Lane("batch"), "command", "{\"argv\":[\"false\"]}", TicketState.HELD,
          3, 3, 5, 0, T, false, "attempts exhausted (3 of 3), last FAILED: exit code 1", 0), held,
          "a version-1 ticket reads with no directory, environment, time limit, labels, grants or retries");
      assertEquals(RunSpec.DEFAULT, held.spec());
      assertEquals(Map.of(), held.labels());
      assertEquals(0, held.attemptsGranted());
      assertNull(held.retryOf());
      Run running = h2.store().run(RunId.parse("t-3.1")).orElseThrow();
      assertEquals(RunState.RUNNING, running.state());
      assertNull(running.stopIntent());
      assertEquals(0, running.start().timeoutMs(), "a version-1 run has no time limit");
      assertEquals(h2.store().parkedLanes(), java.util.Set.of(new Lane("batch")));
      assertEquals(new Submission.Duplicate(tickets.get(0)), h2.submit(new NewTicket(Lane.DEFAULT, "command", "{}", 3, 0,
          0, "order-1"), T), "idempotency keys survive");

      List<Event> events = h2.store().events(0, 100);
      assertEquals(List.of("t-1.1", "t-2.1", "t-2.2", "t-2.3"), events.stream().map(e -> e.run().toString()).toList(),
          "every earlier settlement is in the stream once, in run order");
      assertEquals(new Event(1, T + 3, Event.Kind.SETTLED, new TicketId(1), RunId.parse("t-1.1"), null,
          Verdict.SUCCEEDED, null, "exit code 0"), events.get(0));

      // the new verbs on the old rows: a grant, a kill, a retry
      Ticket released = assertInstanceOf(Control.Done.class, h2.release(new TicketId(2))).ticket();
      assertEquals(4, released.allowedAttempts(), "attempt 4 of 4 (1 granted), never 4 of 3");
      h2.readopt(running.id(), me, T + 10, 30_000);
      assertInstanceOf(StopRequest.Recorded.class, h2.requestStop(running.id(), StopIntent.KILL, "killed", T + 11));
      h2.takeExit(running.id(), ExitOwner.supervisor(me), RunExit.signal(15, T + 12));
      Settlement.Settled killed = assertInstanceOf(Settlement.Settled.class,
          h2.finish(Finish.as(ExitOwner.supervisor(me), running.id(), Verdict.KILLED, "killed by an operator"), T + 12));
      assertEquals(TicketState.CANCELLED, killed.ticket().state(), "the verdict CHECK takes KILLED");
      Retry.Retried r = assertInstanceOf(Retry.Retried.class, h2.retry(new TicketId(1), T + 13));
      assertEquals(new TicketId(4), r.ticket().id(), "ticket numbering continues");
      assertEquals(List.of(Event.Kind.KILL, Event.Kind.SETTLED), h2.store().events(4, 100).stream().map(Event::kind)
          .toList(), "events continue after the ones written at the upgrade");
      CoordinationInvariants.check(h2.store());
    }
    try (H2Coordination again = H2Coordination.open(file, H2Options.defaults())) {
      CoordinationInvariants.check(again.store());
      assertEquals(6, again.store().events(0, 100).size(), "a second open migrates nothing again");
    }
    String base = file.toString().substring(0, file.toString().length() - ".mv.db".length());
    try (Connection c = DatabaseFile.connect("jdbc:h2:file:" + base + ";IFEXISTS=TRUE");
         Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT version FROM schema_version ORDER BY version")) {
      assertTrue(rs.next());
      assertEquals(1, rs.getInt(1));
      assertTrue(rs.next());
      assertEquals(2, rs.getInt(1));
      assertTrue(rs.next());
      assertEquals(3, rs.getInt(1));
      assertTrue(rs.next());
      assertEquals(4, rs.getInt(1));
      assertTrue(!rs.next());
    }
  }

  /**
   * A version-2 store, as a daemon of the build before results left it: a ticket that succeeded, one
   * running under a lease, and their events.
   */
  private Path versionTwoStore() throws Exception {
    Path file = dir.resolve("v2.mv.db");
    String base = file.toString().substring(0, file.toString().length() - ".mv.db".length());
    try (Connection c = DatabaseFile.connect("jdbc:h2:file:" + base)) {
      c.setAutoCommit(false);
      assertEquals(2, Schema.migrate(c, file.toString(), 2));
      try (Statement s = c.createStatement()) {
        s.execute("INSERT INTO lanes VALUES ('default', FALSE)");
        s.execute("UPDATE counters SET issued = 2 WHERE name = 'ticket_seq'");
        s.execute("UPDATE counters SET issued = 1 WHERE name = 'event_seq'");
        s.execute("INSERT INTO owners VALUES ('d-old', 'host', 'boot', 4242, 99, 4242, '0.9.1', " + T + ")");
        s.execute("INSERT INTO tickets(id, lane, type, payload, state, attempts_used, max_attempts, priority,"
            + " not_before_ms, created_at_ms, parked, hold_reason, spawn_failures, labels) VALUES (1, 'default', 'count',"
            + " '{\"below\":10}', 'SUCCEEDED', 1, 3, 0, 0, " + T + ", FALSE, NULL, 0, '')");
        s.execute("INSERT INTO tickets(id, lane, type, payload, state, attempts_used, max_attempts, priority,"
            + " not_before_ms, created_at_ms, parked, hold_reason, spawn_failures, labels) VALUES (2, 'default', 'count',"
            + " '{\"below\":100}', 'LEASED', 0, 3, 0, 0, " + T + ", FALSE, NULL, 0, '')");
        s.execute("INSERT INTO runs(run_id, ticket_id, number, attempt, state, owner_id, claimed_at_ms, hand_started,"
            + " boot_id, pid, start_ticks, pgid, build, token_hash, started_at_ms, exit_code, exit_at_ms, exit_role,"
            + " exit_owner_id, verdict, diagnosis, timeout_ms) VALUES ('t-1.1', 1, 1, 1, 'SETTLED', 'd-old', " + T
            + ", FALSE, 'boot', 100, 5, 100, '0.9.1', '" + "cd".repeat(32) + "', " + (T + 1) + ", 0, " + (T + 2)
            + ", 'SUPERVISOR', 'd-old', 'SUCCEEDED', '4 primes', 0)");
        s.execute("INSERT INTO runs(run_id, ticket_id, number, attempt, state, owner_id, claimed_at_ms, hand_started,"
            + " boot_id, pid, start_ticks, pgid, build, token_hash, started_at_ms, timeout_ms) VALUES ('t-2.1', 2, 1, 1,"
            + " 'RUNNING', 'd-old', " + T + ", FALSE, 'boot', 777, 55, 777, '0.9.1', '" + "ab".repeat(32) + "', "
            + (T + 1) + ", 0)");
        s.execute("INSERT INTO leases VALUES (2, 't-2.1', 'd-old', " + (T + 30_000) + ")");
        s.execute("INSERT INTO events(id, at_ms, kind, ticket_id, run_id, verdict, ticket_state, note) VALUES (1, "
            + (T + 2) + ", 'SETTLED', 1, 't-1.1', 'SUCCEEDED', 'SUCCEEDED', '4 primes')");
      }
      c.commit();
      try (Statement s = c.createStatement()) {
        s.execute("SHUTDOWN");
      }
    }
    return file;
  }

  @Test
  void aStoreWrittenByVersionTwoOpens_itsRunsWithoutResults_andTheNextSucceededRunKeepsItsResult() throws Exception {
    Path file = versionTwoStore();
    OwnerId me = new OwnerId("d-new");
    String result = "{\"primes\":25,\"below\":100}";
    RunId running = RunId.parse("t-2.1");
    try (H2Coordination h2 = H2Coordination.open(file, H2Options.defaults())) {
      CoordinationInvariants.check(h2.store());
      Run old = h2.store().run(RunId.parse("t-1.1")).orElseThrow();
      assertEquals(Verdict.SUCCEEDED, old.verdict());
      assertEquals("4 primes", old.diagnosis());
      assertNull(old.result(), "a run settled before version 3 has no result");
      assertNull(h2.store().run(running).orElseThrow().result());

      h2.readopt(running, me, T + 10, 30_000);
      h2.takeExit(running, ExitOwner.supervisor(me), RunExit.code(0, T + 11));
      Settlement.Settled s = assertInstanceOf(Settlement.Settled.class,
          h2.finish(Finish.succeeded(ExitOwner.supervisor(me), running, "25 primes", result), T + 12));
      assertEquals(result, s.run().result());
      assertEquals(List.of(1L, 2L), h2.store().events(0, 100).stream().map(Event::id).toList(),
          "events continue after the ones version 2 wrote");
      CoordinationInvariants.check(h2.store());
    }
    try (H2Coordination again = H2Coordination.open(file, H2Options.defaults())) {
      assertEquals(result, again.store().run(running).orElseThrow().result(), "the result is durable");
      assertEquals(java.util.Arrays.asList(null, result),
          again.store().runs(RunState.SETTLED).stream().map(Run::result).toList());
      CoordinationInvariants.check(again.store());
    }
    String base = file.toString().substring(0, file.toString().length() - ".mv.db".length());
    try (Connection c = DatabaseFile.connect("jdbc:h2:file:" + base + ";IFEXISTS=TRUE");
         Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT version FROM schema_version ORDER BY version")) {
      List<Integer> versions = new java.util.ArrayList<>();
      while (rs.next()) {
        versions.add(rs.getInt(1));
      }
      assertEquals(List.of(1, 2, 3, 4), versions, "version 3 is recorded once, after the two before it, and 4 after it");
    }
  }

  @Test
  void aStoreWrittenByVersionTwo_takesCancelledEvents_afterItsOtherEvents() throws Exception {
    Path file = versionOneStore();
    String base = file.toString().substring(0, file.toString().length() - ".mv.db".length());
    try (Connection c = DatabaseFile.connect("jdbc:h2:file:" + base + ";IFEXISTS=TRUE")) {
      c.setAutoCommit(false);
      assertEquals(2, Schema.migrate(c, file.toString(), 2));
      try (Statement s = c.createStatement()) {
        java.sql.SQLException refused = org.junit.jupiter.api.Assertions.assertThrows(java.sql.SQLException.class,
            () -> s.execute("INSERT INTO events(id, at_ms, kind, ticket_id, ticket_state, note)"
                + " VALUES (99, 0, 'CANCELLED', 2, 'CANCELLED', 'x')"));
        assertTrue(refused.getMessage().contains("Check constraint violation"),
            "version 2 knows no CANCELLED event: " + refused.getMessage());
        c.rollback();
        s.execute("SHUTDOWN");
      }
    }
    try (H2Coordination h2 = H2Coordination.open(file, H2Options.defaults())) {
      assertEquals(TicketState.CANCELLED, assertInstanceOf(Control.Done.class, h2.cancel(new TicketId(2), T + 20))
          .ticket().state());
      assertEquals(List.of(new Event(5, T + 20, Event.Kind.CANCELLED, new TicketId(2), null, null, null,
          TicketState.CANCELLED, "cancelled by an operator")), h2.store().events(4, 100),
          "numbered after the settlements written by version 2");
      CoordinationInvariants.check(h2.store());
    }
  }

  @Test
  void aMigrationInterruptedHalfWay_completesOnTheNextOpen() throws Exception {
    Path file = versionOneStore();
    String base = file.toString().substring(0, file.toString().length() - ".mv.db".length());
    try (Connection c = DatabaseFile.connect("jdbc:h2:file:" + base + ";IFEXISTS=TRUE");
         Statement s = c.createStatement()) {
      // the first statements of version 2 ran (each DDL commits on its own), then the process died
      s.execute("ALTER TABLE tickets ADD COLUMN IF NOT EXISTS work_dir VARCHAR(4096)");
      s.execute("ALTER TABLE tickets ADD COLUMN IF NOT EXISTS env VARCHAR");
      s.execute("SHUTDOWN");
    }
    try (H2Coordination h2 = H2Coordination.open(file, H2Options.defaults())) {
      CoordinationInvariants.check(h2.store());
      assertEquals(4, h2.store().events(0, 100).size());
      assertEquals(RunSpec.DEFAULT, h2.store().ticket(new TicketId(3)).orElseThrow().spec());
    }
  }
}
