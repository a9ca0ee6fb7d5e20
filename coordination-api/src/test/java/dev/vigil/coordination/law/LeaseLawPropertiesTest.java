package dev.vigil.coordination.law;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.vigil.coordination.AbortClaim;
import dev.vigil.coordination.AdoptClaim;
import dev.vigil.coordination.Claim;
import dev.vigil.coordination.Claims;
import dev.vigil.coordination.Control;
import dev.vigil.coordination.Exit;
import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Lease;
import dev.vigil.coordination.Readopt;
import dev.vigil.coordination.Renewal;
import dev.vigil.coordination.RetryPolicy;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunState;
import dev.vigil.coordination.Settlement;
import dev.vigil.coordination.Snapshot;
import dev.vigil.coordination.Start;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketMove;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.Verdict;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

/**
 * The C and Q laws as properties of the reference model: random step sequences (many owners,
 * tickets and runs, forward clock jumps landing on expiries), each step checked against the law
 * it touches, with every decision variant required to occur.
 */
class LeaseLawPropertiesTest {
  private static final int SEQUENCES = 600;
  private static final RetryPolicy POLICY = new RetryPolicy(1_000, 60_000);

  /** Runs {@code SEQUENCES} random sequences and hands every trace to {@code check} (the task-control laws use it too). */
  static void forEveryStep(BiConsumer<Long, Trace> check) {
    qt().withExamples(SEQUENCES).withShrinkCycles(0)
        .forAll(longs().all(), integers().between(40, 140))
        .checkAssert((seed, length) -> {
          List<Step> steps = RandomSteps.generate(seed, length, new LeaseLaw(POLICY));
          for (Trace t : Trace.record(new LeaseLaw(POLICY), steps, seed)) {
            check.accept(seed, t);
          }
        });
  }

  static Optional<Ticket> ticket(Snapshot s, TicketId id) {
    return s.tickets().stream().filter(t -> t.id().equals(id)).findFirst();
  }

  static Optional<Run> run(Snapshot s, RunId id) {
    return s.runs().stream().filter(r -> r.id().equals(id)).findFirst();
  }

  private static Optional<Lease> lease(Snapshot s, TicketId id) {
    return s.leases().stream().filter(l -> l.ticket().equals(id)).findFirst();
  }

  private static Optional<Lease> leaseOfRun(Snapshot s, RunId id) {
    return s.leases().stream().filter(l -> l.run().equals(id)).findFirst();
  }

  // ---- C1 ----

  @Test
  void C1_oneLeasePerTicketAndPerRun_underRandomInterleavingsOfOwners() {
    Coverage cov = new Coverage("C1");
    forEveryStep((seed, t) -> {
      if (t.decision() instanceof Claim.Granted g) {
        assertTrue(lease(t.before(), g.run().ticket()).isEmpty(),
            "C1: a claim was granted on a ticket that already had a lease, " + t.where(seed));
        cov.saw("granted");
      } else if (t.decision() instanceof Claim.Denied d && d.reason() == Claim.Reason.LEASED) {
        cov.saw("denied-leased");
      } else if (t.decision() instanceof Claims cs && !cs.isEmpty()) {
        cov.saw("claimNext-granted");
      }
      long distinctTickets = t.after().leases().stream().map(Lease::ticket).distinct().count();
      long distinctRuns = t.after().leases().stream().map(Lease::run).distinct().count();
      assertEquals(t.after().leases().size(), distinctTickets, "C1: two leases for one ticket, " + t.where(seed));
      assertEquals(t.after().leases().size(), distinctRuns, "C1: two leases for one run, " + t.where(seed));
    });
    cov.assertSaw("granted", "denied-leased", "claimNext-granted");
  }

  // ---- C2 ----

