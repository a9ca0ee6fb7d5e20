package dev.vigil.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.supervisor.OrphanPolicy.Orphan;
import dev.vigil.supervisor.RevivalGate.BusyRecord;
import dev.vigil.supervisor.RevivalGate.Revival;
import dev.vigil.supervisor.WorkSet.Kind;
import dev.vigil.supervisor.law.OrphanLaw;
import dev.vigil.supervisor.law.SupervisorInvariants;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class OrphanPolicyTest {
  private static final long MIN = 60_000;
  private static final OrphanPolicy POLICY = OrphanPolicy.from(TimeoutLattice.defaults());
  private static final WorkSet RUN = WorkSet.EMPTY.plus(Kind.RUN, "r1");

  @Test
  void S4_withoutWorkTheOrphanClosesAfterOneWindow() {
    assertEquals(new Orphan.Wait(5 * MIN), POLICY.onTick(0, WorkSet.EMPTY, 5 * MIN - 1));
    assertEquals(new Orphan.Close(), POLICY.onTick(0, WorkSet.EMPTY, 5 * MIN));
  }

  @Test
  void S4_withWorkInFlightItWaitsTwoWindowsThenRecordsBusyAndAbortsNothing() {
    assertEquals(new Orphan.Wait(10 * MIN), POLICY.onTick(0, RUN, 5 * MIN));
    assertEquals(new Orphan.Wait(10 * MIN), POLICY.onTick(0, RUN, 10 * MIN - 1));
    assertEquals(new Orphan.ExitBusy(RUN), POLICY.onTick(0, RUN, 10 * MIN));
    assertEquals(new Orphan.Close(), POLICY.onTick(0, WorkSet.EMPTY, 7 * MIN), "work that ended brings the exit forward");
  }

  @Test
  void S4_implementationAgreesWithLawModel_nearEveryWindowEdge() {
    Props.Coverage cov = new Props.Coverage("S4 orphan", "wait one window", "wait two windows", Orphan.ExitBusy.class,
        Orphan.Close.class, "exit at one window exactly", "exit at two windows exactly");
    Props.forSeeds(4_000, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      long window = r.nextBoolean() ? POLICY.lostExitMs() : 1 + r.nextLong(10_000);
      OrphanPolicy p = new OrphanPolicy(window);
      long lostAt = r.nextLong(1L << 40);
      for (int i = 0; i < 1 + r.nextInt(10); i++) {
        WorkSet w = r.nextBoolean() ? WorkSet.EMPTY : WorkSet.EMPTY.plus(Props.pick(r, Kind.values()), "x" + i);
        long now = Props.near(r, lostAt + Props.pick(r, 1L, 2L) * window, window);
        String ctx = "seed " + seed + ", lost at " + lostAt + ", now " + now + ", " + w + ", window " + window;
        Orphan d = p.onTick(lostAt, w, now);
        assertEquals(OrphanLaw.decide(window, lostAt, w, now), d, ctx);
        SupervisorInvariants.s4OrphanAbortsNothing(window, lostAt, w, now, d, ctx);
        if (d instanceof Orphan.Wait) {
          cov.label(w.isBusy() ? "wait two windows" : "wait one window");
        } else {
          cov.saw(d);
          if (now - lostAt == window && d instanceof Orphan.Close) {
            cov.label("exit at one window exactly");
          }
          if (now - lostAt == 2 * window && d instanceof Orphan.ExitBusy) {
            cov.label("exit at two windows exactly");
          }
        }
      }
    });
    cov.assertComplete();
  }

  @Test
  void S4_anOrphanThatExitsBusyIsResumedByABootWithinTheRevivalWindow() {
    RevivalGate gate = RevivalGate.from(TimeoutLattice.defaults());
    Props.Coverage cov = new Props.Coverage("S4 then S3", "resumed", "too late", "closed, not revived");
    Props.forSeeds(2_000, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      long lostAtMono = r.nextLong(1L << 30);
      long wallOffset = r.nextLong(1L << 40);
      WorkSet w = r.nextBoolean() ? RUN : WorkSet.EMPTY;
      long now = lostAtMono;
      Orphan d;
      while ((d = POLICY.onTick(lostAtMono, w, now)) instanceof Orphan.Wait wait) {
        now = wait.untilMonoMs() + r.nextLong(2);
      }
      Optional<BusyRecord> latest = d instanceof Orphan.ExitBusy ? Optional.of(new BusyRecord(true, now + wallOffset))
          : Optional.of(new BusyRecord(false, now + wallOffset));
      long window = gate.busyFreshnessMs() + gate.revivalClockSkewMs();
      long bootAfterExit = Props.near(r, window, 30 * MIN);
      Revival v = gate.atBoot(latest, now + wallOffset + bootAfterExit);
      String ctx = "seed " + seed + ", " + d + ", boot " + bootAfterExit + "ms after exit: " + v;
      if (d instanceof Orphan.ExitBusy) {
        assertEquals(bootAfterExit < window, v instanceof Revival.Revive, ctx);
        cov.label(bootAfterExit < window ? "resumed" : "too late");
      } else {
        assertTrue(v instanceof Revival.Stay, ctx);
        cov.label("closed, not revived");
      }
    });
    cov.assertComplete();
  }
}
