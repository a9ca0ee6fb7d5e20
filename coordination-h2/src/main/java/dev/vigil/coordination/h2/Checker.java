package dev.vigil.coordination.h2;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The checks of {@link StoreCheck} on an open session: every row and every index entry read, then
 * Vigil's own rules.
 *
 * <ol>
 *   <li>Every table of the store is read row by row, every column of every row ({@code SELECT *}),
 *       and every index entry by entry ({@code SELECT <its columns> FROM t USE INDEX (i)}, which H2
 *       answers from that index alone); a read that fails names the table or index, how far it got
 *       and H2's words; an index that holds another number of entries than its table holds rows is
 *       reported too.
 *   <li>Then the rules the daemon relies on, each one query (the rows that break it), kept by every
 *       committed transaction of a healthy store: a task marked running has exactly one run in
 *       progress and a claim naming it (C1, C7); a run in progress belongs to a task marked running;
 *       a claim names a run in progress of its own task, with the run's owner (C1, C3); rows that
 *       name a task, run or lane name one that exists; the id counters are at least the highest id
 *       in use (else new tasks would take used ids); a task's label index agrees with its labels.
 * </ol>
 */
final class Checker {
  /** At most this many offending ids are named in one problem line. */
  static final int NAMED = 10;
  static final String IN_PROGRESS = "('CLAIMED', 'RUNNING', 'EXITED')";

  private Checker() {}

  /** A rule: what breaking it means, the first schema version it applies to, the query of the rows that break it. */
  private record Rule(String meaning, int since, String sql) {}

  private static final List<Rule> RULES = List.of(
      new Rule("tasks marked running without exactly one run in progress and a claim naming it", 1,
          "SELECT 't-' || t.id FROM tickets t WHERE t.state = 'LEASED' AND ("
              + "(SELECT COUNT(*) FROM runs r WHERE r.ticket_id = t.id AND r.state IN " + IN_PROGRESS + ") <> 1"
              + " OR NOT EXISTS (SELECT 1 FROM leases l JOIN runs r ON r.run_id = l.run_id WHERE l.ticket_id = t.id"
              + " AND r.ticket_id = t.id AND r.state IN " + IN_PROGRESS + ")) ORDER BY t.id"),
      new Rule("runs in progress whose task is not marked running", 1,
          "SELECT r.run_id FROM runs r JOIN tickets t ON t.id = r.ticket_id WHERE r.state IN " + IN_PROGRESS
              + " AND t.state <> 'LEASED' ORDER BY r.ticket_id, r.number"),
      new Rule("claims that do not name a run in progress of their own running task, with the run's owner", 1,
          "SELECT 't-' || l.ticket_id FROM leases l LEFT JOIN runs r ON r.run_id = l.run_id"
              + " LEFT JOIN tickets t ON t.id = l.ticket_id WHERE r.run_id IS NULL OR t.id IS NULL"
              + " OR r.ticket_id <> l.ticket_id OR r.state NOT IN " + IN_PROGRESS + " OR r.owner_id <> l.owner_id"
              + " OR t.state <> 'LEASED' ORDER BY l.ticket_id"),
      new Rule("runs of a task that is missing", 1,
          "SELECT r.run_id FROM runs r WHERE NOT EXISTS (SELECT 1 FROM tickets t WHERE t.id = r.ticket_id)"
              + " ORDER BY r.ticket_id, r.number"),
      new Rule("tasks in a lane that is missing", 1,
          "SELECT 't-' || t.id FROM tickets t WHERE NOT EXISTS (SELECT 1 FROM lanes l WHERE l.name = t.lane)"
              + " ORDER BY t.id"),
      new Rule("the task id counter is missing or below the highest task id (new tasks would take used ids)", 1,
          "SELECT 'ticket_seq' FROM (VALUES 1) WHERE COALESCE((SELECT issued FROM counters WHERE name = 'ticket_seq'),"
              + " -1) < COALESCE((SELECT MAX(id) FROM tickets), 0)"),
      new Rule("tasks that name a retry or a retried task that is missing", 2,
          "SELECT 't-' || t.id FROM tickets t WHERE (t.retry_of IS NOT NULL AND NOT EXISTS"
              + " (SELECT 1 FROM tickets o WHERE o.id = t.retry_of)) OR (t.retried_as IS NOT NULL AND NOT EXISTS"
              + " (SELECT 1 FROM tickets n WHERE n.id = t.retried_as)) ORDER BY t.id"),
      new Rule("labels of a task that is missing", 2,
          "SELECT DISTINCT 't-' || l.ticket_id FROM ticket_labels l WHERE NOT EXISTS"
              + " (SELECT 1 FROM tickets t WHERE t.id = l.ticket_id) ORDER BY 1"),
      new Rule("events about a task or run that is missing", 2,
          "SELECT 'event ' || e.id FROM events e WHERE (e.ticket_id IS NOT NULL AND NOT EXISTS"
              + " (SELECT 1 FROM tickets t WHERE t.id = e.ticket_id)) OR (e.run_id IS NOT NULL AND NOT EXISTS"
              + " (SELECT 1 FROM runs r WHERE r.run_id = e.run_id)) ORDER BY e.id"),
      new Rule("the event id counter is missing or below the highest event id (new events would take used ids)", 2,
          "SELECT 'event_seq' FROM (VALUES 1) WHERE COALESCE((SELECT issued FROM counters WHERE name = 'event_seq'),"
              + " -1) < COALESCE((SELECT MAX(id) FROM events), 0)"));

