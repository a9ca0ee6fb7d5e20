package dev.vigil.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;

/**
 * The floor under B1: one-row durable commits ({@code UPDATE} of one row, {@code COMMIT}) on one
 * connection to an H2 file with the store's settings ({@link H2Settings}). Each commit is written
 * to the file before it returns, as each Vigil verb's is.
 */
public final class DurableCommits {
  private DurableCommits() {}

  /** Commits per second over {@code seconds}. */
  public static double run(Path dir, double seconds) throws Exception {
    String name = "commits-" + System.nanoTime();
    String url = H2Settings.url(dir, name);
    Connection c = H2Settings.keeper(url);
    try {
      try (Statement s = c.createStatement()) {
        s.execute("CREATE TABLE counter (id INT PRIMARY KEY, n BIGINT NOT NULL)");
        s.execute("INSERT INTO counter VALUES (1, 0)");
      }
      c.setAutoCommit(false);
      long commits = 0;
      try (PreparedStatement p = c.prepareStatement("UPDATE counter SET n = n + 1 WHERE id = 1")) {
        long t0 = System.nanoTime();
        long end = t0 + (long) (seconds * 1e9);
        while (System.nanoTime() < end) {
          if (p.executeUpdate() != 1) {
            throw new IllegalStateException("the counter row is gone");
          }
          c.commit();
          commits++;
        }
        return commits / ((System.nanoTime() - t0) / 1e9);
      }
    } finally {
      c.setAutoCommit(true);
      H2Settings.shutdown(c);
      Files.deleteIfExists(dir.resolve(name + ".mv.db"));
    }
  }
}