  @Test
  void C2_claimIsGrantedOnlyForAReadyDueUnparkedTicket_andEveryDenialChangesNothing() {
    Coverage cov = new Coverage("C2");
    forEveryStep((seed, t) -> {
      List<Claim.Granted> grants = List.of();
      long now = 0;
      if (t.step() instanceof Step.Claim c) {
        now = c.nowMs();
      } else if (t.step() instanceof Step.ClaimByHand c) {
        now = c.nowMs();
      } else if (t.step() instanceof Step.ClaimNext c) {
        now = c.nowMs();
      } else {
        return;
      }
      if (t.decision() instanceof Claim.Granted g) {
        grants = List.of(g);
      } else if (t.decision() instanceof Claim.Denied d) {
        assertEquals(t.before(), t.after(), "C2: a denied claim changed the store, " + t.where(seed));
        cov.saw(d.reason().name());
      } else if (t.decision() instanceof Claims cs) {
        grants = cs.granted();
        if (grants.isEmpty()) {
          assertEquals(t.before(), t.after(), "C2: an empty claimNext changed the store, " + t.where(seed));
          cov.saw("claimNext-none");
        }
      } else {
        throw new AssertionError(t.decision());
      }
      for (Claim.Granted g : grants) {
        Ticket pre = ticket(t.before(), g.run().ticket()).orElseThrow();
        assertEquals(TicketState.READY, pre.state(), "C2: claimed a ticket that was not READY, " + t.where(seed));
        assertTrue(pre.notBeforeMs() <= now, "C2: claimed a ticket before it was due, " + t.where(seed));
        assertTrue(!pre.parked() && !t.before().parkedLanes().contains(pre.lane()),
            "C2: claimed a parked ticket, " + t.where(seed));
        assertEquals(TicketState.LEASED, ticket(t.after(), pre.id()).orElseThrow().state());
        assertEquals(RunState.CLAIMED, run(t.after(), g.run().id()).orElseThrow().state());
        assertEquals(Optional.of(g.lease()), lease(t.after(), pre.id()),
            "C2: ticket, run and lease change in one step, " + t.where(seed));
        cov.saw("granted");
      }
    });
    cov.assertSaw("granted", "NOT_FOUND", "LEASED", "NOT_READY", "PARKED", "NOT_DUE", "claimNext-none");
  }

  // ---- C3, C4 ----

  @Test
  void C3_renewalOnlyByTheOwnerWhileUnexpired_andReadoptOnlyForRunningRuns() {
    Coverage cov = new Coverage("C3");
    forEveryStep((seed, t) -> {
      if (t.step() instanceof Step.Renew r) {
        Optional<Lease> pre = leaseOfRun(t.before(), r.run());
        Renewal expected = pre.isEmpty() ? new Renewal.Denied(Renewal.Reason.GONE)
            : !pre.get().owner().equals(r.owner()) ? new Renewal.Denied(Renewal.Reason.NOT_OWNER)
            : pre.get().expiresAtMs() <= r.nowMs() ? new Renewal.Denied(Renewal.Reason.EXPIRED)
            : new Renewal.Renewed(new Lease(r.run().ticket(), r.run(), r.owner(), r.nowMs() + r.ttlMs()));
        assertEquals(expected, t.decision(), "C3: " + t.where(seed));
        cov.saw(expected instanceof Renewal.Denied d ? "renew-" + d.reason() : "renewed");
      } else if (t.step() instanceof Step.Readopt r) {
        Optional<Run> pre = run(t.before(), r.run());
        if (t.decision() instanceof Readopt.Readopted) {
          assertEquals(RunState.RUNNING, pre.orElseThrow().state(), "C3: readopted a run that was not RUNNING, "
              + t.where(seed));
          boolean lapsed = leaseOfRun(t.before(), r.run()).orElseThrow().expiresAtMs() <= r.nowMs();
          cov.saw(lapsed ? "readopted-lapsed" : "readopted-live");
        } else if (t.decision() instanceof Readopt.Denied d) {
          cov.saw("readopt-" + d.reason());
        } else {
          throw new AssertionError(t.decision());
        }
      } else if (t.step() instanceof Step.ReadoptAll r) {
        List<?> decisions = (List<?>) t.decision();
        assertEquals(r.runs().size(), decisions.size(), "C3: one decision per run, " + t.where(seed));
        for (int i = 0; i < decisions.size(); i++) {
          Optional<Run> pre = run(t.before(), r.runs().get(i));
          boolean grantable = pre.isPresent() && pre.get().state() == RunState.RUNNING
              && leaseOfRun(t.before(), r.runs().get(i)).isPresent();
          assertEquals(grantable, decisions.get(i) instanceof Readopt.Readopted,
              "C3: readoptAll readopts exactly the RUNNING runs with a lease, run " + (i + 1) + ", " + t.where(seed));
          cov.saw(grantable ? "readoptAll-readopted" : "readoptAll-" + ((Readopt.Denied) decisions.get(i)).reason());
        }
      } else if (t.step() instanceof Step.RenewAll r) {
        long expected = t.before().leases().stream()
            .filter(l -> l.owner().equals(r.owner()) && l.expiresAtMs() > r.nowMs()).count();
        assertEquals((int) expected, t.decision(), "C3: renewAll renews exactly the owner's live leases, "
            + t.where(seed));
        cov.saw(expected == 0 ? "renewAll-none" : "renewAll-some");
      }
    });
    cov.assertSaw("renewed", "renew-GONE", "renew-NOT_OWNER", "renew-EXPIRED", "readopted-lapsed", "readopted-live",
        "readopt-GONE", "readopt-NOT_RUNNING", "renewAll-none", "renewAll-some", "readoptAll-readopted",
        "readoptAll-GONE", "readoptAll-NOT_RUNNING");
  }

