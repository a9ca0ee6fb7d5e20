package dev.vigil.coordination.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.vigil.coordination.Action;
import dev.vigil.coordination.Applying;
import dev.vigil.coordination.Asking;
import dev.vigil.coordination.NewQuestion;
import dev.vigil.coordination.QuestionOption;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.law.CoordinationInvariants;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Schema version 4 (questions) on a store written by version 3, and re-run from any point. */
class H2QuestionsMigrationTest {
  @TempDir
  Path dir;

  @Test
  void aStoreOfVersionThree_opens_keepsItsTickets_andTakesQuestions_evenAfterAHalfDoneVersionFour() throws Exception {
    Path file = dir.resolve("v3.mv.db");
    String base = file.toString().substring(0, file.toString().length() - ".mv.db".length());
    try (Connection c = DatabaseFile.connect("jdbc:h2:file:" + base)) {
      c.setAutoCommit(false);
      assertEquals(3, Schema.migrate(c, file.toString(), 3));
      try (Statement s = c.createStatement()) {
        s.execute("INSERT INTO lanes VALUES ('default', FALSE)");
        s.execute("UPDATE counters SET issued = 1 WHERE name = 'ticket_seq'");
        s.execute("INSERT INTO tickets(id, lane, type, payload, state, attempts_used, max_attempts, priority,"
            + " not_before_ms, created_at_ms, parked, hold_reason, spawn_failures, labels) VALUES (1, 'default', 'command',"
            + " '{}', 'HELD', 0, 3, 0, 0, 1000, FALSE, 'held by hand', 0, '')");
        c.commit();
        // the first statement of version 4 ran (each DDL commits on its own), then the process died
        s.execute("CREATE TABLE IF NOT EXISTS questions (id BIGINT NOT NULL PRIMARY KEY CHECK (id > 0),"
            + " question_key VARCHAR(200) NOT NULL UNIQUE, text VARCHAR(1000) NOT NULL, asked_by VARCHAR(32),"
            + " ticket_id BIGINT, service VARCHAR(128), options VARCHAR NOT NULL, state VARCHAR(8) NOT NULL CHECK"
            + " (state IN ('OPEN', 'ANSWERED', 'APPLIED')), asked_at_ms BIGINT NOT NULL, answer VARCHAR(32),"
            + " answered_at_ms BIGINT DEFAULT 0 NOT NULL, outcome VARCHAR, applied_at_ms BIGINT DEFAULT 0 NOT NULL)");
        s.execute("SHUTDOWN");
      }
    }
    TicketId t = new TicketId(1);
    try (H2Coordination h2 = H2Coordination.open(file, H2Options.defaults())) {
      assertEquals(TicketState.HELD, h2.store().ticket(t).orElseThrow().state());
      var q = assertInstanceOf(Asking.Asked.class, h2.ask(new NewQuestion("held:t-1", "t-1 is held", null, t, null,
          List.of(new QuestionOption("release", "", List.of(new Action.Release(t, 1))))), 2000)).question().id();
      assertEquals("q-1", q.toString(), "the question counter starts at 1");
      h2.answer(q, "release", 2001);
      assertInstanceOf(Applying.Applied.class, h2.applyAnswer(q, 2002));
      assertEquals(TicketState.READY, h2.store().ticket(t).orElseThrow().state());
      CoordinationInvariants.check(h2.store());
    }
  }
}
