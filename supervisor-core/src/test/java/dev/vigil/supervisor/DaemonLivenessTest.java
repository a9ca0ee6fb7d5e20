package dev.vigil.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.supervisor.DaemonLiveness.Reading;
import dev.vigil.supervisor.DaemonLiveness.Singleton;
import dev.vigil.supervisor.DaemonLiveness.Status;
import dev.vigil.supervisor.law.DaemonStatusLaw;
import dev.vigil.supervisor.law.SupervisorInvariants;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class DaemonLivenessTest {
  private static final DaemonLiveness LIVENESS = DaemonLiveness.from(TimeoutLattice.defaults());

  @Test
  void D1_aHeartbeat29s999OldIsFresh_30sOldReadsAsNoDaemon() {
    Status s = new Status(4242, 1_000_000);
    assertEquals(new Reading.Live(s, 29_999), LIVENESS.read(Optional.of(s), 1_000_000 + 29_999));
    assertEquals(new Reading.NoDaemon(Optional.of(s)), LIVENESS.read(Optional.of(s), 1_000_000 + 30_000));
    assertEquals(new Reading.NoDaemon(Optional.empty()), LIVENESS.read(Optional.empty(), 0), "D3: missing is no daemon");
  }

  @Test
  void D1_theDaemonRewritesItsStatusEveryBeat() {
    assertFalse(LIVENESS.heartbeatDue(0, 4_999));
    assertTrue(LIVENESS.heartbeatDue(0, 5_000));
    assertThrows(IllegalArgumentException.class, () -> new DaemonLiveness(5_000, 25_000));
  }

  @Test
  void D2_aStartThatFindsAFreshHeartbeatFromAnotherLivePidRefusesAndNamesIt() {
    Optional<Status> other = Optional.of(new Status(4242, 100_000));
    Singleton s = LIVENESS.atStart(other, 7, true, 103_000);
    assertEquals(new Singleton.Refuse(4242, 3_000), s);
    assertEquals("another vigil daemon (pid 4242) is running in this home: its heartbeat is 3s old",
        ((Singleton.Refuse) s).message());
    assertEquals(new Singleton.Proceed(), LIVENESS.atStart(other, 4242, true, 103_000), "its own pid");
    assertEquals(new Singleton.Proceed(), LIVENESS.atStart(other, 7, false, 103_000), "a dead pid");
    assertEquals(new Singleton.Proceed(), LIVENESS.atStart(other, 7, true, 130_000), "a stale heartbeat");
  }

  private static long randomBeat(SplittableRandom r) {
    return r.nextBoolean() ? LIVENESS.heartbeatMs() : 1 + r.nextLong(1_000);
  }

  private static long nearStaleness(SplittableRandom r, long at, long stale) {
    return Props.pick(r, at + Props.near(r, stale, stale), at - Props.near(r, stale, stale), at + r.nextLong(stale));
  }

  @Test
  void D1_readingAgreesWithLawModel_nearSixBeats() {
    Props.Coverage cov = new Props.Coverage("D1 reading", Reading.Live.class, "stale", "missing", "dead at 6 beats exactly",
        "live one ms before 6 beats", "future beyond 6 beats");
    Props.forSeeds(4_000, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      long beat = randomBeat(r);
      DaemonLiveness l = new DaemonLiveness(beat, 6 * beat);
      Optional<Status> status = r.nextInt(6) == 0 ? Optional.empty()
          : Optional.of(new Status(1 + r.nextInt(1_000), r.nextLong(1L << 40)));
      long now = status.map(s -> nearStaleness(r, s.heartbeatAtWallMs(), 6 * beat)).orElse(r.nextLong(1L << 40));
      String ctx = "seed " + seed + ", beat " + beat + ", status " + status + ", now " + now;
      Reading reading = l.read(status, now);
      SupervisorInvariants.d1StaleIsDead(l, status, now, reading, ctx);
      assertEquals(!DaemonStatusLaw.dead(status, beat, now), reading instanceof Reading.Live, ctx);
      if (reading instanceof Reading.Live) {
        cov.saw(reading);
        if (now - status.get().heartbeatAtWallMs() == 6 * beat - 1) {
          cov.label("live one ms before 6 beats");
        }
      } else {
        cov.label(status.isEmpty() ? "missing" : "stale");
        if (status.isPresent() && now - status.get().heartbeatAtWallMs() == 6 * beat) {
          cov.label("dead at 6 beats exactly");
        }
        if (status.isPresent() && status.get().heartbeatAtWallMs() - now >= 6 * beat) {
          cov.label("future beyond 6 beats");
        }
      }
    });
    cov.assertComplete();
  }

  @Test
  void D2_singletonAgreesWithLawModel() {
    Props.Coverage cov = new Props.Coverage("D2 singleton", Singleton.Refuse.class, "proceed: no status",
        "proceed: own pid", "proceed: pid dead", "proceed: stale");
    Props.forSeeds(4_000, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      long beat = randomBeat(r);
      DaemonLiveness l = new DaemonLiveness(beat, 6 * beat);
      long ownPid = 100;
      Optional<Status> status = r.nextInt(6) == 0 ? Optional.empty()
          : Optional.of(new Status(Props.pick(r, ownPid, 200L, 300L), r.nextLong(1L << 40)));
      boolean alive = r.nextInt(4) != 0;
      long now = status.map(s -> nearStaleness(r, s.heartbeatAtWallMs(), 6 * beat)).orElse(r.nextLong(1L << 40));
      String ctx = "seed " + seed + ", beat " + beat + ", status " + status + ", alive " + alive + ", now " + now;
      Singleton s = l.atStart(status, ownPid, alive, now);
      SupervisorInvariants.d2RefusesFreshForeign(l, status, ownPid, alive, now, s, ctx);
      if (s instanceof Singleton.Refuse) {
        cov.saw(s);
      } else if (status.isEmpty()) {
        cov.label("proceed: no status");
      } else if (status.get().pid() == ownPid) {
        cov.label("proceed: own pid");
      } else if (!alive) {
        cov.label("proceed: pid dead");
      } else {
        cov.label("proceed: stale");
      }
    });
    cov.assertComplete();
  }
}
