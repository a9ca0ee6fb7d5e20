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
 *   <li>Not answering: the holder of the lock is the daemon that wrote {@code daemon.json} (its pid,
 *       and the start time recorded there is that live process's), so it booted and served, yet it
 *       does not answer now: stopped ({@code SIGSTOP}), frozen by a long pause, swapped out, or stuck.
 *       It is waited for like a starting one; then the client says so, with when it last answered:
 *       the heartbeat in {@code daemon.json}, which the daemon's scheduling thread, the one that
 *       answers commands, writes every {@code heartbeat} (so this costs the daemon nothing more).
 *       However old that heartbeat, the held lock means this daemon lives: it is never called gone,
 *       and {@code vigil up} starts no second one.
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
   * @param lockHolder       the pid of the live process that holds {@code daemon.lock}, if any
   * @param status           the pid and heartbeat of {@code daemon.json}, if readable
   * @param holderWroteStatus whether the holder is the daemon {@code daemon.json} describes: the same
   *                         pid, and the same start time when the file records one
   */
  public record Signs(Optional<Long> lockHolder, Optional<DaemonLiveness.Status> status, boolean holderWroteStatus) {
    public Signs {
      Objects.requireNonNull(lockHolder, "lockHolder");
      Objects.requireNonNull(status, "status");
      if (holderWroteStatus && (lockHolder.isEmpty() || status.isEmpty()
          || !lockHolder.get().equals(status.get().pid()))) {
        throw new IllegalArgumentException("the holder wrote the status only when both name the same pid");
      }
    }

    /** Signs where the holder, if any, is not known to be the daemon of the status file. */
    public Signs(Optional<Long> lockHolder, Optional<DaemonLiveness.Status> status) {
      this(lockHolder, status, false);
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

    /**
     * The daemon that holds the home did not answer within the wait (exit 4; {@code up} exit 3).
     *
     * @param pid                its pid
     * @param lastAnsweredWallMs its last heartbeat, wall clock
     */
    record NotAnswering(long pid, long lastAnsweredWallMs) implements Decision {}
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
    return decide(signs, liveness, nowWallMs, waitedMs, limitMs, false);
  }

  /**
   * As {@link #decide(Signs, DaemonLiveness, long, long, long)}, knowing whether the last attempt
   * was {@code silent}: its connection was accepted but not answered. Only a silent daemon that
   * holds the lock and wrote {@code daemon.json} is not answering; one that refuses connections
   * while it holds the lock is between its boot and its socket, and is starting.
   */
  public static Decision decide(Signs signs, DaemonLiveness liveness, long nowWallMs, long waitedMs, long limitMs,
                                boolean silent) {
    String why;
    if (signs.holderWroteStatus() && silent) {
      if (waitedMs >= limitMs) {
        return new Decision.NotAnswering(signs.lockHolder().get(), signs.status().get().heartbeatAtWallMs());
      }
      why = "pid " + signs.lockHolder().get() + " holds its lock but does not answer";
    } else if (signs.lockHolder().isPresent()) {
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
    Optional<Long> holder = lockHolder(home.lockFile());
    StatusFile file = new StatusFile(home.statusFile());
    Optional<DaemonLiveness.Status> status = file.read();
    boolean wrote = holder.isPresent() && status.isPresent() && holder.get().equals(status.get().pid())
        && file.recorded().filter(r -> r.pid() == holder.get() && r.alive()).isPresent();
    return new Signs(holder, status, wrote);
  }

  /**
   * The daemon that holds {@code home} and wrote its {@code daemon.json}, as not answering, when it
   * does; for a client whose connection that daemon just left unanswered. Empty when the lock is
   * free or its holder is not that daemon (one that is starting).
   */
  public static Optional<Decision.NotAnswering> notAnsweringHolder(Home home) {
    Signs s = signs(home);
    return s.holderWroteStatus()
        ? Optional.of(new Decision.NotAnswering(s.lockHolder().get(), s.status().get().heartbeatAtWallMs()))
        : Optional.empty();
  }

  /**
   * The sentence for a daemon that holds the home but does not answer: {@code a daemon (pid 4242)
   * holds /home/me/.vigil but is not answering; it last answered at 14:03:12 (35s ago)}.
   */
  public static String notAnswering(Home home, Decision.NotAnswering d, long nowWallMs) {
    java.time.ZonedDateTime at = java.time.Instant.ofEpochMilli(d.lastAnsweredWallMs())
        .atZone(java.time.ZoneId.systemDefault()).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
    java.time.ZonedDateTime now = java.time.Instant.ofEpochMilli(nowWallMs).atZone(java.time.ZoneId.systemDefault());
    java.time.format.DateTimeFormatter time = java.time.format.DateTimeFormatter.ofPattern("HH:mm:ss");
    String when = at.toLocalDate().equals(now.toLocalDate()) ? at.format(time) : at.toLocalDate() + " " + at.format(time);
    long agoMs = Math.max(0, nowWallMs - d.lastAnsweredWallMs()) / 1_000 * 1_000;
    return "a daemon (pid " + d.pid() + ") holds " + home.dir() + " but is not answering; it last answered at " + when
        + " (" + (agoMs == 0 ? "just now" : dev.vigil.supervisor.Durations.format(agoMs) + " ago") + ")";
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