  /** What a table holds, in plain words, with its SQL name. */
  static String plain(String table) {
    return StoreCheck.what(table) + " (table " + table + ")";
  }

  /** The tables of the store's own schema, in name order; throws when even that list cannot be read. */
  static List<String> tables(Connection c) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT TABLE_NAME FROM"
        + " INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = 'PUBLIC' AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME")) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  /**
   * Reads every table and index of the store, filling {@code rows} (rows read per table) and adding a
   * problem for each part that cannot be read or does not agree with its table.
   */
  static void scan(Connection c, Map<String, Long> rows, List<StoreCheck.Problem> problems) {
    List<String> tables;
    try {
      tables = tables(c);
    } catch (SQLException e) {
      problems.add(unreadable("the list of its tables cannot be read", e));
      return;
    }
    for (String table : tables) {
      long counted = -1;
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + quote(table))) {
        rs.next();
        counted = rs.getLong(1);
      } catch (SQLException e) {
        problems.add(unreadable(plain(table) + ": its row count cannot be read", e));
      }
      long read = 0;
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM " + quote(table))) {
        int columns = rs.getMetaData().getColumnCount();
        while (rs.next()) {
          for (int i = 1; i <= columns; i++) {
            rs.getObject(i);
          }
          read++;
        }
        rows.put(table, read);
        if (counted >= 0 && counted != read) {
          problems.add(new StoreCheck.Problem(StoreCheck.Kind.UNREADABLE, plain(table) + ": it counts " + counted
              + " rows but " + read + " were read"));
        }
      } catch (SQLException e) {
        rows.put(table, read);
        problems.add(unreadable(plain(table) + ": " + read + (counted >= 0 ? " of " + counted : "")
            + " rows read, then", e));
        continue;
      }
      scanIndexes(c, table, read, problems);
    }
  }

  private static void scanIndexes(Connection c, String table, long rows, List<StoreCheck.Problem> problems) {
    Map<String, List<String>> indexes = new LinkedHashMap<>();
    try (PreparedStatement p = c.prepareStatement("SELECT INDEX_NAME, COLUMN_NAME FROM INFORMATION_SCHEMA.INDEX_COLUMNS"
        + " WHERE TABLE_SCHEMA = 'PUBLIC' AND TABLE_NAME = ? ORDER BY INDEX_NAME, ORDINAL_POSITION")) {
      p.setString(1, table);
      try (ResultSet rs = p.executeQuery()) {
        while (rs.next()) {
          indexes.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(rs.getString(2));
        }
      }
    } catch (SQLException e) {
      problems.add(unreadable(plain(table) + ": the list of its indexes cannot be read", e));
      return;
    }
    for (Map.Entry<String, List<String>> i : indexes.entrySet()) {
      String columns = String.join(", ", i.getValue().stream().map(Checker::quote).toList());
      long entries = 0;
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT " + columns + " FROM "
          + quote(table) + " USE INDEX (" + quote(i.getKey()) + ")")) {
        int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
          for (int k = 1; k <= n; k++) {
            rs.getObject(k);
          }
          entries++;
        }
      } catch (SQLException e) {
        problems.add(unreadable("index " + i.getKey() + " of " + plain(table) + ": " + entries + " of " + rows
            + " entries read, then", e));
        continue;
      }
      if (entries != rows) {
        problems.add(new StoreCheck.Problem(StoreCheck.Kind.UNREADABLE, "index " + i.getKey() + " of " + plain(table)
            + ": it holds " + entries + " entries for " + rows + " rows"));
      }
    }
  }

  /** Checks Vigil's rules on a store of schema {@code version}, adding a problem per rule broken. */
  static void rules(Connection c, int version, List<StoreCheck.Problem> problems) {
    for (Rule r : RULES) {
      if (version < r.since()) {
        continue;
      }
      List<String> found = new ArrayList<>();
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(r.sql())) {
        while (rs.next()) {
          found.add(rs.getString(1));
        }
      } catch (SQLException e) {
        problems.add(unreadable("the rule '" + r.meaning() + "' cannot be checked", e));
        continue;
      }
      if (!found.isEmpty()) {
        problems.add(new StoreCheck.Problem(StoreCheck.Kind.INCONSISTENT, r.meaning() + ": " + named(found)));
      }
    }
    if (version >= 2) {
      labels(c, problems);
    }
  }

  /** A task's label index ({@code ticket_labels}) holds exactly the labels recorded with it. */
  private static void labels(Connection c, List<StoreCheck.Problem> problems) {
    Map<Long, SortedMap<String, String>> indexed = new HashMap<>();
    List<String> found = new ArrayList<>();
    try (Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery("SELECT ticket_id, label, label_value FROM ticket_labels")) {
        while (rs.next()) {
          indexed.computeIfAbsent(rs.getLong(1), k -> new TreeMap<>()).put(rs.getString(2), rs.getString(3));
        }
      }
      try (ResultSet rs = s.executeQuery("SELECT id, labels FROM tickets ORDER BY id")) {
        while (rs.next()) {
          SortedMap<String, String> recorded;
          try {
            recorded = Rows.decode(rs.getString(2));
          } catch (RuntimeException e) {
            found.add("t-" + rs.getLong(1));
            continue;
          }
          if (!recorded.equals(indexed.getOrDefault(rs.getLong(1), new TreeMap<>()))) {
            found.add("t-" + rs.getLong(1));
          }
        }
      }
    } catch (SQLException e) {
      problems.add(unreadable("the rule 'a task's label index holds its labels' cannot be checked", e));
      return;
    }
    if (!found.isEmpty()) {
      problems.add(new StoreCheck.Problem(StoreCheck.Kind.INCONSISTENT,
          "tasks whose label index does not hold their labels: " + named(found)));
    }
  }

  /** {@code t-1, t-5 (2)}, naming at most {@value #NAMED}. */
  static String named(List<String> ids) {
    String shown = String.join(", ", ids.subList(0, Math.min(NAMED, ids.size())));
    return shown + (ids.size() > NAMED ? " and " + (ids.size() - NAMED) + " more" : "") + " (" + ids.size() + ")";
  }

  private static StoreCheck.Problem unreadable(String where, SQLException e) {
    String why = Damage.of(e).map(d -> d + ": ").orElse("");
    return new StoreCheck.Problem(StoreCheck.Kind.UNREADABLE, where + ": " + why + Damage.detail(e));
  }

  static String quote(String identifier) {
    return "\"" + identifier.replace("\"", "\"\"") + "\"";
  }
}
