package dev.vigil.coordination.postgres;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each verb as one transaction on one pooled connection (autocommit off, READ COMMITTED):
 * commit on return, rollback on any failure.
 *
 * <ol>
 *   <li>A conflict the server resolved by aborting this transaction (SQLState 40001 serialization
 *       failure, 40P01 deadlock, 55P03 lock timeout) rolls back and runs the whole transaction again,
 *       at most {@value PostgresCoordination#CONFLICT_ATTEMPTS} times in all; then the verb fails with
 *       a {@link PostgresStoreException} (broken infrastructure, never a decision).
 *   <li>A body that finds its conditional update refused but the re-read row permitting it (a
 *       concurrent commit in between) throws {@link RaceLost}: the transaction runs again.
 *   <li>A connection that cannot be had, or that breaks (the server stopped, restarted, or ended the
 *       session), fails the verb with a {@link PostgresUnavailableException}, never retried here: the
 *       caller decides when to try again. Broken before the commit was sent, nothing was recorded;
 *       broken during the commit, the outcome is the server's, whole or nothing
 *       ({@link PostgresUnavailableException#outcomeUnknown()}). The pool drops the broken connection
 *       and opens new ones once the server answers, so the store works again without a reopen.
 *   <li>Any other failure rolls back and is reported; nothing is retried that might have committed.
 * </ol>
 *
 * <p>No message carries the password: they name the server by {@link PostgresOptions#where()}.
 */
final class Transactions {
  private static final Logger LOG = LoggerFactory.getLogger(Transactions.class);
  /** Re-runs of a transaction that lost a race to a concurrent commit, before giving up. */
  static final int RACE_ATTEMPTS = 20;

  /** A transaction body; it may call {@code rollback} itself to discard what it did. */
  interface Body<T> {
    T run(Connection c) throws SQLException;
  }

  /** Thrown by a body whose conditional update lost to a commit it could not see: run it again. */
  static final class RaceLost extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RaceLost(String what) {
      super(what, null, false, false);
    }
  }

  private final HikariDataSource pool;
  private final String where;
  private volatile boolean closed;

  Transactions(HikariDataSource pool, String where) {
    this.pool = pool;
    this.where = where;
  }

  /** A read-only transaction. */
  <T> T read(String what, Body<T> body) {
    return run(what, body);
  }

  /** Runs {@code body} as one transaction; {@code verb} names it in failure messages. */
  <T> T run(String verb, Body<T> body) {
    if (closed) {
      throw new IllegalStateException(where + ": the coordination store is closed (" + verb + ")");
    }
    int conflicts = 0;
    int races = 0;
    while (true) {
      Connection c = connection(verb);
      boolean committing = false;
      try {
        T result = body.run(c);
        committing = true;
        c.commit();
        return result;
      } catch (RaceLost e) {
        rollbackQuietly(c);
        if (++races >= RACE_ATTEMPTS) {
          throw new PostgresStoreException(where + ": " + verb + " lost " + races
              + " races in a row to concurrent commits (" + e.getMessage() + ")");
        }
        LOG.debug("{}: {} lost a race ({}); running it again", where, verb, e.getMessage());
      } catch (SQLException e) {
        rollbackQuietly(c);
        if (isConnectionFailure(e)) {
          throw unavailable(verb, e, committing);
        }
        if (isConflict(e) && ++conflicts < PostgresCoordination.CONFLICT_ATTEMPTS) {
          LOG.warn("{}: {} met a conflict ({}), attempt {} of {}; running it again", where, verb, e.getSQLState(),
              conflicts, PostgresCoordination.CONFLICT_ATTEMPTS);
          continue;
        }
        if (isConflict(e)) {
          throw new PostgresStoreException(where + ": " + verb + " gave up after " + conflicts
              + " conflicts with concurrent transactions: " + oneLine(e), e);
        }
        throw new PostgresStoreException(where + ": " + verb + " failed: " + oneLine(e), e);
      } catch (RuntimeException | Error e) {
        rollbackQuietly(c);
        throw e;
      } finally {
        closeQuietly(c);
      }
    }
  }

  /** Runs {@code body} on a connection in autocommit mode (statements that cannot run in a transaction). */
  void autocommit(String verb, Body<Void> body) {
    if (closed) {
      throw new IllegalStateException(where + ": the coordination store is closed (" + verb + ")");
    }
    Connection c = connection(verb);
    try {
      c.setAutoCommit(true);
      body.run(c);
    } catch (SQLException e) {
      if (isConnectionFailure(e)) {
        throw unavailable(verb, e, false);
      }
      throw new PostgresStoreException(where + ": " + verb + " failed: " + oneLine(e), e);
    } finally {
      closeQuietly(c); // the pool restores autocommit off
    }
  }

  /** Refuses new verbs and closes the pool. Idempotent. */
  void shutdown() {
    closed = true;
    pool.close();
  }

  private Connection connection(String verb) {
    try {
      return pool.getConnection();
    } catch (SQLException e) {
      if (isConnectionFailure(e)) {
        throw unavailable(verb, e, false);
      }
      throw new PostgresStoreException(where + ": no database connection for " + verb + ": " + oneLine(e), e);
    }
  }

  private PostgresUnavailableException unavailable(String verb, SQLException e, boolean committing) {
    String reason = reason(e);
    String outcome = committing ? "; it may or may not have been recorded (whole or not at all): read the store"
        + " once the server is back" : "; nothing of it was recorded";
    LOG.warn("{}: {} failed, the server is unavailable ({}): {}", where, verb, reason, oneLine(e));
    return new PostgresUnavailableException(reason, committing, where + ": " + verb + " failed: the server is"
        + " unavailable (" + reason + ")" + outcome, e);
  }

  /** The cause of an unavailable server in a few plain words. */
  static String reason(SQLException e) {
    String state = String.valueOf(e.getSQLState());
    if (state.startsWith("57P")) {
      return "the server is shutting down or restarting";
    } else if (e instanceof SQLTransientConnectionException && e.getCause() == null) {
      return "no connection came free in time (every pooled connection busy, or the server slow to answer)";
    } else if (e instanceof SQLTransientConnectionException || "08001".equals(state) || "08004".equals(state)) {
      return "the server cannot be reached";
    }
    return "the connection to the server was lost";
  }

  /** A connection that could not be had or broke: the server is unavailable, not the verb wrong. */
  static boolean isConnectionFailure(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SQLTransientConnectionException) {
        return true;
      }
      if (t instanceof SQLException s && s.getSQLState() != null) {
        String state = s.getSQLState();
        if (state.startsWith("08") || state.startsWith("57P") || "53300".equals(state)) {
          return true;
        }
      }
    }
    return false;
  }

  /** A conflict the server resolved by aborting this transaction: run it again. */
  static boolean isConflict(SQLException e) {
    String state = e.getSQLState();
    return "40001".equals(state) || "40P01".equals(state) || "55P03".equals(state);
  }

  static boolean isDuplicateKey(SQLException e) {
    return "23505".equals(e.getSQLState());
  }

  /** The first line of an exception's message, with its SQLState. */
  static String oneLine(SQLException e) {
    String m = String.valueOf(e.getMessage());
    int nl = m.indexOf('\n');
    return (nl < 0 ? m : m.substring(0, nl)).strip() + " (SQLState " + e.getSQLState() + ")";
  }

  /** Rolls back after a failure, which is reported; a failure of the rollback itself is only logged. */
  private static void rollbackQuietly(Connection c) {
    try {
      c.rollback();
    } catch (SQLException e) {
      LOG.debug("rollback failed: {}", oneLine(e));
    } catch (RuntimeException e) {
      LOG.debug("rollback failed: {}", e.toString());
    }
  }

  /** Returns the connection to the pool, which drops a broken one. */
  private static void closeQuietly(Connection c) {
    try {
      c.close();
    } catch (SQLException e) {
      LOG.debug("closing a pooled connection failed: {}", oneLine(e));
    } catch (RuntimeException e) {
      LOG.debug("closing a pooled connection failed: {}", e.toString());
    }
  }
}