  @Test
  void C4_aRenewalIsAFact_aDenialChangesNothing_andNoVerbButRenewReadoptOrAdoptClaimMovesAnExpiry() {
    Coverage cov = new Coverage("C4");
    forEveryStep((seed, t) -> {
      boolean renewalDenied = t.decision() instanceof Renewal.Denied || t.decision() instanceof Readopt.Denied
          || t.decision() instanceof AdoptClaim.Denied
          || (t.step() instanceof Step.RenewAll && Integer.valueOf(0).equals(t.decision()))
          || (t.step() instanceof Step.ReadoptAll && ((List<?>) t.decision()).stream()
              .allMatch(Readopt.Denied.class::isInstance));
      if (renewalDenied) {
        assertEquals(t.before(), t.after(), "C4: a renewal denial changed the store, " + t.where(seed));
        cov.saw("denial");
      } else if (!(t.step() instanceof Step.Renew || t.step() instanceof Step.RenewAll
          || t.step() instanceof Step.Readopt || t.step() instanceof Step.ReadoptAll
          || t.step() instanceof Step.AdoptClaim)) {
        for (Lease l : t.after().leases()) {
          lease(t.before(), l.ticket()).filter(p -> p.run().equals(l.run())).ifPresent(p ->
              assertEquals(p.expiresAtMs(), l.expiresAtMs(), "C4: a non-renewal verb moved an expiry, "
                  + t.where(seed)));
        }
        cov.saw("other");
      } else {
        cov.saw("granted");
      }
    });
    cov.assertSaw("denial", "other", "granted");
  }

  /**
   * C3: a readoptAll decides and changes exactly what readopt called for each of its runs in turn does: every
   * step applied to the model and to a twin in lockstep, the twin taking each batch one readopt at a time.
   */
  @Test
  void C3_readoptAll_isTheSequenceOfSingleReadopts() {
    Coverage cov = new Coverage("C3 readoptAll = readopts in turn");
    java.util.concurrent.atomic.AtomicInteger batches = new java.util.concurrent.atomic.AtomicInteger();
    qt().withExamples(SEQUENCES).withShrinkCycles(0)
        .forAll(longs().all(), integers().between(40, 140))
        .checkAssert((seed, length) -> {
          LeaseLaw model = new LeaseLaw(POLICY);
          LeaseLaw twin = new LeaseLaw(POLICY);
          List<Step> steps = RandomSteps.generate(seed, length, new LeaseLaw(POLICY));
          for (int i = 0; i < steps.size(); i++) {
            Step step = steps.get(i);
            Object batch = step.apply(model);
            if (!(step instanceof Step.ReadoptAll r)) {
              step.apply(twin);
              continue;
            }
            List<Readopt> oneByOne = new java.util.ArrayList<>();
            for (RunId run : r.runs()) {
              oneByOne.add(twin.readopt(run, r.owner(), r.nowMs(), r.ttlMs()));
            }
            String where = "seed " + seed + ", step " + (i + 1) + ": " + step;
            assertEquals(oneByOne, batch, where);
            assertEquals(twin.snapshot(), model.snapshot(), where);
            batches.incrementAndGet();
            long readopted = oneByOne.stream().filter(Readopt.Readopted.class::isInstance).count();
            cov.saw(readopted == oneByOne.size() ? "all-readopted" : readopted == 0 ? "all-denied" : "mixed");
            oneByOne.stream().filter(Readopt.Denied.class::isInstance)
                .forEach(d -> cov.saw("denied-" + ((Readopt.Denied) d).reason()));
            if (r.runs().stream().distinct().count() < r.runs().size()) {
              cov.saw("a run named twice");
            }
            if (r.runs().size() > 1) {
              cov.saw("several runs");
            }
          }
          assertEquals(twin.snapshot(), model.snapshot(), "seed " + seed);
        });
    assertTrue(batches.get() >= SEQUENCES / 2, batches + " batches");
    cov.assertSaw("all-readopted", "all-denied", "mixed", "denied-GONE", "denied-NOT_RUNNING", "a run named twice",
        "several runs");
  }

