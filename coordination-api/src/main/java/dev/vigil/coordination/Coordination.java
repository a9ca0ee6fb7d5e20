package dev.vigil.coordination;

import java.util.List;

/**
 * The only mutation path for tickets, runs and leases. Each verb is one transaction and returns
 * a decision; a denial changes nothing. Time is an argument: {@code nowMs} is wall-clock
 * milliseconds, as stored in {@code notBefore}, {@code createdAt} and lease expiries. Every verb
 * that grants or moves a lease checks {@code nowMs} and {@code ttlMs} with {@link Lease#checkTtl}
 * (an {@link IllegalArgumentException} before anything is read).
 *
 * <p>Why a verb is refused is decided by {@link Denials}, the same function for every
 * implementation. Implementations keep the C and Q laws of LAWS.md;
 * {@code dev.vigil.coordination.law.LeaseLaw} is the reference, and {@code CoordinationInvariants}
 * checks any {@link Store}.
 *
 * <p>No verb decides that an owner is dead: death is decided by the caller, by process identity
 * (C5). Verbs that act for a dead owner ({@link #adoptClaim}, {@link #abortClaim} by recovery,
 * {@link Finish#exitOwnerDead()}) take the owner the caller judged, and compare it with the store.
 */
public interface Coordination extends QuestionVerbs, CheckpointVerbs, TranscriptVerbs, MaintenanceVerbs {
  /** Read-only view of the same data. */
  Store store();

  /** Queues a READY ticket (or names the earlier ticket with the same idempotency key). */
  Submission submit(NewTicket ticket, long nowMs);

  /**
   * Queues a finished ticket (SUCCEEDED, FAILED, CANCELLED or HELD) again as a new READY ticket of the
   * same work ({@link Ticket#resubmission()}), linked both ways; a HELD original is CANCELLED in the
   * same transaction, with a CANCELLED event, so it never runs beside its retry. A ticket is retried once.
   */
  Retry retry(TicketId original, long nowMs);

  /**
   * Queues many tickets in one transaction: the decisions, in order, are those of {@link #submit}
   * called for each ticket in turn, so accepted tickets are numbered in list order with no gap, and
   * an idempotency key met twice names the ticket it first created, whether that one was queued
   * earlier or earlier in this batch ({@link Submission.Duplicate}). All or nothing: when the verb
   * fails, no ticket of the batch was queued. An empty list changes nothing.
   *
   * @return one decision per ticket, in the order of {@code tickets}
   * @throws NullPointerException if the list or one of its tickets is null (before anything changes)
   */
  List<Submission> submitAll(List<NewTicket> tickets, long nowMs);

  /** Records (or refreshes) one daemon incarnation; always succeeds. */
  void registerOwner(Owner owner);

  /** C2: granted only for a READY, due, unparked ticket in an unparked lane. */
  Claim claim(TicketId ticket, OwnerId owner, long nowMs, long ttlMs);

  /** As {@link #claim}, for a run a person starts in the foreground (Q8). */
  Claim claimByHand(TicketId ticket, OwnerId owner, long nowMs, long ttlMs);

  /**
   * Claims up to {@code max} (at least 1) claimable tickets of {@code lane}, highest priority first,
   * then oldest, then lowest id; none if the lane is parked. No two owners get the same ticket.
   */
  Claims claimNext(Lane lane, OwnerId owner, long nowMs, long ttlMs, int max);

  /**
   * Q3: records the worker's identity once it holds its reservation: granted only for a CLAIMED run
   * never started whose lease {@code owner} holds (lapsed or not).
   */
  Start start(RunId run, OwnerId owner, RunStart start);

  /**
   * Many starts of {@code owner} in one transaction: the decisions, in order, are those of
   * {@link #start} called for each entry in turn (a run named twice is started once, then told
   * ALREADY_STARTED). All or nothing as a write: when the verb fails, no run of the batch was started.
   * An empty list changes nothing. The daemon starts in one call what one pass of its loop starts.
   *
   * @return one decision per entry, in the order of {@code starts}
   * @throws NullPointerException if the owner, the list or one of its entries is null (before anything changes)
   */
  default List<Start> startAll(OwnerId owner, List<StartOf> starts) {
    java.util.Objects.requireNonNull(owner, "owner");
    List<StartOf> all = List.copyOf(starts);
    List<Start> out = new java.util.ArrayList<>(all.size());
    for (StartOf s : all) {
      out.add(start(s.run(), owner, s.start()));
    }
    return out;
  }

