package dev.vigil.coordination;

import java.util.Objects;

/**
 * The one policy that turns a run's verdict into its ticket's move, used by a live finish and by
 * recovery alike (Q5: the same verdict gives the same transition wherever the run ended).
 *
 * <ul>
 *   <li>SUCCEEDED → SUCCEEDED. PERMANENT_FAILURE → FAILED. Both spend the attempt they ran as.
 *   <li>FAILED, LOST → one attempt spent (Q1); READY after the backoff
 *       {@code min(backoffCap, backoffBase × 2^(used−1))}, or HELD when none remain, never READY.
 *   <li>STALLED → no attempt spent (Q2); READY at the stall's hint (or now, if the hint passed).
 *   <li>BLOCKED → no attempt spent; HELD until a human releases it.
 *   <li>KILLED → no attempt spent (Q13); the ticket goes where the kill said: CANCELLED
 *       ({@link StopIntent#KILL}), READY now ({@link StopIntent#KILL_RETRY}) or HELD
 *       ({@link StopIntent#KILL_HOLD}).
 *   <li>A hand-started run whose move would leave the ticket runnable (Retry or Resume) holds it
 *       instead (Q8): only {@code release} makes it READY. This holds for a kill with retry too.
 * </ul>
 *
 * <p>Attempts are exhausted when the attempts used reach the ticket's allowed attempts: those of its
 * submission plus those releases granted ({@link Ticket#allowedAttempts()}).
 *
 * @param backoffBaseMs the pause before the first retry, ms
 * @param backoffCapMs  the longest pause before a retry, ms
 */
public record RetryPolicy(long backoffBaseMs, long backoffCapMs) {
  /** 1 s doubling to 5 min. */
  public static final RetryPolicy DEFAULT = new RetryPolicy(1_000, 300_000);

  public RetryPolicy {
    if (backoffBaseMs < 0) {
      throw new IllegalArgumentException("backoffBase (" + backoffBaseMs + "ms) must be >= 0");
    }
    if (backoffCapMs < backoffBaseMs) {
      throw new IllegalArgumentException(
          "backoffCap (" + backoffCapMs + "ms) must be >= backoffBase (" + backoffBaseMs + "ms)");
    }
  }

  /**
   * Decides a settlement.
   *
   * @param ticket       the ticket as it is before the settlement
   * @param handStarted  whether the settled run was hand-started (Q8)
   * @param verdict      a {@link Verdict#finishable()} verdict
   * @param diagnosis    the settlement's note, or {@code null}
   * @param stallUntilMs for STALLED, when the ticket is due again
   * @param nowMs        wall-clock now
   */
  public TicketMove decide(Ticket ticket, boolean handStarted, Verdict verdict, String diagnosis, long stallUntilMs,
                           long nowMs) {
    return decide(ticket, handStarted, verdict, diagnosis, stallUntilMs, nowMs, null);
  }

  /**
   * Decides a settlement of a run whose stop intent is {@code intent} ({@code null} for none); a
   * KILLED verdict needs a kill intent, which says where the ticket goes.
   */
  public TicketMove decide(Ticket ticket, boolean handStarted, Verdict verdict, String diagnosis, long stallUntilMs,
                           long nowMs, StopIntent intent) {
    Objects.requireNonNull(ticket, "ticket");
    Objects.requireNonNull(verdict, "verdict");
    int used = ticket.attemptsUsed() + (verdict.chargesAttempt() ? 1 : 0);
    String why = diagnosis == null ? "" : ": " + diagnosis;
    TicketMove move = switch (verdict) {
      case SUCCEEDED -> new TicketMove.Succeed(used);
      case PERMANENT_FAILURE -> new TicketMove.Fail(used);
      case BLOCKED -> new TicketMove.Hold(used, "blocked" + why);
      case STALLED -> new TicketMove.Resume(used, Math.max(stallUntilMs, nowMs));
      case FAILED, LOST -> used >= ticket.allowedAttempts()
          ? new TicketMove.Hold(used, "attempts exhausted (" + used + " of " + ticket.allowedAttempts() + "), last "
              + verdict + why)
          : new TicketMove.Retry(used, nowMs + backoffMs(used));
      case KILLED -> {
        if (intent == null || !intent.kill()) {
          throw new IllegalArgumentException("a KILLED verdict needs a kill on record, not " + intent);
        }
        yield switch (intent) {
          case KILL -> new TicketMove.Cancel(used);
          case KILL_RETRY -> new TicketMove.Resume(used, nowMs);
          case KILL_HOLD -> new TicketMove.Hold(used, "killed by an operator" + why);
          case TIMEOUT -> throw new AssertionError(intent);
        };
      }
      case ABANDONED, SUPERSEDED -> throw new IllegalArgumentException("verdict " + verdict + " is not settled by finish");
    };
    if (handStarted && (move instanceof TicketMove.Retry || move instanceof TicketMove.Resume)) {
      return new TicketMove.Hold(used, "hand-started run ended " + verdict + why + "; release to requeue");
    }
    return move;
  }

  /** Claims rolled back (worker never started) before a ticket is HELD. */
  public static final int MAX_SPAWN_FAILURES = 3;

  /**
   * The ticket after its claim was rolled back because the worker never started: one more spawn
   * failure and READY again, no attempt spent; HELD after {@link #MAX_SPAWN_FAILURES}, or at once
   * for a hand-started claim (Q8). Every store calls this, so an abort moves a ticket alike
   * everywhere (Q5).
   */
  public Ticket abandon(Ticket ticket, boolean handStarted, String why) {
    return abandon(ticket, handStarted, why, null);
  }

  /**
   * As {@link #abandon(Ticket, boolean, String)} for a claim whose stop intent is {@code intent}: a
   * kill of a run that never started still sends the ticket where the operator said (Q13):
   * CANCELLED for {@link StopIntent#KILL}, HELD for {@link StopIntent#KILL_HOLD}; a kill with retry
   * rolls back as any claim does.
   */
  public Ticket abandon(Ticket ticket, boolean handStarted, String why, StopIntent intent) {
    Objects.requireNonNull(ticket, "ticket");
    Objects.requireNonNull(why, "why");
    if (intent == StopIntent.KILL) {
      return ticket.withState(TicketState.CANCELLED, null);
    } else if (intent == StopIntent.KILL_HOLD) {
      return ticket.withState(TicketState.HELD, "killed by an operator before it started");
    }
    Ticket t = ticket.withSpawnFailures(ticket.spawnFailures() + 1);
    if (handStarted) {
      return t.withState(TicketState.HELD, "hand-started run abandoned: " + why);
    } else if (t.spawnFailures() >= MAX_SPAWN_FAILURES) {
      return t.withState(TicketState.HELD, "worker failed to start " + t.spawnFailures() + " times, last: " + why);
    }
    return t.withState(TicketState.READY, null);
  }

  /** The pause before the retry that follows the {@code used}-th spent attempt. */
  public long backoffMs(int used) {
    int doublings = Math.max(0, Math.min(used - 1, 40));
    long delay = backoffBaseMs;
    for (int i = 0; i < doublings && delay < backoffCapMs; i++) {
      delay = Math.multiplyExact(delay, 2);
    }
    return Math.min(delay, backoffCapMs);
  }
}
