package dev.vigil.coordination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.law.CoordinationInvariants;
import dev.vigil.coordination.law.LeaseLaw;
import dev.vigil.coordination.law.RandomSteps;
import dev.vigil.coordination.law.Step;
import dev.vigil.coordination.law.Transcript;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link Coordination} keeps: named examples of each verb's grants, denials and
 * edge cases, with {@link CoordinationInvariants} checked after each. The reference model and
 * every adapter extend this class.
 */
public abstract class CoordinationContract {
  protected static final long T0 = 1_700_000_000_000L;
  protected static final long TTL = 30_000;
  protected static final OwnerId A = new OwnerId("d-alpha");
  protected static final OwnerId B = new OwnerId("d-beta");
  protected static final Lane BATCH = new Lane("batch");
  protected static final RetryPolicy POLICY = new RetryPolicy(1_000, 60_000);

  protected Coordination c;

  /** A fresh, empty coordination that settles with {@code policy}. */
  protected abstract Coordination create(RetryPolicy policy) throws Exception;

  /** Releases what {@link #create} opened. */
  protected void dispose(Coordination coordination) throws Exception {}

  @BeforeEach
  void open() throws Exception {
    c = create(POLICY);
  }

  @AfterEach
  void close() throws Exception {
    if (c != null) {
      CoordinationInvariants.check(c.store());
      dispose(c);
    }
  }

  // ---- helpers ----

  protected TicketId submit(NewTicket n) {
    return ((Submission.Accepted) c.submit(n, T0)).ticket().id();
  }

  protected TicketId submit() {
    return submit(NewTicket.of(Lane.DEFAULT, "command", "{}"));
  }

  protected TicketId submitWithAttempts(int maxAttempts) {
    return submit(new NewTicket(Lane.DEFAULT, "command", "{}", maxAttempts, 0, 0, null));
  }

  protected Claim.Granted claim(TicketId t, OwnerId o, long now) {
    return assertInstanceOf(Claim.Granted.class, c.claim(t, o, now, TTL));
  }

  protected static RunStart runStart(long now) {
    return new RunStart(new ProcessIdentity("boot-1", 4242, 99, 4242), "1.0.0", "ab".repeat(32), now);
  }

  /** Claims, starts and takes the exit as the supervisor of {@code o}; returns the run. */
  protected RunId runToExit(TicketId t, OwnerId o, long now) {
    RunId run = claim(t, o, now).run().id();
    assertInstanceOf(Start.Started.class, c.start(run, o, runStart(now)));
    assertInstanceOf(Exit.Taken.class, c.takeExit(run, ExitOwner.supervisor(o), RunExit.code(1, now)));
    return run;
  }

  protected Settlement.Settled settle(RunId run, OwnerId o, Verdict v, long now) {
    return assertInstanceOf(Settlement.Settled.class,
        c.finish(Finish.as(ExitOwner.supervisor(o), run, v, null), now));
  }

  protected Ticket ticket(TicketId t) {
    return c.store().ticket(t).orElseThrow();
  }

  protected Claim.Reason claimDenial(TicketId t, long now) {
    return assertInstanceOf(Claim.Denied.class, c.claim(t, A, now, TTL)).reason();
  }

  // ---- submit ----

  @Test
  void submitQueuesAReadyTicket_numberedFromOne() {
    Submission s = c.submit(new NewTicket(BATCH, "command", "{\"x\":1}", 2, 5, T0 + 10, null), T0);
    Ticket t = assertInstanceOf(Submission.Accepted.class, s).ticket();
    assertEquals(new Ticket(new TicketId(1), BATCH, "command", "{\"x\":1}", TicketState.READY, 0, 2, 5, T0 + 10, T0,
        false, null, 0), t);
    assertEquals(t, ticket(t.id()));
  }

  @Test
  void aSecondSubmitWithTheSameKey_createsNothing_andNamesTheFirstTicket() {
    NewTicket n = new NewTicket(Lane.DEFAULT, "command", "{}", 3, 0, 0, "order-17");
    Ticket first = assertInstanceOf(Submission.Accepted.class, c.submit(n, T0)).ticket();
    Submission again = c.submit(n, T0 + 5);
    assertEquals(new Submission.Duplicate(first), again);
    assertEquals(1, c.store().tickets(TicketQuery.all()).size());
  }

  // ---- submitAll ----

  @Test
  void submitAll_decidesAsSubmitsOneAfterAnother_numberingInListOrder() {
    submit(new NewTicket(BATCH, "command", "{\"before\":1}", 2, 0, 0, "k-0"));
    List<NewTicket> batch = List.of(
        new NewTicket(Lane.DEFAULT, "command", "{\"n\":1}", 1, 0, 0, null),
        new NewTicket(BATCH, "command", "{\"n\":2}", 3, 7, T0 + 60_000, "k-1"),
        new NewTicket(Lane.DEFAULT, "other-type", "{\"n\":3}", 2, -1, 0, null));
    List<Submission> got = c.submitAll(batch, T0 + 1);

    LeaseLaw oneByOne = new LeaseLaw(POLICY);
    oneByOne.submit(new NewTicket(BATCH, "command", "{\"before\":1}", 2, 0, 0, "k-0"), T0);
    List<Submission> expected = batch.stream().map(n -> oneByOne.submit(n, T0 + 1)).toList();
    assertEquals(expected, got);
    assertEquals(List.of(new TicketId(2), new TicketId(3), new TicketId(4)),
        got.stream().map(s -> assertInstanceOf(Submission.Accepted.class, s).ticket().id()).toList(),
        "numbered in list order, after the tickets already queued");
    assertEquals(oneByOne.snapshot(), c.store().snapshot());
  }

  @Test
  void submitAll_aKeyUsedEarlierInTheBatchOrInTheStore_namesTheTicketItFirstCreated() {
    Ticket old = assertInstanceOf(Submission.Accepted.class,
        c.submit(new NewTicket(Lane.DEFAULT, "command", "{}", 3, 0, 0, "order-1"), T0)).ticket();
    List<Submission> got = c.submitAll(List.of(
        new NewTicket(Lane.DEFAULT, "command", "{\"a\":1}", 3, 0, 0, "order-2"),
        new NewTicket(Lane.DEFAULT, "command", "{\"b\":1}", 3, 0, 0, "order-1"),
        new NewTicket(Lane.DEFAULT, "command", "{\"c\":1}", 3, 0, 0, null),
        new NewTicket(Lane.DEFAULT, "command", "{\"d\":1}", 3, 0, 0, "order-2")), T0 + 5);
    Ticket first = assertInstanceOf(Submission.Accepted.class, got.get(0)).ticket();
    assertEquals(new TicketId(2), first.id());
    assertEquals(new Submission.Duplicate(old), got.get(1), "a key already in the store names that ticket");
    assertEquals(new TicketId(3), assertInstanceOf(Submission.Accepted.class, got.get(2)).ticket().id(),
        "a duplicate takes no number");
    assertEquals(new Submission.Duplicate(first), got.get(3), "a key used earlier in the batch names that ticket");
    assertEquals(3, c.store().tickets(TicketQuery.all()).size());
    assertEquals(new TicketId(4), submit(), "numbering goes on without a gap");
  }

  @Test
  void submitAll_isAllOrNothing_aNullTicketAnywhereIsRefusedBeforeAnythingChanges() {
    submit();
    Snapshot before = c.store().snapshot();
    List<NewTicket> withNull = java.util.Arrays.asList(NewTicket.of(Lane.DEFAULT, "command", "{}"),
        NewTicket.of(BATCH, "command", "{}"), null, NewTicket.of(Lane.DEFAULT, "command", "{}"));
    assertThrows(NullPointerException.class, () -> c.submitAll(withNull, T0));
    assertThrows(NullPointerException.class, () -> c.submitAll(null, T0));
    assertEquals(before, c.store().snapshot(), "nothing of the refused batch was queued");
    assertEquals(new TicketId(2), submit(), "and no number was spent");
  }

  @Test
  void submitAll_ofNoTickets_decidesNothing_andChangesNothing() {
    submit();
    Snapshot before = c.store().snapshot();
    assertEquals(List.of(), c.submitAll(List.of(), T0));
    assertEquals(before, c.store().snapshot());
  }

  // ---- claim (C1, C2, Q9) ----

  @Test
  void C2_claimIsGranted_forAReadyDueUnparkedTicket_creatingRunAndLeaseTogether() {
    TicketId t = submit();
    Claim.Granted g = claim(t, A, T0);
    assertEquals(Run.claimed(new RunId(t, 1), 1, A, T0, false), g.run());
    assertEquals(new Lease(t, new RunId(t, 1), A, T0 + TTL), g.lease());
    assertEquals(TicketState.LEASED, ticket(t).state());
    assertEquals(List.of(g.lease()), c.store().leases());
  }

  @Test
  void C1_claimIsDenied_whileTheTicketIsLeased() {
    TicketId t = submit();
    claim(t, A, T0);
    assertEquals(Claim.Reason.LEASED, assertInstanceOf(Claim.Denied.class, c.claim(t, B, T0, TTL)).reason());
    assertEquals(1, c.store().leases().size());
  }

  @Test
  void C2_claimIsDenied_forUnknownHeldNotDueAndParkedTickets_changingNothing() {
    assertEquals(Claim.Reason.NOT_FOUND, claimDenial(new TicketId(99), T0));
    TicketId notDue = submit(new NewTicket(Lane.DEFAULT, "command", "{}", 3, 0, T0 + 1, null));
    assertEquals(Claim.Reason.NOT_DUE, claimDenial(notDue, T0));
    TicketId held = submit();
    c.hold(held, "by hand", T0);
    assertEquals(Claim.Reason.NOT_READY, claimDenial(held, T0));
    TicketId parked = submit();
    c.park(parked);
    assertEquals(Claim.Reason.PARKED, claimDenial(parked, T0));
    Snapshot before = c.store().snapshot();
    claimDenial(parked, T0);
    assertEquals(before, c.store().snapshot());
    assertEquals(TicketState.LEASED, ticket(claim(notDue, A, T0 + 1).run().ticket()).state());
  }

  @Test
  void Q9_aClaimRacingAPark_eitherOrderLeavesNoClaimOfAParkedTicket() {
    TicketId parkedFirst = submit();
    assertInstanceOf(Control.Done.class, c.park(parkedFirst));
    assertEquals(Claim.Reason.PARKED, claimDenial(parkedFirst, T0));

    TicketId claimedFirst = submit();
    RunId run = runToExit(claimedFirst, A, T0);
    Ticket parkedWhileLeased = assertInstanceOf(Control.Done.class, c.park(claimedFirst)).ticket();
    assertEquals(TicketState.LEASED, parkedWhileLeased.state());
    assertTrue(parkedWhileLeased.parked());
    settle(run, A, Verdict.FAILED, T0);
    assertEquals(Claim.Reason.PARKED, claimDenial(claimedFirst, T0 + 3_600_000));
    assertTrue(c.claimNext(Lane.DEFAULT, A, T0 + 3_600_000, TTL, 10).isEmpty());
    c.unpark(claimedFirst);
    claim(claimedFirst, A, T0 + 3_600_000);
  }