  /**
   * Rolls back a claim whose worker never started: granted only for a CLAIMED run whose lease
   * {@code owner} holds (lapsed or not). The daemon that claimed passes itself; recovery acting for
   * a provably dead owner passes that owner (the owner recorded on the claim), so that a claim
   * another daemon adopted meanwhile is refused (NOT_OWNER), never rolled back under it.
   */
  AbortClaim abortClaim(RunId run, OwnerId owner, String why, long nowMs);

  /**
   * C3: takes over a CLAIMED run whose lease {@code deadOwner} holds (lapsed or not): the run and its
   * lease then belong to {@code newOwner}, the lease expiring at {@code nowMs + ttlMs}. With
   * {@link #readopt} and {@link #readoptAll} (for RUNNING runs) it is the only verb that re-arms a lapsed lease.
   *
   * <p>The caller has decided by process identity that {@code deadOwner} is dead (C5); the store
   * cannot know that. The verb is a compare-and-set on the lease's owner: of two daemons adopting
   * the same claim, the second is told NOT_OWNER.
   */
  AdoptClaim adoptClaim(RunId run, OwnerId newOwner, OwnerId deadOwner, long nowMs, long ttlMs);

  /** C3: moves the expiry of a live lease the owner holds. */
  Renewal renew(RunId run, OwnerId owner, long nowMs, long ttlMs);

  /** Renews every unexpired lease of {@code owner} at once; returns how many were renewed. */
  int renewAll(OwnerId owner, long nowMs, long ttlMs);

  /** C3: re-arms the lease of a RUNNING run (lapsed or not) for a new owner. */
  Readopt readopt(RunId run, OwnerId owner, long nowMs, long ttlMs);

  /**
   * Many {@link #readopt} for {@code owner} in one transaction: a daemon that finds the workers of a
   * dead daemon alive takes all of them over at once. The decisions, in order, are those of
   * {@code readopt} called for each run in turn at {@code nowMs} (a run named twice is readopted twice,
   * to the same lease; a run that is gone or not RUNNING is refused as {@code readopt} refuses it, and
   * the others are readopted all the same). All or nothing as a write: when the verb fails, no lease
   * of the batch was re-armed. An empty list changes nothing.
   *
   * @return one decision per run, in the order of {@code runs}
   * @throws NullPointerException     if the owner, the list or one of its runs is null (before anything changes)
   * @throws IllegalArgumentException for a {@code ttlMs} that {@link Lease#checkTtl} refuses (before anything changes)
   */
  default List<Readopt> readoptAll(List<RunId> runs, OwnerId owner, long nowMs, long ttlMs) {
    java.util.Objects.requireNonNull(owner, "owner");
    Lease.checkTtl(nowMs, ttlMs);
    List<RunId> all = List.copyOf(runs);
    List<Readopt> out = new java.util.ArrayList<>(all.size());
    for (RunId r : all) {
      out.add(readopt(r, owner, nowMs, ttlMs));
    }
    return out;
  }

  /** C6: exactly one claimant takes a RUNNING run's exit checkpoint. */
  Exit takeExit(RunId run, ExitOwner claimant, RunExit exit);

  /** C7, C8, Q5, Q7, Q13: settles an EXITED run once, through the retry policy. */
  Settlement finish(Finish finish, long nowMs);

