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

  private Engine(Connection keeper, HikariDataSource pool) {
    this.keeper = keeper;
    this.pool = pool;
  }

  /**
   * Opens the database at {@code url}: applies and verifies the storage settings, migrates the
   * schema, starts the pool. On failure nothing stays open.
   */
  static Engine start(DatabaseFile db, String url, H2Options options, Tuning tuning) {
    Connection keeper;
    try {
      keeper = DatabaseFile.connect(url);
    } catch (SQLException e) {
      throw db.openFailure(e);
    }
    try {
      keeper.setAutoCommit(false);
      applyStorageSettings(keeper, tuning, db);
      Schema.migrate(keeper, db.toString());
      return new Engine(keeper, pool(url, options));
    } catch (SQLException e) {
      closeQuietly(keeper);
      if (Damage.of(e).isPresent()) {
        throw db.openFailure(e);
      }
      throw new CoordinationStoreException("cannot open " + db + ": " + Transactions.oneLine(e), e);
    } catch (RuntimeException | Error e) {
      closeQuietly(keeper);
      throw e;
    }
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
      throw new CoordinationStoreException(db + ": clean shutdown failed: " + Transactions.oneLine(e), e);
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
