package dev.vigil.benchmarks;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The H2 settings of Vigil's store (coordination-h2: {@code DatabaseFile.url} and
 * {@code Tuning.DURABLE}), for the peers measured on the same file settings: {@code FILE_LOCK=FS},
 * {@code DB_CLOSE_ON_EXIT=FALSE}, {@code REUSE_SPACE=FALSE} (chunks only appended),
 * {@code LOCK_TIMEOUT=2000}, then {@code SET WRITE_DELAY 0} (each commit written to the file before
 * it returns) and {@code SET RETENTION_TIME 0}.
 */
final class H2Settings {
  private H2Settings() {}

  /** The URL of {@code <dir>/<name>.mv.db} with the store's URL settings. */
  static String url(Path dir, String name) {
    return "jdbc:h2:file:" + dir.toAbsolutePath().resolve(name) + ";FILE_LOCK=FS;DB_CLOSE_ON_EXIT=FALSE"
        + ";TRACE_LEVEL_FILE=4;REUSE_SPACE=FALSE;LOCK_TIMEOUT=2000";
  }

  /**
   * Opens a keeper session on {@code url} that applies {@code WRITE_DELAY 0} and
   * {@code RETENTION_TIME 0} and holds the database open, as the store's own keeper session does:
   * measured on H2 2.5.252, a reopened database runs with the default write delay (500 ms) again,
   * whatever was set before it closed, so the setting holds only while this session keeps the
   * database open. Verifies every row H2 reports for the settings.
   */
  static Connection keeper(String url) throws SQLException {
    Connection c = DriverManager.getConnection(url, "sa", "");
    try (Statement s = c.createStatement()) {
      s.execute("SET WRITE_DELAY 0");
      s.execute("SET RETENTION_TIME 0");
      Map<String, String> seen = new LinkedHashMap<>();
      try (ResultSet rs = s.executeQuery("SELECT SETTING_NAME, SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS"
          + " WHERE SETTING_NAME IN ('WRITE_DELAY', 'RETENTION_TIME', 'REUSE_SPACE')")) {
        while (rs.next()) {
          String name = rs.getString(1);
          String value = rs.getString(2);
          boolean ok = name.equals("REUSE_SPACE") ? value.equalsIgnoreCase("false") : value.equals("0");
          if (!ok) {
            throw new IllegalStateException("H2 did not take the store's settings: " + name + "=" + value);
          }
          seen.put(name, value);
        }
      }
      if (seen.size() != 3) {
        throw new IllegalStateException("H2 did not report the store's settings: " + seen);
      }
    } catch (SQLException | RuntimeException e) {
      c.close();
      throw e;
    }
    return c;
  }

  /** Shuts the database down through its keeper session, and closes that. */
  static void shutdown(Connection keeper) {
    try (keeper; Statement s = keeper.createStatement()) {
      s.execute("SHUTDOWN");
    } catch (SQLException e) {
      // closed already
    }
  }
}