  @Test
  void C3_adoptClaim_movesOnlyAClaimedLeaseFromTheNamedOwner() {
    Coverage cov = new Coverage("C3 adoptClaim");
    forEveryStep((seed, t) -> {
      if (!(t.step() instanceof Step.AdoptClaim a)) {
        return;
      }
      Optional<Run> pre = run(t.before(), a.run());
      Optional<Lease> preLease = leaseOfRun(t.before(), a.run());
      AdoptClaim expected = pre.isEmpty() ? new AdoptClaim.Denied(AdoptClaim.Reason.NOT_FOUND)
          : pre.get().state() != RunState.CLAIMED ? new AdoptClaim.Denied(AdoptClaim.Reason.NOT_CLAIMED)
          : preLease.isEmpty() || !preLease.get().owner().equals(a.deadOwner())
              ? new AdoptClaim.Denied(AdoptClaim.Reason.NOT_OWNER)
          : new AdoptClaim.Adopted(pre.get().ownedBy(a.newOwner()),
              new Lease(a.run().ticket(), a.run(), a.newOwner(), a.nowMs() + a.ttlMs()));
      assertEquals(expected, t.decision(), "C3: " + t.where(seed));
      if (expected instanceof AdoptClaim.Adopted adopted) {
        List<Run> runs = t.before().runs().stream().map(r -> r.id().equals(a.run()) ? adopted.run() : r).toList();
        List<Lease> leases = t.before().leases().stream()
            .map(l -> l.run().equals(a.run()) ? adopted.lease() : l).toList();
        assertEquals(new Snapshot(t.before().tickets(), runs, leases, t.before().parkedLanes(), t.before().owners(),
            t.before().events()),
            t.after(), "C3: adoptClaim moves the run's owner and its lease and nothing else, " + t.where(seed));
        boolean lapsed = preLease.get().expiresAtMs() <= a.nowMs();
        cov.saw(a.newOwner().equals(a.deadOwner()) ? "adopted-by-the-same-owner"
            : lapsed ? "adopted-lapsed" : "adopted-live");
      } else if (expected instanceof AdoptClaim.Denied d) {
        assertEquals(t.before(), t.after(), "C3: a denied adoptClaim changed the store, " + t.where(seed));
        cov.saw(d.reason().name());
      } else {
        throw new AssertionError(expected);
      }
    });
    cov.assertSaw("adopted-lapsed", "adopted-live", "adopted-by-the-same-owner", "NOT_FOUND", "NOT_CLAIMED",
        "NOT_OWNER");
  }

  @Test
  void Q4_abortClaim_rollsBackOnlyAClaimWhoseLeaseTheNamedOwnerHolds() {
    Coverage cov = new Coverage("Q4 abortClaim");
    forEveryStep((seed, t) -> {
      if (!(t.step() instanceof Step.AbortClaim a)) {
        return;
      }
      Optional<Run> pre = run(t.before(), a.run());
      Optional<Lease> preLease = leaseOfRun(t.before(), a.run());
      Optional<AbortClaim.Reason> expected = pre.isEmpty() ? Optional.of(AbortClaim.Reason.NOT_FOUND)
          : pre.get().state() != RunState.CLAIMED ? Optional.of(AbortClaim.Reason.NOT_CLAIMED)
          : preLease.isEmpty() || !preLease.get().owner().equals(a.owner())
              ? Optional.of(AbortClaim.Reason.NOT_OWNER)
          : Optional.empty();
      if (t.decision() instanceof AbortClaim.Aborted ab) {
        assertEquals(Optional.empty(), expected, "Q4: " + t.where(seed));
        assertEquals(pre.get().settled(Verdict.ABANDONED, a.why()), ab.run(), t.where(seed));
        assertTrue(lease(t.after(), a.run().ticket()).isEmpty(), "C7: " + t.where(seed));
        assertEquals(a.owner(), pre.get().owner(), "Q4: the named owner is the claim's owner, " + t.where(seed));
        cov.saw(ab.ticket().state() == TicketState.HELD ? "aborted-held" : "aborted");
      } else if (t.decision() instanceof AbortClaim.Denied d) {
        assertEquals(expected, Optional.of(d.reason()), "Q4: " + t.where(seed));
        assertEquals(t.before(), t.after(), "Q4: a denied abortClaim changed the store, " + t.where(seed));
        cov.saw(d.reason().name());
      } else {
        throw new AssertionError(t.decision());
      }
    });
    cov.assertSaw("aborted", "aborted-held", "NOT_FOUND", "NOT_CLAIMED", "NOT_OWNER");
  }

  // ---- C6, C7, C8 ----

