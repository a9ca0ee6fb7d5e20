package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Lease;
import dev.vigil.coordination.Readopt;
import dev.vigil.coordination.Renewal;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunId;
import dev.vigil.supervisor.StopKind;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The reconcile pass, every {@code reconcile} and at boot: renew the leases of supervised runs (C4:
 * a denial is recorded and decides nothing; an expired lease of a worker alive by identity is
 * re-armed by readopt, C3), look for dead workers by identity and reservation only (C5, Q6), take
 * their exits and settle ({@link Settling}); stop runs whose stop intent is on record (Q12, Q13) and
 * tell workers of parked tickets to stop (Q9); release runs that the store says another owner settled,
 * rolled back or took ({@link Releases}, H1: their workers are stopped as lost, never settled here); recover
 * every live run that has no live owner and that this daemon does not supervise ({@link Recovery}).
 */
final class Reconciler {
  private final Ctx ctx;
  private final TaskTable table;
  private final Settling settling;
  private final TaskStops stops;
  private final Recovery recovery;
  private final Releases releases;

  Reconciler(Ctx ctx, TaskTable table, Settling settling, TaskStops stops, Recovery recovery, Releases releases) {
    this.ctx = ctx;
    this.table = table;
    this.settling = settling;
    this.stops = stops;
    this.recovery = recovery;
    this.releases = releases;
  }

  /**
   * One pass; returns whether it looked at any run. The live runs are counted first ({@link
   * Occupancy}, Q11): when this daemon supervises none and the store has none (each live run's ticket
   * is LEASED, C1), there is nothing to renew, look at or recover, and the pass reads nothing more. A
   * run claimed by any other owner is in that count, so the pass that follows its claim recovers it or
   * leaves it to its live owner, as before.
   */
  boolean reconcile(boolean atBoot, long nowMonoMs, long nowWallMs) {
    ctx.occupancy.recount();
    if (table.isEmpty() && ctx.occupancy.total() == 0) {
      recovery.noneLive();
      return false;
    }
    renew(nowWallMs);
    for (TaskTable.Tracked t : table.all()) {
      if (!table.current(t) || t.phase() instanceof RunPhase.Released) {
        continue; // a released run's worker is being stopped; the store has nothing more to say of it
      }
      Optional<Run> stored = ctx.store.run(t.run);
      Optional<String> elsewhere = stored.isEmpty() ? Optional.of("the store no longer has it")
          : releases.elsewhere(stored.get());
      if (elsewhere.isPresent()) { // H1: settled, rolled back or taken by another owner while supervised here
        releases.release(t, elsewhere.get(), nowMonoMs, false);
        continue;
      }
      if (t.phase() instanceof RunPhase.Running r) {
        if (settling.settleIfDead(t, r, nowMonoMs, nowWallMs) == Settling.Look.ALIVE) {
          StopKind intended = TaskStops.ofIntent(stored.get().stopIntent());
          if (intended != null && stored.get().stopIntent() != r.intent()) {
            stops.intended(t, stored.get().stopIntent(), nowMonoMs); // recorded by another client of the store
          } else if (r.stop() == null && table.parked(t)) {
            stops.begin(t, StopKind.PARK, nowMonoMs);
          }
        }
      }
    }
    recovery.recoverUnsupervised(atBoot, nowMonoMs, nowWallMs);
    ctx.occupancy.recount(); // the pass may have settled or rolled back runs: count again when next asked
    return true;
  }

  private void renew(long nowWallMs) {
    if (table.isEmpty()) {
      return;
    }
    ctx.coordination.renewAll(ctx.me, nowWallMs, ctx.leaseTtlMs());
    Map<RunId, Lease> leases = new HashMap<>();
    for (Lease l : ctx.store.leases()) {
      leases.put(l.run(), l);
    }
    for (TaskTable.Tracked t : table.all()) {
      if (t.phase() instanceof RunPhase.Released) {
        continue; // no longer this daemon's: it holds no lease
      }
      Lease l = leases.get(t.run);
      if (l != null && l.owner().equals(ctx.me) && l.expiresAtMs() > nowWallMs) {
        continue;
      }
      Renewal rn = ctx.coordination.renew(t.run, ctx.me, nowWallMs, ctx.leaseTtlMs());
      if (rn instanceof Renewal.Denied d) {
        ctx.record(new EngineEvent.RenewalDenied(t.run, d.reason()));
        if (d.reason() == Renewal.Reason.EXPIRED && t.phase() instanceof RunPhase.Running r
            && !Liveness.dead(ctx.processes, ctx.directories, t.key(), r.start().identity())
            && ctx.coordination.readopt(t.run, ctx.me, nowWallMs, ctx.leaseTtlMs()) instanceof Readopt.Readopted) {
          ctx.record(new EngineEvent.LeaseRearmed(t.run));
        }
      } else if (!(rn instanceof Renewal.Renewed)) {
        throw new AssertionError(rn);
      }
    }
  }
}
