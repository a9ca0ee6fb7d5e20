package dev.vigil.coordination.postgres;

import dev.vigil.coordination.Checkpoint;
import dev.vigil.coordination.CheckpointRule;
import dev.vigil.coordination.Checkpointing;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.TicketId;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * Checkpoints in the PostgreSQL store (Q17): {@code checkpoints} keeps one row per ticket, the
 * latest checkpoint a run of it saved. The verb locks the offering run's row, reads the ticket's row and
 * decides with {@link CheckpointRule}, the rule the reference model applies; the run's row lock orders it
 * against the run's settlement, so no offer is kept for a run that settled before it.
 */
final class PostgresCheckpoints {
  private PostgresCheckpoints() {}

  /** {@code keepCheckpoint} inside the verb's transaction. */
  static Checkpointing keep(Connection c, RunId run, long seq, String value, long nowMs) throws SQLException {
    Optional<Run> row = lockedRun(c, run);
    Optional<Checkpoint> stored = of(c, run.ticket(), true);
    Optional<Checkpointing.Reason> refusal = CheckpointRule.refusal(run, seq, row, stored);
    if (refusal.isPresent()) {
      return new Checkpointing.Denied(refusal.get());
    }
    Checkpoint kept = new Checkpoint(run, seq, value, nowMs);
    int n = stored.isPresent()
        ? PostgresCoordination.update(c, "UPDATE checkpoints SET run_id = ?, seq = ?, saved_at_ms = ?, checkpoint = ?"
            + " WHERE ticket_id = ?", run.toString(), seq, nowMs, value, run.ticket().seq())
        : PostgresCoordination.update(c, "INSERT INTO checkpoints(ticket_id, run_id, seq, saved_at_ms, checkpoint)"
            + " VALUES (?, ?, ?, ?, ?)", run.ticket().seq(), run.toString(), seq, nowMs, value);
    if (n != 1) {
      throw new IllegalStateException("the checkpoint of " + run + " changed " + n + " rows");
    }
    return new Checkpointing.Kept(kept);
  }

  /** The latest checkpoint of {@code ticket}, locked for the transaction when {@code lock}. */
  static Optional<Checkpoint> of(Connection c, TicketId ticket, boolean lock) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT run_id, seq, saved_at_ms, checkpoint FROM checkpoints"
        + " WHERE ticket_id = ?" + (lock ? " FOR UPDATE" : ""))) {
      p.setLong(1, ticket.seq());
      try (ResultSet rs = p.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(new Checkpoint(RunId.parse(rs.getString(1)), rs.getLong(2), rs.getString(4), rs.getLong(3)));
      }
    }
  }

  private static Optional<Run> lockedRun(Connection c, RunId id) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT run_id FROM runs WHERE run_id = ? FOR NO KEY UPDATE")) {
      p.setString(1, id.toString());
      try (ResultSet rs = p.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
      }
    }
    return Rows.run(c, id);
  }
}
