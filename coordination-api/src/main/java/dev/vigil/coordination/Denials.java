package dev.vigil.coordination;

import java.util.Objects;
import java.util.Optional;

/**
 * Why a verb is refused, decided in one place for every {@link Coordination}: the reference model
 * asks before it changes anything; a store whose conditional update touched no row reads the
 * current rows in the same transaction and asks the same function why (empty then means a
 * concurrent commit changed the rows in between).
 *
 * <p>Each function takes what its verb reads (an absent value is a row that does not exist) and
 * returns the first check that fails, in the order in which the verb's reason enum declares its
 * reasons (each says "checked in this order"), or empty when the verb is granted. A {@code lease}
 * argument is the lease that names the verb's run, if any. Nothing here reads a clock: time is the
 * caller's {@code nowMs}.
 */
public final class Denials {
  private Denials() {}

  /**
   * {@code claim} and {@code claimByHand} (C1, C2, Q9, Q14): NOT_FOUND, LEASED (the ticket is LEASED
   * or a lease names it), NOT_READY (not READY), PARKED (the ticket or its lane), NOT_DUE
   * ({@code notBefore > now}), WAITING (a prerequisite has not SUCCEEDED: {@link Prerequisites#met}).
   *
   * @param ticket            the ticket, if it exists
   * @param leased            whether a lease names the ticket
   * @param laneParked        whether the ticket's lane is parked
   * @param prerequisitesMet  whether every prerequisite of the ticket SUCCEEDED
   */
  public static Optional<Claim.Reason> claim(Optional<Ticket> ticket, boolean leased, boolean laneParked, long nowMs,
                                             boolean prerequisitesMet) {
    Optional<Claim.Reason> r = claim(ticket, leased, laneParked, nowMs);
    return r.isEmpty() && !prerequisitesMet ? Optional.of(Claim.Reason.WAITING) : r;
  }

  /**
   * The checks of {@link #claim(Optional, boolean, boolean, long, boolean)} before WAITING: what a
   * ticket's own row and lane say, its prerequisites aside.
   */
  public static Optional<Claim.Reason> claim(Optional<Ticket> ticket, boolean leased, boolean laneParked, long nowMs) {
    if (ticket.isEmpty()) {
      return Optional.of(Claim.Reason.NOT_FOUND);
    }
    Ticket t = ticket.get();
    if (leased || t.state() == TicketState.LEASED) {
      return Optional.of(Claim.Reason.LEASED);
    } else if (t.state() != TicketState.READY) {
      return Optional.of(Claim.Reason.NOT_READY);
    } else if (t.parked() || laneParked) {
      return Optional.of(Claim.Reason.PARKED);
    } else if (t.notBeforeMs() > nowMs) {
      return Optional.of(Claim.Reason.NOT_DUE);
    }
    return Optional.empty();
  }

  /**
   * {@code start} (Q3): NOT_FOUND, ALREADY_STARTED (a start is recorded), NOT_CLAIMED, LEASE_LOST
   * ({@code owner} does not hold the run's lease).
   */
  public static Optional<Start.Reason> start(Optional<Run> run, Optional<Lease> lease, OwnerId owner) {
    Objects.requireNonNull(owner, "owner");
    if (run.isEmpty()) {
      return Optional.of(Start.Reason.NOT_FOUND);
    } else if (run.get().start() != null) {
      return Optional.of(Start.Reason.ALREADY_STARTED);
    } else if (run.get().state() != RunState.CLAIMED) {
      return Optional.of(Start.Reason.NOT_CLAIMED);
    } else if (!holds(lease, run.get().id(), owner)) {
      return Optional.of(Start.Reason.LEASE_LOST);
    }
    return Optional.empty();
  }

  /**
   * {@code abortClaim}: NOT_FOUND, NOT_CLAIMED, NOT_OWNER ({@code owner} does not hold the run's
   * lease, lapsed or not).
   */
  public static Optional<AbortClaim.Reason> abortClaim(Optional<Run> run, Optional<Lease> lease, OwnerId owner) {
    return claimHeld(run, lease, owner, AbortClaim.Reason.NOT_FOUND, AbortClaim.Reason.NOT_CLAIMED,
        AbortClaim.Reason.NOT_OWNER);
  }

  /**
   * {@code adoptClaim} (C3): NOT_FOUND, NOT_CLAIMED, NOT_OWNER ({@code deadOwner} does not hold the
   * run's lease, lapsed or not).
   */
  public static Optional<AdoptClaim.Reason> adoptClaim(Optional<Run> run, Optional<Lease> lease, OwnerId deadOwner) {
    return claimHeld(run, lease, deadOwner, AdoptClaim.Reason.NOT_FOUND, AdoptClaim.Reason.NOT_CLAIMED,
        AdoptClaim.Reason.NOT_OWNER);
  }

