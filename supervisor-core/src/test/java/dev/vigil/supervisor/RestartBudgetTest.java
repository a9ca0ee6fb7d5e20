package dev.vigil.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.supervisor.RestartBudget.Policy;
import dev.vigil.supervisor.RestartBudget.Restart;
import dev.vigil.supervisor.law.RestartBudgetLaw;
import dev.vigil.supervisor.law.SupervisorInvariants;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RestartBudgetTest {
  private static final long MIN = 60_000;
  private static final long WINDOW = 15 * MIN;

  /** A policy: mostly the default, else a small random one whose cap is reachable. */
  static Policy randomPolicy(SplittableRandom r) {
    if (r.nextInt(3) == 0) {
      return Policy.DEFAULT;
    }
    long base = 1 + r.nextLong(250);
    int giveUp = r.nextInt(9);
    long cap = base * (1L << r.nextInt(6));
    long sum = TimeoutLattice.backoffSumMs(base, cap, giveUp);
    long window = Math.max(sum, 1) + r.nextLong(20_000);
    return new Policy(window, base, cap, giveUp);
  }

  /** Failure times, non-decreasing, biased so failures fall exactly at, before and after window edges. */
  static List<Long> randomFailures(SplittableRandom r, Policy p, int n) {
    List<Long> times = new ArrayList<>();
    long t = r.nextLong(1_000_000);
    for (int i = 0; i < n; i++) {
      int back = Math.max(1, p.giveUpCount());
      if (i >= back && r.nextInt(3) == 0) {
        long edge = times.get(i - back) + p.windowMs();
        t = Math.max(t, Props.near(r, edge, 2));
      } else {
        t += switch (r.nextInt(4)) {
          case 0 -> 0;
          case 1 -> r.nextLong(p.windowMs() / Math.max(1, p.giveUpCount() + 1) + 1);
          case 2 -> r.nextLong(p.windowMs() + 1);
          default -> p.windowMs() + r.nextLong(p.windowMs());
        };
      }
      times.add(t);
    }
    return times;
  }

  @Test
  void S1_implementationAgreesWithLawModel_decisionByDecision() {
    Props.Coverage cov = new Props.Coverage("S1 model agreement", Restart.After.class, Restart.GiveUp.class,
        "pause at cap", "failure forgotten exactly one window old", "give-up at one ms inside the window");
    Props.forSeeds(4_000, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      Policy p = randomPolicy(r);
      List<Long> times = randomFailures(r, p, 1 + r.nextInt(30));
      RestartBudget impl = RestartBudget.fresh(p);
      RestartBudgetLaw law = new RestartBudgetLaw(p);
      List<Restart> decisions = new ArrayList<>();
      for (int i = 0; i < times.size(); i++) {
        long now = times.get(i);
        String ctx = "seed " + seed + ", policy " + p + ", failure " + (i + 1) + " at " + now + " of " + times;
        for (long old : law.failures()) {
          if (now - old == p.windowMs()) {
            cov.label("failure forgotten exactly one window old");
          }
        }
        Step<RestartBudget, Restart> s = impl.onFailure(now);
        Restart expected = law.onFailure(now);
        assertEquals(expected, s.decision(), ctx);
        assertTrue(s.next().retained() <= p.giveUpCount(), "S1 O(1) memory: retained " + s.next().retained() + "; " + ctx);
        cov.saw(s.decision());
        if (s.decision() instanceof Restart.After a && a.delayMs() == p.backoffCapMs() && a.failuresInWindow() > 1
            && p.backoffBaseMs() < p.backoffCapMs()) {
          cov.label("pause at cap");
        }
        if (s.decision() instanceof Restart.GiveUp && !impl.givenUp() && i >= p.giveUpCount() && p.giveUpCount() > 0
            && now - times.get(i - p.giveUpCount()) == p.windowMs() - 1) {
          cov.label("give-up at one ms inside the window");
        }
        decisions.add(s.decision());
        impl = s.next();
      }
      SupervisorInvariants.s1RestartBudget(p, times, decisions, "seed " + seed);
    });
    cov.assertComplete();
  }

  @Test
  void S1_neverMoreThanGiveUpCountRestartsInAnyWindow() {
    Props.Coverage cov = new Props.Coverage("S1 restarts per window", "budget exhausted", "budget lasted");
    Props.forSeeds(3_000, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      Policy p = randomPolicy(r);
      List<Long> times = randomFailures(r, p, 1 + r.nextInt(40));
      RestartBudget b = RestartBudget.fresh(p);
      List<Long> restartedAt = new ArrayList<>();
      for (long t : times) {
        Step<RestartBudget, Restart> s = b.onFailure(t);
        if (s.decision() instanceof Restart.After) {
          restartedAt.add(t);
        }
        b = s.next();
      }
      for (long start : restartedAt) {
        long inWindow = restartedAt.stream().filter(t -> t >= start && t - start < p.windowMs()).count();
        assertTrue(inWindow <= p.giveUpCount(), "S1: " + inWindow + " restarts within one window, budget "
            + p.giveUpCount() + "; seed " + seed + ", times " + times);
      }
      cov.label(b.givenUp() ? "budget exhausted" : "budget lasted");
    });
    cov.assertComplete();
  }

  @Test
  void S1_givesUpAfterMoreThanFiveFailuresInTheWindow_sixthAt14m59s999() {
    RestartBudget b = RestartBudget.fresh(Policy.DEFAULT);
    long[] pauses = {250, 500, 1_000, 2_000, 4_000};
    for (int k = 1; k <= 5; k++) {
      Step<RestartBudget, Restart> s = b.onFailure((k - 1) * 1_000L);
      assertEquals(new Restart.After(pauses[k - 1], k), s.decision());
      b = s.next();
    }
    Restart sixth = b.onFailure(WINDOW - 1).decision();
    assertEquals(new Restart.GiveUp(6, 5, WINDOW), sixth);
    assertEquals("6 failures within 15m (more than 5): given up", ((Restart.GiveUp) sixth).why());
  }

  @Test
  void S1_sixthFailureAt15m00s000IsRestarted_theFirstIsForgotten() {
    RestartBudget b = RestartBudget.fresh(Policy.DEFAULT);
    for (int k = 1; k <= 5; k++) {
      b = b.onFailure((k - 1) * 1_000L).next();
    }
    Step<RestartBudget, Restart> sixth = b.onFailure(WINDOW);
    assertEquals(new Restart.After(4_000, 5), sixth.decision());
    assertEquals(5, sixth.next().failuresInWindow(WINDOW));
  }

  @Test
  void S1_backoffDoublesFrom250msAndStopsAtTheCap() {
    Policy p = new Policy(WINDOW, 250, 30_000, 10);
    long[] expected = {250, 500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000};
    RestartBudget b = RestartBudget.fresh(p);
    for (int k = 1; k <= 10; k++) {
      Step<RestartBudget, Restart> s = b.onFailure(k);
      assertEquals(new Restart.After(expected[k - 1], k), s.decision(), "k=" + k);
      b = s.next();
    }
    assertEquals(30_000, Policy.DEFAULT.backoffMs(8));
    assertTrue(b.onFailure(11).decision() instanceof Restart.GiveUp);
  }

  @Test
  void S1_givingUpIsFinalAndKeepsNoFailureTimes() {
    RestartBudget b = RestartBudget.fresh(Policy.DEFAULT);
    for (int i = 0; i < 6; i++) {
      b = b.onFailure(i).next();
    }
    assertTrue(b.givenUp());
    assertEquals(0, b.retained());
    assertEquals(new Restart.GiveUp(6, 5, WINDOW), b.onFailure(100 * WINDOW).decision());
  }

  @Test
  void S1_memoryStaysBoundedByTheGiveUpCountOverALongLife() {
    RestartBudget b = RestartBudget.fresh(Policy.DEFAULT);
    long gap = WINDOW / 5;
    for (long i = 0; i < 100_000; i++) {
      Step<RestartBudget, Restart> s = b.onFailure(i * gap);
      assertTrue(s.decision() instanceof Restart.After, "failure " + i);
      b = s.next();
      assertTrue(b.retained() <= 5);
    }
  }

  @Test
  void S1_aMonotonicClockNeverGoesBack() {
    RestartBudget b = RestartBudget.fresh(Policy.DEFAULT).onFailure(1_000).next();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> b.onFailure(999));
    assertTrue(e.getMessage().contains("monotonic"), e.getMessage());
  }

  @Test
  void S1_policyRejectsAWindowShorterThanItsBackoffs() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Policy(7_749, 250, 30_000, 5));
    assertEquals("restartWindow (7s749ms) must be ≥ the sum of the 5 backoffs before give-up (7s750ms)", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new Policy(WINDOW, 250, 249, 5));
    assertEquals(Policy.DEFAULT, new Policy(WINDOW, 250, 30_000, 5));
  }
}