  @Test
  void Q9_noTicketOfAParkedLaneIsClaimed() {
    TicketId t = submit(NewTicket.of(BATCH, "command", "{}"));
    assertTrue(c.parkLane(BATCH));
    assertFalse(c.parkLane(BATCH));
    assertEquals(Claim.Reason.PARKED, claimDenial(t, T0));
    assertTrue(c.claimNext(BATCH, A, T0, TTL, 5).isEmpty());
    assertEquals(java.util.Set.of(BATCH), c.store().parkedLanes());
    assertTrue(c.unparkLane(BATCH));
    assertEquals(1, c.claimNext(BATCH, A, T0, TTL, 5).size());
  }

  @Test
  void claimNext_takesDueTicketsByPriorityThenAgeThenId_upToMax() {
    TicketId low = submit(new NewTicket(Lane.DEFAULT, "command", "{}", 3, 0, 0, null));
    TicketId high = submit(new NewTicket(Lane.DEFAULT, "command", "{}", 3, 9, 0, null));
    TicketId later = ((Submission.Accepted) c.submit(NewTicket.of(Lane.DEFAULT, "command", "{}"), T0 + 5))
        .ticket().id();
    TicketId notDue = submit(new NewTicket(Lane.DEFAULT, "command", "{}", 3, 99, T0 + 60_000, null));
    submit(NewTicket.of(BATCH, "command", "{}"));
    Claims got = c.claimNext(Lane.DEFAULT, A, T0 + 10, TTL, 2);
    assertEquals(List.of(high, low), got.granted().stream().map(g -> g.run().ticket()).toList());
    assertEquals(List.of(later), c.claimNext(Lane.DEFAULT, B, T0 + 10, TTL, 5).granted().stream()
        .map(g -> g.run().ticket()).toList());
    assertEquals(TicketState.READY, ticket(notDue).state());
    assertEquals(Claims.NONE, c.claimNext(Lane.DEFAULT, B, T0 + 10, TTL, 5), "nothing left that is due");
  }

  @Test
  void claimNext_grantsWhatClaimWouldGrant_aRunAndItsLeasePerTicket() {
    TicketId t = submit();
    Claims got = c.claimNext(Lane.DEFAULT, A, T0, TTL, 3);
    RunId run = new RunId(t, 1);
    assertEquals(new Claims(List.of(new Claim.Granted(Run.claimed(run, 1, A, T0, false), new Lease(t, run, A, T0 + TTL)))),
        got);
    assertEquals(got.granted().get(0).lease(), c.store().lease(t).orElseThrow());
  }

  // ---- start (Q3) ----

  @Test
  void Q3_startRecordsIdentity_onlyForTheClaimingOwner_andOnlyOnce() {
    TicketId t = submit();
    RunId run = claim(t, A, T0).run().id();
    assertEquals(Start.Reason.LEASE_LOST,
        assertInstanceOf(Start.Denied.class, c.start(run, B, runStart(T0))).reason());
    Run started = assertInstanceOf(Start.Started.class, c.start(run, A, runStart(T0))).run();
    assertEquals(RunState.RUNNING, started.state());
    assertEquals(runStart(T0), started.start());
    assertEquals(Start.Reason.ALREADY_STARTED,
        assertInstanceOf(Start.Denied.class, c.start(run, A, runStart(T0))).reason());
    assertEquals(Start.Reason.NOT_FOUND,
        assertInstanceOf(Start.Denied.class, c.start(new RunId(t, 7), A, runStart(T0))).reason());
  }

  // ---- abortClaim ----

  @Test
  void abortClaim_rollsBackTheClaim_andTheThirdSpawnFailureHoldsTheTicket() {
    TicketId t = submit();
    for (int i = 1; i <= 3; i++) {
      RunId run = claim(t, A, T0).run().id();
      AbortClaim.Aborted a = assertInstanceOf(AbortClaim.Aborted.class, c.abortClaim(run, A, "no reservation", T0));
      assertEquals(Verdict.ABANDONED, a.run().verdict());
      assertEquals(i, a.ticket().spawnFailures());
      assertEquals(i < 3 ? TicketState.READY : TicketState.HELD, a.ticket().state());
      assertEquals(0, a.ticket().attemptsUsed());
      assertTrue(c.store().lease(t).isEmpty());
    }
    assertEquals(AbortClaim.Reason.NOT_CLAIMED,
        assertInstanceOf(AbortClaim.Denied.class, c.abortClaim(new RunId(t, 1), A, "again", T0)).reason());
    Ticket released = assertInstanceOf(Control.Done.class, c.release(t)).ticket();
    assertEquals(0, released.spawnFailures());
    assertEquals(TicketState.READY, released.state());
  }

  @Test
  void abortClaim_isGranted_toTheOwnerNamedOnAClaimWhoseLeaseLapsed() {
    TicketId t = submit();
    RunId run = claim(t, A, T0).run().id();
    assertInstanceOf(Renewal.Denied.class, c.renew(run, A, T0 + 10 * TTL, TTL), "the lease lapsed");
    AbortClaim.Aborted a = assertInstanceOf(AbortClaim.Aborted.class, c.abortClaim(run, A, "owner is gone", T0));
    assertEquals(Run.claimed(run, 1, A, T0, false).settled(Verdict.ABANDONED, "owner is gone"), a.run());
    assertEquals(TicketState.READY, a.ticket().state());
    assertTrue(c.store().lease(t).isEmpty(), "C7: the lease goes with the rolled-back claim");
  }

  @Test
  void abortClaim_isDenied_forAnUnknownRun_aStartedRun_andAnOwnerThatDoesNotHoldTheLease_changingNothing() {
    TicketId t = submit();
    RunId run = claim(t, A, T0).run().id();
    Snapshot before = c.store().snapshot();
    assertEquals(new AbortClaim.Denied(AbortClaim.Reason.NOT_FOUND), c.abortClaim(new RunId(t, 4), A, "x", T0));
    assertEquals(before, c.store().snapshot(), "a denial changes nothing");
    assertEquals(new AbortClaim.Denied(AbortClaim.Reason.NOT_OWNER), c.abortClaim(run, B, "x", T0));
    assertEquals(before, c.store().snapshot(), "a denial changes nothing");
    c.start(run, A, runStart(T0));
    Snapshot started = c.store().snapshot();
    assertEquals(new AbortClaim.Denied(AbortClaim.Reason.NOT_CLAIMED), c.abortClaim(run, A, "x", T0));
    assertEquals(started, c.store().snapshot(), "a denial changes nothing");
  }

  @Test
  void abortClaim_forTheFormerOwnerOfAClaimAnotherDaemonAdopted_isDenied_andTheAdopterMayAbortIt() {
    TicketId t = submit();
    RunId run = claim(t, A, T0).run().id();
    assertInstanceOf(AdoptClaim.Adopted.class, c.adoptClaim(run, B, A, T0 + 1, TTL));
    Snapshot adopted = c.store().snapshot();
    assertEquals(new AbortClaim.Denied(AbortClaim.Reason.NOT_OWNER), c.abortClaim(run, A, "owner A is gone", T0),
        "the abort for A compares A with the lease's owner and finds B");
    assertEquals(adopted, c.store().snapshot(), "a denial changes nothing");
    assertInstanceOf(AbortClaim.Aborted.class, c.abortClaim(run, B, "handoff timed out", T0));
  }

  // ---- adoptClaim (C3) ----

  @Test
  void C3_adoptClaim_movesALapsedClaimFromItsDeadOwner_andOnlyTheNewOwnerStartsAndRenewsIt() {
    TicketId t = submit();
    RunId run = claim(t, A, T0).run().id();
    long late = T0 + 10 * TTL;
    AdoptClaim.Adopted a = assertInstanceOf(AdoptClaim.Adopted.class, c.adoptClaim(run, B, A, late, TTL));
    assertEquals(Run.claimed(run, 1, B, T0, false), a.run(), "the run's owner moves with its lease");
    assertEquals(new Lease(t, run, B, late + TTL), a.lease());
    assertEquals(a.lease(), c.store().lease(t).orElseThrow());
    assertEquals(a.run(), c.store().run(run).orElseThrow());
    assertEquals(TicketState.LEASED, ticket(t).state());
    assertEquals(Renewal.Reason.NOT_OWNER,
        assertInstanceOf(Renewal.Denied.class, c.renew(run, A, late, TTL)).reason());
    assertEquals(Start.Reason.LEASE_LOST,
        assertInstanceOf(Start.Denied.class, c.start(run, A, runStart(late))).reason());
    assertInstanceOf(Renewal.Renewed.class, c.renew(run, B, late + 1, TTL));
    Run started = assertInstanceOf(Start.Started.class, c.start(run, B, runStart(late))).run();
    assertEquals(B, started.owner());
  }

  @Test
  void C3_adoptClaim_ofALiveLease_isGrantedToo_andTheExpiryIsNowPlusTtl() {
    TicketId t = submit();
    RunId run = claim(t, A, T0).run().id();
    AdoptClaim.Adopted a = assertInstanceOf(AdoptClaim.Adopted.class, c.adoptClaim(run, B, A, T0 + 5, 7_000));
    assertEquals(new Lease(t, run, B, T0 + 5 + 7_000), a.lease());
  }

  @Test
  void C3_adoptClaim_isDenied_forAnUnknownRun_aStartedRun_aSettledRun_andAnOwnerThatDoesNotHoldTheLease() {
    TicketId t = submit();
    RunId run = claim(t, A, T0).run().id();
    Snapshot before = c.store().snapshot();
    assertEquals(new AdoptClaim.Denied(AdoptClaim.Reason.NOT_FOUND), c.adoptClaim(new RunId(t, 3), B, A, T0, TTL));
    assertEquals(before, c.store().snapshot(), "a denial changes nothing");
    assertEquals(new AdoptClaim.Denied(AdoptClaim.Reason.NOT_OWNER), c.adoptClaim(run, A, B, T0, TTL),
        "B does not hold the lease, whatever the caller believes about B");
    assertEquals(before, c.store().snapshot(), "a denial changes nothing");
    c.start(run, A, runStart(T0));
    Snapshot started = c.store().snapshot();
    assertEquals(new AdoptClaim.Denied(AdoptClaim.Reason.NOT_CLAIMED), c.adoptClaim(run, B, A, T0, TTL),
        "a RUNNING run is readopted, never adopted as a claim");
    assertEquals(started, c.store().snapshot(), "a denial changes nothing");

    TicketId other = submit();
    RunId aborted = claim(other, A, T0).run().id();
    c.abortClaim(aborted, A, "launch failed", T0);
    Snapshot settled = c.store().snapshot();
    assertEquals(new AdoptClaim.Denied(AdoptClaim.Reason.NOT_CLAIMED), c.adoptClaim(aborted, B, A, T0, TTL));
    assertEquals(settled, c.store().snapshot(), "a denial changes nothing");
  }