  /** {@code renew} (C3): GONE (no lease names the run), NOT_OWNER, EXPIRED ({@code expiresAt <= now}). */
  public static Optional<Renewal.Reason> renew(Optional<Lease> lease, OwnerId owner, long nowMs) {
    Objects.requireNonNull(owner, "owner");
    if (lease.isEmpty()) {
      return Optional.of(Renewal.Reason.GONE);
    } else if (!lease.get().owner().equals(owner)) {
      return Optional.of(Renewal.Reason.NOT_OWNER);
    } else if (lease.get().expiresAtMs() <= nowMs) {
      return Optional.of(Renewal.Reason.EXPIRED);
    }
    return Optional.empty();
  }

  /** {@code readopt} (C3): GONE (no such run, or no lease names it), NOT_RUNNING. */
  public static Optional<Readopt.Reason> readopt(Optional<Run> run, Optional<Lease> lease) {
    if (run.isEmpty() || lease.isEmpty()) {
      return Optional.of(Readopt.Reason.GONE);
    } else if (run.get().state() != RunState.RUNNING) {
      return Optional.of(Readopt.Reason.NOT_RUNNING);
    }
    return Optional.empty();
  }

  /**
   * {@code takeExit} (C6): NOT_FOUND, ALREADY_TAKEN (an exit owner is recorded), NOT_RUNNING. It
   * returns the whole denial, since ALREADY_TAKEN names the winner.
   */
  public static Optional<Exit.Denied> takeExit(Optional<Run> run) {
    if (run.isEmpty()) {
      return Optional.of(new Exit.Denied(Exit.Reason.NOT_FOUND, null));
    } else if (run.get().exitOwner() != null) {
      return Optional.of(new Exit.Denied(Exit.Reason.ALREADY_TAKEN, run.get().exitOwner()));
    } else if (run.get().state() != RunState.RUNNING) {
      return Optional.of(new Exit.Denied(Exit.Reason.NOT_RUNNING, null));
    }
    return Optional.empty();
  }

  /**
   * {@code finish} (C8, Q13): NOT_FOUND, ALREADY_SETTLED, NOT_EXITED, NOT_EXIT_OWNER (the claimant is
   * not the exit owner and did not prove the exit owner dead), KILL_MISMATCH (a killed run offered
   * another verdict than KILLED, or a run nobody killed offered KILLED).
   */
  public static Optional<Settlement.Reason> finish(Optional<Run> run, Finish finish) {
    Objects.requireNonNull(finish, "finish");
    if (run.isEmpty()) {
      return Optional.of(Settlement.Reason.NOT_FOUND);
    } else if (run.get().state() == RunState.SETTLED) {
      return Optional.of(Settlement.Reason.ALREADY_SETTLED);
    } else if (run.get().state() != RunState.EXITED) {
      return Optional.of(Settlement.Reason.NOT_EXITED);
    } else if (!finish.claimant().equals(run.get().exitOwner()) && !finish.exitOwnerDead()) {
      return Optional.of(Settlement.Reason.NOT_EXIT_OWNER);
    } else if (killed(run.get()) != (finish.verdict() == Verdict.KILLED)) {
      return Optional.of(Settlement.Reason.KILL_MISMATCH);
    }
    return Optional.empty();
  }

  private static boolean killed(Run run) {
    return run.stopIntent() != null && run.stopIntent().kill();
  }

  /**
   * {@code requestStop} (Q12, Q13): NOT_FOUND, ENDED (the exit was taken: EXITED or SETTLED),
   * NOT_STARTED (a TIMEOUT of a CLAIMED run: its time has not begun). A kill of a CLAIMED run is
   * granted: it is stopped instead of told to go, or its ticket moves as the kill said if its claim
   * is rolled back.
   */
  public static Optional<StopRequest.Reason> requestStop(Optional<Run> run, StopIntent intent) {
    Objects.requireNonNull(intent, "intent");
    if (run.isEmpty()) {
      return Optional.of(StopRequest.Reason.NOT_FOUND);
    } else if (run.get().state() == RunState.EXITED || run.get().state() == RunState.SETTLED) {
      return Optional.of(StopRequest.Reason.ENDED);
    } else if (intent == StopIntent.TIMEOUT && run.get().state() == RunState.CLAIMED) {
      return Optional.of(StopRequest.Reason.NOT_STARTED);
    }
    return Optional.empty();
  }

  /**
   * {@code retry}: NOT_FOUND, NOT_FINISHED (READY or LEASED: it may still run as it is),
   * ALREADY_RETRIED (naming the newer ticket). It returns the whole denial.
   */
  public static Optional<Retry.Denied> retry(Optional<Ticket> ticket) {
    if (ticket.isEmpty()) {
      return Optional.of(new Retry.Denied(Retry.Reason.NOT_FOUND, null));
    }
    Ticket t = ticket.get();
    if (t.state() == TicketState.READY || t.state() == TicketState.LEASED) {
      return Optional.of(new Retry.Denied(Retry.Reason.NOT_FINISHED, null));
    } else if (t.retriedAs() != null) {
      return Optional.of(new Retry.Denied(Retry.Reason.ALREADY_RETRIED, t.retriedAs()));
    }
    return Optional.empty();
  }

