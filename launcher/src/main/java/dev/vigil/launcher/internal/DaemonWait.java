package dev.vigil.launcher.internal;

import dev.vigil.supervisor.DaemonLiveness;
import dev.vigil.supervisor.TimeoutLattice;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Whether a client that finds no daemon answering should wait for one ({@code --wait-daemon}):
 * yes while the home shows a daemon starting or restarting, no when it clearly has none.
 *
 * <ul>
 *   <li>Starting or restarting: a live process holds {@code daemon.lock} (a daemon takes it first
 *       and listens last, after recovery), or {@code daemon.json} has a fresh heartbeat (a daemon ran
 *       within the last {@code statusStale}, 30 s by default, and did not stop cleanly: it crashed or
 *       was killed, and may be started again at once, by hand, by {@code vigil watch} or by a
 *       service manager).
 *   <li>Clearly none: nobody holds the lock and {@code daemon.json} is missing, unreadable or
 *       stale (a clean stop deletes it). Then the client fails at once.
 * </ul>
 *
 * <p>The lock is never taken to test it: taking it, even for a moment, could make a daemon that
 * starts at that moment refuse to run, and in the daemon's own process closing any channel on the
 * file would drop its lock. The holder is read from {@code /proc/locks} instead; where that file
 * does not exist, only the status file is read.
 */
public final class DaemonWait {
  /** The default of {@code --wait-daemon}, ms. */
  public static final long DEFAULT_MS = 10_000;
  /** The pause between two connection attempts, ms. */
  static final long RETRY_MS = 100;

  private DaemonWait() {}

  /**
   * What the home shows of a daemon, at one moment.
   *
   * @param lockHolder the pid of the live process that holds {@code daemon.lock}, if any
   * @param status     the pid and heartbeat of {@code daemon.json}, if readable
   */
  public record Signs(Optional<Long> lockHolder, Optional<DaemonLiveness.Status> status) {
    public Signs {
      Objects.requireNonNull(lockHolder, "lockHolder");
      Objects.requireNonNull(status, "status");
    }
  }

  /** What to do next. */
  public sealed interface Decision {
    /** Try to connect again after {@code afterMs}. */
    record Retry(long afterMs, String why) implements Decision {}

    /** Clearly no daemon: fail now (exit 4). */
    record NoDaemon() implements Decision {}

    /** A daemon seemed to be starting, but none answered within the wait (exit 4). */
    record GaveUp(String why) implements Decision {}
  }

  /**
   * The decision after a failed connection attempt.
   *
   * @param signs     what the home shows now
   * @param nowWallMs now, wall clock (to judge the heartbeat)
   * @param waitedMs  how long this client has waited so far, monotonic
   * @param limitMs   {@code --wait-daemon}, ms (0: never wait)
   */
  public static Decision decide(Signs signs, DaemonLiveness liveness, long nowWallMs, long waitedMs, long limitMs) {
    String why;
    if (signs.lockHolder().isPresent()) {
      long pid = signs.lockHolder().get();
      why = (pid > 0 ? "pid " + pid : "a process") + " holds its lock but does not answer yet";
    } else if (signs.status().isPresent() && liveness.fresh(signs.status().get().heartbeatAtWallMs(), nowWallMs)) {
      why = "daemon.json is fresh (pid " + signs.status().get().pid() + ") but no daemon answers";
    } else {
      return new Decision.NoDaemon();
    }
    if (waitedMs >= limitMs) {
      return new Decision.GaveUp(why);
    }
    return new Decision.Retry(Math.min(RETRY_MS, limitMs - waitedMs), why);
  }

  /** What {@code home} shows now. */
  public static Signs signs(Home home) {
    return new Signs(lockHolder(home.lockFile()), new StatusFile(home.statusFile()).read());
  }

  /** How a client judges the heartbeat: by the default timeouts (the daemon's own are not in daemon.json). */
  public static DaemonLiveness liveness() {
    return DaemonLiveness.from(TimeoutLattice.defaults());
  }

  /** The pid that holds a POSIX or flock lock on {@code file}, read from {@code /proc/locks}; empty if none. */
  static Optional<Long> lockHolder(Path file) {
    long inode;
    long dev;
    List<String> locks;
    try {
      inode = ((Number) Files.getAttribute(file, "unix:ino")).longValue();
      dev = ((Number) Files.getAttribute(file, "unix:dev")).longValue();
      locks = Files.readAllLines(Path.of("/proc/locks"), StandardCharsets.UTF_8);
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException | SecurityException e) {
      return Optional.empty();
    }
    long major = ((dev >>> 8) & 0xfff) | ((dev >>> 32) & ~0xfffL);
    long minor = (dev & 0xff) | ((dev >>> 12) & ~0xffL);
    for (String line : locks) {
      Optional<Long> pid = holderIn(line, major, minor, inode);
      if (pid.isPresent()) {
        return pid;
      }
    }
    return Optional.empty();
  }

  /**
   * The holder's pid when a {@code /proc/locks} line ({@code 1: POSIX ADVISORY WRITE 4242 08:01:131 0 EOF})
   * locks the file {@code major:minor:inode}; a waiting lock ({@code ->}) holds nothing.
   */
  static Optional<Long> holderIn(String line, long major, long minor, long inode) {
    String[] f = line.trim().split("\\s+");
    if (f.length < 6 || f[1].equals("->")) {
      return Optional.empty();
    }
    String[] id = f[5].split(":");
    if (id.length != 3) {
      return Optional.empty();
    }
    try {
      if (Long.parseLong(id[0], 16) == major && Long.parseLong(id[1], 16) == minor && Long.parseLong(id[2]) == inode) {
        return Optional.of(Long.parseLong(f[4])); // 0: a process this one cannot see holds it

      }
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }
}
