package dev.vigil.coordination.h2;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Properties;

/**
 * The database file named by the caller: checked before H2 sees it, and the JDBC URLs that open
 * it. Nothing here creates or changes a file.
 */
final class DatabaseFile {
  /** The file name suffix of an H2 MVStore database. */
  static final String SUFFIX = ".mv.db";
  /** What every H2 MVStore file begins with. */
  private static final byte[] H2_HEADER = "H:2,".getBytes(StandardCharsets.US_ASCII);

  /**
   * The settings every connection carries: the OS file lock that H2 releases at once when the
   * process dies ({@code FILE_LOCK=FS}, no lock file, no AUTO_SERVER, so no TCP listener); the
   * database stays open until {@link H2Coordination#close} shuts it down, not at JVM exit; H2's
   * own trace goes to SLF4J, never to a {@code .trace.db} file.
   */
  private static final String COMMON = ";FILE_LOCK=FS;DB_CLOSE_ON_EXIT=FALSE";

  final Path file;
  private final String base;
  /** The H2 file system prefix of every URL, like {@code "nio:"}; {@code ""} for H2's default one. */
  private final String fileSystem;

  /** The file on H2's default file system. */
  DatabaseFile(Path file) {
    this(file, "");
  }

  /**
   * @param fileSystem the H2 file system the file is reached through (see {@link H2Options#fileSystem()})
   */
  DatabaseFile(Path file, String fileSystem) {
    Objects.requireNonNull(file, "file");
    this.fileSystem = Objects.requireNonNull(fileSystem, "fileSystem");
    Path abs = file.toAbsolutePath().normalize();
    String name = abs.getFileName() == null ? "" : abs.getFileName().toString();
    if (!name.endsWith(SUFFIX) || name.length() == SUFFIX.length()) {
      throw new IllegalArgumentException("database file '" + file + "' must be named <name>" + SUFFIX);
    }
    if (abs.toString().indexOf(';') >= 0) {
      throw new IllegalArgumentException("database file '" + file + "' must not contain ';'");
    }
    this.file = abs;
    String s = abs.toString();
    this.base = s.substring(0, s.length() - SUFFIX.length());
  }

  /**
   * The URL of the read-write database, with an explicit lock timeout; chunks are only appended
   * ({@code REUSE_SPACE=FALSE}, see {@link Compaction} for why). Each session keeps its last
   * {@value #QUERY_CACHE_SIZE} parsed statements ({@code QUERY_CACHE_SIZE}, 8 by default, fewer than
   * the distinct statements of the verbs, so that every verb parsed its SQL again on a pooled session).
   */
  String url(long lockTimeoutMs, boolean appendOnly) {
    return "jdbc:h2:file:" + fileSystem + base + COMMON + ";TRACE_LEVEL_FILE=4" + (appendOnly ? ";REUSE_SPACE=FALSE" : "")
        + ";LOCK_TIMEOUT=" + lockTimeoutMs + ";QUERY_CACHE_SIZE=" + QUERY_CACHE_SIZE;
  }

  /** Parsed statements each session keeps for reuse. */
  static final int QUERY_CACHE_SIZE = 128;

  /**
   * A read-only URL that opens only an existing file and writes nothing to it. H2's own log is off
   * for it: after a {@code kill -9} closing a read-only store that would need recovery logs a
   * harmless "This store is read-only" error; a probe that fails throws, and that is reported.
   */
  String probeUrl() {
    return "jdbc:h2:file:" + fileSystem + base + COMMON + ";TRACE_LEVEL_FILE=0;IFEXISTS=TRUE;ACCESS_MODE_DATA=r";
  }

  boolean exists() {
    return Files.exists(file);
  }

  /**
   * The file system named by the prefix must be registered with H2: H2 would otherwise read the
   * prefix as part of a file name on its default file system.
   */
  void checkFileSystem() {
    if (fileSystem.isEmpty()) {
      return;
    }
    String scheme = fileSystem.substring(0, fileSystem.length() - 1);
    if (!scheme.equals(org.h2.store.fs.FilePath.get(fileSystem + base).getScheme())) {
      throw refused("the H2 file system '" + fileSystem + "' is not registered in this process");
    }
  }

  /** The directory must exist: H2 would create it, and a failed open must create nothing. */
  void checkDirectory() {
    Path dir = file.getParent();
    if (dir == null || !Files.exists(dir)) {
      throw refused("directory " + dir + " does not exist");
    }
    if (!Files.isDirectory(dir)) {
      throw refused(dir + " is not a directory");
    }
  }