  /**
   * How many attempts a release grants (Q1): {@code asked} when given, else one when none remain and
   * none otherwise (a release of a blocked ticket with attempts to spare keeps its budget); never so
   * few that no attempt remains, so a released ticket never runs past its allowed attempts.
   */
  public static int grantOf(Ticket ticket, java.util.OptionalInt asked) {
    int lacking = Math.max(0, ticket.attemptsUsed() - ticket.allowedAttempts() + 1);
    return asked.isPresent() ? Math.max(asked.getAsInt(), lacking) : lacking;
  }

  /** {@code park} and {@code unpark} (Q9): NOT_FOUND, TERMINAL. A LEASED ticket may be parked. */
  public static Optional<Control.Reason> park(Optional<Ticket> ticket) {
    if (ticket.isEmpty()) {
      return Optional.of(Control.Reason.NOT_FOUND);
    } else if (ticket.get().state().terminal()) {
      return Optional.of(Control.Reason.TERMINAL);
    }
    return Optional.empty();
  }

  /**
   * {@code hold}: NOT_FOUND, TERMINAL, LEASED. Empty for a READY ticket, and for one that is HELD
   * already (done, unchanged).
   */
  public static Optional<Control.Reason> hold(Optional<Ticket> ticket) {
    return holdOrCancel(ticket);
  }

  /** {@code cancel}: NOT_FOUND, TERMINAL, LEASED. Empty for a READY or HELD ticket. */
  public static Optional<Control.Reason> cancel(Optional<Ticket> ticket) {
    return holdOrCancel(ticket);
  }

  /** {@code release} (Q8) granting what {@link #grantOf} grants when none is asked: NOT_FOUND, NOT_HELD, ATTEMPTS_LIMIT. */
  public static Optional<Control.Reason> release(Optional<Ticket> ticket) {
    return release(ticket, java.util.OptionalInt.empty());
  }

  /**
   * {@code release} (Q1, Q8): NOT_FOUND, NOT_HELD, ATTEMPTS_LIMIT (the grant, {@link #grantOf}, would
   * allow more than {@value NewTicket#MAX_ATTEMPTS} attempts in all).
   */
  public static Optional<Control.Reason> release(Optional<Ticket> ticket, java.util.OptionalInt asked) {
    if (ticket.isEmpty()) {
      return Optional.of(Control.Reason.NOT_FOUND);
    } else if (ticket.get().state() != TicketState.HELD) {
      return Optional.of(Control.Reason.NOT_HELD);
    } else if ((long) ticket.get().allowedAttempts() + grantOf(ticket.get(), asked) > NewTicket.MAX_ATTEMPTS) {
      return Optional.of(Control.Reason.ATTEMPTS_LIMIT);
    }
    return Optional.empty();
  }

  /**
   * {@code release} (Q1, Q8, Q14): the checks of {@link #release(Optional, java.util.OptionalInt)},
   * then WAITING when a prerequisite holds the ticket ({@link Prerequisites#blocker}), whether the
   * hold is that prerequisite's or a person's.
   *
   * @param prerequisites the tickets the ticket waits for, as they are now
   */
  public static Optional<Control.Reason> release(Optional<Ticket> ticket, java.util.OptionalInt asked,
                                                 java.util.List<Ticket> prerequisites) {
    Optional<Control.Reason> r = release(ticket, asked);
    if (r.isEmpty() && Prerequisites.blocker(prerequisites).isPresent()) {
      return Optional.of(Control.Reason.WAITING);
    }
    return r;
  }

  private static Optional<Control.Reason> holdOrCancel(Optional<Ticket> ticket) {
    Optional<Control.Reason> parkDenial = park(ticket);
    if (parkDenial.isPresent()) {
      return parkDenial;
    } else if (ticket.get().state() == TicketState.LEASED) {
      return Optional.of(Control.Reason.LEASED);
    }
    return Optional.empty();
  }

  /** The checks abortClaim and adoptClaim share: the run exists, is CLAIMED, and {@code owner} holds its lease. */
  private static <R> Optional<R> claimHeld(Optional<Run> run, Optional<Lease> lease, OwnerId owner, R notFound,
                                           R notClaimed, R notOwner) {
    Objects.requireNonNull(owner, "owner");
    if (run.isEmpty()) {
      return Optional.of(notFound);
    } else if (run.get().state() != RunState.CLAIMED) {
      return Optional.of(notClaimed);
    } else if (!holds(lease, run.get().id(), owner)) {
      return Optional.of(notOwner);
    }
    return Optional.empty();
  }

  /** Whether {@code owner} holds the lease and it names {@code run}. */
  private static boolean holds(Optional<Lease> lease, RunId run, OwnerId owner) {
    return lease.isPresent() && lease.get().run().equals(run) && lease.get().owner().equals(owner);
  }
}
