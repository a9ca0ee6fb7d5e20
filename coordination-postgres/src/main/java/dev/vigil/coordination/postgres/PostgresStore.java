package dev.vigil.coordination.postgres;

import dev.vigil.coordination.Event;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.Lease;
import dev.vigil.coordination.Owner;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunQuery;
import dev.vigil.coordination.Snapshot;
import dev.vigil.coordination.Store;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketQuery;
import dev.vigil.coordination.TicketState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * {@link Store} on the PostgreSQL tables: each query is one read-only transaction;
 * {@link #snapshot()} reads every table in one REPEATABLE READ, READ ONLY transaction, which in
 * PostgreSQL sees one consistent snapshot of all tables, taken at its first query (it never waits
 * for a writer and is never aborted by one).
 */
final class PostgresStore implements Store {
  private final Transactions tx;

  PostgresStore(Transactions tx) {
    this.tx = tx;
  }

  @Override
  public Optional<Ticket> ticket(TicketId id) {
    Objects.requireNonNull(id, "id");
    return tx.read("ticket", c -> Rows.ticket(c, id));
  }

  @Override
  public List<Run> runsOf(TicketId id) {
    Objects.requireNonNull(id, "id");
    return tx.read("runsOf", c -> Rows.runsOf(c, id));
  }

  @Override
  public Optional<Run> run(RunId id) {
    Objects.requireNonNull(id, "id");
    return tx.read("run", c -> Rows.run(c, id));
  }

  @Override
  public List<Ticket> tickets(TicketQuery query) {
    Objects.requireNonNull(query, "query");
    StringBuilder sql = new StringBuilder("SELECT " + Rows.TICKET_READ + " FROM tickets WHERE TRUE");
    if (query.state() != null) {
      sql.append(" AND state = ?");
    }
    if (query.lane() != null) {
      sql.append(" AND lane = ?");
    }
    if (query.after() != null) {
      sql.append(" AND id > ?");
    }
    for (int k = 0; k < query.labels().size(); k++) {
      sql.append(" AND EXISTS (SELECT 1 FROM ticket_labels l WHERE l.ticket_id = tickets.id AND l.label = ?"
          + " AND l.label_value = ?)");
    }
    sql.append(" ORDER BY id LIMIT ?");
    return tx.read("tickets", c -> {
      try (PreparedStatement p = c.prepareStatement(sql.toString())) {
        int i = 1;
        if (query.state() != null) {
          p.setString(i++, query.state().name());
        }
        if (query.lane() != null) {
          p.setString(i++, query.lane().name());
        }
        if (query.after() != null) {
          p.setLong(i++, query.after().seq());
        }
        for (java.util.Map.Entry<String, String> l : query.labels().entrySet()) {
          p.setString(i++, l.getKey());
          p.setString(i++, l.getValue());
        }
        p.setInt(i, query.limit());
        return Rows.tickets(p);
      }
    });
  }

  @Override
  public List<Run> runs(RunQuery query) {
    Objects.requireNonNull(query, "query");
    String in = query.states().stream().map(s -> "'" + s.name() + "'").sorted().collect(Collectors.joining(", "));
    String sql = "SELECT " + Rows.RUN_COLUMNS + " FROM runs WHERE state IN (" + in + ")"
        + (query.after() == null ? "" : " AND (ticket_id > ? OR (ticket_id = ? AND number > ?))")
        + " ORDER BY ticket_id, number LIMIT ?";
    return tx.read("runs", c -> {
      try (PreparedStatement p = c.prepareStatement(sql)) {
        int i = 1;
        if (query.after() != null) {
          p.setLong(i++, query.after().ticket().seq());
          p.setLong(i++, query.after().ticket().seq());
          p.setInt(i++, query.after().number());
        }
        p.setInt(i, query.limit());
        return Rows.runs(p);
      }
    });
  }

  @Override
  public List<Lease> leases() {
    return tx.read("leases", PostgresStore::allLeases);
  }

  @Override
  public Optional<Lease> lease(TicketId ticket) {
    Objects.requireNonNull(ticket, "ticket");
    return tx.read("lease", c -> Rows.leaseOfTicket(c, ticket));
  }

  @Override
  public Map<TicketState, Integer> countsByState() {
    return tx.read("countsByState", c -> {
      Map<TicketState, Integer> counts = new EnumMap<>(TicketState.class);
      for (TicketState s : TicketState.values()) {
        counts.put(s, 0);
      }
      try (PreparedStatement p = c.prepareStatement("SELECT state, COUNT(*) FROM tickets GROUP BY state");
           ResultSet rs = p.executeQuery()) {
        while (rs.next()) {
          counts.put(TicketState.valueOf(rs.getString(1)), rs.getInt(2));
        }
      }
      return counts;
    });
  }

  @Override
  public Set<Lane> parkedLanes() {
    return tx.read("parkedLanes", c -> Set.copyOf(parked(c)));
  }

  @Override
  public Optional<Owner> owner(OwnerId id) {
    Objects.requireNonNull(id, "id");
    return tx.read("owner", c -> {
      try (PreparedStatement p = c.prepareStatement("SELECT " + Rows.OWNER_COLUMNS + " FROM owners WHERE owner_id = ?")) {
        p.setString(1, id.value());
        try (ResultSet rs = p.executeQuery()) {
          return rs.next() ? Optional.of(Rows.owner(rs)) : Optional.empty();
        }
      }
    });
  }

  @Override
  public List<Owner> owners() {
    return tx.read("owners", c -> {
      return allOwners(c);
    });
  }

  private static List<Owner> allOwners(Connection c) throws SQLException {
    List<Owner> out = new ArrayList<>();
    try (PreparedStatement p = c.prepareStatement("SELECT " + Rows.OWNER_COLUMNS + " FROM owners ORDER BY owner_id");
         ResultSet rs = p.executeQuery()) {
      while (rs.next()) {
        out.add(Rows.owner(rs));
      }
    }
    return Collections.unmodifiableList(out);
  }

  @Override
  public List<Event> events(long afterId, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit (" + limit + ") must be >= 1");
    }
    return tx.read("events", c -> {
      try (PreparedStatement p = c.prepareStatement("SELECT " + Rows.EVENT_COLUMNS
          + " FROM events WHERE id > ? ORDER BY id LIMIT ?")) {
        p.setLong(1, afterId);
        p.setInt(2, limit);
        return Rows.events(p);
      }
    });
  }

  @Override
  public List<dev.vigil.coordination.TranscriptEntry> transcript(String service, long afterId, int limit) {
    java.util.Objects.requireNonNull(service, "service");
    if (limit < 1) {
      throw new IllegalArgumentException("limit (" + limit + ") must be >= 1");
    }
    return tx.read("transcript", c -> PostgresTranscripts.read(c, service, afterId, limit));
  }

  @Override
  public Snapshot snapshot() {
    return tx.read("snapshot", c -> {
      try (java.sql.Statement s = c.createStatement()) {
        s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
      }
      {
        List<Ticket> tickets;
        try (PreparedStatement p = c.prepareStatement("SELECT " + Rows.TICKET_READ + " FROM tickets ORDER BY id")) {
          tickets = Rows.tickets(p);
        }
        List<Run> runs;
        try (PreparedStatement p = c.prepareStatement(
            "SELECT " + Rows.RUN_COLUMNS + " FROM runs ORDER BY ticket_id, number")) {
          runs = Rows.runs(p);
        }
        List<Lease> leases = allLeases(c);
        Set<Lane> parked = parked(c);
        List<Owner> owners = allOwners(c);
        List<Event> events;
        try (PreparedStatement p = c.prepareStatement("SELECT " + Rows.EVENT_COLUMNS + " FROM events ORDER BY id")) {
          events = Rows.events(p);
        }
        return Snapshot.of(tickets, runs, leases, parked, owners, events);
      }
    });
  }

  private static List<Lease> allLeases(Connection c) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT " + Rows.LEASE_COLUMNS + " FROM leases ORDER BY ticket_id")) {
      return Rows.leases(p);
    }
  }

  static Set<Lane> parked(Connection c) throws SQLException {
    Set<Lane> out = new HashSet<>();
    try (PreparedStatement p = c.prepareStatement("SELECT name FROM lanes WHERE parked");
         ResultSet rs = p.executeQuery()) {
      while (rs.next()) {
        out.add(new Lane(rs.getString(1)));
      }
    }
    return out;
  }

  // ---- questions (Q16) ----

  @Override
  public Optional<dev.vigil.coordination.Question> question(dev.vigil.coordination.QuestionId id) {
    Objects.requireNonNull(id, "id");
    return tx.read("question", c -> PostgresQuestions.byId(c, id));
  }

  @Override
  public Optional<dev.vigil.coordination.Question> questionByKey(String key) {
    Objects.requireNonNull(key, "key");
    return tx.read("questionByKey", c -> PostgresQuestions.byKey(c, key));
  }

  @Override
  public List<dev.vigil.coordination.Question> questions(Set<dev.vigil.coordination.Question.State> states) {
    Set<dev.vigil.coordination.Question.State> wanted = Set.copyOf(states);
    return tx.read("questions", c -> PostgresQuestions.inStates(c, wanted));
  }

  // ---- checkpoints (Q17) ----

  @Override
  public Optional<dev.vigil.coordination.Checkpoint> checkpoint(dev.vigil.coordination.TicketId ticket) {
    Objects.requireNonNull(ticket, "ticket");
    return tx.read("checkpoint", c -> PostgresCheckpoints.of(c, ticket, false));
  }
}
