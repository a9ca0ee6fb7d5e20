package dev.vigil.coordination.h2;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipException;
import java.util.zip.ZipFile;

/**
 * Checks, backups, restores and recovery of a Vigil H2 store that is not open
 * ({@link H2Coordination} checks and backs up an open one). Each step refuses a store that another
 * process has open (H2's file lock) or that this JVM has open, and changes nothing when it
 * refuses or fails.
 *
 * <ul>
 *   <li>{@link #check}: opens the file read-only (nothing is written to it) and reads every row and
 *       index entry, then checks Vigil's rules ({@link StoreCheck}).
 *   <li>{@link #backup}: H2's {@code BACKUP TO} on a read-only session: a zip holding the database
 *       file as it is, written 0600 and moved into place when complete.
 *   <li>{@link #restore}: a backup (that zip, or a bare H2 database file such as a store kept aside
 *       by an earlier restore or recovery) is unpacked beside the store and checked; only a healthy
 *       one of a schema this build knows is put in place, and the store it replaces is kept as
 *       {@code <file>.before-restore-<time>}.
 *   <li>{@link #recover}: H2's recovery tool ({@code org.h2.tools.Recover}) turns what it can read
 *       into SQL, a fresh store is built from it, rows that break Vigil's rules are dropped or
 *       repaired (and said so), and only a fresh store that passes the check replaces the damaged
 *       file, which is kept as {@code <file>.damaged-<time>}.
 * </ul>
 *
 * <p>A kept file is a hard link to the replaced store where the file system allows (no copy, and
 * a crash at any point leaves a whole store in place: the fresh file is moved over the old name in
 * one atomic rename), else a copy.
 */
public final class H2Maintenance {
  private static final Set<PosixFilePermission> OWNER_READ_WRITE = PosixFilePermissions.fromString("rw-------");
  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
      .withZone(ZoneOffset.UTC);
  private static final byte[] ZIP_MAGIC = {'P', 'K', 3, 4};
  private static final byte[] H2_MAGIC = "H:2,".getBytes(StandardCharsets.US_ASCII);

  private H2Maintenance() {}

  /**
   * A backup written.
   *
   * @param file          where
   * @param bytes         its size
   * @param schemaVersion the schema version of the store it holds
   */
  public record Backup(Path file, long bytes, int schemaVersion) {}

  /** What {@link #restore} did. */
  public sealed interface Restore {
    /**
     * The backup is the store now.
     *
     * @param keptAs the store it replaced, kept aside; empty when there was none
     * @param check  the check of the restored store (healthy)
     */
    record Restored(Path file, Optional<Path> keptAs, StoreCheck check) implements Restore {}

    /** Nothing was changed. */
    record Refused(Reason reason, String why) implements Restore {}

    /** Why a restore was refused. */
    enum Reason {
      /** There is no such file. */
      NOT_FOUND,
      /** The file is neither a backup zip nor an H2 database file. */
      NOT_A_BACKUP,
      /** It holds a store written by a newer Vigil. */
      NEWER_SCHEMA,
      /** It holds a store that does not pass the check. */
      DAMAGED
    }
  }

  /** What {@link #recover} did. */
  public sealed interface Recovery {
    /** The store passes the check: nothing to recover, nothing was changed. */
    record Healthy(StoreCheck check) implements Recovery {}

    /**
     * A fresh store built from what could be read is the store now.
     *
     * @param keptAs    the damaged file, kept aside
     * @param recovered rows put in the fresh store, by table (upper-case SQL name)
     * @param lost      what could not be recovered, one line each
     * @param repairs   what was changed so that the fresh store keeps Vigil's rules, one line each
     * @param check     the check of the fresh store (healthy)
     */
    record Recovered(Path file, Path keptAs, Map<String, Long> recovered, List<String> lost, List<String> repairs,
        StoreCheck check) implements Recovery {}

    /** Nothing could be read: nothing was changed. */
    record NothingSalvaged(String why) implements Recovery {}

    /** The damaged store is of a schema newer than this build knows: nothing was changed. */
    record NewerSchema(int found, int known) implements Recovery {}
  }

