package dev.vigil.bridge;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.coordination.RetryPolicy;
import dev.vigil.launcher.internal.Wire;
import dev.vigil.supervisor.Durations;
import dev.vigil.supervisor.TimeoutLattice;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import java.util.EnumMap;
import java.util.Map;

/**
 * The one configuration of time both runners use: real time scaled down so that a scenario takes
 * seconds, every timeout still ordered as {@link TimeoutLattice} demands (S2). The simulation's
 * clock and the real daemon's run on the same numbers. What waits for a JVM to start (a worker's
 * handoff, a daemon's boot, and so the lost-exit window above them) is twice the default: several
 * real stacks share a loaded machine, and a daemon started after a crash must boot, recover and
 * confirm a worker launched just before the crash before that worker's handoff runs out. Nothing
 * in a scenario waits for one of these to expire, so they cost time only when something fails.
 */
public final class BridgeTimeouts {
  /** Every timeout, ms. */
  public static final TimeoutLattice LATTICE = lattice();
  /** The retry backoff of FAILED and LOST runs: 200 ms doubling to 1 s. */
  public static final RetryPolicy RETRY = new RetryPolicy(200, 1_000);

  private BridgeTimeouts() {}

  private static TimeoutLattice lattice() {
    Map<Timeout, Long> m = new EnumMap<>(Timeout.class);
    m.put(Timeout.HEARTBEAT, 500L);
    m.put(Timeout.STATUS_STALE, 3_000L);
    m.put(Timeout.RECONCILE, 500L);
    m.put(Timeout.LEASE_TTL, 2_000L);
    m.put(Timeout.STOP_GRACE, 1_500L);
    m.put(Timeout.WORKER_TEARDOWN, 800L);
    m.put(Timeout.PROTOCOL_CLOSE, 300L);
    m.put(Timeout.KILL_ROUTE, 200L);
    m.put(Timeout.CHILD_DRAIN, 500L);
    m.put(Timeout.SUPERVISOR_DRAIN, 1_000L);
    m.put(Timeout.LAUNCHER_WAIT, 5_000L);
    m.put(Timeout.LOST_EXIT, 24_000L);
    m.put(Timeout.CLIENT_RELAUNCH, 1_000L);
    m.put(Timeout.SUPERVISOR_BOOT, 20_000L);
    m.put(Timeout.LAUNCH_HANDOFF, 20_000L);
    m.put(Timeout.BUSY_REFRESH, 2_000L);
    m.put(Timeout.BUSY_FRESHNESS, 30_000L);
    m.put(Timeout.QUIESCE_ANSWER, 1_000L);
    m.put(Timeout.QUIESCE_HOLD, 2_000L);
    m.put(Timeout.RESTART_WINDOW, 30_000L);
    m.put(Timeout.RESTART_BACKOFF_BASE, 100L);
    m.put(Timeout.RESTART_BACKOFF_CAP, 1_000L);
    m.put(Timeout.STALE_CLAIM, 3_600_000L);
    m.put(Timeout.REVIVAL_CLOCK_SKEW, 2_000L);
    return new TimeoutLattice(m, TimeoutLattice.DEFAULT_RESTART_GIVE_UP_COUNT);
  }

  /** The timeouts as the daemon's configuration file writes them. */
  public static ObjectNode json() {
    ObjectNode o = Wire.JSON.createObjectNode();
    for (Timeout t : Timeout.values()) {
      o.put(t.configName(), Durations.format(LATTICE.ms(t)));
    }
    return o;
  }

  /** The lease TTL, ms. */
  public static long leaseTtlMs() {
    return LATTICE.ms(Timeout.LEASE_TTL);
  }
}
