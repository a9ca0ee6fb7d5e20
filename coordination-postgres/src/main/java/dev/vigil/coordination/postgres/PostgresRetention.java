package dev.vigil.coordination.postgres;

import dev.vigil.coordination.MaintenanceRecord;
import dev.vigil.coordination.Pruning;
import dev.vigil.coordination.Question;
import dev.vigil.coordination.Retention;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The maintenance verbs (Q18) on the tables ({@code pruned_runs}, {@code maintenance}),
 * each called inside one transaction of {@link PostgresCoordination}.
 *
 * <p>{@link #prune} reads every ticket with its links, its last activity and whether a schedule or a
 * question not yet applied names it, decides with {@link Retention#decide} (the function the reference model
 * uses) and, unless it is a dry run, deletes the chosen tickets' events, results, links, labels and runs and
 * the tickets themselves, lists their runs in {@code pruned_runs}, and writes the job's line: all in the
 * caller's one transaction, so the deletion, the list of directories to remove and the record commit
 * together or not at all.
 */
final class PostgresRetention {
  private PostgresRetention() {}

  static Pruning prune(Connection c, Pruning.Request request, long nowMs) throws SQLException {
    Map<TicketId, Set<TicketId>> links = new HashMap<>();
    Map<TicketId, TicketState> states = new HashMap<>();
    Map<TicketId, Long> ended = new HashMap<>();
    try (PreparedStatement p = c.prepareStatement("SELECT id, state, created_at_ms, retry_of, retried_as FROM tickets");
         ResultSet rs = p.executeQuery()) {
      while (rs.next()) {
        TicketId id = new TicketId(rs.getLong(1));
        states.put(id, TicketState.valueOf(rs.getString(2)));
        ended.put(id, rs.getLong(3));
        Set<TicketId> l = links.computeIfAbsent(id, k -> new TreeSet<>());
        long retryOf = rs.getLong(4);
        if (!rs.wasNull()) {
          l.add(new TicketId(retryOf));
        }
        long retriedAs = rs.getLong(5);
        if (!rs.wasNull()) {
          l.add(new TicketId(retriedAs));
        }
      }
    }
    try (PreparedStatement p = c.prepareStatement("SELECT ticket_id, prerequisite_id FROM ticket_after");
         ResultSet rs = p.executeQuery()) {
      while (rs.next()) {
        links.computeIfAbsent(new TicketId(rs.getLong(1)), k -> new TreeSet<>()).add(new TicketId(rs.getLong(2)));
      }
    }
    try (PreparedStatement p = c.prepareStatement(
        "SELECT ticket_id, MAX(GREATEST(claimed_at_ms, COALESCE(exit_at_ms, 0))) FROM runs GROUP BY ticket_id");
         ResultSet rs = p.executeQuery()) {
      while (rs.next()) {
        ended.merge(new TicketId(rs.getLong(1)), rs.getLong(2), Math::max);
      }
    }
    Set<TicketId> pinned = new HashSet<>();
    try (PreparedStatement p = c.prepareStatement("SELECT last_ticket_id FROM schedules WHERE last_ticket_id IS NOT NULL");
         ResultSet rs = p.executeQuery()) {
      while (rs.next()) {
        pinned.add(new TicketId(rs.getLong(1)));
      }
    }
    for (Question q : PostgresQuestions.inStates(c, Set.of(Question.State.OPEN, Question.State.ANSWERED))) {
      pinned.addAll(Retention.namedBy(q.question()));
    }
    List<Retention.Entry> entries = new ArrayList<>(states.size());
    for (Map.Entry<TicketId, TicketState> e : states.entrySet()) {
      entries.add(new Retention.Entry(e.getKey(), e.getValue(), ended.get(e.getKey()),
          links.getOrDefault(e.getKey(), Set.of()), pinned.contains(e.getKey())));
    }
    Map<TicketId, Retention.Fate> fates = Retention.decide(entries, request.cutoffMs());
    List<TicketId> gone = Retention.pruned(fates);
    Long[] ids = gone.stream().map(TicketId::seq).toArray(Long[]::new);
    List<RunId> goneRuns = new ArrayList<>();
    try (PreparedStatement p = c.prepareStatement("SELECT run_id FROM runs WHERE ticket_id = ANY(?) ORDER BY ticket_id, number")) {
      p.setArray(1, c.createArrayOf("bigint", ids));
      try (ResultSet rs = p.executeQuery()) {
        while (rs.next()) {
          goneRuns.add(RunId.parse(rs.getString(1)));
        }
      }
    }
    TreeSet<RunId> dirs = new TreeSet<>(listed(c));
    dirs.addAll(goneRuns);
    Pruning out = new Pruning(request.dryRun(), request.cutoffMs(), gone, goneRuns, List.copyOf(dirs),
        Retention.kept(fates));
    if (request.dryRun()) {
      return out;
    }
    if (ids.length > 0) {
      String runsOf = "(SELECT run_id FROM runs WHERE ticket_id = ANY(?))";
      PostgresCoordination.update(c, "UPDATE tickets SET retry_of = NULL, retried_as = NULL, held_for = NULL WHERE id = ANY(?)",
          (Object) ids);
      PostgresCoordination.update(c, "DELETE FROM events WHERE ticket_id = ANY(?) OR run_id IN " + runsOf, ids, ids);
      PostgresCoordination.update(c, "DELETE FROM run_results WHERE run_id IN " + runsOf, (Object) ids);
      PostgresCoordination.update(c, "DELETE FROM ticket_after WHERE ticket_id = ANY(?) OR prerequisite_id = ANY(?)", ids, ids);
      PostgresCoordination.update(c, "DELETE FROM ticket_labels WHERE ticket_id = ANY(?)", (Object) ids);
      PostgresCoordination.update(c, "INSERT INTO pruned_runs(run_id, pruned_at_ms) SELECT run_id, ? FROM runs"
          + " WHERE ticket_id = ANY(?) AND run_id NOT IN (SELECT run_id FROM pruned_runs)", nowMs, ids);
      PostgresCoordination.update(c, "DELETE FROM runs WHERE ticket_id = ANY(?)", (Object) ids);
      int deleted = PostgresCoordination.update(c, "DELETE FROM tickets WHERE id = ANY(?)", (Object) ids);
      if (deleted != ids.length) {
        throw new Transactions.RaceLost("prune deleted " + deleted + " of " + ids.length + " tickets");
      }
    }
    record(c, new MaintenanceRecord(request.job(), nowMs, out.summary()));
    return out;
  }

  static int directoriesRemoved(Connection c, String job, List<RunId> runs, String summary, long nowMs)
      throws SQLException {
    MaintenanceRecord line = new MaintenanceRecord(job, nowMs, summary);
    String[] ids = runs.stream().map(RunId::toString).distinct().toArray(String[]::new);
    int n = ids.length == 0 ? 0 : PostgresCoordination.update(c, "DELETE FROM pruned_runs WHERE run_id = ANY(?)", (Object) ids);
    record(c, line);
    return n;
  }

  static void record(Connection c, MaintenanceRecord line) throws SQLException {
    PostgresCoordination.update(c, "INSERT INTO maintenance(job, at_ms, summary) VALUES (?, ?, ?)"
        + " ON CONFLICT (job) DO UPDATE SET at_ms = EXCLUDED.at_ms, summary = EXCLUDED.summary", line.job(),
        line.atMs(), line.summary());
  }

  static List<MaintenanceRecord> records(Connection c) throws SQLException {
    List<MaintenanceRecord> out = new ArrayList<>();
    try (PreparedStatement p = c.prepareStatement("SELECT job, at_ms, summary FROM maintenance ORDER BY job");
         ResultSet rs = p.executeQuery()) {
      while (rs.next()) {
        out.add(new MaintenanceRecord(rs.getString(1), rs.getLong(2), rs.getString(3)));
      }
    }
    return out;
  }

  private static List<RunId> listed(Connection c) throws SQLException {
    List<RunId> out = new ArrayList<>();
    try (PreparedStatement p = c.prepareStatement("SELECT run_id FROM pruned_runs");
         ResultSet rs = p.executeQuery()) {
      while (rs.next()) {
        out.add(RunId.parse(rs.getString(1)));
      }
    }
    return out;
  }
}