  /**
   * An existing file must be a readable, writable regular file that starts with an H2 header and
   * is a whole number of 4 KiB blocks (H2 writes nothing else, also when killed while writing: a
   * write cut by {@code kill -9} stops at a page boundary); an empty file, a foreign start or a
   * partial last block mean the file is damaged.
   *
   * @throws DamagedStoreException when the file is empty, starts with something else or is cut short
   * @throws CoordinationStoreException when it is a directory or this user may not read and write it
   */
  void checkExistingFile() {
    if (Files.isDirectory(file)) {
      throw refused("it is a directory, not a database file");
    }
    if (!Files.isReadable(file)) {
      throw refused("this user may not read it (" + mode() + ")");
    }
    if (!Files.isWritable(file)) {
      throw refused("it is read-only for this user (" + mode() + "); H2 would open it read-only, so make it "
          + "writable (chmod u+w " + file + ") or open it as its owner");
    }
    byte[] head = new byte[H2_HEADER.length];
    int n;
    long size;
    boolean complete;
    try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file,
        java.nio.file.StandardOpenOption.READ)) {
      java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(head);
      n = Math.max(0, ch.read(b, 0));
      size = ch.size();
      complete = size % Damage.BLOCK == 0 && Damage.holdsACompleteChunk(ch);
    } catch (IOException e) {
      if (Damage.diagnose(e) instanceof Damage.Diagnosis.Unavailable u) {
        throw unavailable(u.reason(), e);
      }
      throw new CoordinationStoreException("cannot open " + file + ": " + e, e);
    }
    if (n == 0) {
      throw damaged("it is empty (0 bytes), not an H2 database", null);
    }
    for (int i = 0; i < H2_HEADER.length; i++) {
      if (i >= n || head[i] != H2_HEADER[i]) {
        throw damaged("it is not an H2 database (no H2 file header): another file, or its start was overwritten",
            null);
      }
    }
    if (size % Damage.BLOCK != 0) {
      throw damaged("it is cut short: its size, " + size + " bytes, is not a whole number of 4 KiB blocks", null);
    }
    if (!complete) {
      throw damaged("no complete version of its data can be read: it is cut short or overwritten", null);
    }
  }

  /** The file's permissions and owner, like {@code mode r--r--r--, owner alice}, or what is known of them. */
  private String mode() {
    try {
      return "mode " + java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(file))
          + ", owner " + Files.getOwner(file).getName();
    } catch (IOException | UnsupportedOperationException e) {
      return "its permissions cannot be read";
    }
  }

  /**
   * Opens the existing file read-only and returns its schema version; refuses a foreign or newer
   * database, a corrupt file, or one in use by another process, without changing it.
   */
  int probeSchemaVersion() {
    try (Connection c = openReadOnly()) {
      int version = Schema.versionOf(c, file.toString());
      Schema.requireSupported(version, file.toString());
      return version;
    } catch (SQLException e) {
      throw openFailure(e);
    }
  }

  /**
   * A read-only session on the existing file, which writes nothing to it.
   *
   * @throws SQLException as H2 raises it
   * @throws DamagedStoreException when H2 finds no complete version to read (error 90097: it would
   *                               have to start an empty store, and cannot write)
   */
  Connection openReadOnly() throws SQLException {
    try {
      return connect(probeUrl());
    } catch (SQLException e) {
      if (e.getErrorCode() == 90097) {
        throw damaged("no complete version of its data can be read: it is cut short or overwritten", e);
      }
      throw e;
    }
  }

  static Connection connect(String url) throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", "sa");
    p.setProperty("password", "");
    Connection c = org.h2.Driver.load().connect(url, p);
    if (c == null) {
      throw new SQLException("the H2 driver did not accept " + url);
    }
    return c;
  }

  CoordinationStoreException refused(String why) {
    return new CoordinationStoreException("cannot open " + file + ": " + why);
  }

  /** A damaged file: one line naming it, what is damaged and, when H2 raised it, H2's own words. */
  DamagedStoreException damaged(String reason, Throwable cause) {
    return new DamagedStoreException(file, reason, "cannot open " + file + ": it is damaged (" + reason
        + (cause == null ? "" : "; H2: " + Damage.h2Detail(cause)) + ")", cause);
  }

  /** An open that failed because of the environment: one line naming the file and why, in plain words. */
  StoreUnavailableException unavailable(String reason, Throwable cause) {
    return new StoreUnavailableException(file, reason, "cannot open " + file + ": the store is unavailable (" + reason
        + ")", cause);
  }

  /**
   * A one-line reason for an H2 error raised while opening; a damaged file is a
   * {@link DamagedStoreException}, a failed environment a {@link StoreUnavailableException}.
   */
  CoordinationStoreException openFailure(Throwable e) {
    Damage.Diagnosis d = Damage.diagnose(e);
    if (d instanceof Damage.Diagnosis.Damaged damage) {
      return damaged(damage.reason(), e);
    }
    if (d instanceof Damage.Diagnosis.Unavailable u) {
      return unavailable(u.reason(), e);
    }
    if (!(e instanceof SQLException)) {
      return new CoordinationStoreException("cannot open " + file + ": " + Damage.h2Detail(e), e);
    }
    return refusal((SQLException) e);
  }

  /** An H2 error at open that is neither damage nor an outage, in one line. */
  private CoordinationStoreException refusal(SQLException e) {
    if (e.getErrorCode() != 90020 && Damage.locked(e)) {
      return new CoordinationStoreException("cannot open " + file + ": the database is in use by another process (its "
          + "file is locked: H2 error " + e.getErrorCode() + ")", e);
    }
    String why = switch (e.getErrorCode()) {
      case 90020 -> "the database is in use by another process (H2 error 90020)";
      case 90030 -> "the file is corrupt (H2 error 90030: " + h2Message(e) + ")";
      case 90048 -> "the file was written in an unsupported H2 format (H2 error 90048)";
      case 90028, 90031 -> "the file cannot be read (H2 error " + e.getErrorCode() + ": " + h2Message(e) + ")";
      case 90146 -> "the database does not exist (H2 error 90146)";
      case 28000 -> "the database is protected by other credentials (H2 error 28000)";
      default -> "H2 error " + e.getErrorCode() + ": " + h2Message(e);
    };
    return new CoordinationStoreException("cannot open " + file + ": " + why, e);
  }

  private static String h2Message(SQLException e) {
    String m = String.valueOf(e.getMessage());
    int nl = m.indexOf('\n');
    m = nl < 0 ? m : m.substring(0, nl);
    int bracket = m.lastIndexOf(" [");
    return (bracket < 0 ? m : m.substring(0, bracket)).strip();
  }

  @Override
  public String toString() {
    return file.toString();
  }
}
