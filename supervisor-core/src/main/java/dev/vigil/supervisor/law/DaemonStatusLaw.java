package dev.vigil.supervisor.law;

import dev.vigil.supervisor.DaemonLiveness.Status;
import java.util.Optional;

/**
 * D1 and D2 as written: a reader calls the daemon dead when there is no status or its heartbeat
 * is older than 6 beats (or dated 6 beats or more ahead, after the clock went back); a start
 * refuses when it finds a fresh heartbeat from another live pid.
 */
public final class DaemonStatusLaw {
  private DaemonStatusLaw() {}

  /** D1: whether a reader calls the daemon dead. */
  public static boolean dead(Optional<Status> status, long heartbeatMs, long nowWallMs) {
    if (status.isEmpty()) {
      return true;
    }
    long age = nowWallMs - status.get().heartbeatAtWallMs();
    return age >= 6 * heartbeatMs || -age >= 6 * heartbeatMs;
  }

  /** D2: whether a start by {@code ownPid} refuses. */
  public static boolean refuses(Optional<Status> status, long ownPid, boolean statusPidAlive, long heartbeatMs,
                                long nowWallMs) {
    return !dead(status, heartbeatMs, nowWallMs) && status.get().pid() != ownPid && statusPidAlive;
  }
}
