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

  /** Opens {@code url}, applies WRITE_DELAY 0 and RETENTION_TIME 0 (persistent), returns the settings read back. */
  static Map<String, String> apply(String url) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, "sa", "");
         Statement s = c.createStatement()) {
      s.execute("SET WRITE_DELAY 0");
      s.execute("SET RETENTION_TIME 0");
      Map<String, String> out = new LinkedHashMap<>();
      try (ResultSet rs = s.executeQuery("SELECT SETTING_NAME, SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS"
          + " WHERE SETTING_NAME IN ('WRITE_DELAY', 'RETENTION_TIME', 'REUSE_SPACE')")) {
        while (rs.next()) {
          out.put(rs.getString(1), rs.getString(2));
        }
      }
      if (!"0".equals(out.get("WRITE_DELAY")) || !"false".equalsIgnoreCase(out.get("REUSE_SPACE"))) {
        throw new IllegalStateException("H2 did not take the store's settings: " + out);
      }
      return out;
    }
  }

  /** Shuts the database down (without compacting) so that the next open starts clean. */
  static void shutdown(String url) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, "sa", "");
         Statement s = c.createStatement()) {
      s.execute("SHUTDOWN");
    }
  }
}
