package dev.vigil.coordination.postgres;

import dev.vigil.coordination.Environment;
import dev.vigil.coordination.Event;
import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.Lease;
import dev.vigil.coordination.Owner;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunSpec;
import dev.vigil.coordination.RunStart;
import dev.vigil.coordination.RunState;
import dev.vigil.coordination.StopIntent;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.Verdict;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/** Rows to records and back, and the single-row reads every verb and query shares. */
final class Rows {
  static final String TICKET_COLUMNS = "id, lane, type, payload, state, attempts_used, max_attempts, priority, "
      + "not_before_ms, created_at_ms, parked, hold_reason, spawn_failures, work_dir, env, timeout_ms, labels, "
      + "attempts_granted, retry_of, retried_as";
  /**
   * The columns that read a whole {@link Ticket}: {@link #TICKET_COLUMNS}, its dependency hold and its
   * prerequisites (Q14) in id order, read in the same statement.
   */
  static final String TICKET_READ = TICKET_COLUMNS + ", held_for, (SELECT string_agg(a.prerequisite_id::text, ','"
      + " ORDER BY a.prerequisite_id) FROM ticket_after a WHERE a.ticket_id = tickets.id) AS after_ids";
  static final String RUN_COLUMNS = "run_id, ticket_id, number, attempt, state, owner_id, claimed_at_ms, "
      + "hand_started, boot_id, pid, start_ticks, pgid, build, token_hash, started_at_ms, exit_code, exit_signal, "
      + "exit_at_ms, exit_role, exit_owner_id, verdict, diagnosis, stop_intent, timeout_ms, "
      + "(SELECT rr.result FROM run_results rr WHERE rr.run_id = runs.run_id) AS result";
  static final String EVENT_COLUMNS = "id, at_ms, kind, ticket_id, run_id, service, verdict, ticket_state, note";
  static final String LEASE_COLUMNS = "ticket_id, run_id, owner_id, expires_at_ms";
  static final String OWNER_COLUMNS = "owner_id, host, boot_id, pid, start_ticks, pgid, build, started_at_ms, host_id";

  private Rows() {}

  /** A {@link Ticket} from a row selected with {@link #TICKET_READ}. */
  static Ticket ticket(ResultSet rs) throws SQLException {
    String env = rs.getString("env");
    RunSpec spec = new RunSpec(rs.getString("work_dir"), env == null ? null : Environment.of(decode(env)),
        rs.getLong("timeout_ms"));
    return new Ticket(new TicketId(rs.getLong("id")), new Lane(rs.getString("lane")), rs.getString("type"),
        rs.getString("payload"), TicketState.valueOf(rs.getString("state")), rs.getInt("attempts_used"),
        rs.getInt("max_attempts"), rs.getInt("priority"), rs.getLong("not_before_ms"), rs.getLong("created_at_ms"),
        rs.getBoolean("parked"), rs.getString("hold_reason"), rs.getInt("spawn_failures"), spec,
        decode(rs.getString("labels")), rs.getInt("attempts_granted"), nullableTicket(rs, "retry_of"),
        nullableTicket(rs, "retried_as"), ticketIds(rs.getString("after_ids")), nullableTicket(rs, "held_for"));
  }

  /** Ticket ids from a comma-separated list of numbers (null or empty: none). */
  private static List<TicketId> ticketIds(String list) {
    if (list == null || list.isEmpty()) {
      return List.of();
    }
    return java.util.Arrays.stream(list.split(",")).map(n -> new TicketId(Long.parseLong(n.trim()))).toList();
  }

  private static TicketId nullableTicket(ResultSet rs, String column) throws SQLException {
    long v = rs.getLong(column);
    return rs.wasNull() ? null : new TicketId(v);
  }

  /** An {@link Event} from a row selected with {@link #EVENT_COLUMNS}. */
  static Event event(ResultSet rs) throws SQLException {
    String run = rs.getString("run_id");
    String verdict = rs.getString("verdict");
    String state = rs.getString("ticket_state");
    return new Event(rs.getLong("id"), rs.getLong("at_ms"), Event.Kind.valueOf(rs.getString("kind")),
        nullableTicket(rs, "ticket_id"), run == null ? null : RunId.parse(run), rs.getString("service"),
        verdict == null ? null : Verdict.valueOf(verdict), state == null ? null : TicketState.valueOf(state),
        rs.getString("note"));
  }

