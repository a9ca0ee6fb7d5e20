package dev.vigil.coordination.h2;

import java.io.IOException;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.h2.tools.Recover;
import org.h2.util.ScriptReader;

/**
 * The steps of {@link H2Maintenance#recover}, all on files in a private work directory beside the
 * store; the damaged file itself is only read.
 *
 * <ol>
 *   <li>What the damaged store counts (its tables' row counts and ticket counter), as far as a
 *       read-only open can tell, to say later what was lost.
 *   <li>A copy of the file, cut after its last complete chunk: the database's recovery tool stops at a chunk
 *       that runs past the end of the file (a file cut short, or a write cut by a crash), so a
 *       partial last chunk is left out (it was never a committed version).
 *   <li>{@code org.h2.tools.Recover} writes the SQL of what it can read (the newest version of every
 *       page it can read; a page it cannot read is left out) and that script is run, statement by
 *       statement, into a scratch database.
 *   <li>A fresh store of the salvaged schema version is created, and the rows are copied table by
 *       table, parents first: a row that breaks a constraint of the fresh store (most often: it
 *       belongs to a task whose row was lost) is left out and counted. Lanes that tasks name but
 *       whose rows were lost are made again; the label index is rebuilt from the tasks' labels.
 *   <li>Vigil's rules ({@link Checker}) are made to hold again, each step said: claims that do not
 *       name a run in progress of their own running task are dropped; runs in progress of a task
 *       not marked running are dropped, as are all but one run in progress of a task; a lost claim
 *       of a running task's run is made again, expired, so that the next daemon checks its worker
 *       by process identity as after a crash; a task marked running without a run is held for a
 *       person to look at; a daemon that runs in progress name but whose row was lost is recorded
 *       again with an identity no process has, so that those runs are taken over; the id counters
 *       are raised to the highest id in use (and to {@code ticketSeqAtLeast}).
 *   <li>The schema is upgraded to this build's, and the fresh store shut down compacted.
 * </ol>
 */
final class Salvage {
  /** The hold reason of a task whose run was lost with the damaged data. */
  static final String HOLD_REASON = "recovered from a damaged store without its run: check whether its work ran, then "
      + "release or cancel it";
  /** The owner recorded for runs in progress whose daemon's row was lost: its identity matches no process. */
  static final String LOST_BOOT_ID = "lost-in-a-damaged-store";
  private static final int COMMIT_EVERY = 500;
  private static final String P = Checker.IN_PROGRESS;

  private Salvage() {}

  /** What the salvage built, or why it built nothing. */
  sealed interface Result {
    /** A fresh store at {@code fresh}, not yet checked or in place. */
    record Built(Path fresh, Map<String, Long> recovered, List<String> lost, List<String> repairs) implements Result {}

    /** Nothing was built. */
    record NotBuilt(H2Maintenance.Recovery why) implements Result {}
  }

  static Result run(DatabaseFile db, Path work, long nowWallMs, long ticketSeqAtLeast) {
    try {
      return build(db, work, nowWallMs, ticketSeqAtLeast);
    } catch (IOException e) {
      throw new CoordinationStoreException("cannot recover " + db + ": " + e.getMessage() + "; nothing was changed", e);
    } catch (SQLException e) {
      throw new CoordinationStoreException("cannot recover " + db + ": " + Transactions.oneLine(e)
          + "; nothing was changed", e);
    }
  }