  /**
   * The supervisor's own end of a run whose exit it saw: {@link #takeExit} with {@code claimant},
   * then, only when the exit was taken, {@link #finish} of {@code finish} (whose claimant must be the
   * same). The decisions are those of the two verbs called in turn: a finish refused leaves the run
   * EXITED by {@code claimant}, as {@code takeExit} alone would. An implementation may commit both
   * in one transaction (one commit fewer per run, and no crash can fall between them); recovery
   * still races for an exit with {@code takeExit} alone (C6: an exit is taken once).
   *
   * @throws IllegalArgumentException when {@code finish} names another run or another claimant
   */
  default ExitAndFinish takeExitAndFinish(RunId run, ExitOwner claimant, RunExit exit, Finish finish, long nowMs) {
    ExitAndFinish.check(run, claimant, finish);
    Exit e = takeExit(run, claimant, exit);
    return new ExitAndFinish(e, e instanceof Exit.Taken ? java.util.Optional.of(finish(finish, nowMs))
        : java.util.Optional.empty());
  }

  /**
   * Many {@link #takeExitAndFinish} in one transaction: the decisions, in order, are those of
   * {@code takeExitAndFinish} called for each entry in turn, so those of {@link #takeExit} and
   * {@link #finish} in turn (a finish refused leaves its run EXITED by its claimant; a run named
   * twice is told ALREADY_TAKEN the second time). All or nothing as a write: when the verb fails,
   * no exit of the batch was taken. An empty list changes nothing. Like {@code takeExitAndFinish},
   * it is the supervisor's own path; recovery still takes an exit with {@code takeExit} alone (C6).
   *
   * @return one decision per entry, in the order of {@code ends}
   * @throws NullPointerException if the list or one of its entries is null (before anything changes)
   */
  default List<ExitAndFinish> takeExitAndFinishAll(List<EndOf> ends, long nowMs) {
    List<EndOf> all = List.copyOf(ends);
    List<ExitAndFinish> out = new java.util.ArrayList<>(all.size());
    for (EndOf e : all) {
      out.add(takeExitAndFinish(e.run(), e.claimant(), e.exit(), e.finish(), nowMs));
    }
    return out;
  }

  /**
   * Q12, Q13: records why the daemon is about to stop a live run, before its first signal, with an
   * event ({@code note} its text) when the intent on record changed. A kill replaces a time-out and an
   * earlier kill; a time-out never replaces a kill ({@link StopIntent#then}). The run then settles by
   * its intent: KILLED for a kill (the store refuses any other verdict, and KILLED for a run nobody
   * killed); a time-out is the verdict rule's to word.
   */
  StopRequest requestStop(RunId run, StopIntent intent, String note, long nowMs);

  /** Q9: a parked ticket is never claimed; a LEASED ticket may be parked (its worker is told). */
  Control park(TicketId ticket);

  Control unpark(TicketId ticket);

  /** READY → HELD with a reason (a HELD ticket keeps its reason), with a HELD event. */
  Control hold(TicketId ticket, String reason, long nowMs);

  /**
   * HELD → READY, spawn failures forgotten (Q8: the only way out of a hand-started hold), with
   * {@code moreAttempts} attempts granted on top of the ticket's allowed ones (Q1); when empty, one
   * attempt if none remain and none otherwise ({@link Denials#grantOf}).
   *
   * @throws IllegalArgumentException when {@code moreAttempts} is not 1-{@value NewTicket#MAX_ATTEMPTS}
   */
  Control release(TicketId ticket, java.util.OptionalInt moreAttempts);

  /** {@link #release(TicketId, java.util.OptionalInt)} granting one attempt when none remain. */
  default Control release(TicketId ticket) {
    return release(ticket, java.util.OptionalInt.empty());
  }

  /** READY or HELD → CANCELLED, with a CANCELLED event. */
  Control cancel(TicketId ticket, long nowMs);

  /** Q9: no ticket of a parked lane is claimed; returns true if the lane was not parked before. */
  boolean parkLane(Lane lane);

  /** Returns true if the lane was parked before. */
  boolean unparkLane(Lane lane);

  /**
   * S1: appends the event of a service given up (a decision outside the store, reported in its stream) and, in the
   * same transaction, the service's GIVEN_UP transcript entry (S7), whose output mark is that of the service's
   * latest entry (0 when it has none).
   */
  Event serviceGivenUp(String service, String why, long nowMs);
}
