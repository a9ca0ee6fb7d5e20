package dev.vigil.coordination.h2;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a check of a Vigil store found ({@link H2Maintenance#check}, {@link H2Coordination#check}):
 * every row of every table and every entry of every index read, and Vigil's own rules checked.
 *
 * @param file          the database file
 * @param schemaVersion the schema version the store records, 0 when it cannot be read
 * @param rows          rows read, by table (upper-case SQL name), for every table that was read
 * @param problems      what is wrong, in the order found; empty for a healthy store
 */
public record StoreCheck(Path file, int schemaVersion, Map<String, Long> rows, List<Problem> problems) {
  /** What kind of problem. */
  public enum Kind {
    /** Part of the file cannot be read: the file is damaged. */
    UNREADABLE,
    /** The rows read break a rule Vigil relies on (a running task without its run, a lost counter…). */
    INCONSISTENT,
    /** The store was written by a newer Vigil, whose rules this build does not know: not checked. */
    NEWER_SCHEMA
  }

  /**
   * One problem, in plain words.
   *
   * @param kind what kind
   * @param what one line, like {@code tasks (table TICKETS): 34 of 50 rows read, then: …}
   */
  public record Problem(Kind kind, String what) {
    public Problem {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(what, "what");
    }
  }

  public StoreCheck {
    Objects.requireNonNull(file, "file");
    rows = Map.copyOf(rows);
    problems = List.copyOf(problems);
  }

  /** True when nothing is wrong. */
  public boolean healthy() {
    return problems.isEmpty();
  }

  /** True when a part of the file cannot be read. */
  public boolean damaged() {
    return problems.stream().anyMatch(p -> p.kind() == Kind.UNREADABLE);
  }

  /** True when the store was written by a newer Vigil and was not checked. */
  public boolean newerSchema() {
    return problems.stream().anyMatch(p -> p.kind() == Kind.NEWER_SCHEMA);
  }

  /** What a table of the store holds, in plain words: {@code TICKETS} holds {@code tasks}. */
  public static String what(String table) {
    return switch (table) {
      case "TICKETS" -> "tasks";
      case "RUNS" -> "runs";
      case "EVENTS" -> "events";
      case "LEASES" -> "claims of running tasks";
      case "LANES" -> "lanes";
      case "OWNERS" -> "daemon records";
      case "COUNTERS" -> "id counters";
      case "SCHEMA_VERSION" -> "schema versions";
      case "TICKET_LABELS" -> "task labels";
      case "TICKET_AFTER" -> "tasks' prerequisites";
      default -> table.toLowerCase(java.util.Locale.ROOT);
    };
  }

  /** The rows read from {@code table} (upper-case SQL name), 0 when it was not read. */
  public long rowsOf(String table) {
    return rows.getOrDefault(table, 0L);
  }
}
