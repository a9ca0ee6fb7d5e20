package dev.vigil.coordination.h2;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One opening of the database: a keeper session, which holds the file open and shuts it down,
 * and the connection pool the verbs use.
 */
final class Engine {
  private static final Logger LOG = LoggerFactory.getLogger(Engine.class);
  /** How long a caller waits for a pooled connection before the verb fails, ms. */
  static final long CONNECTION_WAIT_MS = 30_000;

  private final Connection keeper;
  final HikariDataSource pool;
  /** Opened read-only ({@link #startReading}): closing writes nothing. */
  final boolean reading;

  private Engine(Connection keeper, HikariDataSource pool, boolean reading) {
    this.keeper = keeper;
    this.pool = pool;
    this.reading = reading;
  }

  /**
   * Opens an existing database at the read-only {@code url} for reading only: no setting, no
   * migration, no write; one pooled session.
   */
  static Engine startReading(DatabaseFile db, String url, H2Options options) {
    Connection keeper;
    try {
      keeper = DatabaseFile.connect(url);
    } catch (SQLException e) {
      throw db.openFailure(e);
    }
    try {
      return new Engine(keeper, pool(url, options.withPoolSize(1)), true);
    } catch (RuntimeException e) {
      closeQuietly(keeper);
      throw e;
    }
  }

  /** Closes a database opened for reading: the pool, then the keeper session; nothing is written. */
  void closeReading() {
    try {
      pool.close();
    } finally {
      closeQuietly(keeper);
    }
  }

  /**
   * Opens the database at {@code url}: applies and verifies the storage settings, migrates the
   * schema, proves that the file takes a write, starts the pool. On failure nothing stays open; a
   * failure of the environment is a {@link StoreUnavailableException}.
   */
  static Engine start(DatabaseFile db, String url, H2Options options, Tuning tuning) {
    return start(db, url, options, tuning, true);
  }

  /**
   * Opens the database again after a compaction: as {@link #start(DatabaseFile, String, H2Options, Tuning)}
   * without the migrations, which the first open of this store did (the schema is only checked to be
   * the current one: a compaction copies it as it was).
   */
  static Engine reopen(DatabaseFile db, String url, H2Options options, Tuning tuning) {
    return start(db, url, options, tuning, false);
  }

  private static Engine start(DatabaseFile db, String url, H2Options options, Tuning tuning, boolean migrate) {
    Connection keeper;
    try {
      keeper = DatabaseFile.connect(url);
    } catch (SQLException e) {
      throw db.openFailure(e);
    }
    try {
      keeper.setAutoCommit(false);
      applyStorageSettings(keeper, tuning, db);
      if (migrate) {
        Schema.migrate(keeper, db.toString());
      } else {
        int version = Schema.versionOf(keeper, db.toString());
        if (version != Schema.CURRENT_VERSION) {
          throw new CoordinationStoreException("cannot open " + db + " again: its schema version is " + version
              + ", expected " + Schema.CURRENT_VERSION);
        }
      }
      proveWritable(keeper);
      return new Engine(keeper, pool(url, options), false);
    } catch (SQLException e) {
      closeQuietly(keeper);
      if (!(Damage.diagnose(e) instanceof Damage.Diagnosis.Other)) {
        throw db.openFailure(e);
      }
      throw new CoordinationStoreException("cannot open " + db + ": " + Transactions.oneLine(e), e);
    } catch (CoordinationStoreException e) {
      closeQuietly(keeper);
      throw e;
    } catch (RuntimeException e) {
      closeQuietly(keeper);
      if (Damage.diagnose(e) instanceof Damage.Diagnosis.Unavailable) {
        throw db.openFailure(e); // the pool could not start its connections
      }
      throw e;
    } catch (Error e) {
      closeQuietly(keeper);
      throw e;
    }
  }

  /**
   * Commits one write, so that an open on a file that cannot take one (a full disk, a failing
   * device) fails now, changing nothing, rather than at the first verb: H2 opens an existing file
   * without writing to it. Rewriting a counter row with its own value appends one small chunk.
   */
  private static void proveWritable(Connection keeper) throws SQLException {
    try (Statement s = keeper.createStatement()) {
      s.executeUpdate("UPDATE counters SET issued = issued WHERE name = 'ticket_seq'");
    }
    keeper.commit();
  }