  @Test
  void C6_exactlyOneClaimantTakesEachExit_andLosersAreToldTheWinner() {
    Coverage cov = new Coverage("C6");
    forEveryStep((seed, t) -> {
      if (!(t.step() instanceof Step.TakeExit x)) {
        return;
      }
      Optional<Run> pre = run(t.before(), x.run());
      if (t.decision() instanceof Exit.Taken taken) {
        assertEquals(RunState.RUNNING, pre.orElseThrow().state(), "C6: " + t.where(seed));
        assertEquals(x.claimant(), taken.run().exitOwner());
        cov.saw("taken-" + x.claimant().role());
      } else if (t.decision() instanceof Exit.Denied d) {
        assertEquals(t.before(), t.after(), "C6: a denied takeExit changed the store, " + t.where(seed));
        if (d.reason() == Exit.Reason.ALREADY_TAKEN) {
          assertEquals(pre.orElseThrow().exitOwner(), d.winner(), "C6: the loser is told who won, " + t.where(seed));
        }
        cov.saw("denied-" + d.reason());
      } else {
        throw new AssertionError(t.decision());
      }
    });
    cov.assertSaw("taken-SUPERVISOR", "taken-RECOVERY", "denied-ALREADY_TAKEN", "denied-NOT_RUNNING",
        "denied-NOT_FOUND");
  }

  @Test
  void C7_aLeaseIsDeletedExactlyWhenItsRunIsSettledOrItsClaimRolledBack() {
    Coverage cov = new Coverage("C7");
    forEveryStep((seed, t) -> {
      for (Lease l : t.before().leases()) {
        boolean gone = lease(t.after(), l.ticket()).filter(a -> a.run().equals(l.run())).isEmpty();
        boolean settledHere = t.decision() instanceof Settlement.Settled s && s.run().id().equals(l.run());
        boolean abortedHere = t.decision() instanceof AbortClaim.Aborted a && a.run().id().equals(l.run());
        assertEquals(settledHere || abortedHere, gone,
            "C7: lease of " + l.run() + " must go exactly with its settlement or abort, " + t.where(seed));
        if (gone) {
          cov.saw(settledHere ? "deleted-by-finish" : "deleted-by-abort");
        } else if (l.expiresAtMs() <= nowOf(t.step())) {
          cov.saw("expired-but-kept");
        }
      }
    });
    cov.assertSaw("deleted-by-finish", "deleted-by-abort", "expired-but-kept");
  }

  private static long nowOf(Step s) {
    if (s instanceof Step.Claim c) {
      return c.nowMs();
    } else if (s instanceof Step.ClaimNext c) {
      return c.nowMs();
    } else if (s instanceof Step.Renew r) {
      return r.nowMs();
    } else if (s instanceof Step.Finish f) {
      return f.nowMs();
    } else if (s instanceof Step.Submit sub) {
      return sub.nowMs();
    } else if (s instanceof Step.TakeExit x) {
      return x.exit().atMs();
    }
    return Long.MIN_VALUE;
  }

  @Test
  void C8_aRunIsSettledOnce_andASecondFinishChangesNothing() {
    Coverage cov = new Coverage("C8");
    forEveryStep((seed, t) -> {
      if (!(t.step() instanceof Step.Finish f)) {
        return;
      }
      Optional<Run> pre = run(t.before(), f.finish().run());
      if (t.decision() instanceof Settlement.Settled) {
        assertEquals(RunState.EXITED, pre.orElseThrow().state(), "C8: " + t.where(seed));
        cov.saw("settled");
      } else if (t.decision() instanceof Settlement.Denied d) {
        assertEquals(t.before(), t.after(), "C8: a denied finish changed the store, " + t.where(seed));
        if (pre.isPresent() && pre.get().state() == RunState.SETTLED) {
          assertEquals(Settlement.Reason.ALREADY_SETTLED, d.reason(), t.where(seed));
        }
        cov.saw(d.reason().name());
      } else {
        throw new AssertionError(t.decision());
      }
    });
    cov.assertSaw("settled", "ALREADY_SETTLED", "NOT_EXITED", "NOT_EXIT_OWNER", "NOT_FOUND");
  }

  // ---- Q1, Q2, Q5, Q7, Q8 ----