  @Test
  void C3_ofTwoDaemonsAdoptingOneClaimFromItsDeadOwner_theSecondIsToldNotOwner() {
    TicketId t = submit();
    RunId run = claim(t, A, T0).run().id();
    OwnerId gamma = new OwnerId("d-gamma");
    assertInstanceOf(AdoptClaim.Adopted.class, c.adoptClaim(run, B, A, T0 + 1, TTL));
    Snapshot first = c.store().snapshot();
    assertEquals(new AdoptClaim.Denied(AdoptClaim.Reason.NOT_OWNER), c.adoptClaim(run, gamma, A, T0 + 2, TTL));
    assertEquals(first, c.store().snapshot(), "a denial changes nothing");
    assertEquals(B, c.store().lease(t).orElseThrow().owner());
  }

  // ---- renew and readopt (C3, C4) ----

  @Test
  void C3_renewalExactlyAtExpiresAt_isDeniedAsExpired_andOneMillisecondBeforeIsGranted() {
    TicketId t = submit();
    RunId run = claim(t, A, T0).run().id();
    Renewal r = c.renew(run, A, T0 + TTL - 1, TTL);
    assertEquals(new Lease(t, run, A, T0 + TTL - 1 + TTL), assertInstanceOf(Renewal.Renewed.class, r).lease());
    long expiry = T0 + TTL - 1 + TTL;
    Snapshot before = c.store().snapshot();
    assertEquals(Renewal.Reason.EXPIRED,
        assertInstanceOf(Renewal.Denied.class, c.renew(run, A, expiry, TTL)).reason());
    assertEquals(before, c.store().snapshot(), "C4: a renewal denial changes nothing");
  }

  @Test
  void C3_renewalIsDenied_toAnotherOwner_andForASettledRun() {
    TicketId t = submit();
    RunId run = runToExit(t, A, T0);
    assertEquals(Renewal.Reason.NOT_OWNER,
        assertInstanceOf(Renewal.Denied.class, c.renew(run, B, T0, TTL)).reason());
    settle(run, A, Verdict.SUCCEEDED, T0);
    assertEquals(Renewal.Reason.GONE, assertInstanceOf(Renewal.Denied.class, c.renew(run, A, T0, TTL)).reason());
  }

  @Test
  void renewAll_renewsOnlyTheOwnersUnexpiredLeases() {
    TicketId a1 = submit();
    TicketId a2 = submit();
    TicketId b1 = submit();
    claim(a1, A, T0);
    c.claim(a2, A, T0, 10);
    claim(b1, B, T0);
    assertEquals(1, c.renewAll(A, T0 + 10, TTL));
    assertEquals(T0 + 10 + TTL, c.store().lease(a1).orElseThrow().expiresAtMs());
    assertEquals(T0 + 10, c.store().lease(a2).orElseThrow().expiresAtMs());
    assertEquals(T0 + TTL, c.store().lease(b1).orElseThrow().expiresAtMs());
  }

  @Test
  void C3_readopt_reArmsALapsedLeaseOfARunningRun_forTheNewOwner() {
    TicketId t = submit();
    RunId run = claim(t, A, T0).run().id();
    assertEquals(Readopt.Reason.NOT_RUNNING,
        assertInstanceOf(Readopt.Denied.class, c.readopt(run, B, T0, TTL)).reason());
    c.start(run, A, runStart(T0));
    long late = T0 + 10 * TTL;
    assertInstanceOf(Renewal.Denied.class, c.renew(run, A, late, TTL));
    Readopt.Readopted r = assertInstanceOf(Readopt.Readopted.class, c.readopt(run, B, late, TTL));
    assertEquals(new Lease(t, run, B, late + TTL), r.lease());
    assertEquals(B, r.run().owner());
    assertEquals(Renewal.Reason.NOT_OWNER,
        assertInstanceOf(Renewal.Denied.class, c.renew(run, A, late, TTL)).reason());
    assertInstanceOf(Renewal.Renewed.class, c.renew(run, B, late + 1, TTL));
    assertEquals(Readopt.Reason.GONE,
        assertInstanceOf(Readopt.Denied.class, c.readopt(new RunId(t, 9), B, late, TTL)).reason());
  }

  // ---- readoptAll: readopt for each run in turn, in one call ----

  /**
   * The runs of the readoptAll examples, all of {@code A}: two RUNNING (the first with a short lease), one CLAIMED,
   * one settled (its lease gone) and a run the store does not have.
   */
  private static List<RunId> runsForReadoption(Coordination x) {
    List<TicketId> ts = new java.util.ArrayList<>();
    for (int i = 0; i < 4; i++) {
      ts.add(((Submission.Accepted) x.submit(NewTicket.of(Lane.DEFAULT, "command", "{}"), T0)).ticket().id());
    }
    RunId running = ((Claim.Granted) x.claim(ts.get(0), A, T0, 10)).run().id();
    RunId alsoRunning = ((Claim.Granted) x.claim(ts.get(1), A, T0, TTL)).run().id();
    RunId claimed = ((Claim.Granted) x.claim(ts.get(2), A, T0, TTL)).run().id();
    RunId settled = ((Claim.Granted) x.claim(ts.get(3), A, T0, TTL)).run().id();
    x.startAll(A, List.of(new StartOf(running, runStart(T0)), new StartOf(alsoRunning, runStart(T0)),
        new StartOf(settled, runStart(T0))));
    x.takeExitAndFinish(settled, ExitOwner.supervisor(A), RunExit.code(0, T0 + 1),
        Finish.as(ExitOwner.supervisor(A), settled, Verdict.SUCCEEDED, null), T0 + 1);
    return List.of(running, alsoRunning, claimed, settled, new RunId(ts.get(0), 7));
  }

  @Test
  void C3_readoptAll_decidesAsReadoptCalledForEachInTurn_onATwinStore() throws Exception {
    List<RunId> runs = runsForReadoption(c);
    long late = T0 + 10 * TTL;
    List<RunId> batch = List.of(runs.get(0), runs.get(2), runs.get(1), runs.get(4), runs.get(0), runs.get(3));
    List<Readopt> got = c.readoptAll(batch, B, late, TTL);

    assertEquals(6, got.size());
    Readopt.Readopted first = assertInstanceOf(Readopt.Readopted.class, got.get(0));
    assertEquals(new Lease(runs.get(0).ticket(), runs.get(0), B, late + TTL), first.lease(), "a lapsed lease re-armed");
    assertEquals(B, first.run().owner());
    assertEquals(RunState.RUNNING, first.run().state());
    assertEquals(new Readopt.Denied(Readopt.Reason.NOT_RUNNING), got.get(1), "a claim is adopted, never readopted");
    assertEquals(new Lease(runs.get(1).ticket(), runs.get(1), B, late + TTL),
        assertInstanceOf(Readopt.Readopted.class, got.get(2)).lease(), "a live lease re-armed too");
    assertEquals(new Readopt.Denied(Readopt.Reason.GONE), got.get(3), "no such run");
    assertEquals(first, got.get(4), "a run named twice is readopted twice, to the same lease");
    assertEquals(new Readopt.Denied(Readopt.Reason.GONE), got.get(5), "a settled run holds no lease");
    assertEquals(B, c.store().run(runs.get(1)).orElseThrow().owner());
    assertEquals(A, c.store().run(runs.get(2)).orElseThrow().owner(), "a refused run keeps its owner");
    assertEquals(T0 + TTL, c.store().lease(runs.get(2).ticket()).orElseThrow().expiresAtMs(), "and its lease");
    assertEquals(Renewal.Reason.NOT_OWNER,
        assertInstanceOf(Renewal.Denied.class, c.renew(runs.get(0), A, late, TTL)).reason());

    Coordination twin = create(POLICY);
    try {
      runsForReadoption(twin);
      List<Readopt> oneByOne = new java.util.ArrayList<>();
      for (RunId r : batch) {
        oneByOne.add(twin.readopt(r, B, late, TTL));
      }
      assertEquals(oneByOne, got);
      assertEquals(twin.store().snapshot(), c.store().snapshot());
    } finally {
      dispose(twin);
    }
  }

  @Test
  void C3_readoptAll_ofRunsAllRefused_changesNothing_andOfNoRunsDecidesNothing() {
    List<RunId> runs = runsForReadoption(c);
    Snapshot before = c.store().snapshot();
    assertEquals(List.of(new Readopt.Denied(Readopt.Reason.NOT_RUNNING), new Readopt.Denied(Readopt.Reason.GONE),
        new Readopt.Denied(Readopt.Reason.GONE)), c.readoptAll(runs.subList(2, 5), B, T0 + 2, TTL));
    assertEquals(List.of(), c.readoptAll(List.of(), B, T0 + 2, TTL));
    assertEquals(before, c.store().snapshot());
  }

  @Test
  void C3_readoptAll_refusesANullOrABadTtl_beforeAnythingChanges() {
    List<RunId> runs = runsForReadoption(c);
    Snapshot before = c.store().snapshot();
    List<RunId> withNull = java.util.Arrays.asList(runs.get(0), null, runs.get(1));
    assertThrows(NullPointerException.class, () -> c.readoptAll(withNull, B, T0 + 2, TTL));
    assertThrows(NullPointerException.class, () -> c.readoptAll(null, B, T0 + 2, TTL));
    assertThrows(NullPointerException.class, () -> c.readoptAll(runs.subList(0, 2), null, T0 + 2, TTL));
    assertThrows(IllegalArgumentException.class, () -> c.readoptAll(runs.subList(0, 2), B, T0 + 2, 0));
    assertThrows(IllegalArgumentException.class, () -> c.readoptAll(runs.subList(0, 2), B, Long.MAX_VALUE, 1));
    assertEquals(before, c.store().snapshot(), "nothing of a refused batch was readopted");
  }

  // ---- takeExit (C6) ----

