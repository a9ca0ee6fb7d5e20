package dev.vigil.coordination.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.vigil.coordination.Claim;
import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Finish;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RetryPolicy;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunStart;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.Verdict;
import dev.vigil.coordination.Snapshot;
import dev.vigil.coordination.law.CoordinationInvariants;
import dev.vigil.coordination.law.Coverage;
import dev.vigil.coordination.law.LeaseLaw;
import dev.vigil.coordination.law.RandomSteps;
import dev.vigil.coordination.law.Step;
import dev.vigil.coordination.law.Transcript;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Differential test: seeded random step sequences ({@link RandomSteps}: many owners, tickets,
 * runs, clock jumps onto expiries and due times) applied step by step to the reference model
 * {@link LeaseLaw} and to a fresh H2 file database. Every decision must print the same transcript
 * line, the stores must hold the same snapshot after every step, and the invariants must hold.
 */
class H2DifferentialTest {
  private static final int SEQUENCES = 200;
  private static final RetryPolicy POLICY = new RetryPolicy(1_000, 60_000);

  @TempDir
  Path dir;

  @Test
  void C1_C2_C3_C6_C7_C8_Q1_Q2_Q4_Q5_Q7_Q8_Q9_Q12_Q13_Q14_h2MatchesLeaseLaw_stepByStep() {
    Coverage cov = new Coverage("H2 = LeaseLaw");
    AtomicInteger sequences = new AtomicInteger();
    AtomicInteger steps = new AtomicInteger();
    qt().withExamples(SEQUENCES).withShrinkCycles(0)
        .forAll(longs().all(), integers().between(50, 90))
        .checkAssert((seed, length) -> {
          Path file = dir.resolve("diff-" + sequences.incrementAndGet() + ".mv.db");
          List<Step> script = RandomSteps.generate(seed, length, new LeaseLaw(POLICY));
          LeaseLaw model = new LeaseLaw(POLICY);
          try (H2Coordination h2 = H2Coordination.open(file, H2Options.defaults().withRetryPolicy(POLICY))) {
            for (int i = 0; i < script.size(); i++) {
              Step step = script.get(i);
              Object expected = step.apply(model);
              Object actual = step.apply(h2);
              String where = "seed " + seed + " (length " + length + "), step " + (i + 1);
              assertEquals(Transcript.line(i, step, expected), Transcript.line(i, step, actual), where);
              Snapshot after = h2.store().snapshot();
              assertEquals(model.snapshot(), after, where + ": the stores differ after " + step);
              List<String> broken = CoordinationInvariants.violations(after);
              assertTrue(broken.isEmpty(), where + ": " + broken);
              cov.saw(Decisions.variant(actual));
              steps.incrementAndGet();
            }
            assertEquals(model.owners(), h2.store().owners(), "seed " + seed);
            assertEquals(model.countsByState(), h2.store().countsByState(), "seed " + seed);
            assertEquals(model.liveRuns(), h2.store().liveRuns(), "seed " + seed);
          }
          try {
            Files.deleteIfExists(file);
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
    assertTrue(sequences.get() >= SEQUENCES && steps.get() >= SEQUENCES * 50, sequences + " sequences, " + steps);
    cov.assertSaw("Submission.Accepted", "Submission.Duplicate",
        "SubmitAll.allAccepted", "SubmitAll.withDuplicate", "SubmitAll.empty",
        "Claim.Granted", "Claim.NOT_FOUND", "Claim.LEASED", "Claim.NOT_READY", "Claim.PARKED", "Claim.NOT_DUE",
        "ClaimNext.granted", "ClaimNext.none",
        "Start.Started", "Start.ALREADY_STARTED", "Start.NOT_CLAIMED", "Start.LEASE_LOST", "Start.NOT_FOUND",
        "AbortClaim.Aborted.READY", "AbortClaim.Aborted.HELD", "AbortClaim.NOT_FOUND", "AbortClaim.NOT_CLAIMED",
        "AbortClaim.NOT_OWNER",
        "AdoptClaim.Adopted", "AdoptClaim.NOT_FOUND", "AdoptClaim.NOT_CLAIMED", "AdoptClaim.NOT_OWNER",
        "Renewal.Renewed", "Renewal.GONE", "Renewal.NOT_OWNER", "Renewal.EXPIRED", "RenewAll.none", "RenewAll.some",
        "Readopt.Readopted", "Readopt.GONE", "Readopt.NOT_RUNNING",
        "ReadoptAll.allReadopted", "ReadoptAll.allDenied", "ReadoptAll.mixed",
        "Exit.Taken", "Exit.ALREADY_TAKEN", "Exit.NOT_RUNNING", "Exit.NOT_FOUND",
        "Settlement.Settled.SUCCEEDED", "Settlement.Settled.READY", "Settlement.Settled.HELD",
        "Settlement.Settled.FAILED",
        "Settlement.ALREADY_SETTLED", "Settlement.NOT_EXITED", "Settlement.NOT_EXIT_OWNER", "Settlement.NOT_FOUND",
        "Settlement.KILL_MISMATCH", "Settlement.Settled.KILLED.CANCELLED", "Settlement.Settled.KILLED.READY",
        "Settlement.Settled.KILLED.HELD",
        "Control.Done", "Control.NOT_FOUND", "Control.TERMINAL", "Control.LEASED", "Control.NOT_HELD",
        "Control.ATTEMPTS_LIMIT",
        "StopRequest.Recorded.TIMEOUT", "StopRequest.Recorded.KILL", "StopRequest.Recorded.KILL_RETRY",
        "StopRequest.Recorded.KILL_HOLD", "StopRequest.Recorded.unchanged", "StopRequest.NOT_FOUND",
        "StopRequest.ENDED", "StopRequest.NOT_STARTED",
        "Retry.Retried", "Retry.NOT_FOUND", "Retry.NOT_FINISHED", "Retry.ALREADY_RETRIED", "Event.serviceGivenUp",
        "Lane.true", "Lane.false", "Owner.registered");
    // Supersession is rare within random interleavings; the history property below covers it densely.
    System.out.println(cov + " over " + sequences + " sequences, " + steps + " steps");
  }

  @Test
  void Q1_Q2_Q5_Q7_Q8_h2MatchesLeaseLaw_overRandomRunHistoriesOfOneTicket() {
    Coverage cov = new Coverage("H2 = LeaseLaw, histories");
    List<Verdict> verdicts = List.of(Verdict.SUCCEEDED, Verdict.FAILED, Verdict.STALLED, Verdict.BLOCKED,
        Verdict.LOST, Verdict.PERMANENT_FAILURE);
    OwnerId owner = RandomSteps.OWNERS.get(0);
    LeaseLaw model = new LeaseLaw(POLICY);
    AtomicLong clock = new AtomicLong(RandomSteps.START_MS);
    try (H2Coordination h2 = H2Coordination.open(dir.resolve("histories.mv.db"),
        H2Options.defaults().withRetryPolicy(POLICY))) {
      AtomicInteger line = new AtomicInteger();
      qt().withExamples(150).withShrinkCycles(0)
          .forAll(lists().of(integers().between(0, verdicts.size() - 1)).ofSizeBetween(1, 8), integers().all())
          .checkAssert((history, handMask) -> {
            String where = "history " + history + ", hand-started mask " + handMask;
            long now = clock.get();
            Submission.Accepted a = (Submission.Accepted) both(model, h2, line,
                new Step.Submit(new NewTicket(Lane.DEFAULT, "command", "{}", 4, 0, 0, null), now), where);
            TicketId id = a.ticket().id();
            for (int i = 0; i < history.size(); i++) {
              Ticket t = model.ticket(id).orElseThrow();
              if (t.state().terminal()) {
                break;
              }
              if (t.state() == TicketState.HELD) {
                both(model, h2, line, new Step.Release(id), where);
              }
              now = Math.max(now + 1, model.ticket(id).orElseThrow().notBeforeMs());
              Step claim = (handMask >> i & 1) == 1 ? new Step.ClaimByHand(id, owner, now, 30_000)
                  : new Step.Claim(id, owner, now, 30_000);
              RunId run = ((Claim.Granted) both(model, h2, line, claim, where)).run().id();
              both(model, h2, line, new Step.Start(run, owner, new RunStart(
                  new ProcessIdentity("b", 7, 7, 7), "1.0.0", "0".repeat(64), now)), where);
              both(model, h2, line, new Step.TakeExit(run, ExitOwner.supervisor(owner), RunExit.unknown(now)), where);
              Verdict v = verdicts.get(history.get(i));
              Object d = both(model, h2, line, new Step.Finish(new Finish(run, ExitOwner.supervisor(owner), v, "run " + i,
                  v == Verdict.STALLED ? now + 10 : 0, false), now), where);
              cov.saw(Decisions.variant(d));
            }
            clock.set(now + 1);
            assertEquals(model.snapshot(), h2.store().snapshot(), where);
          });
      CoordinationInvariants.check(h2.store());
    }
    cov.assertSaw("Settlement.Settled.SUCCEEDED", "Settlement.Settled.superseding", "Settlement.Settled.READY",
        "Settlement.Settled.HELD", "Settlement.Settled.FAILED");
  }

  /** Applies the step to the model and to H2 and requires the same transcript line. */
  private static Object both(LeaseLaw model, H2Coordination h2, AtomicInteger line, Step step, String where) {
    int i = line.getAndIncrement();
    Object expected = step.apply(model);
    Object actual = step.apply(h2);
    assertEquals(Transcript.line(i, step, expected), Transcript.line(i, step, actual), where);
    return expected;
  }
}
