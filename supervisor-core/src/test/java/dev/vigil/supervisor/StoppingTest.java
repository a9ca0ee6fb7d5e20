package dev.vigil.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.supervisor.Stopping.Action;
import dev.vigil.supervisor.law.StopLaw;
import dev.vigil.supervisor.law.SupervisorInvariants;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class StoppingTest {
  private static final long GRACE = 10_000;

  @Test
  void S5_S6_Q9_stopEscalationAgreesWithLawModel_stepByStep() {
    Props.Coverage cov = new Props.Coverage("stop escalation model agreement", Action.Done.class, Action.Wait.class,
        Action.AwaitExit.class, Action.Term.class, Action.Kill.class, Action.Survivor.class,
        "signal exactly when due", "one ms before due: wait", "KILL repeated", "replaced after TERM: KILL next",
        "replaced before any signal", "not replaced by a kind no harder", "frame sent again after a new connection",
        "PARK after its TERM awaits the exit", "IDLE_SHUTDOWN never signals");
    Props.forSeeds(4_000, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      long grace = r.nextBoolean() ? GRACE : 1 + r.nextLong(5_000);
      StopKind kind = Props.pick(r, StopKind.values());
      boolean beforeRelaunch = kind.kills() && r.nextBoolean();
      long now = r.nextLong(1L << 40);
      boolean delivered = r.nextBoolean();
      Stopping impl = Stopping.begin(kind, beforeRelaunch, grace, now, delivered);
      StopLaw law = new StopLaw(kind, beforeRelaunch, grace, now, delivered);
      long mark = now;
      List<String> history = new ArrayList<>(List.of("begin " + kind + (beforeRelaunch ? " before a relaunch" : "")
          + " at " + now));
      for (int step = 0; step < 40; step++) {
        String ctx = "seed " + seed + ", grace " + grace + ", " + history;
        int what = r.nextInt(10);
        if (what == 0) {
          impl = impl.redeliver();
          law.redeliver();
          history.add("redeliver");
          continue;
        }
        if (what == 1) {
          StopKind harder = Props.pick(r, StopKind.values());
          now += r.nextInt(3) == 0 ? 0 : r.nextLong(grace + 1);
          assertEquals(law.replacedBy(harder), impl.yieldsTo(harder), "replaced by " + harder + "; " + ctx);
          if (!impl.yieldsTo(harder)) {
            cov.label("not replaced by a kind no harder");
            Stopping before = impl;
            long at = now;
            assertThrows(IllegalArgumentException.class, () -> before.replacedBy(harder, at, true));
            continue;
          }
          boolean termSent = !law.termsAt().isEmpty();
          boolean took = r.nextBoolean();
          cov.label(termSent ? "replaced after TERM: KILL next" : law.killsAt().isEmpty() ? "replaced before any signal"
              : "replaced after KILL");
          impl = impl.replacedBy(harder, now, took);
          law.replace(harder, now, took);
          assertEquals(termSent ? Stopping.Next.KILL : Stopping.Next.TERM, impl.next(), ctx);
          mark = now;
          history.add("replaced by " + harder + " at " + now);
          continue;
        }
        now = Math.max(now, impl.next() == Stopping.Next.NONE ? now + r.nextLong(grace)
            : Props.near(r, impl.signalAtMonoMs(), grace));
        boolean frameWasDue = impl.frameDue();
        assertEquals(law.frameDue(), frameWasDue, ctx);
        boolean nowDelivered = !frameWasDue || r.nextBoolean();
        if (frameWasDue && nowDelivered && history.get(history.size() - 1).equals("redeliver")) {
          cov.label("frame sent again after a new connection");
        }
        boolean alive = r.nextInt(25) != 0;
        Step<Stopping, Action> s = impl.advance(now, nowDelivered, alive);
        Action expected = law.advance(now, nowDelivered, alive);
        history.add("advance at " + now + (alive ? "" : " dead") + " -> " + s.decision());
        assertEquals(expected, s.decision(), ctx);
        assertEquals(nowDelivered, s.next().delivered(), ctx);
        SupervisorInvariants.stopEscalates(law.kind(), beforeRelaunch, s.decision(), now, mark, grace, ctx);
        cov.saw(s.decision());
        if (s.decision() instanceof Action.Term || s.decision() instanceof Action.Kill) {
          if (now == impl.signalAtMonoMs()) {
            cov.label("signal exactly when due");
          }
          mark = now;
        }
        if (s.decision() instanceof Action.Wait w && w.untilMonoMs() - now == 1) {
          cov.label("one ms before due: wait");
        }
        if (s.decision() instanceof Action.Kill k && k.nth() > 1) {
          cov.label("KILL repeated");
        }
        if (s.decision() instanceof Action.AwaitExit && law.kind() == StopKind.PARK) {
          cov.label("PARK after its TERM awaits the exit");
        }
        if (s.decision() instanceof Action.AwaitExit && law.kind() == StopKind.IDLE_SHUTDOWN) {
          cov.label("IDLE_SHUTDOWN never signals");
        }
        impl = s.next();
        if (s.decision() instanceof Action.Done || s.decision() instanceof Action.Survivor) {
          break;
        }
      }
    });
    cov.assertComplete();
  }

  @Test
  void S5_anIdleShutdownStopNeverSignals_howeverLongTheWorkerLives() {
    Stopping s = Stopping.begin(StopKind.IDLE_SHUTDOWN, false, GRACE, 0, true);
    for (long t = 0; t < 100 * GRACE; t += GRACE / 3) {
      Step<Stopping, Action> step = s.advance(t, true, true);
      assertEquals(new Action.AwaitExit(), step.decision(), "at " + t);
      s = step.next();
    }
  }

  @Test
  void Q9_aParkStopSendsTermOneGraceLater_andNeverKill() {
    Stopping s = Stopping.begin(StopKind.PARK, false, GRACE, 1_000, false);
    assertEquals(new Action.Wait(11_000), s.advance(10_999, false, true).decision());
    Step<Stopping, Action> term = s.advance(11_000, false, true);
    assertEquals(new Action.Term(), term.decision(), "TERM follows after the grace even when no connection took the frame");
    assertEquals(new Action.AwaitExit(), term.next().advance(1_000_000, true, true).decision());
  }

  @Test
  void S6_aLostStopTermsAfterOneGrace_thenKillsEveryGraceWhileTheWorkerLives() {
    Stopping s = Stopping.begin(StopKind.LOST, false, GRACE, 0, true);
    Step<Stopping, Action> term = s.advance(GRACE, true, true);
    assertEquals(new Action.Term(), term.decision());
    assertEquals(new Action.Wait(2 * GRACE), term.next().advance(2 * GRACE - 1, true, true).decision());
    Step<Stopping, Action> kill = term.next().advance(2 * GRACE, true, true);
    assertEquals(new Action.Kill(1), kill.decision());
    assertEquals(new Action.Kill(2), kill.next().advance(3 * GRACE + 500, true, true).decision());
    assertEquals(new Action.Done(), kill.next().advance(2 * GRACE + 1, true, false).decision());
  }

  @Test
  void S6_beforeARelaunch_aWorkerAliveOneGraceAfterItsKillIsASurvivor() {
    Stopping s = Stopping.begin(StopKind.LOST, true, GRACE, 0, true);
    s = s.advance(GRACE, true, true).next();
    Step<Stopping, Action> kill = s.advance(2 * GRACE, true, true);
    assertEquals(new Action.Kill(1), kill.decision());
    assertEquals(new Action.Survivor(), kill.next().advance(3 * GRACE, true, true).decision());
  }

  @Test
  void aStopIsReplacedOnlyByAHarderOne_andAfterTermTheHarderOneKillsNext() {
    Stopping park = Stopping.begin(StopKind.PARK, false, GRACE, 0, true);
    assertFalse(park.yieldsTo(StopKind.IDLE_SHUTDOWN));
    assertFalse(park.yieldsTo(StopKind.PARK));
    assertTrue(park.yieldsTo(StopKind.OPERATOR));
    Stopping termed = park.advance(GRACE, true, true).next();
    Stopping operator = termed.replacedBy(StopKind.OPERATOR, GRACE + 5, false);
    assertEquals(Stopping.Next.KILL, operator.next());
    assertEquals(GRACE + 5 + GRACE, operator.signalAtMonoMs());
    assertTrue(operator.frameDue());
    Stopping lost = Stopping.begin(StopKind.LOST, false, GRACE, 0, true);
    assertFalse(lost.yieldsTo(StopKind.OPERATOR), "LOST and OPERATOR are equally hard");
  }

  @Test
  void aNewConnectionGetsTheFrameAgain() {
    Stopping s = Stopping.begin(StopKind.OPERATOR, false, GRACE, 0, true);
    assertFalse(s.frameDue());
    assertTrue(s.redeliver().frameDue());
    assertFalse(s.redeliver().advance(1, true, true).next().frameDue());
  }

  @Test
  void aStopThatCannotHoldItsRulesIsRejected() {
    assertThrows(IllegalArgumentException.class,
        () -> new Stopping(StopKind.IDLE_SHUTDOWN, false, GRACE, true, Stopping.Next.TERM, 0, 0));
    assertThrows(IllegalArgumentException.class,
        () -> new Stopping(StopKind.PARK, false, GRACE, true, Stopping.Next.KILL, 0, 0));
    assertThrows(IllegalArgumentException.class, () -> Stopping.begin(StopKind.PARK, true, GRACE, 0, true));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Stopping.begin(StopKind.LOST, false, 0, 0, true));
    assertTrue(e.getMessage().startsWith("stopGrace (0 ms) must be > 0"), e.getMessage());
  }
}