  @Test
  void C6_exactlyOneClaimantTakesTheExit_andTheLoserIsToldWhoWon() {
    TicketId t = submit();
    RunId run = claim(t, A, T0).run().id();
    assertEquals(Exit.Reason.NOT_RUNNING, assertInstanceOf(Exit.Denied.class,
        c.takeExit(run, ExitOwner.supervisor(A), RunExit.code(0, T0))).reason());
    c.start(run, A, runStart(T0));
    Exit.Taken won = assertInstanceOf(Exit.Taken.class,
        c.takeExit(run, ExitOwner.recovery(B), RunExit.unknown(T0 + 1)));
    assertEquals(ExitOwner.recovery(B), won.run().exitOwner());
    assertEquals(RunExit.unknown(T0 + 1), won.run().exit());
    assertEquals(new Exit.Denied(Exit.Reason.ALREADY_TAKEN, ExitOwner.recovery(B)),
        c.takeExit(run, ExitOwner.supervisor(A), RunExit.code(0, T0 + 2)));
  }

  // ---- takeExitAndFinish (C6 then C7, C8) ----

  @Test
  void takeExitAndFinish_takesTheExitAndSettles_andASecondCallIsToldWhoTookIt() {
    TicketId t = submit();
    RunId run = claim(t, A, T0).run().id();
    c.start(run, A, runStart(T0));
    ExitAndFinish ef = c.takeExitAndFinish(run, ExitOwner.supervisor(A), RunExit.code(0, T0 + 1),
        Finish.as(ExitOwner.supervisor(A), run, Verdict.SUCCEEDED, null), T0 + 1);
    Exit.Taken taken = assertInstanceOf(Exit.Taken.class, ef.exit());
    assertEquals(RunExit.code(0, T0 + 1), taken.run().exit());
    Settlement.Settled s = assertInstanceOf(Settlement.Settled.class, ef.settlement().orElseThrow());
    assertEquals(TicketState.SUCCEEDED, s.ticket().state());
    assertEquals(RunState.SETTLED, c.store().run(run).orElseThrow().state());
    assertEquals(ExitOwner.supervisor(A), c.store().run(run).orElseThrow().exitOwner());
    assertTrue(c.store().leases().isEmpty(), "C7: the lease goes with the settlement");
    Snapshot before = c.store().snapshot();
    ExitAndFinish again = c.takeExitAndFinish(run, ExitOwner.supervisor(A), RunExit.code(1, T0 + 2),
        Finish.as(ExitOwner.supervisor(A), run, Verdict.FAILED, null), T0 + 2);
    assertEquals(new Exit.Denied(Exit.Reason.ALREADY_TAKEN, ExitOwner.supervisor(A)), again.exit());
    assertTrue(again.settlement().isEmpty(), "no finish without the exit");
    assertEquals(before, c.store().snapshot());
  }

  @Test
  void takeExitAndFinish_aRefusedFinishLeavesTheRunExitedByTheClaimant_asTheTwoVerbsInTurnDo() {
    TicketId t = submit();
    RunId run = claim(t, A, T0).run().id();
    assertEquals(Exit.Reason.NOT_RUNNING, assertInstanceOf(Exit.Denied.class, c.takeExitAndFinish(run,
        ExitOwner.supervisor(A), RunExit.code(0, T0), Finish.as(ExitOwner.supervisor(A), run, Verdict.SUCCEEDED, null),
        T0).exit()).reason());
    assertEquals(RunState.CLAIMED, c.store().run(run).orElseThrow().state());
    c.start(run, A, runStart(T0));
    ExitAndFinish ef = c.takeExitAndFinish(run, ExitOwner.supervisor(A), RunExit.signal(9, T0 + 1),
        Finish.as(ExitOwner.supervisor(A), run, Verdict.KILLED, null), T0 + 1);
    assertInstanceOf(Exit.Taken.class, ef.exit());
    assertEquals(new Settlement.Denied(Settlement.Reason.KILL_MISMATCH), ef.settlement().orElseThrow(),
        "Q13: KILLED only for a run whose kill was requested");
    Run exited = c.store().run(run).orElseThrow();
    assertEquals(RunState.EXITED, exited.state());
    assertEquals(ExitOwner.supervisor(A), exited.exitOwner());
    assertEquals(TicketState.LEASED, ticket(t).state());
    settle(run, A, Verdict.FAILED, T0 + 2);
  }

  @Test
  void takeExitAndFinish_refusesAFinishOfAnotherRunOrClaimant_beforeAnythingChanges() {
    TicketId t = submit();
    RunId run = claim(t, A, T0).run().id();
    c.start(run, A, runStart(T0));
    Snapshot before = c.store().snapshot();
    assertThrows(IllegalArgumentException.class, () -> c.takeExitAndFinish(run, ExitOwner.supervisor(A),
        RunExit.code(0, T0), Finish.as(ExitOwner.supervisor(B), run, Verdict.SUCCEEDED, null), T0));
    assertThrows(IllegalArgumentException.class, () -> c.takeExitAndFinish(run, ExitOwner.supervisor(A),
        RunExit.code(0, T0), Finish.as(ExitOwner.supervisor(A), new RunId(t, 2), Verdict.SUCCEEDED, null), T0));
    assertEquals(before, c.store().snapshot());
  }

  // ---- startAll and takeExitAndFinishAll: the single verbs in turn, in one call ----

  /** Three claims (two of A, one of B) and a fourth ticket never claimed; returns the runs and the unclaimed run id. */
  private static List<RunId> claimsForBatches(Coordination x) {
    List<TicketId> ts = new java.util.ArrayList<>();
    for (int i = 0; i < 4; i++) {
      ts.add(((Submission.Accepted) x.submit(NewTicket.of(Lane.DEFAULT, "command", "{}"), T0)).ticket().id());
    }
    RunId r1 = ((Claim.Granted) x.claim(ts.get(0), A, T0, TTL)).run().id();
    RunId r2 = ((Claim.Granted) x.claim(ts.get(1), A, T0, TTL)).run().id();
    RunId r3 = ((Claim.Granted) x.claim(ts.get(2), B, T0, TTL)).run().id();
    return List.of(r1, r2, r3, new RunId(ts.get(3), 1));
  }

  /** The starts of the batch example: two granted, a run named twice, another owner's claim, no such run. */
  private static List<StartOf> startsForBatch(List<RunId> runs) {
    return List.of(new StartOf(runs.get(0), runStart(T0 + 1)), new StartOf(runs.get(1), runStart(T0 + 1).withTimeout(5_000)),
        new StartOf(runs.get(0), runStart(T0 + 2)), new StartOf(runs.get(2), runStart(T0 + 1)),
        new StartOf(runs.get(3), runStart(T0 + 1)));
  }

  /** The ends of the batch example: one settled, one whose finish is refused, one taken by recovery before, one named twice. */
  private static List<EndOf> endsForBatch(List<RunId> runs) {
    ExitOwner a = ExitOwner.supervisor(A);
    return List.of(new EndOf(runs.get(0), a, RunExit.code(0, T0 + 3), Finish.as(a, runs.get(0), Verdict.SUCCEEDED, null)),
        new EndOf(runs.get(1), a, RunExit.signal(9, T0 + 3), Finish.as(a, runs.get(1), Verdict.KILLED, null)),
        new EndOf(runs.get(2), a, RunExit.code(0, T0 + 3), Finish.as(a, runs.get(2), Verdict.SUCCEEDED, null)),
        new EndOf(runs.get(0), a, RunExit.code(1, T0 + 4), Finish.as(a, runs.get(0), Verdict.FAILED, null)));
  }

  @Test
  void startAll_decidesAsStartCalledForEachInTurn_onATwinStore() throws Exception {
    List<RunId> runs = claimsForBatches(c);
    List<Start> batch = c.startAll(A, startsForBatch(runs));
    assertEquals(5, batch.size());
    assertInstanceOf(Start.Started.class, batch.get(0));
    assertEquals(5_000, assertInstanceOf(Start.Started.class, batch.get(1)).run().start().timeoutMs());
    assertEquals(new Start.Denied(Start.Reason.ALREADY_STARTED), batch.get(2), "a run named twice starts once");
    assertInstanceOf(Start.Denied.class, batch.get(3));
    assertEquals(new Start.Denied(Start.Reason.NOT_FOUND), batch.get(4));
    assertEquals(RunState.RUNNING, c.store().run(runs.get(0)).orElseThrow().state());
    assertEquals(T0 + 1, c.store().run(runs.get(0)).orElseThrow().start().startedAtMs(), "the first entry's start");
    assertEquals(RunState.CLAIMED, c.store().run(runs.get(2)).orElseThrow().state());

    Coordination twin = create(POLICY);
    try {
      claimsForBatches(twin);
      List<Start> oneByOne = new java.util.ArrayList<>();
      for (StartOf s : startsForBatch(runs)) {
        oneByOne.add(twin.start(s.run(), A, s.start()));
      }
      assertEquals(oneByOne, batch);
      assertEquals(twin.store().snapshot(), c.store().snapshot());
    } finally {
      dispose(twin);
    }
  }

  @Test
  void takeExitAndFinishAll_decidesAsTakeExitAndFinishForEachInTurn_onATwinStore() throws Exception {
    List<RunId> runs = claimsForBatches(c);
    c.startAll(A, startsForBatch(runs).subList(0, 2));
    c.start(runs.get(2), B, runStart(T0 + 1));
    c.takeExit(runs.get(2), ExitOwner.recovery(B), RunExit.unknown(T0 + 2));
    List<ExitAndFinish> batch = c.takeExitAndFinishAll(endsForBatch(runs), T0 + 3);
    assertEquals(4, batch.size());
    Settlement.Settled s = assertInstanceOf(Settlement.Settled.class, batch.get(0).settlement().orElseThrow());
    assertEquals(TicketState.SUCCEEDED, s.ticket().state());
    assertInstanceOf(Exit.Taken.class, batch.get(1).exit());
    assertEquals(new Settlement.Denied(Settlement.Reason.KILL_MISMATCH), batch.get(1).settlement().orElseThrow());
    assertEquals(RunState.EXITED, c.store().run(runs.get(1)).orElseThrow().state(), "a refused finish keeps the exit");
    assertEquals(new Exit.Denied(Exit.Reason.ALREADY_TAKEN, ExitOwner.recovery(B)), batch.get(2).exit());
    assertEquals(new Exit.Denied(Exit.Reason.ALREADY_TAKEN, ExitOwner.supervisor(A)), batch.get(3).exit());
    assertTrue(batch.get(3).settlement().isEmpty());
    assertEquals(RunState.SETTLED, c.store().run(runs.get(0)).orElseThrow().state());

    Coordination twin = create(POLICY);
    try {
      claimsForBatches(twin);
      for (StartOf st : startsForBatch(runs).subList(0, 2)) {
        twin.start(st.run(), A, st.start());
      }
      twin.start(runs.get(2), B, runStart(T0 + 1));
      twin.takeExit(runs.get(2), ExitOwner.recovery(B), RunExit.unknown(T0 + 2));
      List<ExitAndFinish> oneByOne = new java.util.ArrayList<>();
      for (EndOf e : endsForBatch(runs)) {
        oneByOne.add(twin.takeExitAndFinish(e.run(), e.claimant(), e.exit(), e.finish(), T0 + 3));
      }
      assertEquals(oneByOne, batch);
      assertEquals(twin.store().snapshot(), c.store().snapshot());
    } finally {
      dispose(twin);
    }
  }

