package dev.vigil.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.vigil.coordination.Lease;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunStart;
import dev.vigil.coordination.RunState;
import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Verdict;
import dev.vigil.supervisor.StalledRuns.Watch;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class StalledRunsTest {
  private static final OwnerId OWNER = new OwnerId("d-1");
  private static final ProcessIdentity WORKER = new ProcessIdentity("boot", 4242, 100, 4242);
  private static final String TOKEN = "0".repeat(64);

  private static Run run(RunId id, RunState state, long claimedAt, long startedAt) {
    RunStart start = state == RunState.CLAIMED ? null : new RunStart(WORKER, "b1", TOKEN, startedAt);
    RunExit exit = state == RunState.EXITED || state == RunState.SETTLED ? new RunExit(0, null, startedAt + 1) : null;
    ExitOwner exitOwner = exit == null ? null : new ExitOwner(ExitOwner.Role.SUPERVISOR, OWNER);
    Verdict verdict = state == RunState.SETTLED ? Verdict.SUCCEEDED : null;
    return new Run(id, 1, state, OWNER, claimedAt, false, start, exit, exitOwner, verdict, null, null, null);
  }

  @Test
  void aRunIsStalledOnlyWhenItsDaemonIsGoneAndStalledRunningPassedSinceItsLeaseRanOut() {
    RunId id = RunId.parse("t-3.1");
    Run r = run(id, RunState.RUNNING, 1_000, 2_000);
    Optional<Lease> lease = Optional.of(new Lease(id.ticket(), id, OWNER, 50_000));
    assertEquals(new Watch.Watched(), StalledRuns.of(r, lease, true, 60_000, 10_000_000), "its daemon lives");
    assertEquals(new Watch.Unwatched(50_000), StalledRuns.of(r, lease, false, 60_000, 109_999));
    assertEquals(new Watch.Stalled(50_000), StalledRuns.of(r, lease, false, 60_000, 110_000));
    assertEquals(new Watch.Stalled(2_000), StalledRuns.of(r, Optional.empty(), false, 60_000, 62_000), "no lease: its start");
    assertThrows(IllegalArgumentException.class, () -> StalledRuns.of(run(id, RunState.SETTLED, 1, 2), lease, false, 1, 3));
    assertThrows(IllegalArgumentException.class, () -> StalledRuns.of(r, lease, false, 0, 3));
  }

  /**
   * Against the rule written plainly: watched exactly while the owner lives; else stalled exactly
   * when now − since ≥ stalledRunning, since being the expiry of the run's own lease, else its
   * start, else its claim. Clocks drawn at the threshold's edges, leases of other runs included.
   */
  @Test
  void theWatchAgreesWithTheRule_atTheThresholdsEdges() {
    Props.Coverage cov = new Props.Coverage("stalled runs", Watch.Watched.class, Watch.Unwatched.class,
        Watch.Stalled.class, "since: its lease", "since: its start", "since: its claim", "another run's lease",
        "stalled exactly at the threshold", "unwatched one ms before it", "a clock behind since");
    Props.forSeeds(3_000, seed -> {
      SplittableRandom rnd = new SplittableRandom(seed);
      RunId id = RunId.parse("t-" + (1 + rnd.nextInt(50)) + "." + (1 + rnd.nextInt(3)));
      RunState state = Props.pick(rnd, RunState.CLAIMED, RunState.RUNNING, RunState.EXITED);
      long claimed = rnd.nextLong(1L << 40);
      long started = claimed + rnd.nextLong(10_000);
      Run r = run(id, state, claimed, started);
      Optional<Lease> lease = switch (rnd.nextInt(3)) {
        case 0 -> Optional.empty();
        case 1 -> Optional.of(new Lease(id.ticket(), id, OWNER, started + rnd.nextLong(100_000)));
        default -> Optional.of(new Lease(id.ticket(), RunId.parse(id.ticket() + "." + (id.number() + 1)), OWNER,
            started + rnd.nextLong(100_000)));
      };
      boolean alive = rnd.nextInt(4) == 0;
      long threshold = 1 + rnd.nextLong(600_000);
      boolean own = lease.isPresent() && lease.get().run().equals(id);
      long since = own ? lease.get().expiresAtMs() : state == RunState.CLAIMED ? claimed : started;
      long now = rnd.nextInt(5) == 0 ? since - rnd.nextLong(1, 5_000) : Props.near(rnd, since + threshold, threshold);
      String ctx = "seed " + seed + ": " + r + ", " + lease + ", alive " + alive + ", threshold " + threshold + ", now " + now;

      Watch w = StalledRuns.of(r, lease, alive, threshold, now);
      Watch expected = alive ? new Watch.Watched()
          : now - since >= threshold ? new Watch.Stalled(since) : new Watch.Unwatched(since);
      assertEquals(expected, w, ctx);
      cov.saw(w);
      if (!alive) {
        cov.label(own ? "since: its lease" : state == RunState.CLAIMED ? "since: its claim" : "since: its start");
        if (lease.isPresent() && !own) {
          cov.label("another run's lease");
        }
        if (now - since == threshold) {
          cov.label("stalled exactly at the threshold");
        } else if (now - since == threshold - 1) {
          cov.label("unwatched one ms before it");
        } else if (now < since) {
          cov.label("a clock behind since");
        }
      }
    });
    cov.assertComplete();
  }
}
