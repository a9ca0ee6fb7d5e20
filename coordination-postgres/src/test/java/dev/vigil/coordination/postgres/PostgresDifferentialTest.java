package dev.vigil.coordination.postgres;

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
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Differential test: seeded random step sequences ({@link RandomSteps}: many owners, tickets,
 * runs, clock jumps onto expiries and due times) applied step by step to the reference model
 * {@link LeaseLaw} and to a fresh PostgreSQL store (a schema of its own on the test server). Every
 * decision must print the same transcript line, the stores must hold the same snapshot after every
 * step, and the invariants must hold.
 *
 * <p>Each step is a few round trips to the server, so the sequences are fewer than the H2 store's 200:
 * at least {@code -Dvigil.pg.diff.sequences} (50), then ten more at a time while some decision variant
 * has not occurred yet, up to {@link #MAX_SEQUENCES}; every variant must have occurred by then.
 */
class PostgresDifferentialTest {
  private static final int SEQUENCES = Integer.getInteger("vigil.pg.diff.sequences", 50);
  /** The most sequences run while waiting for a rare decision variant. */
  private static final int MAX_SEQUENCES = Math.max(SEQUENCES, 200);
  private static final RetryPolicy POLICY = new RetryPolicy(1_000, 60_000);
  private static final String[] VARIANTS = {"Submission.Accepted", "Submission.Duplicate",
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
        "Lane.true", "Lane.false", "Owner.registered"};

  @Test
  void C1_C2_C3_C6_C7_C8_Q1_Q2_Q4_Q5_Q7_Q8_Q9_Q12_Q13_Q14_postgresMatchesLeaseLaw_stepByStep() {
    Coverage cov = new Coverage("PostgreSQL = LeaseLaw");
    AtomicInteger sequences = new AtomicInteger();
    AtomicInteger steps = new AtomicInteger();
    sequences(SEQUENCES, cov, sequences, steps);
    while (sequences.get() < MAX_SEQUENCES && java.util.Arrays.stream(VARIANTS).anyMatch(v -> cov.count(v) == 0)) {
      sequences(10, cov, sequences, steps);
    }
    assertTrue(sequences.get() >= SEQUENCES && steps.get() >= SEQUENCES * 50, sequences + " sequences, " + steps);
    cov.assertSaw(VARIANTS);
    // Supersession is rare within random interleavings; the history property below covers it densely.
    System.out.println(cov + " over " + sequences + " sequences, " + steps + " steps");
  }

  /** {@code n} random sequences, each on a fresh store, every decision and snapshot compared with the model's. */
  private static void sequences(int n, Coverage cov, AtomicInteger sequences, AtomicInteger steps) {
    qt().withExamples(n).withShrinkCycles(0)
        .forAll(longs().all(), integers().between(50, 90))
        .checkAssert((seed, length) -> {
          sequences.incrementAndGet();
          PostgresOptions options = PostgresServer.get().freshOptions().withRetryPolicy(POLICY);
          List<Step> script = RandomSteps.generate(seed, length, new LeaseLaw(POLICY));
          LeaseLaw model = new LeaseLaw(POLICY);
          try (PostgresCoordination pg = PostgresCoordination.open(options)) {
            for (int i = 0; i < script.size(); i++) {
              Step step = script.get(i);
              Object expected = step.apply(model);
              Object actual = step.apply(pg);
              String where = "seed " + seed + " (length " + length + "), step " + (i + 1);
              assertEquals(Transcript.line(i, step, expected), Transcript.line(i, step, actual), where);
              Snapshot after = pg.store().snapshot();
              assertEquals(model.snapshot(), after, where + ": the stores differ after " + step);
              List<String> broken = CoordinationInvariants.violations(after);
              assertTrue(broken.isEmpty(), where + ": " + broken);
              cov.saw(Decisions.variant(actual));
              steps.incrementAndGet();
            }
            assertEquals(model.owners(), pg.store().owners(), "seed " + seed);
            assertEquals(model.countsByState(), pg.store().countsByState(), "seed " + seed);
            assertEquals(model.liveRuns(), pg.store().liveRuns(), "seed " + seed);
          }
          PostgresServer.get().release(options.schema());
        });
  }

  @Test
  void Q1_Q2_Q5_Q7_Q8_postgresMatchesLeaseLaw_overRandomRunHistoriesOfOneTicket() {
    Coverage cov = new Coverage("PostgreSQL = LeaseLaw, histories");
    List<Verdict> verdicts = List.of(Verdict.SUCCEEDED, Verdict.FAILED, Verdict.STALLED, Verdict.BLOCKED,
        Verdict.LOST, Verdict.PERMANENT_FAILURE);
    OwnerId owner = RandomSteps.OWNERS.get(0);
    LeaseLaw model = new LeaseLaw(POLICY);
    AtomicLong clock = new AtomicLong(RandomSteps.START_MS);
    try (PostgresCoordination pg = PostgresCoordination.open(
        PostgresServer.get().freshOptions().withRetryPolicy(POLICY))) {
      AtomicInteger line = new AtomicInteger();
      qt().withExamples(150).withShrinkCycles(0)
          .forAll(lists().of(integers().between(0, verdicts.size() - 1)).ofSizeBetween(1, 8), integers().all())
          .checkAssert((history, handMask) -> {
            String where = "history " + history + ", hand-started mask " + handMask;
            long now = clock.get();
            Submission.Accepted a = (Submission.Accepted) both(model, pg, line,
                new Step.Submit(new NewTicket(Lane.DEFAULT, "command", "{}", 4, 0, 0, null), now), where);
            TicketId id = a.ticket().id();
            for (int i = 0; i < history.size(); i++) {
              Ticket t = model.ticket(id).orElseThrow();
              if (t.state().terminal()) {
                break;
              }
              if (t.state() == TicketState.HELD) {
                both(model, pg, line, new Step.Release(id), where);
              }
              now = Math.max(now + 1, model.ticket(id).orElseThrow().notBeforeMs());
              Step claim = (handMask >> i & 1) == 1 ? new Step.ClaimByHand(id, owner, now, 30_000)
                  : new Step.Claim(id, owner, now, 30_000);
              RunId run = ((Claim.Granted) both(model, pg, line, claim, where)).run().id();
              both(model, pg, line, new Step.Start(run, owner, new RunStart(
                  new ProcessIdentity("b", 7, 7, 7), "1.0.0", "0".repeat(64), now)), where);
              both(model, pg, line, new Step.TakeExit(run, ExitOwner.supervisor(owner), RunExit.unknown(now)), where);
              Verdict v = verdicts.get(history.get(i));
              Object d = both(model, pg, line, new Step.Finish(new Finish(run, ExitOwner.supervisor(owner), v, "run " + i,
                  v == Verdict.STALLED ? now + 10 : 0, false), now), where);
              cov.saw(Decisions.variant(d));
            }
            clock.set(now + 1);
            assertEquals(model.snapshot(), pg.store().snapshot(), where);
          });
      CoordinationInvariants.check(pg.store());
    }
    cov.assertSaw("Settlement.Settled.SUCCEEDED", "Settlement.Settled.superseding", "Settlement.Settled.READY",
        "Settlement.Settled.HELD", "Settlement.Settled.FAILED");
  }

  /** Applies the step to the model and to PostgreSQL and requires the same transcript line. */
  private static Object both(LeaseLaw model, PostgresCoordination pg, AtomicInteger line, Step step, String where) {
    int i = line.getAndIncrement();
    Object expected = step.apply(model);
    Object actual = step.apply(pg);
    assertEquals(Transcript.line(i, step, expected), Transcript.line(i, step, actual), where);
    return expected;
  }
}