  @Test
  void batchesOfNothingChangeNothing_andANullEntryIsRefusedBeforeAnythingChanges() {
    List<RunId> runs = claimsForBatches(c);
    Snapshot before = c.store().snapshot();
    assertEquals(List.of(), c.startAll(A, List.of()));
    assertEquals(List.of(), c.takeExitAndFinishAll(List.of(), T0 + 1));
    List<StartOf> withNull = new java.util.ArrayList<>(startsForBatch(runs));
    withNull.add(null);
    assertThrows(NullPointerException.class, () -> c.startAll(A, withNull));
    assertThrows(NullPointerException.class, () -> c.startAll(null, startsForBatch(runs)));
    List<EndOf> endsWithNull = new java.util.ArrayList<>(endsForBatch(runs));
    endsWithNull.add(null);
    assertThrows(NullPointerException.class, () -> c.takeExitAndFinishAll(endsWithNull, T0 + 1));
    assertEquals(before, c.store().snapshot());
    ExitOwner a = ExitOwner.supervisor(A);
    assertThrows(IllegalArgumentException.class, () -> new EndOf(runs.get(0), a, RunExit.code(0, T0),
        Finish.as(a, runs.get(1), Verdict.SUCCEEDED, null)), "the finish names the run of the exit");
  }

  // ---- results ----

  @Test
  void aSucceededFinish_storesItsResultWithTheRun_andEveryReadOfTheRunHasIt() {
    TicketId t = submit();
    RunId run = runToExit(t, A, T0);
    String result = "{\"primes\":9592,\"below\":100000,\"name\":\"caf\u00e9 \u2603\"}";
    Settlement.Settled s = assertInstanceOf(Settlement.Settled.class,
        c.finish(Finish.succeeded(ExitOwner.supervisor(A), run, "counted", result), T0 + 1));
    assertEquals(result, s.run().result(), "the settlement names the run with its result");
    assertEquals(result, c.store().run(run).orElseThrow().result());
    assertEquals(result, c.store().runsOf(t).get(0).result());
    assertEquals(result, c.store().runs(RunState.SETTLED).get(0).result());
    assertEquals(result, c.store().snapshot().runs().get(0).result());

    TicketId other = submit();
    RunId plain = claim(other, A, T0).run().id();
    c.start(plain, A, runStart(T0));
    ExitAndFinish ef = c.takeExitAndFinish(plain, ExitOwner.supervisor(A), RunExit.code(0, T0 + 2),
        Finish.succeeded(ExitOwner.supervisor(A), plain, null, "[1,2,3]"), T0 + 2);
    assertEquals("[1,2,3]", assertInstanceOf(Settlement.Settled.class, ef.settlement().orElseThrow()).run().result());
    assertEquals("[1,2,3]", c.store().run(plain).orElseThrow().result(), "takeExitAndFinish stores it too");
  }

  @Test
  void aRunWithoutAResult_readsNull_andAResultIsOnlyForSucceeded_andAtMost64KiB() {
    TicketId t = submit();
    RunId run = runToExit(t, A, T0);
    settle(run, A, Verdict.SUCCEEDED, T0 + 1);
    assertEquals(null, c.store().run(run).orElseThrow().result());
    IllegalArgumentException failed = assertThrows(IllegalArgumentException.class,
        () -> new Finish(run, ExitOwner.supervisor(A), Verdict.FAILED, null, 0, false, "1"));
    assertTrue(failed.getMessage().contains("only a SUCCEEDED run has a result"), failed.getMessage());
    String atTheBound = "\"" + "x".repeat(Run.MAX_RESULT_BYTES - 2) + "\"";
    new Finish(run, ExitOwner.supervisor(A), Verdict.SUCCEEDED, null, 0, false, atTheBound);
    String over = "\"" + "\u00e9".repeat(Run.MAX_RESULT_BYTES / 2) + "\""; // 2 bytes each in UTF-8
    IllegalArgumentException big = assertThrows(IllegalArgumentException.class,
        () -> new Finish(run, ExitOwner.supervisor(A), Verdict.SUCCEEDED, null, 0, false, over));
    assertTrue(big.getMessage().contains("65538 bytes") && big.getMessage().contains("at most 65536"),
        big.getMessage());
  }

  @Test
  void aDeniedFinish_storesNoResult() {
    TicketId t = submit();
    RunId run = runToExit(t, A, T0);
    settle(run, A, Verdict.FAILED, T0 + 1);
    assertEquals(new Settlement.Denied(Settlement.Reason.ALREADY_SETTLED),
        c.finish(Finish.succeeded(ExitOwner.supervisor(A), run, null, "{\"late\":true}"), T0 + 2));
    assertEquals(null, c.store().run(run).orElseThrow().result(), "C8: a second finish changes nothing");
  }

  // ---- finish (C7, C8, Q1, Q2, Q5, Q7, Q8) ----

  @Test
  void C8_aSecondFinishIsDenied_andChangesNothing() {
    TicketId t = submit();
    RunId run = runToExit(t, A, T0);
    Settlement.Settled s = settle(run, A, Verdict.SUCCEEDED, T0);
    assertEquals(TicketState.SUCCEEDED, s.ticket().state());
    assertTrue(c.store().leases().isEmpty(), "C7: the lease goes with the settlement");
    Snapshot before = c.store().snapshot();
    assertEquals(new Settlement.Denied(Settlement.Reason.ALREADY_SETTLED),
        c.finish(Finish.as(ExitOwner.supervisor(A), run, Verdict.FAILED, null), T0 + 1));
    assertEquals(before, c.store().snapshot());
  }

  @Test
  void finishIsDenied_beforeTheExit_andToAClaimantWhoIsNotTheExitOwner_unlessItProvesTheOwnerDead() {
    TicketId t = submit();
    RunId run = claim(t, A, T0).run().id();
    c.start(run, A, runStart(T0));
    assertEquals(new Settlement.Denied(Settlement.Reason.NOT_EXITED),
        c.finish(Finish.as(ExitOwner.supervisor(A), run, Verdict.SUCCEEDED, null), T0));
    c.takeExit(run, ExitOwner.supervisor(A), RunExit.code(0, T0));
    Finish byB = Finish.as(ExitOwner.recovery(B), run, Verdict.SUCCEEDED, "collected");
    assertEquals(new Settlement.Denied(Settlement.Reason.NOT_EXIT_OWNER), c.finish(byB, T0));
    Settlement.Settled s = assertInstanceOf(Settlement.Settled.class, c.finish(byB.forDeadExitOwner(), T0));
    assertEquals("collected", s.run().diagnosis());
    assertEquals(new Settlement.Denied(Settlement.Reason.NOT_FOUND),
        c.finish(Finish.as(ExitOwner.recovery(B), new RunId(t, 5), Verdict.SUCCEEDED, null), T0));
  }

  @Test
  void Q1_failuresSpendAttempts_withBackoff_andTheLastHoldsTheTicket_neverReady() {
    TicketId t = submitWithAttempts(2);
    RunId first = runToExit(t, A, T0);
    Ticket afterFirst = settle(first, A, Verdict.FAILED, T0).ticket();
    assertEquals(TicketState.READY, afterFirst.state());
    assertEquals(1, afterFirst.attemptsUsed());
    assertEquals(T0 + 1_000, afterFirst.notBeforeMs());
    assertEquals(Claim.Reason.NOT_DUE, claimDenial(t, T0 + 999));
    RunId second = runToExit(t, A, T0 + 1_000);
    assertEquals(2, c.store().run(second).orElseThrow().attempt());
    Ticket afterSecond = settle(second, A, Verdict.LOST, T0 + 1_000).ticket();
    assertEquals(TicketState.HELD, afterSecond.state());
    assertEquals(2, afterSecond.attemptsUsed());
    assertTrue(afterSecond.holdReason().startsWith("attempts exhausted (2 of 2)"), afterSecond.holdReason());
  }

  @Test
  void Q2_aStallOnTheLastAttempt_spendsNothing_andTheTicketIsReadyAtTheHint() {
    TicketId t = submitWithAttempts(1);
    RunId run = runToExit(t, A, T0);
    Settlement.Settled s = assertInstanceOf(Settlement.Settled.class,
        c.finish(Finish.stalled(ExitOwner.supervisor(A), run, T0 + 600_000, "quota"), T0));
    assertEquals(TicketState.READY, s.ticket().state());
    assertEquals(0, s.ticket().attemptsUsed());
    assertEquals(T0 + 600_000, s.ticket().notBeforeMs());
    assertEquals(Claim.Reason.NOT_DUE, claimDenial(t, T0 + 599_999));
    assertEquals(1, claim(t, A, T0 + 600_000).run().attempt());
  }

  @Test
  void Q8_aHandStartedRunFailingWithAttemptsLeft_holdsTheTicket_untilReleased() {
    TicketId t = submitWithAttempts(3);
    Claim.Granted g = assertInstanceOf(Claim.Granted.class, c.claimByHand(t, A, T0, TTL));
    assertTrue(g.run().handStarted());
    RunId run = g.run().id();
    c.start(run, A, runStart(T0));
    c.takeExit(run, ExitOwner.supervisor(A), RunExit.code(1, T0));
    Ticket held = settle(run, A, Verdict.FAILED, T0).ticket();
    assertEquals(TicketState.HELD, held.state());
    assertEquals(1, held.attemptsUsed());
    assertTrue(c.claimNext(Lane.DEFAULT, B, T0 + 3_600_000, TTL, 5).isEmpty());
    assertEquals(TicketState.READY, assertInstanceOf(Control.Done.class, c.release(t)).ticket().state());
  }