  private static Result build(DatabaseFile db, Path work, long nowWallMs, long ticketSeqAtLeast)
      throws IOException, SQLException {
    List<String> lost = new ArrayList<>();
    List<String> repairs = new ArrayList<>();
    Map<String, Long> counted = counted(db);

    Path copy = work.resolve("damaged" + DatabaseFile.SUFFIX);
    Files.copy(db.file, copy);
    long cut = cutAfterLastCompleteChunk(copy);
    if (cut > 0) {
      lost.add("the last " + cut + " bytes of the file: an incomplete last write, or the start of a part cut off");
    }
    Path script = work.resolve("damaged.h2.sql");
    String failure = recoverTool(work);
    if (!Files.exists(script)) {
      return nothing("the database's recovery tool could read nothing of it"
          + (failure.isEmpty() ? "" : " (" + failure + ")"));
    }
    String scratchUrl = "jdbc:h2:file:" + work.resolve("salvage") + ";FILE_LOCK=FS;DB_CLOSE_ON_EXIT=FALSE;TRACE_LEVEL_FILE=0";
    try (Connection s = DatabaseFile.connect(scratchUrl)) {
      int failed = runScript(s, script);
      List<String> tables = Checker.tables(s);
      if (!tables.contains("TICKETS")) {
        return nothing("the database's recovery tool found no table of tasks in it" + (failed > 0 ? " (" + failed
            + " statements of what it wrote failed)" : ""));
      }
      int version = salvagedVersion(s, tables);
      if (version > Schema.CURRENT_VERSION) {
        return new Result.NotBuilt(new H2Maintenance.Recovery.NewerSchema(version, Schema.CURRENT_VERSION));
      }
      int start = version;
      if (version < 1) {
        start = Schema.CURRENT_VERSION;
        repairs.add("its schema version could not be read: the fresh store takes this Vigil's (" + start + ")");
      }
      Path fresh = work.resolve("recovered" + DatabaseFile.SUFFIX);
      DatabaseFile target = new DatabaseFile(fresh);
      try (Connection f = DatabaseFile.connect(target.url(H2Options.DEFAULT_LOCK_TIMEOUT.toMillis(), true))) {
        f.setAutoCommit(false);
        try (Statement st = f.createStatement()) {
          st.execute("SET WRITE_DELAY 0");
          st.execute("SET RETENTION_TIME 0");
        }
        Schema.migrate(f, fresh.toString(), start);
        f.commit();
        Copy copier = new Copy(s, f, tables, lost);
        Map<String, Long> recovered = copier.all(repairs);
        Repairs.apply(f, nowWallMs, ticketSeqAtLeast, repairs);
        f.commit();
        Schema.migrate(f, fresh.toString());
        f.commit();
        recovered = copier.countFresh(recovered.keySet());
        lostTickets(f, counted, ticketSeqAtLeast, lost);
        lostRows(counted, recovered, copier.refusedRows, lost);
        try (Statement st = f.createStatement()) {
          st.execute("SHUTDOWN COMPACT");
        }
        return new Result.Built(fresh, recovered, lost, repairs);
      }
    }
  }

  private static Result nothing(String why) {
    return new Result.NotBuilt(new H2Maintenance.Recovery.NothingSalvaged(why));
  }

