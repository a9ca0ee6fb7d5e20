package dev.vigil.bridge;

import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Finish;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunStart;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.Verdict;
import dev.vigil.coordination.law.Step;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Named coordination scenarios, one or more per law, each a list of steps that both the reference
 * model and the real store must answer line for line alike. A scenario's name starts with the id
 * of the law it shows.
 */
final class CoordinationScenarios {
  static final long T0 = 1_700_000_000_000L;
  static final long TTL = 30_000;
  static final OwnerId A = new OwnerId("d-alpha");
  static final OwnerId B = new OwnerId("d-beta");
  static final Lane BATCH = new Lane("batch");

  private CoordinationScenarios() {}

  /** Builds one scenario; tickets are t-1, t-2, … in submission order, runs t-N.1, t-N.2, …. */
  static final class Script {
    final List<Step> steps = new ArrayList<>();
    long now = T0;

    Script at(long offsetMs) {
      now = T0 + offsetMs;
      return this;
    }

    Script submit(int maxAttempts) {
      steps.add(new Step.Submit(new NewTicket(Lane.DEFAULT, "command", "{}", maxAttempts, 0, 0, null), now));
      return this;
    }

    Script submit(NewTicket n) {
      steps.add(new Step.Submit(n, now));
      return this;
    }

    Script claim(int ticket, OwnerId o) {
      steps.add(new Step.Claim(new TicketId(ticket), o, now, TTL));
      return this;
    }

    Script claimByHand(int ticket, OwnerId o) {
      steps.add(new Step.ClaimByHand(new TicketId(ticket), o, now, TTL));
      return this;
    }

    Script claimNext(Lane lane, OwnerId o, int max) {
      steps.add(new Step.ClaimNext(lane, o, now, TTL, max));
      return this;
    }

    Script start(String run, OwnerId o) {
      steps.add(new Step.Start(RunId.parse(run), o,
          new RunStart(new ProcessIdentity("boot-1", 4000 + steps.size(), 77, 4000 + steps.size()), "1.0.0",
              "cd".repeat(32), now)));
      return this;
    }

    Script abort(String run, OwnerId o) {
      steps.add(new Step.AbortClaim(RunId.parse(run), o, "no reservation within the handoff", now));
      return this;
    }

    Script adoptClaim(String run, OwnerId newOwner, OwnerId deadOwner) {
      steps.add(new Step.AdoptClaim(RunId.parse(run), newOwner, deadOwner, now, TTL));
      return this;
    }

    Script renew(String run, OwnerId o) {
      steps.add(new Step.Renew(RunId.parse(run), o, now, TTL));
      return this;
    }

    Script renewAll(OwnerId o) {
      steps.add(new Step.RenewAll(o, now, TTL));
      return this;
    }

    Script readopt(String run, OwnerId o) {
      steps.add(new Step.Readopt(RunId.parse(run), o, now, TTL));
      return this;
    }

    Script exit(String run, ExitOwner who, int code) {
      steps.add(new Step.TakeExit(RunId.parse(run), who, RunExit.code(code, now)));
      return this;
    }

    Script finish(String run, ExitOwner who, Verdict v) {
      steps.add(new Step.Finish(Finish.as(who, RunId.parse(run), v, "exit seen"), now));
      return this;
    }

    Script finishDeadOwner(String run, ExitOwner who, Verdict v) {
      steps.add(new Step.Finish(Finish.as(who, RunId.parse(run), v, "collected").forDeadExitOwner(), now));
      return this;
    }

    Script stall(String run, ExitOwner who, long untilOffsetMs) {
      steps.add(new Step.Finish(Finish.stalled(who, RunId.parse(run), T0 + untilOffsetMs, "quota"), now));
      return this;
    }

    Script park(int ticket) {
      steps.add(new Step.Park(new TicketId(ticket)));
      return this;
    }

    Script unpark(int ticket) {
      steps.add(new Step.Unpark(new TicketId(ticket)));
      return this;
    }

    Script parkLane(Lane lane) {
      steps.add(new Step.ParkLane(lane));
      return this;
    }

    Script release(int ticket) {
      steps.add(new Step.Release(new TicketId(ticket)));
      return this;
    }

    Script hold(int ticket) {
      steps.add(new Step.Hold(new TicketId(ticket), "operator", now));
      return this;
    }

    Script cancel(int ticket) {
      steps.add(new Step.Cancel(new TicketId(ticket), now));
      return this;
    }

    /** Claim, start and take the exit of the ticket's next run as A's supervisor. */
    Script runToExit(int ticket, String run, int code) {
      return claim(ticket, A).start(run, A).exit(run, ExitOwner.supervisor(A), code);
    }
  }

