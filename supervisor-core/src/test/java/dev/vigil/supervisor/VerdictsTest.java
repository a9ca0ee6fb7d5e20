package dev.vigil.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.Verdict;
import dev.vigil.supervisor.Verdicts.Ending;
import dev.vigil.supervisor.Verdicts.Judgement;
import dev.vigil.supervisor.Verdicts.Outcome;
import dev.vigil.supervisor.law.SupervisorInvariants;
import dev.vigil.supervisor.law.VerdictLaw;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class VerdictsTest {
  private static final long NOW = 1_700_000_000_000L;
  private static final Outcome NONE = new Outcome.Missing("no outcome.json in runs/t-3.1");

  private static Outcome randomOutcome(SplittableRandom r, long now) {
    return switch (r.nextInt(4)) {
      case 0 -> NONE;
      case 1 -> new Outcome.Missing("outcome.json in runs/t-3.1 is not JSON");
      default -> {
        Verdict v = Props.pick(r, Verdict.SUCCEEDED, Verdict.FAILED, Verdict.STALLED, Verdict.BLOCKED,
            Verdict.PERMANENT_FAILURE);
        yield new Outcome.Written(v, v == Verdict.STALLED ? Props.near(r, now, 60_000) : 0,
            r.nextBoolean() ? null : "note " + r.nextInt(100),
            v == Verdict.SUCCEEDED && r.nextBoolean() ? "{\"n\":" + r.nextInt(100) + "}" : null);
      }
    };
  }

  @Test
  void Q1_Q2_Q5_verdictRuleAgreesWithLawModel() {
    Props.Coverage cov = new Props.Coverage("verdict rule model agreement", Judgement.Reported.class,
        Judgement.StoppedWithoutOutcome.class, Judgement.NeverBegan.class, Judgement.Lost.class, Judgement.Killed.class,
        Judgement.TimedOut.class, "a kill wins over the worker's outcome", "a time-out wins over the worker's outcome",
        "outcome wins over a stop", "outcome wins over no go", "idle-shutdown stop without an outcome: LOST",
        "stopped and never told to go: the stop speaks", "stalled outcome keeps its hint", "unknown exit",
        "exit by signal", "reported without a note", "a success keeps its result", "a kill drops the result");
    Props.forSeeds(3_000, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      long now = Props.near(r, NOW, 1_000);
      Outcome outcome = randomOutcome(r, now);
      RunExit exit = switch (r.nextInt(4)) {
        case 0 -> null;
        case 1 -> RunExit.unknown(now);
        case 2 -> RunExit.signal(Props.pick(r, 9, 15), now);
        default -> RunExit.code(r.nextInt(3), now);
      };
      StopKind stop = r.nextBoolean() ? null : Props.pick(r, StopKind.values());
      dev.vigil.coordination.StopIntent intent = r.nextInt(4) != 0 ? null
          : Props.pick(r, dev.vigil.coordination.StopIntent.values());
      Ending ending = new Ending(outcome, exit, stop, r.nextInt(3) == 0, intent, intent == null ? 0 : 1 + r.nextInt(90_000));
      String ctx = "seed " + seed + ", " + ending + ", now " + now;
      Judgement j = Verdicts.judge(ending, now);
      assertEquals(VerdictLaw.decide(ending, now), j, ctx);
      SupervisorInvariants.q1q2VerdictOfAnEndedRun(ending, j, ctx);
      cov.saw(j);
      if (outcome instanceof Outcome.Written w && w.result() != null) {
        if (j instanceof Judgement.Reported) {
          assertEquals(w.result(), j.result(), "a success's result is what the settlement stores: " + ctx);
          cov.label("a success keeps its result");
        } else {
          assertEquals(null, j.result(), "only the worker's own success keeps a result: " + ctx);
          if (j instanceof Judgement.Killed) {
            cov.label("a kill drops the result");
          }
        }
      }
      if (intent != null) {
        if (outcome instanceof Outcome.Written) {
          cov.label(intent.kill() ? "a kill wins over the worker's outcome" : "a time-out wins over the worker's outcome");
        }
      } else if (outcome instanceof Outcome.Written w) {
        if (stop != null && stop != StopKind.IDLE_SHUTDOWN) {
          cov.label("outcome wins over a stop");
        }
        if (ending.neverToldToGo()) {
          cov.label("outcome wins over no go");
        }
        if (w.verdict() == Verdict.STALLED && j.stallUntilWallMs() == w.stallUntilWallMs()) {
          cov.label("stalled outcome keeps its hint");
        }
        if (w.note() == null) {
          cov.label("reported without a note");
        }
      } else {
        if (stop == StopKind.IDLE_SHUTDOWN && !ending.neverToldToGo()) {
          assertEquals(Verdict.LOST, j.verdict(), ctx);
          cov.label("idle-shutdown stop without an outcome: LOST");
        }
        if (j instanceof Judgement.StoppedWithoutOutcome && ending.neverToldToGo()) {
          cov.label("stopped and never told to go: the stop speaks");
        }
        if (exit == null || (exit.exitCode() == null && exit.signal() == null)) {
          cov.label("unknown exit");
        } else if (exit.signal() != null) {
          cov.label("exit by signal");
        }
      }
    });
    cov.assertComplete();
  }

  @Test
  void Q2_aRunThisDaemonParkedThatEndedWithoutAnOutcomeStallsNow_noAttemptSpent() {
    Judgement j = Verdicts.judge(new Ending(NONE, RunExit.signal(15, NOW), StopKind.PARK, false), NOW);
    assertEquals(new Judgement.StoppedWithoutOutcome(NOW, "worker ended (signal 15) after a PARK stop without an "
        + "outcome (no outcome.json in runs/t-3.1): work left resumable, no attempt spent"), j);
  }

  @Test
  void Q3_aWorkerNeverToldToGoBeganNoWork() {
    Judgement j = Verdicts.judge(new Ending(NONE, RunExit.code(0, NOW), null, true), NOW);
    assertEquals(new Judgement.NeverBegan(NOW,
        "worker ended (code 0) before it was told to go: no work began (no outcome.json in runs/t-3.1)"), j);
  }

  @Test
  void Q1_aWorkerThatEndedWithoutAnOutcomeIsLost_evenAfterAnIdleShutdownStop() {
    assertEquals(new Judgement.Lost("worker ended (unknown) without an outcome: no outcome.json in runs/t-3.1"),
        Verdicts.judge(new Ending(NONE, null, StopKind.IDLE_SHUTDOWN, false), NOW));
  }

  @Test
  void Q5_aWorkersOwnOutcomeIsItsVerdict_whateverTheDaemonDid() {
    Outcome stalled = new Outcome.Written(Verdict.STALLED, NOW + 60_000, "quota");
    assertEquals(new Judgement.Reported(Verdict.STALLED, NOW + 60_000, "quota"),
        Verdicts.judge(new Ending(stalled, RunExit.signal(9, NOW), StopKind.LOST, true), NOW));
  }

  @Test
  void Q12_Q13_aRunStoppedForItsTimeLimitFails_andAKilledRunIsKilled_whateverItWrote() {
    Outcome ok = new Outcome.Written(Verdict.SUCCEEDED, 0, "exit code 0");
    assertEquals(new Judgement.TimedOut("timed out after 30m"), Verdicts.judge(new Ending(ok, RunExit.signal(15, NOW),
        StopKind.TIMEOUT, false, dev.vigil.coordination.StopIntent.TIMEOUT, 1_800_000), NOW));
    assertEquals(new Judgement.Killed("killed by an operator"), Verdicts.judge(new Ending(NONE, RunExit.signal(9, NOW),
        null, false, dev.vigil.coordination.StopIntent.KILL_HOLD, 0), NOW), "a daemon that restarted has no stop of its own");
  }

  @Test
  void anOutcomeWithAStallHintIsOnlyAStall() {
    assertThrows(IllegalArgumentException.class, () -> new Outcome.Written(Verdict.FAILED, NOW, null));
  }
}