  @Test
  void Q1_failedAndLostSpendOneAttempt_andExhaustionHoldsTheTicket_neverReady() {
    Coverage cov = new Coverage("Q1");
    forEveryStep((seed, t) -> {
      if (!(t.decision() instanceof Settlement.Settled s)) {
        return;
      }
      Verdict v = s.run().verdict();
      Ticket pre = ticket(t.before(), s.ticket().id()).orElseThrow();
      int spent = s.ticket().attemptsUsed() - pre.attemptsUsed();
      assertEquals(v.chargesAttempt() ? 1 : 0, spent, "Q1: attempts spent by " + v + ", " + t.where(seed));
      if (v == Verdict.FAILED || v == Verdict.LOST) {
        if (s.ticket().attemptsUsed() >= s.ticket().allowedAttempts()) {
          assertEquals(TicketState.HELD, s.ticket().state(), "Q1: exhausted must be HELD, " + t.where(seed));
          cov.saw("exhausted-held");
        } else {
          assertTrue(s.ticket().state() == TicketState.READY || s.run().handStarted(), t.where(seed));
          cov.saw(s.ticket().state() == TicketState.READY ? "retry-ready" : "hand-held");
        }
      }
    });
    cov.assertSaw("exhausted-held", "retry-ready");
  }

  @Test
  void Q2_aStallSpendsNoAttempt_andTheTicketIsReadyAtTheHint() {
    Coverage cov = new Coverage("Q2");
    forEveryStep((seed, t) -> {
      if (t.decision() instanceof Settlement.Settled s && s.run().verdict() == Verdict.STALLED) {
        Ticket pre = ticket(t.before(), s.ticket().id()).orElseThrow();
        Step.Finish f = (Step.Finish) t.step();
        assertEquals(pre.attemptsUsed(), s.ticket().attemptsUsed(), "Q2: a stall spent an attempt, " + t.where(seed));
        if (s.run().handStarted()) {
          assertEquals(TicketState.HELD, s.ticket().state(), t.where(seed));
          cov.saw("hand-stall-held");
        } else {
          assertEquals(TicketState.READY, s.ticket().state(), "Q2: a stall never holds, " + t.where(seed));
          assertEquals(Math.max(f.finish().stallUntilMs(), f.nowMs()), s.ticket().notBeforeMs(), t.where(seed));
          cov.saw(pre.attemptsUsed() == pre.allowedAttempts() - 1 ? "stall-on-last-attempt" : "stall");
        }
      }
    });
    cov.assertSaw("stall", "stall-on-last-attempt");
  }

  @Test
  void Q5_everySettlementMovesTheTicketByThePolicy_whoeverSettles() {
    Coverage cov = new Coverage("Q5");
    forEveryStep((seed, t) -> {
      if (t.decision() instanceof Settlement.Settled s) {
        Step.Finish f = (Step.Finish) t.step();
        Ticket pre = ticket(t.before(), s.ticket().id()).orElseThrow();
        Run preRun = run(t.before(), s.run().id()).orElseThrow();
        TicketMove move = POLICY.decide(pre, preRun.handStarted(), f.finish().verdict(), f.finish().diagnosis(),
            f.finish().stallUntilMs(), f.nowMs(), preRun.stopIntent());
        assertEquals(move.applyTo(pre), s.ticket(), "Q5: one policy, " + t.where(seed));
        String who = f.finish().claimant().equals(preRun.exitOwner()) ? f.finish().claimant().role().name()
            : "dead-exit-owner";
        cov.saw(who);
        cov.saw(move.getClass().getSimpleName());
      }
    });
    cov.assertSaw("SUPERVISOR", "RECOVERY", "dead-exit-owner", "Succeed", "Fail", "Retry", "Resume", "Hold", "Cancel");
  }

  @Test
  void Q7_aSuccessSupersedesEarlierBlockedAndStalledRuns_andRewritesNothingElse() {
    Coverage cov = new Coverage("Q7");
    forEveryStep((seed, t) -> {
      if (!(t.decision() instanceof Settlement.Settled s)) {
        return;
      }
      Map<RunId, Run> pre = new HashMap<>();
      t.before().runs().forEach(r -> pre.put(r.id(), r));
      for (Run after : t.after().runs()) {
        Run before = pre.get(after.id());
        if (after.id().equals(s.run().id())) {
          continue;
        }
        boolean superseded = s.superseded().contains(after.id());
        if (superseded) {
          assertEquals(TicketState.SUCCEEDED, s.ticket().state(), t.where(seed));
          assertTrue(before.verdict() == Verdict.BLOCKED || before.verdict() == Verdict.STALLED, t.where(seed));
          assertEquals(before.settled(Verdict.SUPERSEDED, before.diagnosis()), after, t.where(seed));
        } else {
          assertEquals(before, after, "Q7: nothing else is rewritten, " + t.where(seed));
        }
      }
      if (s.ticket().state() == TicketState.SUCCEEDED) {
        cov.saw(s.superseded().isEmpty() ? "success-alone" : "success-supersedes");
      }
    });
    // Supersession within random interleavings is rare; the history property below covers it densely.
    cov.assertSaw("success-alone");
  }

