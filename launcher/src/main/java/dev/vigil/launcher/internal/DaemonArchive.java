package dev.vigil.launcher.internal;

import dev.vigil.worker.process.LaunchSpec;
import dev.vigil.worker.process.StartArchive;
import java.io.File;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's own class archive (docs/PERFORMANCE.md, B4): the classes a daemon loads from its start to
 * serving, parsed and verified once and then mapped by every later start of a daemon of the same build, JDK
 * and flags on this home, so that a daemon that replaces a crashed one re-adopts its workers sooner.
 *
 * <ol>
 *   <li>{@code vigil up} ({@link #flags}) adds {@code -XX:SharedArchiveFile} to the daemon's command when a
 *       checked archive for its flags and classpath exists under {@code <home>/cds} ({@link StartArchive}:
 *       its name carries the JDK build, the flags and each jar's size and time; its size and SHA-256 are
 *       checked before it is mapped; a JVM that finds it does not match starts without it, silently).
 *   <li>A daemon that {@code vigil up} started, once it has served for {@link #DELAY_MS} and when no archive
 *       exists yet ({@link #prepare}), writes one in the background: a second daemon JVM with the same flags
 *       and classpath boots on an empty home of its own in a private temporary directory, answers one status
 *       request from itself, shuts down ({@link #TRAINING}) and writes the archive at its exit
 *       ({@code -XX:ArchiveClassesAtExit}); the archive is checked and put in place, the directory deleted.
 *       It never touches this home's store, socket or runs.
 *   <li>{@code VIGIL_CDS=off} in the environment of {@code vigil up} starts the daemon without an archive,
 *       and a daemon with it in its environment writes none.
 * </ol>
 */
public final class DaemonArchive {
  /** The environment variable that turns class archives off ({@code off}), as for the {@code ./vigil} script. */
  public static final String ENV = "VIGIL_CDS";
  /** The system property of the daemon that writes the archive: it exercises itself and exits. */
  public static final String TRAINING = "vigil.archive.training";
  /** How long a daemon serves before it writes the archive: the first work of a new daemon goes first. */
  static final long DELAY_MS = 10_000;
  /** Longest wait for the training daemon, ms; it is then stopped and no archive is written. */
  static final long TRAINING_WAIT_MS = 120_000;
  /** A temporary archive older than this was left by a daemon that stopped during its training: deleted. */
  private static final long STALE_TEMPORARY_MS = 10 * 60_000;

  private static final Logger LOG = LoggerFactory.getLogger(DaemonArchive.class);

  private DaemonArchive() {}

  private static StartArchive archive(Home home) {
    return new StartArchive(home.dir().resolve("cds"), "daemon", StartArchive.currentJava());
  }

  /** Whether class archives are on in {@code env}. */
  static boolean on(Map<String, String> env) {
    return !"off".equals(env.get(ENV));
  }

  /**
   * The flags that map the daemon's archive, to add after {@code jvmFlags}; none when archives are off,
   * when there is none yet, or when it is damaged (then it is deleted, and the next daemon writes it again).
   */
  static List<String> flags(Home home, List<String> jvmFlags, String classpath, Map<String, String> env) {
    if (!on(env) || System.getProperty(TRAINING) != null) {
      return List.of();
    }
    StartArchive a = archive(home);
    deleteStaleTemporaries(home.dir().resolve("cds"));
    if (!inPlace(a, jvmFlags, classpath)) {
      return List.of(); // nothing to check, and no directory to create
    }
    StartArchive.Plan plan = a.plan(jvmFlags, classpath, System.nanoTime() / 1_000_000);
    return plan instanceof StartArchive.Plan.Use u ? u.flags() : List.of();
  }

  /**
   * In a daemon that serves: unless archives are off, or this daemon is not one {@code vigil up} started
   * (its JVM flags are not {@link Up#DAEMON_JVM_FLAGS}), or the archive exists, writes it in the background
   * after {@link #DELAY_MS}. Never blocks.
   */
  public static void prepare(Home home) {
    if (!on(System.getenv()) || System.getProperty(TRAINING) != null) {
      return;
    }
    List<String> args = ProcessHandle.current().info().arguments().map(List::of).orElse(List.of());
    if (!args.containsAll(Up.DAEMON_JVM_FLAGS)) {
      return; // a daemon started by hand or by a service manager, with flags of its own
    }
    String classpath = System.getProperty("java.class.path");
    Thread t = new Thread(() -> {
      try {
        Thread.sleep(DELAY_MS);
        train(home, classpath);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (RuntimeException e) {
        LOG.warn("the daemon's class archive could not be written: {}", e.toString());
      }
    }, "vigil-daemon-archive");
    t.setDaemon(true);
    t.start();
  }

  private static void train(Home home, String classpath) throws InterruptedException {
    StartArchive a = archive(home);
    deleteStaleTemporaries(home.dir().resolve("cds"));
    if (inPlace(a, Up.DAEMON_JVM_FLAGS, classpath)) {
      return; // each vigil up checks it before it maps it: an idle daemon reads no 24 MB archive through a digest
    }
    if (!(a.plan(Up.DAEMON_JVM_FLAGS, classpath, System.nanoTime() / 1_000_000) instanceof StartArchive.Plan.Create c)) {
      return; // in place already (or cannot be: the plan says why, and daemons start without it)
    }
    Path dir = null;
    Process p = null;
    boolean done = false;
    try {
      dir = StartArchive.newTrainingDirectory();
      List<String> cmd = new ArrayList<>();
      cmd.add(StartArchive.currentJava().toString());
      cmd.addAll(Up.DAEMON_JVM_FLAGS);
      cmd.addAll(c.flags());
      cmd.add("-D" + TRAINING + "=true");
      cmd.addAll(List.of("-cp", classpath, "dev.vigil.launcher.Main", "--home", dir.resolve("home").toString(),
          "daemon"));
      ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
      pb.environment().clear();
      pb.environment().putAll(LaunchSpec.baseEnvironment());
      p = pb.start();
      if (!p.waitFor(TRAINING_WAIT_MS, TimeUnit.MILLISECONDS)) {
        LOG.warn("the daemon's class archive was not written within {} s; daemons start without it",
            TRAINING_WAIT_MS / 1000);
        return;
      }
      done = true;
      if (a.created(c)) {
        LOG.info("the daemon now starts with the class archive {}", c.archive());
      } else {
        LOG.warn("the daemon's class archive could not be written (exit {}); daemons start without it", p.exitValue());
      }
    } catch (IOException e) {
      LOG.warn("cannot write the daemon's class archive: {}", e.toString());
    } finally {
      if (!done) {
        if (p != null) {
          p.destroyForcibly();
        }
        a.abandoned(c);
        try {
          Files.deleteIfExists(c.temporary());
        } catch (IOException e) {
          LOG.debug("cannot delete {}: {}", c.temporary(), e.toString());
        }
      }
      if (dir != null) {
        StartArchive.deleteTrainingDirectory(dir);
      }
    }
  }

  /**
   * In the training daemon, once it serves: one status request over its own socket, as a CLI call makes,
   * then the daemon's clean shutdown, so that the archive holds the classes of both.
   */
  public static void exercise(Home home) {
    try (Client c = Client.connect(home, false)) {
      Client.ok(c.call("status", Wire.JSON.createObjectNode()));
    } catch (RuntimeException e) {
      LOG.warn("the archive's training daemon could not ask itself for its status: {}", e.toString());
    }
  }

  /**
   * In the training daemon, once it has shut down: deletes the temporary directory its home is in, so that
   * nothing is left when the daemon that started it has gone meanwhile. A home anywhere else is left alone.
   */
  public static void discard(Home home) {
    StartArchive.deleteTrainingDirectory(home.dir().getParent());
  }

  /** Whether the archive of daemons with {@code jvmFlags} and {@code classpath} exists (whether sound or not). */
  private static boolean inPlace(StartArchive a, List<String> jvmFlags, String classpath) {
    return a.archiveOf(jvmFlags, classpath).filter(Files::isRegularFile).isPresent();
  }

  private static void deleteStaleTemporaries(Path cds) {
    if (!Files.isDirectory(cds)) {
      return;
    }
    long now = System.currentTimeMillis();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(cds, ".daemon-*.tmp")) {
      for (Path f : s) {
        if (now - Files.getLastModifiedTime(f).toMillis() > STALE_TEMPORARY_MS) {
          Files.deleteIfExists(f);
        }
      }
    } catch (IOException e) {
      LOG.debug("cannot look for stale temporary archives in {}: {}", cds, e.toString());
    }
  }
}