  @Test
  void Q7_whenTheTicketSucceeds_itsEarlierBlockedAndStalledRunsAreSuperseded_andNothingElse() {
    TicketId t = submitWithAttempts(3);
    RunId stalled = runToExit(t, A, T0);
    c.finish(Finish.stalled(ExitOwner.supervisor(A), stalled, T0, "quota"), T0);
    RunId failed = runToExit(t, A, T0);
    settle(failed, A, Verdict.FAILED, T0);
    RunId blocked = runToExit(t, A, T0 + 60_000);
    settle(blocked, A, Verdict.BLOCKED, T0 + 60_000);
    c.release(t);
    RunId ok = runToExit(t, A, T0 + 60_000);
    Settlement.Settled s = settle(ok, A, Verdict.SUCCEEDED, T0 + 60_000);
    assertEquals(List.of(stalled, blocked), s.superseded());
    List<Verdict> verdicts = c.store().runsOf(t).stream().map(Run::verdict).toList();
    assertEquals(List.of(Verdict.SUPERSEDED, Verdict.FAILED, Verdict.SUPERSEDED, Verdict.SUCCEEDED), verdicts);
    assertEquals(2, s.ticket().attemptsUsed());
  }

  @Test
  void Q5_recoveryAndTheSupervisorSettleTheSameVerdictToTheSameTicket() {
    TicketId bySupervisor = submit();
    TicketId byRecovery = submit();
    RunId r1 = runToExit(bySupervisor, A, T0);
    RunId r2 = claim(byRecovery, A, T0).run().id();
    c.start(r2, A, runStart(T0));
    c.takeExit(r2, ExitOwner.recovery(B), RunExit.unknown(T0));
    Ticket t1 = settle(r1, A, Verdict.LOST, T0).ticket();
    Ticket t2 = assertInstanceOf(Settlement.Settled.class,
        c.finish(Finish.as(ExitOwner.recovery(B), r2, Verdict.LOST, null), T0)).ticket();
    assertEquals(t1.withState(t1.state(), t1.holdReason()), new Ticket(t1.id(), t2.lane(), t2.type(), t2.payload(),
        t2.state(), t2.attemptsUsed(), t2.maxAttempts(), t2.priority(), t2.notBeforeMs(), t2.createdAtMs(),
        t2.parked(), t2.holdReason(), t2.spawnFailures()));
  }

  // ---- operator verbs ----

  @Test
  void holdReleaseAndCancel_followTheTicketLifecycle() {
    TicketId t = submit();
    assertEquals(Control.Reason.NOT_HELD, assertInstanceOf(Control.Denied.class, c.release(t)).reason());
    Ticket held = assertInstanceOf(Control.Done.class, c.hold(t, "wait for data", T0)).ticket();
    assertEquals("wait for data", held.holdReason());
    assertEquals(TicketState.READY, assertInstanceOf(Control.Done.class, c.release(t)).ticket().state());
    RunId run = claim(t, A, T0).run().id();
    assertEquals(Control.Reason.LEASED, assertInstanceOf(Control.Denied.class, c.cancel(t, T0)).reason());
    assertEquals(Control.Reason.LEASED, assertInstanceOf(Control.Denied.class, c.hold(t, "x", T0)).reason());
    c.abortClaim(run, A, "test", T0);
    assertEquals(TicketState.CANCELLED, assertInstanceOf(Control.Done.class, c.cancel(t, T0)).ticket().state());
    assertEquals(Control.Reason.TERMINAL, assertInstanceOf(Control.Denied.class, c.cancel(t, T0)).reason());
    assertEquals(Control.Reason.TERMINAL, assertInstanceOf(Control.Denied.class, c.park(t)).reason());
    assertEquals(Control.Reason.NOT_FOUND, assertInstanceOf(Control.Denied.class, c.park(new TicketId(77))).reason());
  }

  @Test
  void ownersAreRegistered_andRefreshed() {
    Owner o = new Owner(A, "host-1", new ProcessIdentity("boot-1", 10, 20, 10), "1.0.0", T0);
    c.registerOwner(o);
    c.registerOwner(o);
    assertEquals(List.of(o), c.store().owners());
    assertEquals(o, c.store().owner(A).orElseThrow());
    assertTrue(c.store().owner(B).isEmpty());
    Owner hosted = new Owner(B, "host-2", new ProcessIdentity("boot-2", 11, 21, 11), "1.0.0", T0, "machine-2:home");
    c.registerOwner(hosted);
    assertEquals(hosted, c.store().owner(B).orElseThrow());
    assertEquals(List.of(o, hosted), c.store().owners());
    assertTrue(o.ofHost("machine-2:home") && hosted.ofHost("machine-2:home") && !hosted.ofHost("machine-1:home"),
        "an owner without a host id is of any host; one with an id, of that host alone");
  }

  @Test
  void storeQueries_filterByStateAndLane_andCountEveryState() {
    TicketId a = submit();
    TicketId b = submit(NewTicket.of(BATCH, "command", "{}"));
    claim(a, A, T0);
    assertEquals(List.of(b), c.store().tickets(TicketQuery.all().inState(TicketState.READY)).stream()
        .map(Ticket::id).toList());
    assertEquals(List.of(b), c.store().tickets(TicketQuery.all().inLane(BATCH)).stream().map(Ticket::id).toList());
    assertEquals(1, c.store().tickets(TicketQuery.all().limit(1)).size());
    assertEquals(TicketState.values().length, c.store().countsByState().size());
    assertEquals(1, c.store().countsByState().get(TicketState.LEASED));
    assertEquals(1, c.store().liveRuns().size());
    assertNull(c.store().liveRuns().get(0).start());
  }

  @Test
  void ticketsAndRunsPageInIdOrder_afterTheLastIdSeen() {
    List<TicketId> ids = new java.util.ArrayList<>();
    for (int i = 0; i < 7; i++) {
      ids.add(submit(NewTicket.of(i % 2 == 0 ? Lane.DEFAULT : BATCH, "command", "{}")));
    }
    for (TicketId t : ids.subList(0, 5)) {
      runToExit(t, A, T0);
    }
    RunId second = claim(ids.get(5), A, T0).run().id();

    List<TicketId> paged = new java.util.ArrayList<>();
    TicketQuery q = TicketQuery.all().limit(3);
    for (List<Ticket> page = c.store().tickets(q); !page.isEmpty();
         page = c.store().tickets(q.after(page.get(page.size() - 1).id()))) {
      assertTrue(page.size() <= 3);
      page.forEach(t -> paged.add(t.id()));
    }
    assertEquals(ids, paged, "pages of 3 cover every ticket once, in id order");
    assertEquals(List.of(ids.get(2), ids.get(4)), c.store().tickets(TicketQuery.all().inLane(Lane.DEFAULT)
        .after(ids.get(0)).limit(2)).stream().map(Ticket::id).toList(), "filters and paging combine");
    assertTrue(c.store().tickets(TicketQuery.all().after(ids.get(6))).isEmpty());

    List<RunId> runs = new java.util.ArrayList<>();
    RunQuery rq = RunQuery.all().limit(2);
    for (List<Run> page = c.store().runs(rq); !page.isEmpty();
         page = c.store().runs(rq.after(page.get(page.size() - 1).id()))) {
      assertTrue(page.size() <= 2);
      page.forEach(r -> runs.add(r.id()));
    }
    assertEquals(c.store().runs().stream().map(Run::id).toList(), runs, "pages of 2 cover every run once, in id order");
    assertEquals(6, runs.size());
    assertEquals(c.store().liveRuns(), c.store().runs(RunQuery.all().live()));
    assertEquals(List.of(second), c.store().runs(RunQuery.all().live().after(runs.get(4)).limit(5)).stream()
        .map(Run::id).toList());
    assertEquals(List.of(runs.get(4), second), c.store().runs(RunQuery.all().after(runs.get(3))).stream()
        .map(Run::id).toList(), "after a run id means after it in (ticket, number) order");
  }

  @Test
  void aTtlThatIsNotPositiveOrOverflowsTheExpiryIsRefusedAndChangesNothing() {
    TicketId t = submit();
    Snapshot before = c.store().snapshot();
    long late = Long.MAX_VALUE - TTL + 1;
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.claim(t, A, late, TTL));
    assertTrue(e.getMessage().contains("overflows"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> c.claimByHand(t, A, T0, 0));
    assertThrows(IllegalArgumentException.class, () -> c.claimNext(Lane.DEFAULT, A, late, TTL, 1));
    assertEquals(before, c.store().snapshot(), "refused verbs change nothing");
    RunId run = claim(t, A, T0).run().id();
    assertThrows(IllegalArgumentException.class, () -> c.renew(run, A, late, TTL));
    assertThrows(IllegalArgumentException.class, () -> c.renewAll(A, T0, -1));
    assertThrows(IllegalArgumentException.class, () -> c.readopt(run, A, Long.MAX_VALUE, 1));
    assertThrows(IllegalArgumentException.class, () -> c.adoptClaim(run, B, A, T0, 0));
    assertThrows(IllegalArgumentException.class, () -> c.adoptClaim(run, B, A, late, TTL));
    assertEquals(T0 + TTL, c.store().lease(t).orElseThrow().expiresAtMs(), "the lease is as granted");
  }

  // ---- task control: kills and time-outs (Q12, Q13), grants (Q1), retries, labels, events ----

  protected RunId runningRun(TicketId t, OwnerId o, long now) {
    RunId run = claim(t, o, now).run().id();
    assertInstanceOf(Start.Started.class, c.start(run, o, runStart(now).withTimeout(60_000)));
    return run;
  }

  @Test
  void submitRecordsTheRunSpecAndLabels_andTheyComeBackExactly() {
    Environment env = Environment.of(java.util.Map.of("PATH", "/bin", "TOKEN", "s=cr t\nx", "Ä", "ü"));
    NewTicket n = NewTicket.of(Lane.DEFAULT, "command", "{}").withSpec(new RunSpec("/srv/work dir", env, 90_000))
        .withLabels(java.util.Map.of("team", "a", "job.kind", "nightly"));
    Ticket t = assertInstanceOf(Submission.Accepted.class, c.submit(n, T0)).ticket();
    assertEquals(n.spec(), t.spec());
    assertEquals(n.labels(), t.labels());
    assertEquals(t, ticket(t.id()));
    assertEquals("s=cr t\nx", ticket(t.id()).spec().env().value("TOKEN").orElseThrow());
    assertFalse(ticket(t.id()).spec().env().toString().contains("s=cr"), "an environment never shows its values");
  }

