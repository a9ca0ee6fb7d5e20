package dev.vigil.launcher.internal;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.supervisor.DaemonLiveness;
import dev.vigil.worker.process.Processes;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongFunction;

/**
 * {@code <home>/daemon.json} (D1, D3): written whole to a temporary file and renamed over the old
 * one, so a reader sees the old or the new file, never half of one; read permissively, so that a
 * missing, partial or corrupt file, or unknown fields, read as "no daemon" rather than an error.
 *
 * <p>The writer reads its own file back every heartbeat (the foreign-loop check of D2): {@link #read}
 * then looks only at the file's attributes, and parses it again only when it is not the file this
 * object wrote last (another inode, size or modification time: a file renamed over it by another
 * daemon, or rewritten in place).
 */
public final class StatusFile {
  /** The schema number written into every status file. */
  public static final int SCHEMA = 1;

  private static final ObjectMapper JSON = new ObjectMapper()
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  private static final ObjectWriter WRITER = JSON.writerWithDefaultPrettyPrinter();
  private static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY =
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
  private static final Set<StandardOpenOption> CREATE_NEW = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);

  private final Path file;
  private final Path tmp;
  /** The file this object wrote last, as it was right after the write; null when unknown. */
  private volatile Written last;
  /** The last heartbeat's text, for the next one; null when the last write was not a heartbeat's. */
  private volatile Beat beat;

  /** A file as written: its attributes then, and what {@link #read} makes of its content. */
  private record Written(Object key, long size, FileTime modified, Optional<DaemonLiveness.Status> liveness) {
    boolean same(BasicFileAttributes a) {
      return key != null && key.equals(a.fileKey()) && size == a.size() && modified.equals(a.lastModifiedTime());
    }
  }

  public StatusFile(Path file) {
    this.file = file;
    this.tmp = file.resolveSibling(file.getFileName() + ".tmp");
  }

  public Path path() {
    return file;
  }

  /**
   * Replaces the file atomically with {@code status} (0600). When the disk has no room for a new
   * file (a full disk, when the daemon most needs to say that its store is unavailable, D5), the
   * file is rewritten in place within the blocks it already has, if the new content fits in them:
   * a reader may then catch it half written, which reads as a missing file (D3) until the next beat.
   */
  public void write(ObjectNode status) throws IOException {
    beat = null;
    write(WRITER.writeValueAsBytes(status), liveness(status));
  }

  /**
   * A heartbeat's file: {@code status} with {@code heartbeat_at} set to {@code heartbeatAtWallMs}, written as
   * {@link #write} does. When what it shows ({@code shown}, compared by {@code equals}) is what the last beat
   * showed, the last beat's text is written again with the new heartbeat, without building or serializing the
   * tree: an idle daemon's beats differ in their heartbeat only.
   */
  public void writeBeat(Object shown, long heartbeatAtWallMs, LongFunction<ObjectNode> status) throws IOException {
    Beat b = beat;
    if (b != null && b.shown().equals(shown)) {
      byte[] value = Long.toString(heartbeatAtWallMs).getBytes(StandardCharsets.US_ASCII);
      byte[] bytes = new byte[b.before().length + value.length + b.after().length];
      System.arraycopy(b.before(), 0, bytes, 0, b.before().length);
      System.arraycopy(value, 0, bytes, b.before().length, value.length);
      System.arraycopy(b.after(), 0, bytes, b.before().length + value.length, b.after().length);
      write(bytes, Optional.of(new DaemonLiveness.Status(b.pid(), heartbeatAtWallMs)));
      return;
    }
    beat = null;
    ObjectNode o = status.apply(heartbeatAtWallMs);
    byte[] bytes = WRITER.writeValueAsBytes(o);
    Optional<DaemonLiveness.Status> liveness = liveness(o);
    write(bytes, liveness);
    if (liveness.isPresent() && liveness.get().heartbeatAtWallMs() == heartbeatAtWallMs) {
      beat = Beat.of(shown, bytes, heartbeatAtWallMs, liveness.get().pid());
    }
  }

  /** The text of the last {@link #writeBeat}, cut around its heartbeat's value, and what it showed. */
  private record Beat(Object shown, byte[] before, byte[] after, long pid) {
    /** Cut at the value of the top-level {@code heartbeat_at}, or null when the text does not hold it once. */
    static Beat of(Object shown, byte[] text, long heartbeatAtWallMs, long pid) {
      byte[] field = ("\"heartbeat_at\" : " + heartbeatAtWallMs).getBytes(StandardCharsets.US_ASCII);
      int at = -1;
      for (int i = 0; i + field.length <= text.length; i++) {
        if (Arrays.equals(text, i, i + field.length, field, 0, field.length)
            && (i + field.length == text.length || !Character.isDigit(text[i + field.length]))) {
          if (at >= 0) {
            return null;
          }
          at = i;
        }
      }
      if (at < 0) {
        return null;
      }
      int value = at + field.length - Long.toString(heartbeatAtWallMs).length();
      return new Beat(shown, Arrays.copyOfRange(text, 0, value), Arrays.copyOfRange(text, at + field.length, text.length),
          pid);
    }
  }

  private void write(byte[] bytes, Optional<DaemonLiveness.Status> liveness) throws IOException {
    last = null;
    try {
      Files.deleteIfExists(tmp);
      try (FileChannel ch = FileChannel.open(tmp, CREATE_NEW, OWNER_ONLY)) {
        writeAll(ch, bytes);
      }
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      try {
        Files.deleteIfExists(tmp);
      } catch (IOException ignored) {
        // whatever is in the way, the file itself may still be rewritten in place
      }
      boolean rewritten;
      try {
        rewritten = rewriteInPlace(bytes);
      } catch (IOException again) {
        e.addSuppressed(again);
        throw e;
      }
      if (!rewritten) {
        throw e;
      }
    }
    try {
      BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
      last = new Written(a.fileKey(), a.size(), a.lastModifiedTime(), liveness);
    } catch (IOException e) {
      // written, but not seen since: the next read parses the file
    }
  }

  /**
   * Writes {@code bytes} over the existing file from its start and cuts it to their length, when
   * they fit in the whole blocks the file holds already (so no block need be allocated); false
   * when there is no file or they do not fit.
   */
  private boolean rewriteInPlace(byte[] bytes) throws IOException {
    long size;
    try {
      size = Files.size(file);
    } catch (java.nio.file.NoSuchFileException e) {
      return false;
    }
    long blocks = (size + BLOCK - 1) / BLOCK * BLOCK;
    if (bytes.length > blocks) {
      return false;
    }
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ch.position(0);
      writeAll(ch, bytes);
      ch.truncate(bytes.length);
    }
    return true;
  }

  /** The size of the file system blocks a file's content is held in, bytes (ext4, xfs, tmpfs). */
  private static final int BLOCK = 4096;

  private static void writeAll(FileChannel ch, byte[] bytes) throws IOException {
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    while (buf.hasRemaining()) {
      ch.write(buf);
    }
  }

  /** Deletes the file (a clean exit, D1). */
  public void delete() {
    last = null;
    beat = null;
    try {
      Files.deleteIfExists(file);
    } catch (IOException ignored) {
      // A leftover file reads as stale after six beats; nothing else depends on the delete.
    }
  }

  /** The whole status as JSON, or empty when missing or unreadable (D3). */
  public Optional<JsonNode> readJson() {
    try {
      JsonNode n = JSON.readTree(Files.readAllBytes(file));
      return n != null && n.isObject() ? Optional.of(n) : Optional.empty();
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** The pid and heartbeat, or empty when the file is missing, partial or corrupt (D3). */
  public Optional<DaemonLiveness.Status> read() {
    Written w = last;
    if (w != null) {
      try {
        if (w.same(Files.readAttributes(file, BasicFileAttributes.class))) {
          return w.liveness();
        }
      } catch (IOException | RuntimeException e) {
        // gone or unreadable: read as below
      }
    }
    return readJson().flatMap(StatusFile::liveness);
  }

  /**
   * What the file says of the daemon that wrote it, or empty when it is missing, partial or corrupt
   * (D3). Fields it does not record read as unknown.
   */
  public Optional<Recorded> recorded() {
    return readJson().flatMap(n -> liveness(n).map(st -> new Recorded(st.pid(), n.path("pid_start").asLong(-1),
        n.path("build").asText(""), configOf(n.get("config")))));
  }

  private static Optional<DaemonLiveness.Status> liveness(JsonNode n) {
    JsonNode pid = n.get("pid");
    JsonNode beat = n.get("heartbeat_at");
    if (pid == null || !pid.canConvertToLong() || beat == null || !beat.canConvertToLong() || pid.asLong() <= 0) {
      return Optional.empty();
    }
    return Optional.of(new DaemonLiveness.Status(pid.asLong(), beat.asLong()));
  }

  private static Optional<Path> configOf(JsonNode config) {
    if (config == null || !config.isTextual()) {
      return Optional.empty();
    }
    try {
      Path p = Path.of(config.asText());
      return p.isAbsolute() ? Optional.of(p) : Optional.empty();
    } catch (InvalidPathException e) {
      return Optional.empty();
    }
  }

  /**
   * The daemon a status file describes.
   *
   * @param pid      its pid
   * @param pidStart its start ticks, -1 when not recorded
   * @param build    its build, empty when not recorded
   * @param config   the configuration file it ran with, empty for the defaults
   */
  public record Recorded(long pid, long pidStart, String build, Optional<Path> config) {
    /** Whether a live process has its pid (and start ticks, when recorded). */
    public boolean alive() {
      return Processes.identityOf(pid).filter(id -> pidStart < 0 || id.startTicks() == pidStart).isPresent();
    }
  }
}