  /**
   * Checks a store that is not open: the file opened read-only (nothing is written to it), every
   * row of every table and every entry of every index read, then Vigil's rules. A damaged file is a
   * report with problems, never an exception.
   *
   * @throws CoordinationStoreException when the file cannot be examined at all: it does not exist,
   *                                    is a directory, may not be read, or is open in another process
   *                                    (H2 error 90020) or in this one
   */
  public static StoreCheck check(Path databaseFile) {
    DatabaseFile db = new DatabaseFile(databaseFile);
    if (!db.exists()) {
      throw new CoordinationStoreException("cannot check " + db + ": there is no such file");
    }
    Path key = H2Coordination.reserve(db, "check");
    try {
      return checkReserved(db);
    } finally {
      H2Coordination.unreserve(key);
    }
  }

  private static StoreCheck checkReserved(DatabaseFile db) {
    try {
      db.checkExistingFile();
      try (Connection c = db.openReadOnly()) {
        return inspect(c, db.file);
      } catch (SQLException e) {
        throw db.openFailure(e);
      }
    } catch (DamagedStoreException d) {
      return new StoreCheck(db.file, 0, Map.of(), List.of(new StoreCheck.Problem(StoreCheck.Kind.UNREADABLE,
          "it cannot be opened: " + d.reason() + (d.getCause() == null ? "" : " (" + Damage.detail(d.getCause()) + ")"))));
    }
  }

  /** The check on an open session (read-only, or one transaction of an open store). */
  static StoreCheck inspect(Connection c, Path file) throws SQLException {
    List<StoreCheck.Problem> problems = new ArrayList<>();
    Map<String, Long> rows = new TreeMap<>();
    int version;
    try {
      version = Schema.versionOf(c, file.toString());
    } catch (CoordinationStoreException e) {
      problems.add(new StoreCheck.Problem(StoreCheck.Kind.INCONSISTENT, e.getMessage().replace("cannot open "
          + file + ": ", "")));
      return new StoreCheck(file, 0, rows, problems);
    } catch (SQLException e) {
      problems.add(new StoreCheck.Problem(StoreCheck.Kind.UNREADABLE, "its schema version cannot be read: "
          + Damage.of(e).map(d -> d + ": ").orElse("") + Damage.detail(e)));
      version = 0;
    }
    if (version > Schema.CURRENT_VERSION) {
      problems.add(new StoreCheck.Problem(StoreCheck.Kind.NEWER_SCHEMA, "it was written by a newer Vigil (schema "
          + "version " + version + "; this one knows up to " + Schema.CURRENT_VERSION + "): check it with that one"));
      return new StoreCheck(file, version, rows, problems);
    }
    Checker.scan(c, rows, problems);
    if (version == 0 && problems.isEmpty()) {
      problems.add(new StoreCheck.Problem(StoreCheck.Kind.INCONSISTENT, "it holds no Vigil tables"));
    }
    if (problems.isEmpty()) {
      Checker.rules(c, version, problems);
    }
    return new StoreCheck(file, version, rows, problems);
  }

  /**
   * Writes a backup of a store that is not open to {@code target}: H2's {@code BACKUP TO} on a
   * read-only session (a zip holding the database file byte for byte), 0600, moved into place when
   * complete. The store is not changed.
   *
   * @param replace whether an existing {@code target} is replaced
   * @throws DamagedStoreException      when the store cannot be opened because it is damaged
   * @throws CoordinationStoreException when it cannot be read or the backup cannot be written
   */
  public static Backup backup(Path databaseFile, Path target, boolean replace) {
    DatabaseFile db = new DatabaseFile(databaseFile);
    if (!db.exists()) {
      throw new CoordinationStoreException("cannot back up " + db + ": there is no such file");
    }
    Path key = H2Coordination.reserve(db, "back up");
    Path tmp = partFile(target);
    try {
      db.checkExistingFile();
      int version;
      try (Connection c = db.openReadOnly()) {
        version = Schema.versionOf(c, db.toString());
        backupTo(c, tmp);
      } catch (SQLException e) {
        throw db.openFailure(e);
      }
      return place(tmp, target, replace, version);
    } finally {
      deleteQuietly(tmp);
      H2Coordination.unreserve(key);
    }
  }