  @Test
  void Q13_aKilledRunSettlesKilled_spendsNoAttempt_andCancelsItsTicket() {
    TicketId t = submitWithAttempts(1);
    RunId run = runningRun(t, A, T0);
    StopRequest.Recorded r = assertInstanceOf(StopRequest.Recorded.class,
        c.requestStop(run, StopIntent.KILL, "killed by an operator", T0 + 1));
    assertTrue(r.changed());
    assertEquals(StopIntent.KILL, c.store().run(run).orElseThrow().stopIntent());
    assertEquals(TicketState.LEASED, ticket(t).state(), "a kill on record moves nothing yet");
    assertInstanceOf(Exit.Taken.class, c.takeExit(run, ExitOwner.supervisor(A), RunExit.signal(15, T0 + 2)));
    Snapshot exited = c.store().snapshot();
    assertEquals(new Settlement.Denied(Settlement.Reason.KILL_MISMATCH),
        c.finish(Finish.as(ExitOwner.supervisor(A), run, Verdict.FAILED, "exit 143"), T0 + 3));
    assertEquals(exited, c.store().snapshot(), "a denial changes nothing");
    Settlement.Settled s = settle(run, A, Verdict.KILLED, T0 + 3);
    assertEquals(TicketState.CANCELLED, s.ticket().state());
    assertEquals(0, s.ticket().attemptsUsed(), "Q13: no attempt spent");
    assertEquals(new Settlement.Denied(Settlement.Reason.ALREADY_SETTLED),
        c.finish(Finish.as(ExitOwner.supervisor(A), run, Verdict.KILLED, null), T0 + 4), "settled once");
    List<Event> events = c.store().events(0, 10);
    assertEquals(List.of(Event.Kind.KILL, Event.Kind.SETTLED), events.stream().map(Event::kind).toList());
    assertEquals(new Event(1, T0 + 1, Event.Kind.KILL, t, run, null, null, null, "killed by an operator"), events.get(0));
    assertEquals(new Event(2, T0 + 3, Event.Kind.SETTLED, t, run, null, Verdict.KILLED, TicketState.CANCELLED, ""),
        events.get(1));
    assertEquals(List.of(events.get(1)), c.store().events(1, 10), "events after an id");
    assertEquals(List.of(events.get(0)), c.store().events(0, 1), "at most the limit");
  }

  @Test
  void Q13_aKillWithRetryQueuesTheTicketAtOnce_andAKillWithHoldHoldsIt() {
    TicketId retried = submit();
    RunId r1 = runningRun(retried, A, T0);
    c.requestStop(r1, StopIntent.KILL_RETRY, "killed", T0);
    c.takeExit(r1, ExitOwner.recovery(B), RunExit.unknown(T0 + 5));
    Ticket again = assertInstanceOf(Settlement.Settled.class,
        c.finish(Finish.as(ExitOwner.recovery(B), r1, Verdict.KILLED, "killed by an operator"), T0 + 5)).ticket();
    assertEquals(TicketState.READY, again.state());
    assertEquals(T0 + 5, again.notBeforeMs());
    assertEquals(0, again.attemptsUsed());
    assertEquals(1, claim(retried, A, T0 + 5).run().attempt(), "the next run is the same attempt again");

    TicketId held = submit();
    RunId r2 = runningRun(held, A, T0);
    c.requestStop(r2, StopIntent.KILL_HOLD, "killed", T0);
    c.takeExit(r2, ExitOwner.supervisor(A), RunExit.signal(9, T0 + 1));
    Ticket h = settle(r2, A, Verdict.KILLED, T0 + 1).ticket();
    assertEquals(TicketState.HELD, h.state());
    assertTrue(h.holdReason().startsWith("killed by an operator"), h.holdReason());
  }

  @Test
  void Q12_Q13_aKillReplacesATimeout_aTimeoutNeverReplacesAKill_andEndedOrUnstartedRunsAreRefused() {
    TicketId t = submit();
    RunId claimed = claim(t, A, T0).run().id();
    assertEquals(new StopRequest.Denied(StopRequest.Reason.NOT_STARTED),
        c.requestStop(claimed, StopIntent.TIMEOUT, "timed out", T0));
    c.start(claimed, A, runStart(T0));
    assertTrue(assertInstanceOf(StopRequest.Recorded.class, c.requestStop(claimed, StopIntent.TIMEOUT, "timed out",
        T0)).changed());
    assertFalse(assertInstanceOf(StopRequest.Recorded.class, c.requestStop(claimed, StopIntent.TIMEOUT, "timed out",
        T0)).changed(), "asked again: nothing changes");
    assertEquals(StopIntent.KILL_HOLD, assertInstanceOf(StopRequest.Recorded.class,
        c.requestStop(claimed, StopIntent.KILL_HOLD, "killed", T0)).run().stopIntent());
    StopRequest.Recorded kept = assertInstanceOf(StopRequest.Recorded.class,
        c.requestStop(claimed, StopIntent.TIMEOUT, "timed out", T0));
    assertEquals(StopIntent.KILL_HOLD, kept.run().stopIntent());
    assertFalse(kept.changed());
    assertEquals(List.of(Event.Kind.TIMEOUT, Event.Kind.KILL), c.store().events(0, 10).stream().map(Event::kind)
        .toList());
    c.takeExit(claimed, ExitOwner.supervisor(A), RunExit.code(0, T0));
    assertEquals(new StopRequest.Denied(StopRequest.Reason.ENDED), c.requestStop(claimed, StopIntent.KILL, "k", T0));
    assertEquals(new StopRequest.Denied(StopRequest.Reason.NOT_FOUND),
        c.requestStop(new RunId(t, 9), StopIntent.KILL, "k", T0));
    TicketId other = submit();
    RunId timedOut = runningRun(other, A, T0);
    c.requestStop(timedOut, StopIntent.TIMEOUT, "timed out after 1m", T0);
    c.takeExit(timedOut, ExitOwner.supervisor(A), RunExit.signal(15, T0));
    assertEquals(new Settlement.Denied(Settlement.Reason.KILL_MISMATCH),
        c.finish(Finish.as(ExitOwner.supervisor(A), timedOut, Verdict.KILLED, null), T0), "a time-out is no kill");
    Ticket failed = settle(timedOut, A, Verdict.FAILED, T0).ticket();
    assertEquals(1, failed.attemptsUsed(), "Q12: a time-out spends an attempt");
  }

  @Test
  void Q13_aKillOfARunThatNeverStarted_movesItsTicketAsTheKillSaidWhenTheClaimIsRolledBack() {
    TicketId t = submit();
    RunId run = claim(t, A, T0).run().id();
    assertInstanceOf(StopRequest.Recorded.class, c.requestStop(run, StopIntent.KILL, "killed", T0));
    AbortClaim.Aborted a = assertInstanceOf(AbortClaim.Aborted.class, c.abortClaim(run, A, "killed before it started",
        T0));
    assertEquals(TicketState.CANCELLED, a.ticket().state());
    assertEquals(Verdict.ABANDONED, a.run().verdict());
  }

  @Test
  void Q1_aReleaseGrantsAttempts_soTheTicketShowsAttemptFourOfFour_neverFourOfThree() {
    TicketId t = submitWithAttempts(3);
    long now = T0;
    for (int i = 0; i < 3; i++) {
      now = Math.max(now, ticket(t).notBeforeMs());
      settle(runToExit(t, A, now), A, Verdict.FAILED, now);
    }
    Ticket exhausted = ticket(t);
    assertEquals(TicketState.HELD, exhausted.state());
    assertEquals(3, exhausted.allowedAttempts());
    Ticket released = assertInstanceOf(Control.Done.class, c.release(t)).ticket();
    assertEquals(1, released.attemptsGranted(), "one attempt when none remain");
    assertEquals(4, released.allowedAttempts());
    RunId fourth = runToExit(t, A, now);
    assertEquals(4, c.store().run(fourth).orElseThrow().attempt());
    Ticket after = settle(fourth, A, Verdict.FAILED, now).ticket();
    assertTrue(after.holdReason().startsWith("attempts exhausted (4 of 4)"), after.holdReason());
    assertEquals(5 + 2, assertInstanceOf(Control.Done.class, c.release(t, java.util.OptionalInt.of(3))).ticket()
        .allowedAttempts(), "--attempts 3 grants three more");
    c.hold(t, "again", now);
    assertEquals(0, assertInstanceOf(Control.Done.class, c.release(t)).ticket().attemptsGranted() - 4,
        "a release of a ticket with attempts to spare grants none");
    c.hold(t, "again", now);
    assertEquals(new Control.Denied(Control.Reason.ATTEMPTS_LIMIT), c.release(t, java.util.OptionalInt.of(1000)));
    assertThrows(IllegalArgumentException.class, () -> c.release(t, java.util.OptionalInt.of(0)));
  }

  @Test
  void aRetryQueuesTheSameWorkAsANewTicket_linkedBothWays_onceOnly_andCancelsAHeldOriginal() {
    NewTicket n = new NewTicket(BATCH, "command", "{\"argv\":[\"make\"]}", 2, 7, T0 + 99, "key-1")
        .withSpec(new RunSpec("/w", Environment.of(java.util.Map.of("A", "1")), 5_000))
        .withLabels(java.util.Map.of("team", "a"));
    TicketId t = submit(n);
    assertEquals(new Retry.Denied(Retry.Reason.NOT_FINISHED, null), c.retry(t, T0));
    c.hold(t, "by hand", T0);
    Retry.Retried r = assertInstanceOf(Retry.Retried.class, c.retry(t, T0 + 5));
    Ticket fresh = r.ticket();
    assertEquals(new NewTicket(BATCH, "command", "{\"argv\":[\"make\"]}", 2, 7, 0, null, n.spec(), n.labels()),
        fresh.resubmission());
    assertEquals(TicketState.READY, fresh.state());
    assertEquals(T0 + 5, fresh.createdAtMs());
    assertEquals(t, fresh.retryOf());
    assertEquals(fresh.id(), r.original().retriedAs());
    assertEquals(TicketState.CANCELLED, r.original().state(), "a HELD original never runs beside its retry");
    assertEquals(r.original(), ticket(t));
    assertEquals(fresh, ticket(fresh.id()));
    assertEquals(new Retry.Denied(Retry.Reason.ALREADY_RETRIED, fresh.id()), c.retry(t, T0 + 6));
    assertEquals(new Retry.Denied(Retry.Reason.NOT_FOUND, null), c.retry(new TicketId(99), T0));
    TicketId done = submit();
    settle(runToExit(done, A, T0), A, Verdict.SUCCEEDED, T0);
    Retry.Retried again = assertInstanceOf(Retry.Retried.class, c.retry(done, T0));
    assertEquals(TicketState.SUCCEEDED, again.original().state(), "a finished original stays as it ended");
  }