  /**
   * A map as one text column: each entry as {@code <length>:<name><length>:<value>}, in key order, so
   * any characters survive and nothing needs escaping. The empty map is the empty text.
   */
  static String encode(Map<String, String> map) {
    StringBuilder b = new StringBuilder();
    for (Map.Entry<String, String> e : new TreeMap<>(map).entrySet()) {
      b.append(e.getKey().length()).append(':').append(e.getKey());
      b.append(e.getValue().length()).append(':').append(e.getValue());
    }
    return b.toString();
  }

  /** The map {@link #encode} wrote. */
  static SortedMap<String, String> decode(String text) {
    SortedMap<String, String> out = new TreeMap<>();
    int[] at = {0};
    while (at[0] < text.length()) {
      String k = field(text, at);
      out.put(k, field(text, at));
    }
    return out;
  }

  private static String field(String text, int[] at) {
    int colon = text.indexOf(':', at[0]);
    if (colon < 0) {
      throw new IllegalStateException("a stored map is damaged at character " + at[0]);
    }
    int n = Integer.parseInt(text.substring(at[0], colon));
    at[0] = colon + 1 + n;
    return text.substring(colon + 1, at[0]);
  }

  /** A {@link Run} from a row selected with {@link #RUN_COLUMNS} ({@code FROM runs}, which its result's subquery names). */
  static Run run(ResultSet rs) throws SQLException {
    RunId id = new RunId(new TicketId(rs.getLong("ticket_id")), rs.getInt("number"));
    RunStart start = null;
    long startedAt = rs.getLong("started_at_ms");
    if (!rs.wasNull()) {
      start = new RunStart(new ProcessIdentity(rs.getString("boot_id"), rs.getLong("pid"), rs.getLong("start_ticks"),
          rs.getLong("pgid")), rs.getString("build"), rs.getString("token_hash"), startedAt, rs.getLong("timeout_ms"));
    }
    RunExit exit = null;
    ExitOwner exitOwner = null;
    long exitAt = rs.getLong("exit_at_ms");
    if (!rs.wasNull()) {
      exit = new RunExit(nullableInt(rs, "exit_code"), nullableInt(rs, "exit_signal"), exitAt);
      exitOwner = new ExitOwner(ExitOwner.Role.valueOf(rs.getString("exit_role")),
          new OwnerId(rs.getString("exit_owner_id")));
    }
    String verdict = rs.getString("verdict");
    String intent = rs.getString("stop_intent");
    return new Run(id, rs.getInt("attempt"), RunState.valueOf(rs.getString("state")),
        new OwnerId(rs.getString("owner_id")), rs.getLong("claimed_at_ms"), rs.getBoolean("hand_started"), start,
        exit, exitOwner, verdict == null ? null : Verdict.valueOf(verdict), rs.getString("diagnosis"),
        intent == null ? null : StopIntent.valueOf(intent), rs.getString("result"));
  }

  /** A {@link Lease} from a row selected with {@link #LEASE_COLUMNS}. */
  static Lease lease(ResultSet rs) throws SQLException {
    return new Lease(new TicketId(rs.getLong("ticket_id")), RunId.parse(rs.getString("run_id")),
        new OwnerId(rs.getString("owner_id")), rs.getLong("expires_at_ms"));
  }

  /** An {@link Owner} from a row selected with {@link #OWNER_COLUMNS}. */
  static Owner owner(ResultSet rs) throws SQLException {
    return new Owner(new OwnerId(rs.getString("owner_id")), rs.getString("host"),
        new ProcessIdentity(rs.getString("boot_id"), rs.getLong("pid"), rs.getLong("start_ticks"), rs.getLong("pgid")),
        rs.getString("build"), rs.getLong("started_at_ms"), rs.getString("host_id"));
  }