  /**
   * Closes the pool, then shuts the database down with {@code SHUTDOWN COMPACT}: H2 copies the
   * live data to a new file and moves it over the old one, so a crash meanwhile leaves the old
   * file whole. The caller guarantees that no transaction is in flight.
   */
  void shutdownCompact(DatabaseFile db) {
    shutdown(db, "SHUTDOWN COMPACT");
  }

  /**
   * Closes the pool, then shuts the database down without compacting or writing anything more
   * ({@code SHUTDOWN IMMEDIATELY}, as if the process died): for a damaged file, which a compaction
   * would have to read whole.
   */
  void shutdownImmediately(DatabaseFile db) {
    shutdown(db, "SHUTDOWN IMMEDIATELY");
  }

  private void shutdown(DatabaseFile db, String statement) {
    pool.close();
    try (Statement s = keeper.createStatement()) {
      s.execute(statement);
    } catch (SQLException e) {
      if (Damage.diagnose(e) instanceof Damage.Diagnosis.Unavailable u) {
        throw new StoreUnavailableException(db.file, u.reason(), db + ": clean shutdown failed: the store is unavailable ("
            + u.reason() + ")", e);
      }
      throw new CoordinationStoreException(db + ": clean shutdown failed: " + Transactions.oneLine(e), e);
    } finally {
      closeQuietly(keeper);
    }
  }

  /**
   * Lets go of a database that its environment failed: closes the pool (so that it opens no new
   * session in the background), then shuts the database down without writing anything more
   * ({@code SHUTDOWN IMMEDIATELY}, as if the process died: every acknowledged commit is in the
   * file already), if H2 has not closed it itself. Never throws.
   */
  void abandon(DatabaseFile db) {
    try {
      pool.close();
    } catch (RuntimeException e) {
      LOG.debug("{}: closing the pool of an unavailable store: {}", db, e.toString());
    }
    try (Statement s = keeper.createStatement()) {
      s.execute("SHUTDOWN IMMEDIATELY");
    } catch (SQLException e) {
      LOG.debug("{}: shutting down an unavailable store: {}", db, Transactions.oneLine(e));
    } finally {
      closeQuietly(keeper);
    }
  }

  private static void applyStorageSettings(Connection c, Tuning tuning, DatabaseFile db) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("SET WRITE_DELAY " + tuning.writeDelayMs());
      s.execute("SET RETENTION_TIME " + tuning.retentionTimeMs());
    }
    requireSetting(c, "WRITE_DELAY", Integer.toString(tuning.writeDelayMs()), db);
    requireSetting(c, "RETENTION_TIME", Integer.toString(tuning.retentionTimeMs()), db);
    requireSetting(c, "REUSE_SPACE", Boolean.toString(!tuning.appendOnly()), db);
    c.commit();
  }

  private static void requireSetting(Connection c, String name, String expected, DatabaseFile db)
      throws SQLException {
    try (PreparedStatement p = c.prepareStatement(
        "SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS WHERE SETTING_NAME = ?")) {
      p.setString(1, name);
      try (ResultSet rs = p.executeQuery()) {
        String actual = rs.next() ? rs.getString(1) : null;
        if (!expected.equalsIgnoreCase(String.valueOf(actual))) {
          throw new CoordinationStoreException("cannot open " + db + ": " + name + " is " + actual + ", expected "
              + expected);
        }
      }
    }
  }

  private static HikariDataSource pool(String url, H2Options options) {
    HikariConfig config = new HikariConfig();
    config.setPoolName("vigil-h2");
    config.setDriverClassName("org.h2.Driver");
    config.setJdbcUrl(url);
    config.setUsername("sa");
    config.setPassword("");
    config.setAutoCommit(false);
    config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
    config.setMaximumPoolSize(options.poolSize());
    config.setMinimumIdle(options.poolSize());
    config.setConnectionTimeout(CONNECTION_WAIT_MS);
    config.setMaxLifetime(0);
    return new HikariDataSource(config);
  }

  private static void closeQuietly(Connection c) {
    try {
      c.close();
    } catch (SQLException e) {
      LOG.debug("closing the keeper session: {}", Transactions.oneLine(e));
    }
  }
}
