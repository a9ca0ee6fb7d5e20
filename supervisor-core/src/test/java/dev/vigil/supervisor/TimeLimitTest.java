package dev.vigil.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.supervisor.TimeLimit.Check;
import dev.vigil.supervisor.law.TimeLimitLaw;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Q12 on the pure side: the time-limit rule agrees with its law model over random runs and clocks. */
class TimeLimitTest {
  private static final long T0 = 1_000_000;
  private static final long WALL0 = 1_700_000_000_000L;

  @Test
  void Q12_aTimeLimitIsUpExactlyWhenTheRunTimeReachesIt_onTheSupervisorsClock_andStaysUp() {
    Props.Coverage cov = new Props.Coverage("Q12 time limit", Check.Unlimited.class, Check.Within.class,
        Check.Expired.class, "expired exactly at the deadline", "within one ms before", "taken over already late",
        "a wall jump after the start moves nothing", "taken over in time", "lane default used", "ticket's own used");
    Props.forSeeds(3_000, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      long ticket = r.nextInt(4) == 0 ? 0 : 1 + r.nextInt(60_000);
      long lane = r.nextBoolean() ? 0 : 1 + r.nextInt(60_000);
      long timeout = TimeLimit.effective(ticket, lane);
      if (timeout > 0) {
        cov.label(ticket > 0 ? "ticket's own used" : "lane default used");
      }
      long startMono = Props.near(r, T0, 10_000);
      long startWall = WALL0 + r.nextInt(10_000);
      boolean takenOver = r.nextBoolean();
      TimeLimit limit;
      TimeLimitLaw law;
      long origin;
      if (takenOver) {
        long downFor = r.nextInt(3) == 0 ? timeout + r.nextInt(5_000) : r.nextInt((int) Math.max(1, timeout));
        long takeoverMono = startMono + 5 + r.nextInt(1_000);
        long takeoverWall = startWall + downFor;
        limit = TimeLimit.resumed(timeout, startWall, takeoverMono, takeoverWall);
        law = TimeLimitLaw.takenOver(timeout, startWall, takeoverMono, takeoverWall);
        origin = takeoverMono;
        if (timeout > 0) {
          cov.label(downFor >= timeout ? "taken over already late" : "taken over in time");
        }
      } else {
        limit = TimeLimit.startedNow(timeout, startMono);
        law = TimeLimitLaw.started(timeout, startMono);
        origin = startMono;
        cov.label("a wall jump after the start moves nothing"); // the rule reads no wall clock after a start
      }
      boolean wasUp = false;
      long now = origin;
      for (int i = 0; i < 12; i++) {
        now += switch (r.nextInt(4)) {
          case 0 -> 0;
          case 1 -> 1;
          default -> r.nextInt(20_000);
        };
        if (timeout > 0 && r.nextInt(3) == 0 && limit.deadlineMonoMs() >= now) {
          now = Math.max(now, Props.near(r, limit.deadlineMonoMs(), 2));
        }
        Check c = limit.check(now);
        String ctx = "seed " + seed + ": " + limit + " at " + now;
        assertEquals(law.up(now), c instanceof Check.Expired, ctx);
        if (wasUp) {
          assertInstanceOf(Check.Expired.class, c, "once up, a limit stays up: " + ctx);
        }
        wasUp |= c instanceof Check.Expired;
        if (c instanceof Check.Within w) {
          assertTrue(w.untilMonoMs() > now, ctx);
          assertEquals(law.up(w.untilMonoMs()), true, "the time it names is when it is up: " + ctx);
          if (w.untilMonoMs() == now + 1) {
            cov.label("within one ms before");
          }
        }
        if (c instanceof Check.Expired e) {
          assertEquals(timeout, e.timeoutMs(), ctx);
          if (now == limit.deadlineMonoMs()) {
            cov.label("expired exactly at the deadline");
          }
        }
        cov.saw(c);
      }
    });
    cov.assertComplete();
  }

  @Test
  void Q12_aRunStartedWithoutALimitNeverTimesOut() {
    assertEquals(TimeLimit.NONE, TimeLimit.startedNow(0, 5));
    assertInstanceOf(Check.Unlimited.class, TimeLimit.NONE.check(Long.MAX_VALUE - 1));
    assertEquals(TimeLimit.NONE, TimeLimit.resumed(0, WALL0, 5, WALL0 + 1_000_000));
  }

  @Test
  void Q12_aRestartedDaemonEnforcesTheSameDeadline_evenWhenItWasDownPastIt() {
    TimeLimit resumed = TimeLimit.resumed(60_000, WALL0, T0, WALL0 + 45_000);
    assertEquals(new Check.Within(T0 + 15_000), resumed.check(T0));
    assertInstanceOf(Check.Expired.class, resumed.check(T0 + 15_000));
    assertInstanceOf(Check.Expired.class, TimeLimit.resumed(60_000, WALL0, T0, WALL0 + 3_600_000).check(T0),
        "down past the deadline: up at once");
  }
}