  /**
   * Makes {@code backup} the store {@code databaseFile}, which must not be open: the backup is
   * unpacked beside the store and checked; a healthy one of a schema this build knows replaces the
   * store, which is kept as {@code <file>.before-restore-<time>} (UTC). A store of an older schema
   * is restored as it is and upgraded when it is next opened.
   *
   * @param backup    a zip written by {@link #backup} or {@link H2Coordination#backup}, or a bare
   *                  H2 database file
   * @param nowWallMs the time that names the kept file
   * @throws CoordinationStoreException when the store is open in another process or in this one, or
   *                                    a file cannot be read or written (nothing was changed)
   */
  public static Restore restore(Path backup, Path databaseFile, long nowWallMs) {
    Objects.requireNonNull(backup, "backup");
    DatabaseFile db = new DatabaseFile(databaseFile);
    db.checkDirectory();
    if (!Files.exists(backup)) {
      return new Restore.Refused(Restore.Reason.NOT_FOUND, backup + " does not exist");
    }
    if (!Files.isRegularFile(backup)) {
      return new Restore.Refused(Restore.Reason.NOT_A_BACKUP, backup + " is not a file");
    }
    if (db.exists() && sameFile(backup, db.file)) {
      return new Restore.Refused(Restore.Reason.NOT_A_BACKUP, backup + " is the store itself");
    }
    Path key = H2Coordination.reserve(db, "restore");
    Path work = workDirectory(db, "restore");
    try {
      Path candidate = work.resolve("restored" + DatabaseFile.SUFFIX);
      Optional<String> notABackup = unpack(backup, candidate);
      if (notABackup.isPresent()) {
        return new Restore.Refused(Restore.Reason.NOT_A_BACKUP, notABackup.get());
      }
      StoreCheck check = check(candidate);
      if (check.newerSchema()) {
        return new Restore.Refused(Restore.Reason.NEWER_SCHEMA, backup + " holds a store of schema version "
            + check.schemaVersion() + ", newer than this Vigil knows (" + Schema.CURRENT_VERSION + "): restore it with a "
            + "newer vigil");
      }
      if (!check.healthy()) {
        return new Restore.Refused(Restore.Reason.DAMAGED, backup + " holds a store that does not pass the check ("
            + check.problems().get(0).what() + (check.problems().size() > 1 ? "; and " + (check.problems().size() - 1)
            + " more problems" : "") + ")");
      }
      Optional<Path> kept = Optional.empty();
      if (db.exists()) {
        requireNotInUse(db, "restore");
        kept = Optional.of(keep(db.file, "before-restore", nowWallMs));
      }
      install(candidate, db.file);
      return new Restore.Restored(db.file, kept, new StoreCheck(db.file, check.schemaVersion(), check.rows(),
          check.problems()));
    } finally {
      deleteTree(work);
      H2Coordination.unreserve(key);
    }
  }

  /**
   * Salvages what H2's recovery tool can read of the damaged store {@code databaseFile}, which must
   * not be open, into a fresh store that passes the check, and puts it in place; the damaged file is
   * kept as {@code <file>.damaged-<time>} (UTC). A store that passes the check is left alone.
   *
   * @param nowWallMs        the time that names the kept file, and of the repairs it records
   * @param ticketSeqAtLeast the least value of the fresh store's ticket counter, so that no new
   *                         ticket takes the number of one whose traces remain elsewhere (its run
   *                         directories) though its row was lost; 0 for none
   * @throws CoordinationStoreException when the store is open in another process or in this one, or
   *                                    a file cannot be written (nothing was changed)
   */
  public static Recovery recover(Path databaseFile, long nowWallMs, long ticketSeqAtLeast) {
    DatabaseFile db = new DatabaseFile(databaseFile);
    if (!db.exists()) {
      throw new CoordinationStoreException("cannot recover " + db + ": there is no such file");
    }
    StoreCheck before = check(db.file);
    if (before.healthy()) {
      return new Recovery.Healthy(before);
    }
    if (before.newerSchema()) {
      return new Recovery.NewerSchema(before.schemaVersion(), Schema.CURRENT_VERSION);
    }
    Path key = H2Coordination.reserve(db, "recover");
    Path work = workDirectory(db, "recover");
    try {
      requireNotInUse(db, "recover");
      Salvage.Result r = Salvage.run(db, work, nowWallMs, ticketSeqAtLeast);
      if (r instanceof Salvage.Result.NotBuilt n) {
        return n.why();
      } else if (r instanceof Salvage.Result.Built built) {
        StoreCheck after = check(built.fresh());
        if (!after.healthy()) {
          throw new CoordinationStoreException("cannot recover " + db + ": the fresh store built from what could be read "
              + "does not pass the check (" + after.problems().get(0).what() + "); nothing was changed");
        }
        requireNotInUse(db, "recover");
        Path kept = keep(db.file, "damaged", nowWallMs);
        install(built.fresh(), db.file);
        return new Recovery.Recovered(db.file, kept, built.recovered(), built.lost(), built.repairs(),
            new StoreCheck(db.file, after.schemaVersion(), after.rows(), after.problems()));
      } else {
        throw new AssertionError(r);
      }
    } finally {
      deleteTree(work);
      H2Coordination.unreserve(key);
    }
  }