  @Test
  void Q7_overRandomRunHistoriesOfOneTicket_successSupersedesExactlyTheEarlierBlockedAndStalledRuns() {
    Coverage cov = new Coverage("Q7 histories");
    List<Verdict> verdicts = List.of(Verdict.SUCCEEDED, Verdict.FAILED, Verdict.STALLED, Verdict.BLOCKED,
        Verdict.LOST, Verdict.PERMANENT_FAILURE);
    qt().withExamples(2_000)
        .forAll(org.quicktheories.generators.SourceDSL.lists().of(integers().between(0, verdicts.size() - 1))
            .ofSizeBetween(1, 8))
        .checkAssert(history -> {
          LeaseLaw c = new LeaseLaw(POLICY);
          dev.vigil.coordination.OwnerId o = RandomSteps.OWNERS.get(0);
          TicketId id = ((dev.vigil.coordination.Submission.Accepted) c.submit(
              new dev.vigil.coordination.NewTicket(dev.vigil.coordination.Lane.DEFAULT, "command", "{}", 10, 0, 0,
                  null), 0)).ticket().id();
          long now = 0;
          List<RunId> blockedOrStalled = new java.util.ArrayList<>();
          for (int ix : history) {
            Ticket t = c.ticket(id).orElseThrow();
            if (t.state().terminal()) {
              break;
            }
            if (t.state() == TicketState.HELD) {
              c.release(id);
            }
            now = Math.max(now, c.ticket(id).orElseThrow().notBeforeMs());
            RunId run = ((Claim.Granted) c.claim(id, o, now, 30_000)).run().id();
            c.start(run, o, new dev.vigil.coordination.RunStart(
                new dev.vigil.coordination.ProcessIdentity("b", 7, 7, 7), "1", "0".repeat(64), now));
            c.takeExit(run, ExitOwner.supervisor(o), dev.vigil.coordination.RunExit.unknown(now));
            Verdict v = verdicts.get(ix);
            Settlement.Settled s = (Settlement.Settled) c.finish(new dev.vigil.coordination.Finish(run,
                ExitOwner.supervisor(o), v, null, v == Verdict.STALLED ? now + 10 : 0, false), now);
            if (v == Verdict.SUCCEEDED) {
              assertEquals(blockedOrStalled, s.superseded(), "Q7: history " + history);
              for (RunId r : blockedOrStalled) {
                assertEquals(Verdict.SUPERSEDED, c.run(r).orElseThrow().verdict(), "Q7: history " + history);
              }
              cov.saw(blockedOrStalled.isEmpty() ? "success-alone" : "success-supersedes");
            } else {
              assertEquals(List.of(), s.superseded(), "Q7: only a success supersedes, history " + history);
              if (v == Verdict.BLOCKED || v == Verdict.STALLED) {
                blockedOrStalled.add(run);
              }
              cov.saw("no-success-" + v);
            }
          }
          CoordinationInvariants.check(c);
        });
    cov.assertSaw("success-alone", "success-supersedes", "no-success-FAILED", "no-success-STALLED",
        "no-success-BLOCKED", "no-success-LOST", "no-success-PERMANENT_FAILURE");
  }

  @Test
  void Q8_aHandStartedRunThatLeavesItsTicketRunnable_holdsIt() {
    Coverage cov = new Coverage("Q8");
    forEveryStep((seed, t) -> {
      if (t.decision() instanceof Settlement.Settled s && s.run().handStarted()) {
        assertTrue(s.ticket().state() != TicketState.READY, "Q8: a hand-started run left its ticket READY, "
            + t.where(seed));
        cov.saw("hand-" + s.ticket().state());
      } else if (t.decision() instanceof AbortClaim.Aborted a && a.run().handStarted()) {
        // Q8 and Q13: held, unless an operator's kill cancelled the ticket
        assertEquals(a.run().stopIntent() == dev.vigil.coordination.StopIntent.KILL ? TicketState.CANCELLED
            : TicketState.HELD, a.ticket().state(), t.where(seed));
        cov.saw("hand-abort-" + a.ticket().state());
      } else if (t.step() instanceof Step.Release && t.decision() instanceof Control.Done d) {
        assertEquals(TicketState.READY, d.ticket().state(), t.where(seed));
        cov.saw("released");
      }
    });
    cov.assertSaw("hand-HELD", "hand-SUCCEEDED", "hand-abort-HELD", "released");
  }

  // ---- Q9 ----

