package dev.vigil.coordination;

import java.util.Objects;

/**
 * One entry of the store's event stream: what a consumer is told about (a settlement, a hold, a
 * cancellation, a kill, a time-out, a service given up, a question for a person), written in the same transaction as the decision it
 * reports, so that nothing is reported that did not happen and nothing that happened is missed.
 * Ids count from 1 without gaps, in commit order: a consumer that read up to id N and asks for
 * what comes after N misses nothing.
 *
 * @param id          the event's id
 * @param atMs        wall-clock ms of the decision
 * @param kind        what happened
 * @param ticket      the ticket it is about, or {@code null} (a service)
 * @param run         the run it is about, or {@code null}
 * @param service     the service it is about, or {@code null}
 * @param verdict     for SETTLED, the verdict; else {@code null}
 * @param ticketState for SETTLED, HELD and CANCELLED, the ticket's state after the decision; else {@code null}
 * @param text        a line for people: the diagnosis, the hold reason, how a ticket was cancelled, why a
 *                    service was given up
 */
public record Event(long id, long atMs, Kind kind, TicketId ticket, RunId run, String service, Verdict verdict,
                    TicketState ticketState, String text) {
  /** What an event reports. */
  public enum Kind {
    /** A run was settled (its verdict and its ticket's move). */
    SETTLED,
    /** A ticket became HELD: by a settlement, by spawn failures, or by an operator. */
    HELD,
    /**
     * A ticket became CANCELLED without a settlement saying so: an operator's cancel of a waiting or
     * held ticket, a retry of a held ticket, or a kill of a run that never started. (A killed run's
     * settlement reports its own CANCELLED ticket in its SETTLED event.)
     */
    CANCELLED,
    /** An operator asked to kill a run (Q13). */
    KILL,
    /** A run passed its time limit and is being stopped (Q12). */
    TIMEOUT,
    /** A service exceeded its restart budget and was given up (S1). */
    SERVICE_GIVEN_UP,
    /**
     * A question for a person was asked (Q16), about a ticket (with the run whose worker asked, if one did) or a
     * service; its text is {@code q-N: } and the question.
     */
    QUESTION
  }

  public Event {
    if (id < 1) {
      throw new IllegalArgumentException("id (" + id + ") must be >= 1");
    }
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(text, "text");
    if ((ticket == null) == (service == null)) {
      throw new IllegalArgumentException("an event is about a ticket or a service, exactly one");
    }
    if (run != null && !run.ticket().equals(ticket)) {
      throw new IllegalArgumentException("run " + run + " is not of ticket " + ticket);
    }
    if ((kind == Kind.SETTLED) != (verdict != null)) {
      throw new IllegalArgumentException("a verdict is named exactly by a SETTLED event");
    }
    if (kind == Kind.CANCELLED && (ticket == null || ticketState != TicketState.CANCELLED)) {
      throw new IllegalArgumentException("a CANCELLED event names a ticket and its CANCELLED state");
    }
  }

  /** An event before the store gave it its id. */
  public record Draft(long atMs, Kind kind, TicketId ticket, RunId run, String service, Verdict verdict,
                      TicketState ticketState, String text) {
    /** The event with id {@code id}. */
    public Event numbered(long id) {
      return new Event(id, atMs, kind, ticket, run, service, verdict, ticketState, text);
    }
  }
}
