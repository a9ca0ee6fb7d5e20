package dev.vigil.launcher.internal;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.supervisor.DaemonLiveness;
import dev.vigil.worker.process.Processes;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;

/**
 * {@code <home>/daemon.json} (D1, D3): written whole to a temporary file and renamed over the old
 * one, so a reader sees the old or the new file, never half of one; read permissively, so that a
 * missing, partial or corrupt file, or unknown fields, read as "no daemon" rather than an error.
 */
public final class StatusFile {
  /** The schema number written into every status file. */
  public static final int SCHEMA = 1;

  private static final ObjectMapper JSON = new ObjectMapper()
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private final Path file;

  public StatusFile(Path file) {
    this.file = file;
  }

  public Path path() {
    return file;
  }

  /** Replaces the file atomically with {@code status} (0600). */
  public void write(ObjectNode status) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.deleteIfExists(tmp);
    byte[] bytes = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(status);
    try (FileChannel ch = FileChannel.open(tmp, java.util.Set.of(StandardOpenOption.CREATE_NEW,
        StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
      ByteBuffer buf = ByteBuffer.wrap(bytes);
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
    }
    try {
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  /** Deletes the file (a clean exit, D1). */
  public void delete() {
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