  @Test
  void Q9_parkedTicketsAndLanesAreNeverClaimed() {
    Coverage cov = new Coverage("Q9");
    forEveryStep((seed, t) -> {
      List<Claim.Granted> grants = t.decision() instanceof Claim.Granted g ? List.of(g)
          : t.decision() instanceof Claims cs ? cs.granted() : List.of();
      for (Claim.Granted g : grants) {
        Ticket pre = ticket(t.before(), g.run().ticket()).orElseThrow();
        assertTrue(!pre.parked(), "Q9: a parked ticket was claimed, " + t.where(seed));
        assertTrue(!t.before().parkedLanes().contains(pre.lane()), "Q9: a parked lane was claimed, " + t.where(seed));
        cov.saw("granted");
      }
      if (t.decision() instanceof Claim.Denied d && d.reason() == Claim.Reason.PARKED) {
        cov.saw("denied-parked");
      }
      if (t.step() instanceof Step.ClaimNext c && t.before().parkedLanes().contains(c.lane())) {
        assertEquals(Claims.NONE, t.decision(), t.where(seed));
        cov.saw("parked-lane-skipped");
      }
      if (t.step() instanceof Step.Park && t.decision() instanceof Control.Done d
          && d.ticket().state() == TicketState.LEASED) {
        cov.saw("parked-while-leased");
      }
    });
    cov.assertSaw("granted", "denied-parked", "parked-lane-skipped", "parked-while-leased");
  }

  // ---- value laws on single verbs ----

  @Test
  void Q1_Q2_retryPolicy_spendsAndHoldsExactlyAsTheLawSays_forRandomTicketsAndVerdicts() {
    Coverage cov = new Coverage("Q1/Q2 policy");
    qt().withExamples(5_000)
        .forAll(integers().between(1, 6), integers().between(0, 6), integers().between(0, 5),
            integers().between(0, 1))
        .checkAssert((max, used, verdictIx, hand) -> {
          int attemptsUsed = Math.min(used, max);
          Verdict v = List.of(Verdict.SUCCEEDED, Verdict.FAILED, Verdict.PERMANENT_FAILURE, Verdict.STALLED,
              Verdict.BLOCKED, Verdict.LOST).get(verdictIx);
          Ticket t = new Ticket(new TicketId(1), dev.vigil.coordination.Lane.DEFAULT, "command", "{}",
              TicketState.LEASED, attemptsUsed, max, 0, 0, 0, false, null, 0);
          TicketMove m = POLICY.decide(t, hand == 1, v, null, 5_000, 1_000);
          assertEquals(attemptsUsed + (v.chargesAttempt() ? 1 : 0), m.attemptsUsed());
          if ((v == Verdict.FAILED || v == Verdict.LOST) && m.attemptsUsed() >= max) {
            assertTrue(m instanceof TicketMove.Hold, "Q1: exhausted → HELD, got " + m);
            cov.saw("exhausted");
          }
          if (v == Verdict.STALLED && hand == 0) {
            assertEquals(new TicketMove.Resume(attemptsUsed, 5_000), m, "Q2");
            cov.saw("stall");
          }
          if (hand == 1) {
            assertTrue(!(m instanceof TicketMove.Retry || m instanceof TicketMove.Resume), "Q8: " + m);
          }
          cov.saw(m.getClass().getSimpleName());
        });
    cov.assertSaw("exhausted", "stall", "Succeed", "Fail", "Retry", "Resume", "Hold");
  }

  @Test
  void retryBackoffDoublesFromTheBase_andStopsAtTheCap() {
    qt().withExamples(2_000).forAll(integers().between(1, 200))
        .checkAssert(used -> {
          long expected = Math.min(60_000, 1_000L << Math.min(used - 1, 20));
          assertEquals(expected, POLICY.backoffMs(used));
        });
    assertEquals(60_000, POLICY.backoffMs(Integer.MAX_VALUE));
  }

  @Test
  void startIsGrantedOnlyToTheLeaseOwnerOfAClaimedRun() {
    Coverage cov = new Coverage("Q3 start");
    forEveryStep((seed, t) -> {
      if (t.step() instanceof Step.Start st) {
        if (t.decision() instanceof Start.Started) {
          assertEquals(RunState.CLAIMED, run(t.before(), st.run()).orElseThrow().state(), t.where(seed));
          assertEquals(st.owner(), leaseOfRun(t.before(), st.run()).orElseThrow().owner(), t.where(seed));
          cov.saw("started");
        } else if (t.decision() instanceof Start.Denied d) {
          assertEquals(t.before(), t.after(), t.where(seed));
          cov.saw(d.reason().name());
        }
      }
    });
    cov.assertSaw("started", "ALREADY_STARTED", "NOT_CLAIMED", "LEASE_LOST", "NOT_FOUND");
  }
}