  static Map<String, List<Step>> all() {
    ExitOwner supA = ExitOwner.supervisor(A);
    ExitOwner recB = ExitOwner.recovery(B);
    Map<String, List<Step>> s = new LinkedHashMap<>();
    s.put("C1_twoOwnersRaceForOneTicket_oneLeaseWins",
        new Script().submit(3).claim(1, A).claim(1, B).claimNext(Lane.DEFAULT, B, 5).steps);
    s.put("C2_onlyReadyDueUnparkedTicketsAreClaimed",
        new Script().submit(new NewTicket(Lane.DEFAULT, "command", "{}", 3, 0, T0 + 5_000, null)).submit(3).hold(2)
            .submit(3).park(3).claim(1, A).claim(2, A).claim(3, A).claim(9, A).at(5_000).claim(1, A).steps);
    s.put("C3_renewalAtExpiryIsRefused_andOnlyReadoptReArmsALapsedLease",
        new Script().submit(3).claim(1, A).start("t-1.1", A).at(TTL - 1).renew("t-1.1", A).at(2 * TTL - 1)
            .renew("t-1.1", A).renew("t-1.1", B).at(10 * TTL).renew("t-1.1", A).readopt("t-1.1", B)
            .renew("t-1.1", B).steps);
    s.put("C3_adoptClaimMovesADeadOwnersClaimOnce_andOnlyTheAdopterStartsIt",
        new Script().submit(3).claim(1, A).at(10 * TTL).adoptClaim("t-1.1", B, A).adoptClaim("t-1.1", A, A)
            .start("t-1.1", A).renew("t-1.1", A).renew("t-1.1", B).start("t-1.1", B).adoptClaim("t-1.1", A, B)
            .adoptClaim("t-1.9", A, B).steps);
    s.put("Q4_abortClaimForTheFormerOwnerOfAnAdoptedClaimIsRefused",
        new Script().submit(3).claim(1, A).adoptClaim("t-1.1", B, A).abort("t-1.1", A).abort("t-1.1", B)
            .abort("t-1.1", B).steps);
    s.put("C4_aRenewalDenialChangesNothing",
        new Script().submit(3).claim(1, A).at(TTL).renew("t-1.1", A).renewAll(A).renewAll(B).steps);
    s.put("C6_supervisorAndRecoveryRaceForTheExit_oneWins",
        new Script().submit(3).claim(1, A).exit("t-1.1", supA, 0).start("t-1.1", A).exit("t-1.1", recB, 1)
            .exit("t-1.1", supA, 0).finish("t-1.1", supA, Verdict.SUCCEEDED).finish("t-1.1", recB, Verdict.LOST)
            .steps);
    s.put("C7_aLeaseGoesOnlyWithSettlementOrAbort",
        new Script().submit(3).submit(3).claim(1, A).claim(2, A).at(100 * TTL).renewAll(A).abort("t-1.1", A)
            .start("t-2.1", A).exit("t-2.1", supA, 0).finish("t-2.1", supA, Verdict.SUCCEEDED).steps);
    s.put("C8_aSecondFinishIsDenied",
        new Script().submit(3).runToExit(1, "t-1.1", 0).finish("t-1.1", supA, Verdict.SUCCEEDED)
            .finish("t-1.1", supA, Verdict.FAILED).finishDeadOwner("t-1.1", recB, Verdict.LOST).steps);
    s.put("Q1_failuresSpendAttempts_andTheLastHolds",
        new Script().submit(2).runToExit(1, "t-1.1", 1).finish("t-1.1", supA, Verdict.FAILED).claim(1, A)
            .at(1_000).runToExit(1, "t-1.2", 1).finish("t-1.2", supA, Verdict.LOST).claim(1, A).steps);
    s.put("Q2_aStallOnTheLastAttemptSpendsNothing",
        new Script().submit(1).runToExit(1, "t-1.1", 75).stall("t-1.1", supA, 60_000).claim(1, A).at(60_000)
            .claim(1, A).steps);
    s.put("Q5_recoverySettlesThroughTheSamePolicy",
        new Script().submit(2).submit(2).runToExit(1, "t-1.1", 1).claim(2, A).start("t-2.1", A)
            .exit("t-2.1", recB, 1).finish("t-1.1", supA, Verdict.LOST).finish("t-2.1", recB, Verdict.LOST).steps);
    s.put("Q5_aDeadExitOwnersRunIsSettledByRecovery",
        new Script().submit(3).runToExit(1, "t-1.1", 0).finish("t-1.1", recB, Verdict.SUCCEEDED)
            .finishDeadOwner("t-1.1", recB, Verdict.SUCCEEDED).steps);
    s.put("Q7_successSupersedesEarlierBlockedAndStalledRuns",
        new Script().submit(3).runToExit(1, "t-1.1", 75).stall("t-1.1", supA, 0).runToExit(1, "t-1.2", 1)
            .finish("t-1.2", supA, Verdict.BLOCKED).release(1).runToExit(1, "t-1.3", 0)
            .finish("t-1.3", supA, Verdict.SUCCEEDED).steps);
    s.put("Q8_aHandStartedFailureHoldsTheTicket",
        new Script().submit(3).claimByHand(1, A).start("t-1.1", A).exit("t-1.1", supA, 1)
            .finish("t-1.1", supA, Verdict.FAILED).claimNext(Lane.DEFAULT, B, 3).release(1)
            .claimNext(Lane.DEFAULT, B, 3).steps);
    s.put("Q9_parkedTicketsAndLanesAreNeverClaimed",
        new Script().submit(3).submit(new NewTicket(BATCH, "command", "{}", 3, 0, 0, null)).park(1)
            .parkLane(BATCH).claimNext(Lane.DEFAULT, A, 5).claimNext(BATCH, A, 5).claim(2, A).unpark(1)
            .claimNext(Lane.DEFAULT, A, 5).park(1).steps);
    s.put("spawnFailures_holdTheTicketAfterThree",
        new Script().submit(3).claim(1, A).abort("t-1.1", A).claim(1, A).abort("t-1.2", A).claim(1, A)
            .abort("t-1.3", A).claim(1, A).release(1).claim(1, A).cancel(1).steps);
    return s;
  }
}
