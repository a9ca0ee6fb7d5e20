package dev.vigil.supervisor;

import java.util.Objects;
import java.util.Optional;

/**
 * The pure parts of daemon status (D1 heartbeat, D2 singleton, D3 read permissively).
 *
 * <ul>
 *   <li>D1: the daemon refreshes {@code daemon.json} every {@code heartbeat}
 *       ({@link #heartbeatDue(long, long)}); a reader calls the daemon dead when the heartbeat is
 *       {@code statusStale} (6 beats) old or more ({@link #read(Optional, long)}). A heartbeat
 *       dated {@code statusStale} or more after now (the wall clock went back) is no evidence of
 *       life either; a live daemon rewrites it within one beat.
 *   <li>D2: a start that finds a fresh heartbeat from another live pid refuses and names that pid
 *       ({@link #atStart(Optional, long, boolean, long)}); the same test tells a running daemon
 *       that a foreign loop took over.
 *   <li>D3: a missing, partial or corrupt file is read by the caller as empty: no daemon, never
 *       an error.
 * </ul>
 *
 * @param heartbeatMs   the refresh period of daemon.json, ms
 * @param statusStaleMs the heartbeat age at which a reader calls the daemon dead, ms: 6 × heartbeat
 */
public record DaemonLiveness(long heartbeatMs, long statusStaleMs) {
  public DaemonLiveness {
    if (heartbeatMs <= 0 || heartbeatMs > TimeoutLattice.MAX_MS) {
      throw new IllegalArgumentException("heartbeat (" + Durations.format(heartbeatMs) + ") must be > 0 and ≤ "
          + Durations.format(TimeoutLattice.MAX_MS));
    }
    if (statusStaleMs != 6 * heartbeatMs) {
      throw new IllegalArgumentException("statusStale (" + Durations.format(statusStaleMs) + ") must be = 6 × heartbeat ("
          + Durations.format(heartbeatMs) + ")");
    }
  }

  /** The lattice's {@code heartbeat} and {@code statusStale}. */
  public static DaemonLiveness from(TimeoutLattice t) {
    return new DaemonLiveness(t.ms(TimeoutLattice.Timeout.HEARTBEAT), t.ms(TimeoutLattice.Timeout.STATUS_STALE));
  }

  /**
   * The fields of daemon.json the decisions read.
   *
   * @param pid               the daemon's pid
   * @param heartbeatAtWallMs its latest heartbeat, wall clock
   */
  public record Status(long pid, long heartbeatAtWallMs) {}

  /** What a reader of daemon.json concludes (D1, D3). */
  public sealed interface Reading {
    /**
     * A daemon is live.
     *
     * @param status the status read
     * @param ageMs  the heartbeat's age, ms
     */
    record Live(Status status, long ageMs) implements Reading {
      public Live {
        Objects.requireNonNull(status, "status");
      }
    }

    /**
     * No daemon: no readable file, or a stale heartbeat.
     *
     * @param status the stale status, empty when there was none
     */
    record NoDaemon(Optional<Status> status) implements Reading {
      public NoDaemon {
        Objects.requireNonNull(status, "status");
      }
    }
  }

  /** Whether a starting daemon may proceed (D2). */
  public sealed interface Singleton {
    /** No other live daemon heartbeats here: proceed (the file lock still decides). */
    record Proceed() implements Singleton {}

    /**
     * A fresh heartbeat from another live pid: refuse.
     *
     * @param pid   the other daemon's pid
     * @param ageMs its heartbeat's age, ms
     */
    record Refuse(long pid, long ageMs) implements Singleton {
      /** For the user, naming the pid. */
      public String message() {
        return "another vigil daemon (pid " + pid + ") is running in this home: its heartbeat is "
            + Durations.format(ageMs) + " old";
      }
    }
  }

  /** Whether a heartbeat at {@code heartbeatAtWallMs} is fresh at {@code nowWallMs} (D1). */
  public boolean fresh(long heartbeatAtWallMs, long nowWallMs) {
    long age = nowWallMs - heartbeatAtWallMs;
    return age < statusStaleMs && age > -statusStaleMs;
  }

  /** Reads a status (empty: missing, partial or corrupt) at {@code nowWallMs} (D1, D3). */
  public Reading read(Optional<Status> status, long nowWallMs) {
    Objects.requireNonNull(status, "status");
    if (status.isPresent() && fresh(status.get().heartbeatAtWallMs(), nowWallMs)) {
      return new Reading.Live(status.get(), nowWallMs - status.get().heartbeatAtWallMs());
    }
    return new Reading.NoDaemon(status);
  }

  /**
   * Decides whether a daemon with pid {@code ownPid} may start (or keep running) beside the status
   * it read (D2).
   *
   * @param status          the status read, empty when missing, partial or corrupt
   * @param ownPid          this daemon's pid
   * @param statusPidAlive  whether the status's pid is a live process (by pid and start time)
   * @param nowWallMs       now, wall clock
   */
  public Singleton atStart(Optional<Status> status, long ownPid, boolean statusPidAlive, long nowWallMs) {
    Objects.requireNonNull(status, "status");
    if (status.isPresent() && status.get().pid() != ownPid && statusPidAlive
        && fresh(status.get().heartbeatAtWallMs(), nowWallMs)) {
      return new Singleton.Refuse(status.get().pid(), nowWallMs - status.get().heartbeatAtWallMs());
    }
    return new Singleton.Proceed();
  }

  /** Whether the daemon must rewrite daemon.json at {@code nowMonoMs}, its last write at {@code lastBeatMonoMs} (D1). */
  public boolean heartbeatDue(long lastBeatMonoMs, long nowMonoMs) {
    return nowMonoMs - lastBeatMonoMs >= heartbeatMs;
  }

  /** When the next heartbeat is due, the last write at {@code lastBeatMonoMs} (D1): the first time {@link #heartbeatDue} holds. */
  public long nextBeatMonoMs(long lastBeatMonoMs) {
    return lastBeatMonoMs + heartbeatMs;
  }
}
