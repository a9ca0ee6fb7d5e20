package dev.vigil.supervisor;

import dev.vigil.coordination.Lease;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunState;
import java.util.Objects;
import java.util.Optional;

/**
 * Whether a live run is watched by a daemon, as views show it (docs/GUIDE.md, "What survives a
 * crash"). A run is watched while the daemon that owns it lives (by process identity, never by a
 * clock). Once that daemon is gone, the run is unwatched from the moment no daemon vouches for it
 * any more: its lease's expiry (a daemon renews the leases of its runs every reconcile), or, with no
 * lease, its start or its claim. An unwatched run is <em>stalled</em> once {@code stalledRunning}
 * has passed since then. This is a view only: it decides nothing about the run, which the next
 * daemon recovers by identity as always (Q6).
 */
public final class StalledRuns {
  private StalledRuns() {}

  /** What a view says of a live run's supervision. */
  public sealed interface Watch {
    /** The daemon that owns it lives. */
    record Watched() implements Watch {}

    /** Its daemon is gone since {@code sinceMs}, for less than {@code stalledRunning}. */
    record Unwatched(long sinceMs) implements Watch {}

    /** Its daemon is gone since {@code sinceMs}, for {@code stalledRunning} or longer. */
    record Stalled(long sinceMs) implements Watch {}
  }

  /**
   * The watch of {@code run}, live (not settled).
   *
   * @param lease            its ticket's lease, when it has one
   * @param ownerAlive       whether the daemon that owns the run lives (its process identity matches)
   * @param stalledRunningMs how long an unwatched run goes before it is called stalled, ms (&gt; 0)
   * @param nowWallMs        the time of the reading
   * @throws IllegalArgumentException for a settled run or a threshold not above 0
   */
  public static Watch of(Run run, Optional<Lease> lease, boolean ownerAlive, long stalledRunningMs, long nowWallMs) {
    Objects.requireNonNull(run, "run");
    Objects.requireNonNull(lease, "lease");
    if (run.state() == RunState.SETTLED) {
      throw new IllegalArgumentException(run.id() + " is settled: only a live run is watched or not");
    }
    if (stalledRunningMs <= 0) {
      throw new IllegalArgumentException("stalledRunning must be above 0 ms, not " + stalledRunningMs);
    }
    if (ownerAlive) {
      return new Watch.Watched();
    }
    long since = lease.filter(l -> l.run().equals(run.id())).map(Lease::expiresAtMs)
        .orElse(run.start() != null ? run.start().startedAtMs() : run.claimedAtMs());
    return nowWallMs - since >= stalledRunningMs ? new Watch.Stalled(since) : new Watch.Unwatched(since);
  }
}