  private static Integer nullableInt(ResultSet rs, String column) throws SQLException {
    int v = rs.getInt(column);
    return rs.wasNull() ? null : v;
  }

  static void setNullableInt(PreparedStatement p, int index, Integer value) throws SQLException {
    if (value == null) {
      p.setNull(index, Types.INTEGER);
    } else {
      p.setInt(index, value);
    }
  }

  // ---- single-row reads ----

  static Optional<Ticket> ticket(Connection c, TicketId id) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT " + TICKET_READ + " FROM tickets WHERE id = ?")) {
      p.setLong(1, id.seq());
      try (ResultSet rs = p.executeQuery()) {
        return rs.next() ? Optional.of(ticket(rs)) : Optional.empty();
      }
    }
  }

  static Optional<Run> run(Connection c, RunId id) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT " + RUN_COLUMNS + " FROM runs WHERE run_id = ?")) {
      p.setString(1, id.toString());
      try (ResultSet rs = p.executeQuery()) {
        return rs.next() ? Optional.of(run(rs)) : Optional.empty();
      }
    }
  }

  static Optional<Lease> leaseOfTicket(Connection c, TicketId id) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT " + LEASE_COLUMNS + " FROM leases WHERE ticket_id = ?")) {
      p.setLong(1, id.seq());
      try (ResultSet rs = p.executeQuery()) {
        return rs.next() ? Optional.of(lease(rs)) : Optional.empty();
      }
    }
  }

  static Optional<Lease> leaseOfRun(Connection c, RunId id) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT " + LEASE_COLUMNS + " FROM leases WHERE run_id = ?")) {
      p.setString(1, id.toString());
      try (ResultSet rs = p.executeQuery()) {
        return rs.next() ? Optional.of(lease(rs)) : Optional.empty();
      }
    }
  }

  /** The runs of these ids the store has, by id, in one statement. */
  static Map<RunId, Run> runsNamed(Connection c, String[] runIds) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT " + RUN_COLUMNS + " FROM runs WHERE run_id = ANY(?)")) {
      p.setArray(1, c.createArrayOf("varchar", runIds));
      Map<RunId, Run> out = new java.util.HashMap<>();
      for (Run r : runs(p)) {
        out.put(r.id(), r);
      }
      return out;
    }
  }

  /** The leases that name runs of these ids, by run, in one statement. */
  static Map<RunId, Lease> leasesOfRunsNamed(Connection c, String[] runIds) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT " + LEASE_COLUMNS + " FROM leases WHERE run_id = ANY(?)")) {
      p.setArray(1, c.createArrayOf("varchar", runIds));
      Map<RunId, Lease> out = new java.util.HashMap<>();
      for (Lease l : leases(p)) {
        out.put(l.run(), l);
      }
      return out;
    }
  }

  static List<Run> runsOf(Connection c, TicketId id) throws SQLException {
    try (PreparedStatement p = c.prepareStatement(
        "SELECT " + RUN_COLUMNS + " FROM runs WHERE ticket_id = ? ORDER BY number")) {
      p.setLong(1, id.seq());
      return runs(p);
    }
  }

  static List<Run> runs(PreparedStatement p) throws SQLException {
    List<Run> out = new ArrayList<>();
    try (ResultSet rs = p.executeQuery()) {
      while (rs.next()) {
        out.add(run(rs));
      }
    }
    return out;
  }

  static List<Ticket> tickets(PreparedStatement p) throws SQLException {
    List<Ticket> out = new ArrayList<>();
    try (ResultSet rs = p.executeQuery()) {
      while (rs.next()) {
        out.add(ticket(rs));
      }
    }
    return out;
  }

  static List<Event> events(PreparedStatement p) throws SQLException {
    List<Event> out = new ArrayList<>();
    try (ResultSet rs = p.executeQuery()) {
      while (rs.next()) {
        out.add(event(rs));
      }
    }
    return out;
  }

  static List<Lease> leases(PreparedStatement p) throws SQLException {
    List<Lease> out = new ArrayList<>();
    try (ResultSet rs = p.executeQuery()) {
      while (rs.next()) {
        out.add(lease(rs));
      }
    }
    return out;
  }
}