  @Test
  void ticketsFilterByLabels_inTheStoreQuery_andPageAsBefore() {
    List<TicketId> a = new java.util.ArrayList<>();
    for (int i = 0; i < 7; i++) {
      NewTicket n = NewTicket.of(Lane.DEFAULT, "command", "{}");
      TicketId id = submit(i % 2 == 0 ? n.withLabels(java.util.Map.of("team", "a", "n", "" + i))
          : n.withLabels(java.util.Map.of("team", "b")));
      if (i % 2 == 0) {
        a.add(id);
      }
    }
    TicketQuery q = TicketQuery.all().withLabel("team", "a").limit(2);
    List<TicketId> paged = new java.util.ArrayList<>();
    for (List<Ticket> page = c.store().tickets(q); !page.isEmpty();
         page = c.store().tickets(q.after(page.get(page.size() - 1).id()))) {
      page.forEach(t -> paged.add(t.id()));
    }
    assertEquals(a, paged);
    assertEquals(List.of(a.get(1)), c.store().tickets(TicketQuery.all().withLabel("team", "a").withLabel("n", "2"))
        .stream().map(Ticket::id).toList(), "every label must match");
    assertTrue(c.store().tickets(TicketQuery.all().withLabel("team", "c")).isEmpty());
  }

  @Test
  void anOperatorHoldAndAServiceGiveUpAreEvents_andAHoldOfAHeldTicketIsNot() {
    TicketId t = submit();
    c.hold(t, "wait for data", T0);
    c.hold(t, "again", T0 + 1);
    Event e = c.serviceGivenUp("indexer", "failed 6 times within 15m", T0 + 2);
    assertEquals(new Event(2, T0 + 2, Event.Kind.SERVICE_GIVEN_UP, null, null, "indexer", null, null,
        "failed 6 times within 15m"), e);
    assertEquals(List.of(new Event(1, T0, Event.Kind.HELD, t, null, null, null, TicketState.HELD, "wait for data"), e),
        c.store().events(0, 100));
  }

  @Test
  void aCancel_aRetryOfAHeldTicket_andAKillBeforeTheStart_areCancelledEvents_andRefusalsWriteNone() {
    TicketId waiting = submit();
    assertEquals(TicketState.CANCELLED, assertInstanceOf(Control.Done.class, c.cancel(waiting, T0)).ticket().state());
    assertInstanceOf(Control.Denied.class, c.cancel(waiting, T0 + 1));
    assertInstanceOf(Control.Denied.class, c.cancel(new TicketId(77), T0 + 1));
    TicketId held = submit();
    c.hold(held, "by hand", T0 + 2);
    c.cancel(held, T0 + 3);
    TicketId retried = submit();
    c.hold(retried, "by hand", T0 + 4);
    Retry.Retried r = assertInstanceOf(Retry.Retried.class, c.retry(retried, T0 + 5));
    assertInstanceOf(Retry.Retried.class, c.retry(waiting, T0 + 6)); // a finished original: no event
    TicketId killed = submit();
    RunId claimed = claim(killed, A, T0 + 7).run().id();
    c.requestStop(claimed, StopIntent.KILL, "killed by an operator", T0 + 7);
    assertEquals(TicketState.CANCELLED, assertInstanceOf(AbortClaim.Aborted.class,
        c.abortClaim(claimed, A, "stopped before it started", T0 + 8)).ticket().state());
    assertEquals(List.of(
        new Event(1, T0, Event.Kind.CANCELLED, waiting, null, null, null, TicketState.CANCELLED, "cancelled by an operator"),
        new Event(2, T0 + 2, Event.Kind.HELD, held, null, null, null, TicketState.HELD, "by hand"),
        new Event(3, T0 + 3, Event.Kind.CANCELLED, held, null, null, null, TicketState.CANCELLED, "cancelled by an operator"),
        new Event(4, T0 + 4, Event.Kind.HELD, retried, null, null, null, TicketState.HELD, "by hand"),
        new Event(5, T0 + 5, Event.Kind.CANCELLED, retried, null, null, null, TicketState.CANCELLED,
            "retried as " + r.ticket().id()),
        new Event(6, T0 + 7, Event.Kind.KILL, killed, claimed, null, null, null, "killed by an operator"),
        new Event(7, T0 + 8, Event.Kind.CANCELLED, killed, claimed, null, null, TicketState.CANCELLED,
            "killed by an operator before it started")), c.store().events(0, 100));
  }

  // ---- Q14: prerequisites ----

  protected TicketId submitAfter(int maxAttempts, TicketId... prerequisites) {
    return submit(new NewTicket(Lane.DEFAULT, "command", "{}", maxAttempts, 0, 0, null)
        .withAfter(java.util.Arrays.stream(prerequisites).<Prerequisite>map(Prerequisite.Existing::new).toList()));
  }

  private List<TicketId> claimable(long now) {
    return c.claimNext(Lane.DEFAULT, A, now, TTL, 10).granted().stream().map(g -> g.run().ticket()).toList();
  }

  @Test
  void Q14_aChainRunsInOrder_eachTicketClaimableOnlyOnceItsPrerequisitesSucceeded() {
    TicketId a = submit();
    TicketId b = submitAfter(3, a);
    TicketId d = submit();
    TicketId e = submitAfter(3, b, d);
    assertEquals(List.of(b, d), ticket(e).after());
    assertEquals(Claim.Reason.WAITING, claimDenial(b, T0 + 1));
    RunId ra = runToExit(a, A, T0 + 2);
    assertEquals(List.of(d), claimable(T0 + 3), "b waits for a, which is running; e waits for b");
    settle(ra, A, Verdict.SUCCEEDED, T0 + 4);
    RunId rd = c.store().runsOf(d).get(0).id();
    assertInstanceOf(Start.Started.class, c.start(rd, A, runStart(T0 + 5)));
    assertInstanceOf(Exit.Taken.class, c.takeExit(rd, ExitOwner.supervisor(A), RunExit.code(0, T0 + 5)));
    settle(rd, A, Verdict.SUCCEEDED, T0 + 5);
    assertEquals(List.of(b), claimable(T0 + 6), "a succeeded: b goes; e still waits for b");
    assertEquals(Claim.Reason.WAITING, claimDenial(e, T0 + 6));
  }

  @Test
  void Q14_aPrerequisiteThatFails_holdsItsDependentsInTurn_withItsName_andARetryLetsTheChainGoOn() {
    TicketId a = submitWithAttempts(1);
    TicketId b = submitAfter(3, a);
    TicketId cc = submitAfter(3, b);
    settle(runToExit(a, A, T0 + 1), A, Verdict.FAILED, T0 + 2);
    assertEquals(TicketState.HELD, ticket(a).state(), "its one attempt is spent");
    assertEquals(TicketState.HELD, ticket(b).state());
    assertEquals("waits for " + a + ", which is held", ticket(b).holdReason());
    assertEquals(a, ticket(b).heldFor());
    assertEquals("waits for " + b + ", which is held", ticket(cc).holdReason());
    assertEquals(Control.Reason.WAITING, assertInstanceOf(Control.Denied.class, c.release(b)).reason(),
        "b goes on when a does, not before");

    Retry.Retried r = assertInstanceOf(Retry.Retried.class, c.retry(a, T0 + 3));
    assertEquals(List.of(r.ticket().id()), ticket(b).after(), "the retry stands for a");
    assertEquals(TicketState.READY, ticket(b).state());
    assertEquals(TicketState.READY, ticket(cc).state());
    assertEquals(List.of(r.ticket().id()), claimable(T0 + 4), "b and c still wait, now for the retry");
  }

  @Test
  void Q14_releasingAHeldPrerequisiteLetsItsDependentsGoOn_andACancelKeepsThemHeldNamingIt() {
    TicketId a = submit();
    TicketId b = submitAfter(3, a);
    assertInstanceOf(Control.Done.class, c.hold(a, "look first", T0 + 1));
    assertEquals("waits for " + a + ", which is held", ticket(b).holdReason());
    assertInstanceOf(Control.Done.class, c.release(a));
    assertEquals(TicketState.READY, ticket(b).state(), "the release lets the chain go on");
    assertNull(ticket(b).heldFor());
    assertInstanceOf(Control.Done.class, c.cancel(a, T0 + 2));
    assertEquals("waits for " + a + ", which was cancelled", ticket(b).holdReason());
    TicketId late = submitAfter(3, a);
    assertEquals(TicketState.HELD, ticket(late).state(), "a ticket that waits for a cancelled one is held at once");
    TicketId x = submit();
    settle(runToExit(x, A, T0 + 3), A, Verdict.PERMANENT_FAILURE, T0 + 4);
    assertEquals("waits for " + x + ", which failed", ticket(submitAfter(3, x)).holdReason());
  }

  @Test
  void Q14_aSubmissionWaitingForNoTicketOrForALaterOne_isRefused_andChangesNothing() {
    TicketId a = submit();
    Snapshot before = c.store().snapshot();
    NewTicket base = NewTicket.of(Lane.DEFAULT, "command", "{}");
    assertThrows(IllegalArgumentException.class,
        () -> c.submit(base.withAfter(List.of(new Prerequisite.Existing(new TicketId(99)))), T0 + 1));
    assertThrows(IllegalArgumentException.class,
        () -> c.submit(base.withAfter(List.of(new Prerequisite.Earlier(0))), T0 + 1));
    assertThrows(IllegalArgumentException.class, () -> c.submitAll(List.of(base,
        base.withAfter(List.of(new Prerequisite.Existing(a), new Prerequisite.Earlier(1)))), T0 + 1),
        "a ticket may not wait for itself, so no cycle can form");
    assertThrows(IllegalArgumentException.class, () -> c.submitAll(List.of(
        base.withAfter(List.of(new Prerequisite.Earlier(1))), base), T0 + 1));
    assertEquals(before, c.store().snapshot(), "nothing changed");
    List<Submission> ok = c.submitAll(List.of(base, base.withAfter(List.of(new Prerequisite.Earlier(0),
        new Prerequisite.Existing(a)))), T0 + 2);
    TicketId first = assertInstanceOf(Submission.Accepted.class, ok.get(0)).ticket().id();
    assertEquals(List.of(a, first), assertInstanceOf(Submission.Accepted.class, ok.get(1)).ticket().after());
  }

  @Test
  void randomStepSequences_keepEveryInvariantAfterEveryStep() {
    for (long seed = 1; seed <= 25; seed++) {
      Coordination fresh;
      try {
        dispose(c);
        fresh = create(POLICY);
      } catch (Exception e) {
        throw new AssertionError(e);
      }
      c = fresh;
      List<Step> steps = RandomSteps.generate(seed, 80, new dev.vigil.coordination.law.LeaseLaw(POLICY));
      long s = seed;
      Transcript.of(c, steps, store -> {
        List<String> v = CoordinationInvariants.violations(store.snapshot());
        assertTrue(v.isEmpty(), "seed " + s + ": " + v);
      });
    }
  }
}