  /** {@code 20261202T031500Z}: a time in UTC, as it names the files kept aside. */
  public static String stamp(long wallMs) {
    return STAMP.format(Instant.ofEpochMilli(wallMs));
  }

  // ---- files

  /** A file of its own beside {@code target} (0600, empty) for a backup while it is written. */
  static Path partFile(Path target) {
    Path dir = target.toAbsolutePath().getParent();
    if (dir == null || !Files.isDirectory(dir)) {
      throw new CoordinationStoreException("cannot write " + target + ": directory " + dir + " does not exist");
    }
    try {
      return Files.createTempFile(dir, "." + target.getFileName() + ".", ".part",
          PosixFilePermissions.asFileAttribute(OWNER_READ_WRITE));
    } catch (IOException e) {
      throw new CoordinationStoreException("cannot write in " + dir + ": " + e.getMessage(), e);
    }
  }

  /** {@code BACKUP TO} on {@code c}, into the existing (0600) file {@code to}, which H2 truncates and writes. */
  static void backupTo(Connection c, Path to) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("BACKUP TO ?")) {
      p.setString(1, to.toString());
      p.execute();
    }
  }

  /** Forces {@code tmp} to the device and moves it to {@code target}; a target that exists stays unless {@code replace}. */
  static Backup place(Path tmp, Path target, boolean replace, int version) {
    try {
      force(tmp);
      long bytes = Files.size(tmp);
      if (replace) {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } else {
        Files.createLink(target, tmp); // fails when the target exists: never replaces it
        Files.delete(tmp);
      }
      forceDirectory(target.toAbsolutePath().getParent());
      return new Backup(target, bytes, version);
    } catch (FileAlreadyExistsException e) {
      throw new CoordinationStoreException("cannot write " + target + ": it exists (nothing was written)", e);
    } catch (IOException e) {
      throw new CoordinationStoreException("cannot write " + target + ": " + e.getMessage(), e);
    }
  }

  /**
   * Unpacks a backup into {@code to}: the one database file of a zip, or a copy of a bare H2 file;
   * empty when done, else why {@code backup} is not a backup.
   */
  private static Optional<String> unpack(Path backup, Path to) {
    byte[] head = new byte[4];
    int n;
    try (InputStream in = Files.newInputStream(backup)) {
      n = in.readNBytes(head, 0, 4);
    } catch (IOException e) {
      throw new CoordinationStoreException("cannot read " + backup + ": " + e.getMessage(), e);
    }
    try {
      if (n == 4 && java.util.Arrays.equals(head, H2_MAGIC)) {
        Files.copy(backup, to);
        return Optional.empty();
      }
      if (n == 4 && java.util.Arrays.equals(head, ZIP_MAGIC)) {
        return unzip(backup, to);
      }
    } catch (IOException e) {
      throw new CoordinationStoreException("cannot unpack " + backup + ": " + e.getMessage(), e);
    }
    return Optional.of(backup + " is not a Vigil backup (neither a zip written by a backup nor an H2 database file)");
  }

  private static Optional<String> unzip(Path backup, Path to) throws IOException {
    try (ZipFile zip = new ZipFile(backup.toFile())) {
      List<ZipEntry> stores = new ArrayList<>();
      for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements(); ) {
        ZipEntry z = e.nextElement();
        if (!z.isDirectory() && z.getName().endsWith(DatabaseFile.SUFFIX)) {
          stores.add(z);
        }
      }
      if (stores.size() != 1) {
        return Optional.of(backup + " is not a Vigil backup: it is a zip holding " + stores.size()
            + " database files, not one");
      }
      try (InputStream in = zip.getInputStream(stores.get(0))) {
        Files.copy(in, to);
      }
      return Optional.empty();
    } catch (ZipException e) {
      return Optional.of(backup + " is not a Vigil backup: a damaged zip (" + e.getMessage() + ")");
    }
  }

  /**
   * Refuses when another process holds the store's file lock (H2 locks the file it has open); this
   * process's own opens are excluded by the reservation.
   */
  private static void requireNotInUse(DatabaseFile db, String doing) {
    try (FileChannel ch = FileChannel.open(db.file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      FileLock lock;
      try {
        lock = ch.tryLock();
      } catch (OverlappingFileLockException e) {
        // this JVM holds a lock on it, though the reservation says it has it open nowhere: the channel
        // of an H2 open that failed on the damaged file and was never closed (H2 leaks it); no other
        // process can hold the file while this JVM's lock stands
        return;
      }
      if (lock == null) {
        throw new CoordinationStoreException("cannot " + doing + " " + db + ": the database is in use by another process");
      }
      lock.release();
    } catch (IOException e) {
      throw new CoordinationStoreException("cannot " + doing + " " + db + ": " + e.getMessage(), e);
    }
  }

  /** Keeps {@code file} as {@code <file>.<label>-<time>} (a hard link, else a copy), 0600; returns its path. */
  private static Path keep(Path file, String label, long nowWallMs) {
    String base = file.getFileName() + "." + label + "-" + stamp(nowWallMs);
    Path kept = file.resolveSibling(base);
    for (int i = 2; Files.exists(kept); i++) {
      kept = file.resolveSibling(base + "-" + i);
    }
    try {
      try {
        Files.createLink(kept, file);
      } catch (UnsupportedOperationException | IOException e) {
        if (e instanceof FileAlreadyExistsException f) {
          throw f;
        }
        Files.copy(file, kept, StandardCopyOption.COPY_ATTRIBUTES);
        force(kept);
      }
      setOwnerOnly(kept);
      forceDirectory(file.getParent());
      return kept;
    } catch (IOException e) {
      throw new CoordinationStoreException("cannot keep " + file + " as " + kept + ": " + e.getMessage()
          + "; nothing was changed", e);
    }
  }

  /** Moves the complete file {@code fresh} over {@code file} in one rename, 0600, forced to the device. */
  private static void install(Path fresh, Path file) {
    try {
      setOwnerOnly(fresh);
      force(fresh);
      Files.move(fresh, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      forceDirectory(file.getParent());
    } catch (IOException e) {
      throw new CoordinationStoreException("cannot put " + fresh + " in place of " + file + ": " + e.getMessage(), e);
    }
  }

  /** A new private directory beside the store for the intermediate files of {@code doing}. */
  private static Path workDirectory(DatabaseFile db, String doing) {
    try {
      return Files.createTempDirectory(db.file.getParent(), ".vigil-" + doing + "-",
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    } catch (IOException e) {
      throw new CoordinationStoreException("cannot " + doing + " " + db + ": cannot write in its directory: "
          + e.getMessage(), e);
    }
  }

  private static boolean sameFile(Path a, Path b) {
    try {
      return Files.isSameFile(a, b);
    } catch (IOException e) {
      return false;
    }
  }

  private static void setOwnerOnly(Path p) throws IOException {
    try {
      Files.setPosixFilePermissions(p, OWNER_READ_WRITE);
    } catch (UnsupportedOperationException e) {
      // not a POSIX file system: its own defaults apply
    }
  }

  private static void force(Path p) throws IOException {
    try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
      ch.force(true);
    }
  }

  /** Forces a directory's entries to the device (a rename in it survives a power loss); best effort. */
  private static void forceDirectory(Path dir) {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException | RuntimeException e) {
      // not every file system can force a directory; the rename is still done
    }
  }

  static void deleteQuietly(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException e) {
      // a left-over part file, named as such
    }
  }

  static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(H2Maintenance::deleteQuietly);
    } catch (IOException | UncheckedIOException e) {
      // left behind, under a name that says what it was
    }
  }
}
