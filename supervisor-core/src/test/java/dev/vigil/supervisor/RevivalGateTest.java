package dev.vigil.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.supervisor.RevivalGate.BusyRecord;
import dev.vigil.supervisor.RevivalGate.Refresh;
import dev.vigil.supervisor.RevivalGate.Revival;
import dev.vigil.supervisor.WorkSet.Kind;
import dev.vigil.supervisor.law.RevivalLaw;
import dev.vigil.supervisor.law.SupervisorInvariants;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RevivalGateTest {
  private static final long MIN = 60_000;
  private static final RevivalGate GATE = RevivalGate.from(TimeoutLattice.defaults());
  private static final WorkSet RUN = WorkSet.EMPTY.plus(Kind.RUN, "r1");

  @Test
  void S3_aWorkerRecordsBusyWhenWorkStartsAfterAnIdleRecord() {
    assertEquals(new Refresh.Write(new BusyRecord(true, 10)), GATE.onTick(Optional.empty(), RUN, 10));
    assertEquals(new Refresh.Write(new BusyRecord(true, 11)), GATE.onTick(Optional.of(new BusyRecord(false, 10)), RUN, 11));
    assertEquals(new Refresh.Write(new BusyRecord(false, 12)),
        GATE.onTick(Optional.of(new BusyRecord(true, 11)), WorkSet.EMPTY, 12));
    assertEquals(new Refresh.Keep(), GATE.onTick(Optional.of(new BusyRecord(false, 12)), WorkSet.EMPTY, 13));
    assertEquals(new Refresh.Keep(), GATE.onTick(Optional.empty(), WorkSet.EMPTY, 13));
  }

  @Test
  void S3_aWorkingWorkerRefreshesItsEvidenceEveryFiveMinutes() {
    Optional<BusyRecord> r = Optional.of(new BusyRecord(true, 0));
    assertEquals(new Refresh.Keep(), GATE.onTick(r, RUN, 5 * MIN - 1));
    assertEquals(new Refresh.Write(new BusyRecord(true, 5 * MIN)), GATE.onTick(r, RUN, 5 * MIN));
    assertEquals(new Refresh.Write(new BusyRecord(true, -1)), GATE.onTick(r, RUN, -1), "the wall clock went back");
  }

  @Test
  void S3_aBootAt25MinutesExactlyRevives() {
    BusyRecord crash = new BusyRecord(true, 1_000_000);
    assertEquals(new Revival.Revive(crash, 25 * MIN), GATE.atBoot(Optional.of(crash), crash.atWallMs() + 25 * MIN));
    assertEquals(new Revival.Revive(crash, 25 * MIN + 1_999),
        GATE.atBoot(Optional.of(crash), crash.atWallMs() + 25 * MIN + 1_999), "within the clock-skew bound");
    assertEquals(new Revival.Stay(Revival.Reason.STALE), GATE.atBoot(Optional.of(crash), crash.atWallMs() + 25 * MIN + 2_000));
    RevivalGate noSkew = new RevivalGate(5 * MIN, 25 * MIN, 0);
    assertEquals(new Revival.Stay(Revival.Reason.STALE), noSkew.atBoot(Optional.of(crash), crash.atWallMs() + 25 * MIN));
    assertTrue(noSkew.atBoot(Optional.of(crash), crash.atWallMs() + 25 * MIN - 1) instanceof Revival.Revive);
  }

  @Test
  void S3_aBootNeverRevivesADeadWorkerWithoutABusyRecord() {
    assertEquals(new Revival.Stay(Revival.Reason.NO_BUSY_RECORD), GATE.atBoot(Optional.empty(), 0));
    assertEquals(new Revival.Stay(Revival.Reason.IDLE), GATE.atBoot(Optional.of(new BusyRecord(false, 0)), 1));
  }

  @Test
  void S3_freshnessMustExceedTheRefresh() {
    assertEquals("busyFreshness (5m) must be > busyRefresh (5m) and ≤ 8784h",
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
            () -> new RevivalGate(5 * MIN, 5 * MIN, 0)).getMessage());
  }

  /** A random gate: the default, or one with small numbers so edges are reached often. */
  private static RevivalGate randomGate(SplittableRandom r) {
    if (r.nextBoolean()) {
      return GATE;
    }
    long refresh = 1 + r.nextLong(1_000);
    return new RevivalGate(refresh, refresh + 1 + r.nextLong(5_000), Props.pick(r, 0L, 1L, r.nextLong(500)));
  }

  @Test
  void S3_implementationAgreesWithLawModel_tickByTickAndAtBoot() {
    Props.Coverage cov = new Props.Coverage("S3 busy evidence", "write busy (work started)", "write busy (refresh)",
        "write idle", Refresh.Keep.class, Revival.Revive.class, "stay NO_BUSY_RECORD", "stay IDLE", "stay STALE",
        "boot at window + skew − 1", "boot at window + skew", "refresh at exactly one period");
    Props.forSeeds(3_000, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      RevivalGate g = randomGate(r);
      RevivalLaw law = new RevivalLaw(g);
      Optional<BusyRecord> latest = Optional.empty();
      WorkSet work = WorkSet.EMPTY;
      long now = r.nextLong(1L << 40);
      int ticks = r.nextInt(40);
      for (int i = 0; i < ticks; i++) {
        if (r.nextInt(4) == 0) {
          work = work.isBusy() ? WorkSet.EMPTY : WorkSet.EMPTY.plus(Props.pick(r, Kind.values()), "x");
        }
        long step = latest.isPresent() && r.nextBoolean()
            ? Props.near(r, latest.get().atWallMs() + g.busyRefreshMs(), 2) - now
            : r.nextLong(g.busyRefreshMs() + 2);
        now += r.nextInt(30) == 0 ? -r.nextLong(g.busyRefreshMs()) : Math.max(0, step);
        String ctx = "seed " + seed + ", tick " + i + " at " + now + ", latest " + latest + ", " + work + ", " + g;
        Refresh d = g.onTick(latest, work, now);
        assertEquals(law.onTick(work, now), d, ctx);
        if (d instanceof Refresh.Write w) {
          boolean refresh = latest.isPresent() && latest.get().busy() && w.record().busy();
          cov.label(!w.record().busy() ? "write idle" : refresh ? "write busy (refresh)" : "write busy (work started)");
          if (refresh && now - latest.get().atWallMs() == g.busyRefreshMs()) {
            cov.label("refresh at exactly one period");
          }
          latest = Optional.of(w.record());
        } else {
          cov.saw(d);
        }
      }
      long boot = latest.isPresent() && r.nextInt(4) != 0
          ? Props.near(r, latest.get().atWallMs() + g.busyFreshnessMs() + g.revivalClockSkewMs(), g.busyRefreshMs())
          : now + r.nextLong(2 * g.busyFreshnessMs());
      if (latest.isPresent()) {
        long over = boot - latest.get().atWallMs() - g.busyFreshnessMs() - g.revivalClockSkewMs();
        if (over == -1 && latest.get().busy()) {
          cov.label("boot at window + skew − 1");
        } else if (over == 0 && latest.get().busy()) {
          cov.label("boot at window + skew");
        }
      }
      Revival v = g.atBoot(latest, boot);
      String ctx = "seed " + seed + ", boot at " + boot + ", latest " + latest + ", " + g;
      assertEquals(law.atBoot(boot), v, ctx);
      SupervisorInvariants.s3NoRevivalWithoutBusyRecord(latest, v, ctx);
      if (v instanceof Revival.Stay s) {
        cov.label("stay " + s.reason());
      } else {
        cov.saw(v);
      }
    });
    cov.assertComplete();
  }

  @Test
  void S3_aBusyWorkerIsRevivedHoweverLongItsRunTook_andAnIdleOneNever() {
    Props.Coverage cov = new Props.Coverage("S3 revival law", "crashed working, revived", "crashed idle, stays",
        "never worked, stays", "long run (> 1 h)");
    Props.forSeeds(2_000, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      long tickPeriod = 1_000 + r.nextLong(29_000);
      long now = r.nextLong(1L << 40);
      boolean everWorked = r.nextInt(5) != 0;
      long workStart = now + r.nextLong(10 * MIN);
      long runLength = Props.pick(r, 1L, r.nextLong(30 * MIN), r.nextLong(3 * 60 * MIN));
      long crashAt = workStart + (r.nextBoolean() ? r.nextLong(runLength + 1) : runLength + 1 + r.nextLong(10 * MIN));
      Optional<BusyRecord> latest = Optional.empty();
      // the worker host ticks periodically and on every change of its work
      String seedCtx = "seed " + seed;
      long t = now;
      while (t <= crashAt) {
        boolean working = everWorked && t >= workStart && t < workStart + runLength;
        WorkSet w = working ? RUN : WorkSet.EMPTY;
        if (GATE.onTick(latest, w, t) instanceof Refresh.Write wr) {
          latest = Optional.of(wr.record());
        }
        SupervisorInvariants.s3EvidenceFresh(w, latest, t, GATE.busyRefreshMs(), tickPeriod + 1, seedCtx);
        long next = t + tickPeriod / 2 + r.nextLong(tickPeriod / 2 + 1);
        for (long change : new long[] {workStart, workStart + runLength}) {
          if (change > t && change < next) {
            next = change;
          }
        }
        t = next;
      }
      boolean workingAtCrash = everWorked && crashAt >= workStart && crashAt < workStart + runLength;
      String ctx = "seed " + seed + ", crash " + crashAt + ", latest " + latest + ", working " + workingAtCrash;
      long margin = GATE.busyFreshnessMs() - GATE.busyRefreshMs() - tickPeriod - 1;
      long boot = crashAt + r.nextLong(margin);
      Revival v = GATE.atBoot(latest, boot);
      if (!everWorked) {
        assertEquals(new Revival.Stay(Revival.Reason.NO_BUSY_RECORD), v, ctx);
        cov.label("never worked, stays");
      } else if (workingAtCrash) {
        assertTrue(v instanceof Revival.Revive, "S3: a boot within the window of a busy worker's crash revives it; "
            + ctx + ", boot " + boot);
        cov.label("crashed working, revived");
        if (crashAt - workStart > 60 * MIN) {
          cov.label("long run (> 1 h)");
        }
      } else if (crashAt >= workStart + runLength && latest.isPresent()) {
        assertTrue(v instanceof Revival.Stay, ctx);
        cov.label("crashed idle, stays");
      }
    });
    cov.assertComplete();
  }
}
