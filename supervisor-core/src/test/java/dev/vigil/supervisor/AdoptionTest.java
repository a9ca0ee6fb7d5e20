package dev.vigil.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.supervisor.Adoption.Relaunch;
import dev.vigil.supervisor.Adoption.Relaunch.Retry;
import dev.vigil.supervisor.Adoption.Verdict;
import dev.vigil.supervisor.RestartBudget.Policy;
import dev.vigil.supervisor.law.AdoptionLaw;
import dev.vigil.supervisor.law.SupervisorInvariants;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class AdoptionTest {
  private static final Adoption ADOPTION = Adoption.of("b-42", TimeoutLattice.defaults());
  private static final ProcessIdentity P1 = new ProcessIdentity("boot-1", 101, 5_000, 101);
  private static final ProcessIdentity P2 = new ProcessIdentity("boot-1", 202, 6_000, 202);

  @Test
  void S6_adoptsALiveWorkerOnlyWhenItReportsTheSameBuild() {
    assertEquals(new Verdict.Adopt(), ADOPTION.verdict(true, Optional.of("b-42"), 0, 1));
    assertEquals(new Verdict.StopAsLost(Verdict.Reason.OTHER_BUILD, Optional.of("b-41")),
        ADOPTION.verdict(true, Optional.of("b-41"), 0, 1));
    assertEquals(new Verdict.NotAlive(), ADOPTION.verdict(false, Optional.of("b-42"), 0, 1));
  }

  @Test
  void S6_aSilentLiveWorkerIsAwaitedOneHandoffThenStoppedAsLost() {
    assertEquals(new Verdict.AwaitHello(10_000), ADOPTION.verdict(true, Optional.empty(), 0, 9_999));
    assertEquals(new Verdict.StopAsLost(Verdict.Reason.UNREACHABLE, Optional.empty()),
        ADOPTION.verdict(true, Optional.empty(), 0, 10_000));
  }

  @Test
  void S6_aSurvivorThatLivesOnIsStoppedAgain_countsAsAFailure_andNoLaunchHappensBesideIt() {
    Relaunch r = Relaunch.start(RestartBudget.fresh(Policy.DEFAULT));
    Step<Relaunch, Retry> failed = r.onLaunchFailed(Optional.of(P1), 0);
    assertEquals(new Retry.RetryAfter(250), failed.decision());
    Step<Relaunch, Retry> due = failed.next().onRetryDue(true, 250);
    assertEquals(new Retry.StopAgain(P1, 500), due.decision());
    assertEquals(2, due.next().budget().failuresInWindow(250));
    Step<Relaunch, Retry> gone = due.next().onRetryDue(false, 750);
    assertEquals(new Retry.Launch(), gone.decision());
    assertEquals(Optional.empty(), gone.next().survivor());
  }

  @Test
  void S6_aRelaunchGivesUpUnderTheRestartBudgetAndNamesTheSurvivor() {
    Relaunch r = Relaunch.start(RestartBudget.fresh(Policy.DEFAULT));
    Step<Relaunch, Retry> s = r.onLaunchFailed(Optional.of(P1), 0);
    for (int i = 1; i < 5; i++) {
      s = s.next().onRetryDue(true, i);
      assertTrue(s.decision() instanceof Retry.StopAgain, s.decision().toString());
    }
    s = s.next().onRetryDue(true, 5);
    assertEquals(new Retry.GiveUp(new RestartBudget.Restart.GiveUp(6, 5, 900_000), Optional.of(P1)), s.decision());
    assertTrue(s.next().onRetryDue(false, 6).decision() instanceof Retry.GiveUp, "a given-up relaunch never launches");
  }

  @Test
  void S6_adoptionVerdictAgreesWithLawModel() {
    Props.Coverage cov = new Props.Coverage("S6 adoption", Verdict.Adopt.class, "stop OTHER_BUILD", "stop UNREACHABLE",
        Verdict.AwaitHello.class, Verdict.NotAlive.class, "unreachable at handoff exactly");
    Props.forSeeds(3_000, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      long handoff = r.nextBoolean() ? ADOPTION.launchHandoffMs() : 1 + r.nextLong(100);
      AdoptionLaw law = new AdoptionLaw("b-42", handoff, Policy.DEFAULT);
      Adoption impl = new Adoption("b-42", handoff);
      boolean alive = r.nextInt(4) != 0;
      Optional<String> hello = Props.pick(r, Optional.empty(), Optional.of("b-42"), Optional.of("b-41"), Optional.of(""));
      long boot = r.nextLong(1L << 40);
      long now = Props.near(r, boot + handoff, handoff);
      String ctx = "seed " + seed + ", alive " + alive + ", hello " + hello + ", boot " + boot + ", now " + now;
      Verdict v = impl.verdict(alive, hello, boot, now);
      assertEquals(law.verdict(alive, hello, boot, now), v, ctx);
      SupervisorInvariants.s6AdoptOnlySameBuild("b-42", hello, v, ctx);
      if (v instanceof Verdict.StopAsLost s) {
        cov.label("stop " + s.reason());
        if (s.reason() == Verdict.Reason.UNREACHABLE && now - boot == handoff) {
          cov.label("unreachable at handoff exactly");
        }
      } else {
        cov.saw(v);
      }
    });
    cov.assertComplete();
  }

  @Test
  void S6_relaunchAgreesWithLawModel_andNeverLaunchesBesideASurvivor() {
    Props.Coverage cov = new Props.Coverage("S6 relaunch", Retry.Launch.class, Retry.RetryAfter.class,
        Retry.StopAgain.class, "give up naming a survivor", "give up without survivor", "launch after survivor died");
    Props.forSeeds(3_000, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      Policy p = RestartBudgetTest.randomPolicy(r);
      Relaunch impl = Relaunch.start(RestartBudget.fresh(p));
      AdoptionLaw law = new AdoptionLaw("b-42", 10_000, p);
      long now = r.nextLong(1L << 40);
      boolean survivorAlive = false;
      int failuresCounted = 0;
      for (int i = 0; i < 1 + r.nextInt(25); i++) {
        now += Props.pick(r, 0L, 1L, r.nextLong(p.windowMs() / 4 + 1), p.windowMs());
        String ctx = "seed " + seed + ", step " + i + " at " + now + ", policy " + p + ", " + impl;
        Step<Relaunch, Retry> s;
        Retry expected;
        if (r.nextBoolean()) {
          Optional<ProcessIdentity> launched = Props.pick(r, Optional.empty(), Optional.of(P1), Optional.of(P2));
          s = impl.onLaunchFailed(launched, now);
          expected = law.onLaunchFailed(launched, now);
          failuresCounted++;
          survivorAlive = launched.isPresent() ? r.nextBoolean() : survivorAlive;
        } else {
          boolean hadSurvivor = impl.survivor().isPresent() && survivorAlive;
          boolean diedMeanwhile = impl.survivor().isPresent() && survivorAlive && r.nextInt(3) == 0;
          if (diedMeanwhile) {
            survivorAlive = false;
          }
          s = impl.onRetryDue(survivorAlive, now);
          expected = law.onRetryDue(survivorAlive, now);
          SupervisorInvariants.s6NoLaunchBesideSurvivor(impl.survivor().isPresent() && survivorAlive, s.decision(), ctx);
          if (hadSurvivor && !diedMeanwhile && !impl.budget().givenUp()) {
            failuresCounted++;
          }
          if (diedMeanwhile && s.decision() instanceof Retry.Launch) {
            cov.label("launch after survivor died");
          }
        }
        assertEquals(expected, s.decision(), ctx);
        if (!impl.budget().givenUp() && !s.next().budget().givenUp()) {
          assertEquals(failuresCounted, law.failuresCounted(), "S6: a survivor that lives on counts as one more failure; " + ctx);
        }
        if (s.decision() instanceof Retry.GiveUp g) {
          cov.label(g.survivor().isPresent() ? "give up naming a survivor" : "give up without survivor");
        } else {
          cov.saw(s.decision());
        }
        impl = s.next();
      }
    });
    cov.assertComplete();
  }
}
