package dev.vigil.launcher.internal;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The daemon's home directory and its layout: {@code vigil.mv.db} (H2), {@code daemon.json},
 * {@code daemon.lock}, {@code vigil.sock}, {@code runs/}, {@code logs/} (the daemon's log and its
 * journal of decisions, {@link JournalFile}). The home is 0700: only its owner can reach the socket,
 * the database and the run directories.
 *
 * @param dir the home directory (absolute)
 */
public record Home(Path dir) {
  private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");

  public Home {
    Objects.requireNonNull(dir, "dir");
    dir = dir.toAbsolutePath().normalize();
  }

  /** {@code --home}, else {@code $VIGIL_HOME}, else {@code ~/.vigil}. */
  public static Home resolve(Path option, Map<String, String> env, String userHome) {
    if (option != null) {
      return new Home(option);
    }
    String fromEnv = env.get("VIGIL_HOME");
    if (fromEnv != null && !fromEnv.isBlank()) {
      return new Home(Path.of(fromEnv));
    }
    return new Home(Path.of(userHome, ".vigil"));
  }

  /** Database path prefix for H2 (the file is {@code vigil.mv.db}). */
  public Path database() {
    return dir.resolve("vigil");
  }

  public Path databaseFile() {
    return dir.resolve("vigil.mv.db");
  }

  public Path statusFile() {
    return dir.resolve("daemon.json");
  }

  public Path lockFile() {
    return dir.resolve("daemon.lock");
  }

  public Path socket() {
    return dir.resolve("vigil.sock");
  }

  public Path runs() {
    return dir.resolve("runs");
  }

  public Path logs() {
    return dir.resolve("logs");
  }

  /**
   * Creates the home (0700) and its {@code runs/} and {@code logs/} if missing. A home that exists
   * but is open to group or others is refused, not repaired: someone else may already have read it.
   */
  public void prepare() {
    try {
      Files.createDirectories(dir.getParent());
      createOwnerOnly(dir);
      if (!Files.isDirectory(dir)) {
        throw new ConfigException("home " + dir + " is not a directory");
      }
      Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir);
      if (!OWNER_ONLY.containsAll(perms)) {
        throw new ConfigException("home " + dir + " is mode " + PosixFilePermissions.toString(perms)
            + ": it must be rwx------ (chmod 700 " + dir + ")");
      }
      createOwnerOnly(runs());
      createOwnerOnly(logs());
    } catch (java.nio.file.AccessDeniedException e) {
      throw new ConfigException("cannot create home " + dir + ": permission denied"
          + (e.getFile() != null && !Path.of(e.getFile()).equals(dir) ? " (on " + e.getFile() + ")" : ""), e);
    } catch (FileAlreadyExistsException e) {
      throw new ConfigException("cannot create home " + dir + ": " + e.getFile() + " is a file, not a directory", e);
    } catch (IOException e) {
      throw new ConfigException("cannot create home " + dir + ": " + (e.getMessage() == null ? e.getClass().getSimpleName()
          : e.getMessage()), e);
    }
  }

  /** Creates {@code d} (0700) unless it exists; several processes preparing one home at once all succeed. */
  private static void createOwnerOnly(Path d) throws IOException {
    try {
      Files.createDirectory(d, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
    } catch (FileAlreadyExistsException e) {
      // made by an earlier start, or by a concurrent one: either way it is there
    }
  }
}
