package dev.vigil.coordination.postgres;

import dev.vigil.coordination.Action;
import dev.vigil.coordination.Answering;
import dev.vigil.coordination.Applying;
import dev.vigil.coordination.Asking;
import dev.vigil.coordination.Control;
import dev.vigil.coordination.Denials;
import dev.vigil.coordination.Events;
import dev.vigil.coordination.NewQuestion;
import dev.vigil.coordination.Question;
import dev.vigil.coordination.QuestionId;
import dev.vigil.coordination.QuestionOption;
import dev.vigil.coordination.QuestionPlan;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The question verbs and reads (Q16) on the {@code questions} table, each called inside
 * one transaction of {@link PostgresCoordination} or {@link PostgresStore}, as in the H2 store.
 *
 * <p>{@link #apply} locks the question row, then every ticket its chosen option names (in id order, as
 * other verbs lock one ticket), decides the plan from the rows as they are ({@link QuestionPlan#decide}, the
 * function the reference model uses), performs each action that is done with the same conditional updates
 * as the operator verbs, and moves the question ANSWERED → APPLIED with a conditional update: all in the
 * caller's one transaction, so the actions and the APPLIED state commit together or not at all.
 */
final class PostgresQuestions {
  static final String COLUMNS = "id, question_key, text, asked_by, ticket_id, service, options, state, asked_at_ms,"
      + " answer, answered_at_ms, outcome, applied_at_ms";

  private PostgresQuestions() {}

  static Asking ask(Connection c, NewQuestion q, long nowMs, EventWriter events) throws SQLException {
    Optional<Question> earlier = byKey(c, q.key());
    if (earlier.isPresent()) {
      return new Asking.Duplicate(earlier.get());
    } else if (q.ticket() != null && Rows.ticket(c, q.ticket()).isEmpty()) {
      return new Asking.Denied("ticket " + q.ticket());
    } else if (q.askedBy() != null && Rows.run(c, q.askedBy()).isEmpty()) {
      return new Asking.Denied("run " + q.askedBy());
    }
    long seq = PostgresCoordination.next(c, "question_seq");
    Question asked = Question.asked(new QuestionId(seq), q, nowMs);
    try (PreparedStatement p = c.prepareStatement("INSERT INTO questions(id, question_key, text, asked_by, ticket_id,"
        + " service, options, state, asked_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, 'OPEN', ?)")) {
      p.setLong(1, seq);
      p.setString(2, q.key());
      p.setString(3, q.text());
      p.setString(4, q.askedBy() == null ? null : q.askedBy().toString());
      if (q.ticket() == null) {
        p.setNull(5, java.sql.Types.BIGINT);
      } else {
        p.setLong(5, q.ticket().seq());
      }
      p.setString(6, q.service());
      p.setString(7, QuestionOption.encodeAll(q.options()));
      p.setLong(8, nowMs);
      p.executeUpdate();
    } catch (SQLException e) {
      if (Transactions.isDuplicateKey(e)) {
        throw new Transactions.RaceLost("ask met a concurrent question with key " + q.key());
      }
      throw e;
    }
    events.append(c, List.of(Events.ofQuestion(asked)));
    return new Asking.Asked(asked);
  }

  static Answering answer(Connection c, QuestionId id, String option, long nowMs) throws SQLException {
    Optional<Question> q = locked(c, id);
    if (q.isEmpty()) {
      return new Answering.Denied(Answering.Reason.NOT_FOUND, null);
    } else if (q.get().state() != Question.State.OPEN) {
      return new Answering.Denied(Answering.Reason.ALREADY_ANSWERED, q.get());
    } else if (q.get().option(option).isEmpty()) {
      return new Answering.Denied(Answering.Reason.UNKNOWN_OPTION, q.get());
    }
    PostgresCoordination.requireOne(PostgresCoordination.update(c, "UPDATE questions SET state = 'ANSWERED', answer = ?, answered_at_ms = ? WHERE id = ?"
        + " AND state = 'OPEN'", option, nowMs, id.seq()), "answer of " + id);
    return new Answering.Answered(q.get().answered(option, nowMs));
  }

  /** Q16: the actions and ANSWERED → APPLIED, in the caller's transaction. */
  static Applying apply(Connection c, QuestionId id, long nowMs, EventWriter events) throws SQLException {
    Optional<Question> found = locked(c, id);
    if (found.isEmpty()) {
      return new Applying.Denied(Applying.Reason.NOT_FOUND);
    } else if (found.get().state() == Question.State.OPEN) {
      return new Applying.Denied(Applying.Reason.NOT_ANSWERED);
    } else if (found.get().state() == Question.State.APPLIED) {
      return new Applying.Denied(Applying.Reason.ALREADY_APPLIED);
    }
    Question q = found.get();
    List<Action> actions = q.chosen().orElseThrow().actions();
    Map<TicketId, Optional<Ticket>> tickets = new HashMap<>();
    for (TicketId t : actions.stream().map(Action::ticket).filter(java.util.Objects::nonNull).sorted().toList()) {
      tickets.put(t, lockedTicket(c, t));
    }
    QuestionPlan plan = QuestionPlan.decide(actions, tickets::get, PostgresStore.parked(c));
    for (Action a : plan.done()) {
      perform(c, a, tickets, nowMs, events);
    }
    Question applied = q.applied(plan.outcome(), nowMs);
    PostgresCoordination.requireOne(PostgresCoordination.update(c, "UPDATE questions SET state = 'APPLIED', outcome = ?, applied_at_ms = ? WHERE id = ?"
        + " AND state = 'ANSWERED'", applied.outcome(), nowMs, id.seq()), "apply of " + id);
    return new Applying.Applied(applied, plan);
  }

  /** Writes the events of an action (a cancel's CANCELLED) in the same transaction. */
  interface EventWriter {
    void append(Connection c, List<dev.vigil.coordination.Event.Draft> drafts) throws SQLException;
  }

  private static void perform(Connection c, Action a, Map<TicketId, Optional<Ticket>> tickets, long nowMs,
                              EventWriter events) throws SQLException {
    if (a instanceof Action.Release r) {
      release(c, tickets.get(r.ticket()).orElseThrow(), OptionalInt.of(r.moreAttempts()), a);
    } else if (a instanceof Action.Cancel x) {
      PostgresCoordination.requireOne(PostgresCoordination.update(c, "UPDATE tickets SET state = 'CANCELLED', hold_reason = NULL WHERE id = ?"
          + " AND state IN ('READY', 'HELD')", x.ticket().seq()), a.describe());
      events.append(c, Events.ofCancel(Rows.ticket(c, x.ticket()).orElseThrow(), nowMs));
    } else if (a instanceof Action.RetryNow r) {
      Ticket t = tickets.get(r.ticket()).orElseThrow();
      if (t.state() == TicketState.HELD) {
        release(c, t, OptionalInt.empty(), a);
      }
      PostgresCoordination.requireOne(PostgresCoordination.update(c, "UPDATE tickets SET not_before_ms = LEAST(not_before_ms, ?) WHERE id = ? AND state = 'READY'",
          nowMs, r.ticket().seq()), a.describe());
    } else if (a instanceof Action.ParkLane p) {
      PostgresCoordination.update(c, "INSERT INTO lanes(name, parked) VALUES (?, TRUE)"
          + " ON CONFLICT (name) DO UPDATE SET parked = TRUE", p.lane().name());
    } else if (a instanceof Action.UnparkLane u) {
      PostgresCoordination.requireOne(PostgresCoordination.update(c, "UPDATE lanes SET parked = FALSE WHERE name = ? AND parked", u.lane().name()), a.describe());
    } else if (!(a instanceof Action.RestartService || a instanceof Action.StopService
        || a instanceof Action.ResetRestartBudget || a instanceof Action.Reply)) {
      throw new AssertionError(a);
    }
  }

  /** As the release verb: HELD → READY with the grant {@link Denials#grantOf} gives. */
  private static void release(Connection c, Ticket t, OptionalInt more, Action a) throws SQLException {
    Optional<Control.Reason> denial = Denials.release(Optional.of(t), more);
    if (denial.isPresent()) {
      throw new IllegalStateException(a.describe() + " was planned but is refused: " + denial.get());
    }
    PostgresCoordination.requireOne(PostgresCoordination.update(c, "UPDATE tickets SET state = 'READY', hold_reason = NULL, spawn_failures = 0,"
        + " attempts_granted = attempts_granted + ? WHERE id = ? AND state = 'HELD'", Denials.grantOf(t, more),
        t.id().seq()), a.describe());
  }

  // ---- reads ----

  static Optional<Question> byId(Connection c, QuestionId id) throws SQLException {
    return first(select(c, "SELECT " + COLUMNS + " FROM questions WHERE id = ?", id.seq()));
  }

  static Optional<Question> byKey(Connection c, String key) throws SQLException {
    return first(select(c, "SELECT " + COLUMNS + " FROM questions WHERE question_key = ?", key));
  }

  static List<Question> inStates(Connection c, Set<Question.State> states) throws SQLException {
    List<Question> all = select(c, "SELECT " + COLUMNS + " FROM questions ORDER BY id");
    return states.isEmpty() ? all : all.stream().filter(q -> states.contains(q.state())).toList();
  }

  private static Optional<Question> locked(Connection c, QuestionId id) throws SQLException {
    return first(select(c, "SELECT " + COLUMNS + " FROM questions WHERE id = ? FOR UPDATE", id.seq()));
  }

  private static Optional<Ticket> lockedTicket(Connection c, TicketId id) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT id FROM tickets WHERE id = ? FOR NO KEY UPDATE")) {
      p.setLong(1, id.seq());
      try (ResultSet rs = p.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
      }
    }
    return Rows.ticket(c, id);
  }

  private static List<Question> select(Connection c, String sql, Object... args) throws SQLException {
    List<Question> out = new ArrayList<>();
    try (PreparedStatement p = c.prepareStatement(sql)) {
      bind(p, args);
      try (ResultSet rs = p.executeQuery()) {
        while (rs.next()) {
          out.add(question(rs));
        }
      }
    }
    return out;
  }

  private static Question question(ResultSet rs) throws SQLException {
    String askedBy = rs.getString("asked_by");
    long ticket = rs.getLong("ticket_id");
    TicketId about = rs.wasNull() ? null : new TicketId(ticket);
    NewQuestion q = new NewQuestion(rs.getString("question_key"), rs.getString("text"),
        askedBy == null ? null : RunId.parse(askedBy), about, rs.getString("service"),
        QuestionOption.decodeAll(rs.getString("options")));
    return new Question(new QuestionId(rs.getLong("id")), q, Question.State.valueOf(rs.getString("state")),
        rs.getLong("asked_at_ms"), rs.getString("answer"), rs.getLong("answered_at_ms"), rs.getString("outcome"),
        rs.getLong("applied_at_ms"));
  }

  private static Optional<Question> first(List<Question> rows) {
    return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0));
  }

  private static void bind(PreparedStatement p, Object... args) throws SQLException {
    for (int i = 0; i < args.length; i++) {
      p.setObject(i + 1, args[i]);
    }
  }
}
