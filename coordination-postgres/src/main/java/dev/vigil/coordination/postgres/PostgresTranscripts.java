package dev.vigil.coordination.postgres;

import dev.vigil.coordination.Restore;
import dev.vigil.coordination.TranscriptEntry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The transcript verbs and reads (S7) on the {@code service_transcript} table, each called
 * inside one transaction of {@link PostgresCoordination} or {@link PostgresStore}. An append takes its id from the
 * {@code transcript_seq} counter and then deletes the service's entries past its bound, in the same
 * transaction; a restore's notice is looked up by {@code (service, restore_id)}, whose UNIQUE stands behind the
 * one notice per restore.
 */
final class PostgresTranscripts {
  static final String COLUMNS = "id, service, at_ms, kind, text, output_at, restore_id";

  private PostgresTranscripts() {}

  static TranscriptEntry transcribe(Connection c, String service, TranscriptEntry.Kind kind, String text,
                                    long outputAt, long nowMs) throws SQLException {
    return append(c, service, nowMs, kind, text, outputAt, null);
  }

  static Restore restored(Connection c, String service, String restoreId, String snapshot, long outputAt, long nowMs)
      throws SQLException {
    Optional<TranscriptEntry> earlier = byRestore(c, service, restoreId);
    if (earlier.isPresent()) {
      return new Restore.AlreadyStored(earlier.get());
    }
    try {
      return new Restore.Added(append(c, service, nowMs, TranscriptEntry.Kind.RESTORED, snapshot, outputAt, restoreId));
    } catch (SQLException e) {
      if (Transactions.isDuplicateKey(e)) {
        throw new Transactions.RaceLost("restored met a concurrent notice of restore " + restoreId);
      }
      throw e;
    }
  }

  /** The GIVEN_UP entry of a service given up, in the transaction of its event: the mark of its latest entry. */
  static TranscriptEntry givenUp(Connection c, String service, String why, long nowMs) throws SQLException {
    long mark = 0;
    try (PreparedStatement p = c.prepareStatement(
        "SELECT output_at FROM service_transcript WHERE service = ? ORDER BY id DESC LIMIT 1")) {
      p.setString(1, service);
      try (ResultSet rs = p.executeQuery()) {
        if (rs.next()) {
          mark = rs.getLong(1);
        }
      }
    }
    return append(c, service, nowMs, TranscriptEntry.Kind.GIVEN_UP, why, mark, null);
  }

  static List<TranscriptEntry> read(Connection c, String service, long afterId, int limit) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT " + COLUMNS
        + " FROM service_transcript WHERE service = ? AND id > ? ORDER BY id LIMIT ?")) {
      p.setString(1, service);
      p.setLong(2, afterId);
      p.setInt(3, limit);
      return entries(p);
    }
  }

  private static Optional<TranscriptEntry> byRestore(Connection c, String service, String restoreId)
      throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT " + COLUMNS
        + " FROM service_transcript WHERE service = ? AND restore_id = ?")) {
      p.setString(1, service);
      p.setString(2, restoreId);
      List<TranscriptEntry> found = entries(p);
      return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
    }
  }

  private static TranscriptEntry append(Connection c, String service, long nowMs, TranscriptEntry.Kind kind,
                                        String text, long outputAt, String restoreId) throws SQLException {
    long id = PostgresCoordination.next(c, "transcript_seq");
    TranscriptEntry e = new TranscriptEntry(id, service, nowMs, kind, TranscriptEntry.bounded(text), outputAt,
        restoreId);
    try (PreparedStatement p = c.prepareStatement("INSERT INTO service_transcript(" + COLUMNS
        + ") VALUES (?, ?, ?, ?, ?, ?, ?)")) {
      p.setLong(1, e.id());
      p.setString(2, e.service());
      p.setLong(3, e.atMs());
      p.setString(4, e.kind().name());
      p.setString(5, e.text());
      p.setLong(6, e.outputAt());
      p.setString(7, e.restoreId());
      p.executeUpdate();
    }
    boolean restore = kind == TranscriptEntry.Kind.RESTORED;
    int keep = restore ? TranscriptEntry.KEEP_RESTORES : TranscriptEntry.KEEP_LIFECYCLE;
    String which = restore ? "kind = 'RESTORED'" : "kind <> 'RESTORED'";
    // the oldest id kept is the keep-th newest; a service with fewer entries deletes none
    try (PreparedStatement p = c.prepareStatement("DELETE FROM service_transcript WHERE service = ? AND " + which
        + " AND id < (SELECT id FROM service_transcript WHERE service = ? AND " + which
        + " ORDER BY id DESC OFFSET ? ROWS FETCH NEXT 1 ROW ONLY)")) {
      p.setString(1, service);
      p.setString(2, service);
      p.setInt(3, keep - 1);
      p.executeUpdate();
    }
    return e;
  }

  private static List<TranscriptEntry> entries(PreparedStatement p) throws SQLException {
    List<TranscriptEntry> out = new ArrayList<>();
    try (ResultSet rs = p.executeQuery()) {
      while (rs.next()) {
        out.add(new TranscriptEntry(rs.getLong(1), rs.getString(2), rs.getLong(3),
            TranscriptEntry.Kind.valueOf(rs.getString(4)), rs.getString(5), rs.getLong(6), rs.getString(7)));
      }
    }
    return out;
  }
}