  /** Row counts the damaged store keeps for its tables, and its ticket counter, as far as it opens read-only. */
  private static Map<String, Long> counted(DatabaseFile db) {
    Map<String, Long> out = new TreeMap<>();
    try (Connection c = db.openReadOnly()) {
      for (String t : Checker.tables(c)) {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + Checker.quote(t))) {
          rs.next();
          out.put(t, rs.getLong(1));
        } catch (SQLException e) {
          // not counted: unknown how many were lost
        }
      }
      try (Statement s = c.createStatement();
           ResultSet rs = s.executeQuery("SELECT issued FROM counters WHERE name = 'ticket_seq'")) {
        if (rs.next()) {
          out.put("ticket_seq", rs.getLong(1));
        }
      } catch (SQLException e) {
        // unknown
      }
    } catch (SQLException | RuntimeException e) {
      // it does not open: nothing counted
    }
    return out;
  }

  /**
   * Cuts {@code file} after its last complete chunk (and to whole 4 KiB blocks); returns the bytes cut.
   * A block that does not start a chunk (damaged) is stepped over; a chunk whose length runs past
   * the end of the file is where the cut is made.
   */
  static long cutAfterLastCompleteChunk(Path file) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      long size = ch.size();
      long whole = size / Damage.BLOCK * Damage.BLOCK;
      long cut = whole;
      ByteBuffer block = ByteBuffer.allocate(Damage.BLOCK);
      for (long pos = 2L * Damage.BLOCK; pos + Damage.BLOCK <= whole; ) {
        block.clear();
        if (ch.read(block, pos) < Damage.BLOCK) {
          break;
        }
        long len = Damage.chunkLength(block.array());
        if (len <= 0) {
          pos += Damage.BLOCK;
          continue;
        }
        if (pos + len * Damage.BLOCK > whole) {
          cut = pos;
          break;
        }
        pos += len * Damage.BLOCK;
      }
      if (cut < size) {
        ch.truncate(cut);
      }
      return size - cut;
    }
  }

  /**
   * Runs the database's recovery tool ({@link RecoverTool}) in a JVM of its own (the java of this one, H2 and
   * this class from where this JVM loaded them), which writes {@code damaged.h2.sql}: what it reads
   * of a damaged file cannot exhaust this JVM's memory or leave its files open here, and H2's
   * internal assertions stay off (with {@code -ea} they stop the tool at the first damaged page).
   * Returns the tool's last line when it failed, else the empty string.
   */
  private static String recoverTool(Path work) throws IOException {
    Set<String> classpath = new LinkedHashSet<>();
    for (Class<?> c : List.of(Recover.class, RecoverTool.class)) {
      try {
        classpath.add(Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
      } catch (java.net.URISyntaxException | RuntimeException e) {
        throw new IOException("cannot find the database's recovery tool: " + e.getMessage(), e);
      }
    }
    Path log = work.resolve("recover.log");
    Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:+UseSerialGC", "-Xshare:auto", "-cp", String.join(java.io.File.pathSeparator, classpath),
        RecoverTool.class.getName(), work.resolve("damaged" + DatabaseFile.SUFFIX).toString(),
        work.resolve("damaged.h2.sql").toString())
        .redirectErrorStream(true).redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(
            new java.io.File("/dev/null"))).start();
    Thread stop = new Thread(p::destroyForcibly, "vigil-recover-stop");
    Runtime.getRuntime().addShutdownHook(stop);
    try {
      int code = p.waitFor();
      if (code == 0) {
        return "";
      }
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8).stream().filter(l -> !l.isBlank()
          && !l.startsWith("\tat ") && !l.startsWith("\t...")).toList();
      return lines.isEmpty() ? "it exited with " + code : lines.get(lines.size() - 1).strip();
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while the database's recovery tool ran", e);
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(stop);
      } catch (IllegalStateException e) {
        // shutting down: the hook runs
      }
    }
  }

  /** Runs the recovery tool's script statement by statement; returns how many statements failed. */
  private static int runScript(Connection c, Path script) throws IOException, SQLException {
    int failed = 0;
    try (Reader in = Files.newBufferedReader(script, StandardCharsets.UTF_8); ScriptReader r = new ScriptReader(in);
         Statement st = c.createStatement()) {
      String sql;
      while ((sql = r.readStatement()) != null) {
        if (sql.isBlank()) {
          continue;
        }
        try {
          st.execute(sql);
        } catch (SQLException e) {
          failed++;
        }
      }
    }
    return failed;
  }

  private static int salvagedVersion(Connection s, List<String> tables) {
    if (!tables.contains("SCHEMA_VERSION")) {
      return 0;
    }
    try (Statement st = s.createStatement(); ResultSet rs = st.executeQuery("SELECT COALESCE(MAX(version), 0) FROM schema_version")) {
      rs.next();
      return rs.getInt(1);
    } catch (SQLException e) {
      return 0;
    }
  }

  /** The order in which tables are reported: what people ask about first. */
  static final List<String> REPORT_ORDER = List.of("TICKETS", "RUNS", "EVENTS", "LEASES", "LANES", "OWNERS",
      "TICKET_LABELS", "COUNTERS", "SCHEMA_VERSION");

  /**
   * Per table, what the damaged store counted and the fresh store does not hold, and the rows the
   * fresh store refused and why; the counters and schema versions, which the fresh store makes
   * itself, are left out.
   */
  private static void lostRows(Map<String, Long> counted, Map<String, Long> recovered,
      Map<String, Map<String, Long>> refused, List<String> lost) {
    List<String> tables = new ArrayList<>(recovered.keySet());
    tables.sort(java.util.Comparator.comparingInt(t -> REPORT_ORDER.contains(t) ? REPORT_ORDER.indexOf(t)
        : REPORT_ORDER.size()));
    for (String t : tables) {
      if (t.equals("COUNTERS") || t.equals("SCHEMA_VERSION")) {
        continue;
      }
      List<String> parts = new ArrayList<>();
      Long was = counted.get(t);
      long now = recovered.get(t);
      if (was != null && was > now && !t.equals("TICKETS")) { // lost tasks are named by id
        parts.add((was - now) + " of " + was + " rows");
      }
      refused.getOrDefault(t, Map.of()).forEach((why, n) -> parts.add(n + " left out " + why));
      if (!parts.isEmpty()) {
        lost.add(Checker.plain(t) + ": " + String.join("; ", parts));
      }
    }
  }

  /** The task ids below the highest one known to have been handed out that the fresh store does not hold. */
  private static void lostTickets(Connection f, Map<String, Long> counted, long ticketSeqAtLeast, List<String> lost)
      throws SQLException {
    long issued = Math.max(counted.getOrDefault("ticket_seq", 0L), ticketSeqAtLeast);
    TreeSet<Long> have = new TreeSet<>();
    try (Statement st = f.createStatement(); ResultSet rs = st.executeQuery("SELECT id FROM tickets")) {
      while (rs.next()) {
        have.add(rs.getLong(1));
      }
    }
    long top = Math.max(issued, have.isEmpty() ? 0 : have.last());
    List<String> ranges = new ArrayList<>();
    long missing = 0;
    for (long id = 1; id <= top; id++) {
      if (have.contains(id)) {
        continue;
      }
      long from = id;
      while (id + 1 <= top && !have.contains(id + 1)) {
        id++;
      }
      missing += id - from + 1;
      if (ranges.size() < Checker.NAMED) {
        ranges.add(from == id ? "t-" + from : "t-" + from + " to t-" + id);
      }
    }
    if (missing > 0) {
      lost.add("tasks " + String.join(", ", ranges) + (ranges.size() == Checker.NAMED ? " and more" : "") + " ("
          + missing + " in all" + (counted.containsKey("ticket_seq") ? "" : ", as far as known") + ")");
    } else if (!counted.containsKey("ticket_seq") && ticketSeqAtLeast == 0) {
      lost.add("how many tasks were lost is unknown: the damaged file's own counts cannot be read");
    }
  }

  /** The copy of the salvaged rows into the fresh store, parents first. */
  private static final class Copy {
    /** Tables in the order their rows can be inserted (parents first); others follow in name order. */
    private static final List<String> ORDER = List.of("LANES", "COUNTERS", "OWNERS", "TICKETS", "RUNS", "LEASES", "EVENTS");
    /** Tables the fresh store makes itself: its own schema versions, and the label index (rebuilt). */
    private static final Set<String> OWN = Set.of("SCHEMA_VERSION", "TICKET_LABELS");

    private final Connection from;
    private final Connection to;
    private final List<String> salvaged;
    private final List<String> lost;
    /** Rows the fresh store refused, per table and why. */
    final Map<String, Map<String, Long>> refusedRows = new TreeMap<>();

    Copy(Connection from, Connection to, List<String> salvaged, List<String> lost) {
      this.from = from;
      this.to = to;
      this.salvaged = salvaged;
      this.lost = lost;
    }

    Map<String, Long> all(List<String> repairs) throws SQLException {
      List<String> freshTables = Checker.tables(to);
      Set<String> order = new LinkedHashSet<>(ORDER);
      order.addAll(new TreeSet<>(freshTables));
      Map<String, Long> recovered = new LinkedHashMap<>();
      for (String t : order) {
        if (!freshTables.contains(t) || OWN.contains(t)) {
          continue;
        }
        if (!salvaged.contains(t)) {
          lost.add(Checker.plain(t) + ": the whole table (none of its rows could be read)");
          continue;
        }
        if (t.equals("TICKETS")) {
          lanesOfTickets(repairs);
        }
        recovered.put(t, table(t));
        if (t.equals("TICKETS")) {
          retryLinks(repairs);
        }
      }
      labels(repairs);
      dependencyHolds(repairs);
      return recovered;
    }

    /**
     * Sets the dependency holds (Q14) of the copied tasks whose prerequisite row was recovered too (a
     * hold may name a retry numbered after the task, so it is set once every task is in); a task whose
     * row was lost stays held with its reason, and a release lets it go.
     */
    private void dependencyHolds(List<String> repairs) throws SQLException {
      if (!columns(from, "TICKETS").contains("HELD_FOR") || !columns(to, "TICKETS").contains("HELD_FOR")) {
        return;
      }
      List<String> cut = new ArrayList<>();
      try (Statement s = from.createStatement(); ResultSet rs = s.executeQuery("SELECT id, held_for FROM tickets"
          + " WHERE held_for IS NOT NULL ORDER BY id");
           PreparedStatement p = to.prepareStatement("UPDATE tickets SET held_for = ? WHERE id = ? AND state = 'HELD'"
               + " AND EXISTS (SELECT 1 FROM ticket_after a WHERE a.ticket_id = ? AND a.prerequisite_id = ?)")) {
        while (rs.next()) {
          long id = rs.getLong(1);
          long prerequisite = rs.getLong(2);
          p.setLong(1, prerequisite);
          p.setLong(2, id);
          p.setLong(3, id);
          p.setLong(4, prerequisite);
          if (rowsOrNone(p) == 0 && exists(id)) {
            cut.add("t-" + id);
          }
        }
      }
      to.commit();
      if (!cut.isEmpty()) {
        repairs.add("left held, for a person to release, tasks whose record of the task they wait for was lost: "
            + Checker.named(cut));
      }
    }

    /** Rows now in the fresh store, per table. */
    Map<String, Long> countFresh(Set<String> tables) throws SQLException {
      Map<String, Long> out = new LinkedHashMap<>();
      List<String> ordered = new ArrayList<>(tables);
      ordered.sort(java.util.Comparator.comparingInt(t -> REPORT_ORDER.contains(t) ? REPORT_ORDER.indexOf(t)
          : REPORT_ORDER.size()));
      for (String t : ordered) {
        try (Statement s = to.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + Checker.quote(t))) {
          rs.next();
          out.put(t, rs.getLong(1));
        }
      }
      return out;
    }

    /** Copies one table by the columns both stores have; a row the fresh store refuses is counted by why. */
    private long table(String t) throws SQLException {
      List<String> columns = new ArrayList<>(columns(to, t));
      columns.retainAll(columns(from, t));
      if (columns.isEmpty()) {
        lost.add(Checker.plain(t) + ": the whole table (none of its columns could be read)");
        return 0;
      }
      Set<String> nulled = t.equals("TICKETS") ? Set.of("RETRY_OF", "RETRIED_AS", "HELD_FOR") : Set.of();
      String cols = String.join(", ", columns.stream().map(Checker::quote).toList());
      String insert = t.equals("COUNTERS")
          ? "MERGE INTO counters(" + cols + ") KEY(name) VALUES (" + "?, ".repeat(columns.size() - 1) + "?)"
          : "INSERT INTO " + Checker.quote(t) + "(" + cols + ") VALUES (" + "?, ".repeat(columns.size() - 1) + "?)";
      Map<String, Long> refused = new TreeMap<>();
      long copied = 0;
      int pending = 0;
      try (Statement s = from.createStatement(); ResultSet rs = s.executeQuery("SELECT " + cols + " FROM " + Checker.quote(t));
           PreparedStatement p = to.prepareStatement(insert)) {
        while (rs.next()) {
          for (int i = 0; i < columns.size(); i++) {
            if (nulled.contains(columns.get(i))) {
              p.setObject(i + 1, null);
            } else {
              p.setObject(i + 1, rs.getObject(i + 1));
            }
          }
          try {
            p.executeUpdate();
            copied++;
          } catch (SQLException e) {
            refused.merge(why(e), 1L, Long::sum);
          }
          if (++pending == COMMIT_EVERY) {
            to.commit();
            pending = 0;
          }
        }
      }
      to.commit();
      if (!refused.isEmpty()) {
        refusedRows.put(t, refused);
      }
      return copied;
    }

    /** Lanes that salvaged tasks name but whose rows were lost are made again (unparked). */
    private void lanesOfTickets(List<String> repairs) throws SQLException {
      List<String> made = new ArrayList<>();
      try (Statement s = from.createStatement(); ResultSet rs = s.executeQuery("SELECT DISTINCT lane FROM tickets ORDER BY lane");
           PreparedStatement p = to.prepareStatement("INSERT INTO lanes(name, parked) SELECT ?, FALSE WHERE NOT EXISTS"
               + " (SELECT 1 FROM lanes WHERE name = ?)")) {
        while (rs.next()) {
          String lane = rs.getString(1);
          if (lane == null) {
            continue;
          }
          p.setString(1, lane);
          p.setString(2, lane);
          try {
            if (p.executeUpdate() == 1) {
              made.add(lane);
            }
          } catch (SQLException e) {
            // a lane name the schema refuses: its tasks are left out with it
          }
        }
      }
      to.commit();
      if (!made.isEmpty()) {
        repairs.add("made again the lanes " + String.join(", ", made) + ", whose rows were lost (they are not parked)");
      }
    }

    /** Sets the retry links of the copied tasks where both ends were recovered. */
    private void retryLinks(List<String> repairs) throws SQLException {
      if (!columns(from, "TICKETS").contains("RETRY_OF") || !columns(to, "TICKETS").contains("RETRY_OF")) {
        return;
      }
      List<String> cut = new ArrayList<>();
      try (Statement s = from.createStatement(); ResultSet rs = s.executeQuery("SELECT id, retry_of, retried_as FROM tickets"
          + " WHERE retry_of IS NOT NULL OR retried_as IS NOT NULL ORDER BY id");
           PreparedStatement of = to.prepareStatement("UPDATE tickets SET retry_of = ? WHERE id = ?"
               + " AND EXISTS (SELECT 1 FROM tickets o WHERE o.id = ?)");
           PreparedStatement as = to.prepareStatement("UPDATE tickets SET retried_as = ? WHERE id = ?"
               + " AND EXISTS (SELECT 1 FROM tickets n WHERE n.id = ?)")) {
        while (rs.next()) {
          long id = rs.getLong(1);
          for (int k = 0; k < 2; k++) {
            long other = rs.getLong(k + 2);
            if (rs.wasNull()) {
              continue;
            }
            PreparedStatement p = k == 0 ? of : as;
            p.setLong(1, other);
            p.setLong(2, id);
            p.setLong(3, other);
            if (rowsOrNone(p) == 0 && exists(id)) {
              cut.add("t-" + id);
            }
          }
        }
      }
      to.commit();
      if (!cut.isEmpty()) {
        repairs.add("removed from tasks their link to a retry or retried task that was lost: " + Checker.named(cut));
      }
    }

    /** The label index made again from the labels recorded with each task. */
    private void labels(List<String> repairs) throws SQLException {
      List<String> freshTables = Checker.tables(to);
      if (!freshTables.contains("TICKET_LABELS") || !columns(to, "TICKETS").contains("LABELS")) {
        return;
      }
      long salvagedLabels = -1;
      if (salvaged.contains("TICKET_LABELS")) {
        try (Statement s = from.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM ticket_labels l"
            + " WHERE EXISTS (SELECT 1 FROM tickets t WHERE t.id = l.ticket_id)")) {
          rs.next();
          salvagedLabels = rs.getLong(1);
        }
      }
      long made = 0;
      try (Statement s = to.createStatement(); ResultSet rs = s.executeQuery("SELECT id, labels FROM tickets ORDER BY id");
           PreparedStatement p = to.prepareStatement("INSERT INTO ticket_labels(ticket_id, label, label_value) VALUES (?, ?, ?)")) {
        List<Object[]> rows = new ArrayList<>();
        while (rs.next()) {
          Map<String, String> labels;
          try {
            labels = Rows.decode(rs.getString(2));
          } catch (RuntimeException e) {
            labels = Map.of();
          }
          for (Map.Entry<String, String> l : labels.entrySet()) {
            rows.add(new Object[] {rs.getLong(1), l.getKey(), l.getValue()});
          }
        }
        for (Object[] r : rows) {
          p.setLong(1, (Long) r[0]);
          p.setString(2, (String) r[1]);
          p.setString(3, (String) r[2]);
          p.executeUpdate();
          made++;
        }
      }
      to.commit();
      if (made != salvagedLabels) {
        repairs.add("made the label index again from the tasks' own labels (" + made + " labels"
            + (salvagedLabels >= 0 ? ", " + salvagedLabels + " were readable" : ", none was readable") + ")");
      }
    }

    /** The rows a link's update set; none when the fresh store refused it. */
    private static int rowsOrNone(PreparedStatement p) {
      try {
        return p.executeUpdate();
      } catch (SQLException e) {
        return 0;
      }
    }

    private boolean exists(long ticket) throws SQLException {
      try (PreparedStatement p = to.prepareStatement("SELECT 1 FROM tickets WHERE id = ?")) {
        p.setLong(1, ticket);
        try (ResultSet rs = p.executeQuery()) {
          return rs.next();
        }
      }
    }

    private static List<String> columns(Connection c, String table) throws SQLException {
      List<String> out = new ArrayList<>();
      try (PreparedStatement p = c.prepareStatement("SELECT COLUMN_NAME FROM INFORMATION_SCHEMA.COLUMNS"
          + " WHERE TABLE_SCHEMA = 'PUBLIC' AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION")) {
        p.setString(1, table);
        try (ResultSet rs = p.executeQuery()) {
          while (rs.next()) {
            out.add(rs.getString(1));
          }
        }
      }
      return out;
    }

    /** Why the fresh store refused a row, in plain words. */
    private static String why(SQLException e) {
      return switch (String.valueOf(e.getSQLState())) {
        case "23506" -> "because they belong to a task, run or lane that was lost";
        case "23505" -> "because they repeat a key already recovered";
        case "23513" -> "because they break a rule of the schema";
        case "23502" -> "because a required value is missing";
        default -> "because the fresh store refused them (" + Damage.h2Detail(e) + ")";
      };
    }
  }

  /** The steps that make Vigil's rules hold on the copied rows, each said in {@code repairs}. */
  private static final class Repairs {
    private Repairs() {}

    static void apply(Connection f, long nowWallMs, long ticketSeqAtLeast, List<String> repairs) throws SQLException {
      List<String> claims = ids(f, "SELECT 't-' || l.ticket_id FROM leases l WHERE NOT EXISTS (SELECT 1 FROM runs r"
          + " JOIN tickets t ON t.id = r.ticket_id WHERE r.run_id = l.run_id AND r.ticket_id = l.ticket_id"
          + " AND r.state IN " + P + " AND r.owner_id = l.owner_id AND t.state = 'LEASED') ORDER BY l.ticket_id");
      if (!claims.isEmpty()) {
        update(f, "DELETE FROM leases l WHERE NOT EXISTS (SELECT 1 FROM runs r JOIN tickets t ON t.id = r.ticket_id"
            + " WHERE r.run_id = l.run_id AND r.ticket_id = l.ticket_id AND r.state IN " + P
            + " AND r.owner_id = l.owner_id AND t.state = 'LEASED')");
        repairs.add("dropped the claims of tasks that do not name a run in progress of their own running task: "
            + Checker.named(claims));
      }
      List<String> strays = ids(f, "SELECT r.run_id FROM runs r JOIN tickets t ON t.id = r.ticket_id WHERE r.state IN "
          + P + " AND t.state <> 'LEASED' ORDER BY r.ticket_id, r.number");
      // of a task with several runs in progress, the one its claim names (else the latest) stays
      strays.addAll(ids(f, "SELECT r.run_id FROM runs r WHERE r.state IN " + P + " AND EXISTS (SELECT 1 FROM runs o"
          + " WHERE o.ticket_id = r.ticket_id AND o.state IN " + P + " AND o.run_id <> r.run_id)"
          + " AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.run_id = r.run_id)"
          + " AND (EXISTS (SELECT 1 FROM leases l WHERE l.ticket_id = r.ticket_id)"
          + " OR r.number < (SELECT MAX(o.number) FROM runs o WHERE o.ticket_id = r.ticket_id AND o.state IN " + P + "))"
          + " ORDER BY r.ticket_id, r.number"));
      if (!strays.isEmpty()) {
        try (PreparedStatement ev = f.prepareStatement(eventsTableExists(f) ? "DELETE FROM events WHERE run_id = ?" : "VALUES 1");
             PreparedStatement le = f.prepareStatement("DELETE FROM leases WHERE run_id = ?");
             PreparedStatement ru = f.prepareStatement("DELETE FROM runs WHERE run_id = ?")) {
          for (String run : strays) {
            if (eventsTableExists(f)) {
              ev.setString(1, run);
              ev.executeUpdate();
            }
            le.setString(1, run);
            le.executeUpdate();
            ru.setString(1, run);
            ru.executeUpdate();
          }
        }
        repairs.add("dropped runs in progress that their task does not stand behind: " + Checker.named(strays));
      }
      List<String> reclaimed = ids(f, "SELECT r.run_id FROM runs r JOIN tickets t ON t.id = r.ticket_id"
          + " WHERE t.state = 'LEASED' AND r.state IN " + P
          + " AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.ticket_id = t.id) ORDER BY r.ticket_id");
      if (!reclaimed.isEmpty()) {
        update(f, "INSERT INTO leases(ticket_id, run_id, owner_id, expires_at_ms) SELECT r.ticket_id, r.run_id,"
            + " r.owner_id, 0 FROM runs r JOIN tickets t ON t.id = r.ticket_id WHERE t.state = 'LEASED' AND r.state IN "
            + P + " AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.ticket_id = t.id)");
        repairs.add("made again the lost claims of running tasks' runs, expired, so that the next daemon checks their "
            + "workers as after a crash: " + Checker.named(reclaimed));
      }
      List<String> held = ids(f, "SELECT 't-' || t.id FROM tickets t WHERE t.state = 'LEASED' AND NOT EXISTS"
          + " (SELECT 1 FROM runs r WHERE r.ticket_id = t.id AND r.state IN " + P + ") ORDER BY t.id");
      if (!held.isEmpty()) {
        try (PreparedStatement p = f.prepareStatement("UPDATE tickets SET state = 'HELD', hold_reason = ? WHERE"
            + " state = 'LEASED' AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.ticket_id = tickets.id AND r.state IN " + P
            + ")")) {
          p.setString(1, HOLD_REASON);
          p.executeUpdate();
        }
        repairs.add("held tasks marked running whose run was lost (release or cancel each once you know whether its "
            + "work ran): " + Checker.named(held));
      }
      List<String> owners = ids(f, "SELECT DISTINCT o FROM (SELECT owner_id o FROM runs WHERE state IN " + P
          + " UNION SELECT exit_owner_id FROM runs WHERE state IN " + P + " AND exit_owner_id IS NOT NULL) u"
          + " WHERE NOT EXISTS (SELECT 1 FROM owners w WHERE w.owner_id = u.o) ORDER BY o");
      if (!owners.isEmpty()) {
        try (PreparedStatement p = f.prepareStatement("INSERT INTO owners(" + Rows.OWNER_COLUMNS
            + ") VALUES (?, 'unknown', ?, 1, 0, 1, 'unknown', ?)")) {
          for (String o : owners) {
            p.setString(1, o);
            p.setString(2, LOST_BOOT_ID);
            p.setLong(3, nowWallMs);
            p.executeUpdate();
          }
        }
        repairs.add("recorded again the daemons named by runs in progress, whose rows were lost, as gone, so that the "
            + "next daemon takes those runs over: " + Checker.named(owners));
      }
      counter(f, "ticket_seq", "SELECT COALESCE(MAX(id), 0) FROM tickets", ticketSeqAtLeast, "task", repairs);
      if (eventsTableExists(f)) {
        counter(f, "event_seq", "SELECT COALESCE(MAX(id), 0) FROM events", 0, "event", repairs);
      }
    }

    /** Raises a counter to the highest id in use (and {@code atLeast}); made again when lost. */
    private static void counter(Connection f, String name, String maxSql, long atLeast, String what,
        List<String> repairs) throws SQLException {
      long max = ids(f, maxSql).stream().mapToLong(Long::parseLong).max().orElse(0);
      Long issued = null;
      try (PreparedStatement p = f.prepareStatement("SELECT issued FROM counters WHERE name = ?")) {
        p.setString(1, name);
        try (ResultSet rs = p.executeQuery()) {
          if (rs.next()) {
            issued = rs.getLong(1);
          }
        }
      }
      long want = Math.max(Math.max(max, atLeast), issued == null ? 0 : issued);
      if (issued != null && issued == want) {
        return;
      }
      try (PreparedStatement p = f.prepareStatement("MERGE INTO counters(name, issued) KEY(name) VALUES (?, ?)")) {
        p.setString(1, name);
        p.setLong(2, want);
        p.executeUpdate();
      }
      repairs.add("set the " + what + " id counter to " + want + " (it was " + (issued == null ? "lost" : issued)
          + "), so that no new " + what + " takes an id already used");
    }

    private static boolean eventsTableExists(Connection f) throws SQLException {
      return Checker.tables(f).contains("EVENTS");
    }

    private static List<String> ids(Connection f, String sql) throws SQLException {
      List<String> out = new ArrayList<>();
      try (Statement s = f.createStatement(); ResultSet rs = s.executeQuery(sql)) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
      return out;
    }

    private static int update(Connection f, String sql) throws SQLException {
      try (Statement s = f.createStatement()) {
        return s.executeUpdate(sql);
      }
    }
  }
}
