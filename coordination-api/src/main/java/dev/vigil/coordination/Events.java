package dev.vigil.coordination;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The events each decision writes (in its own transaction), decided in one place for every store,
 * as {@link Denials} decides refusals: a store asks here what to append and numbers the drafts.
 */
public final class Events {
  private Events() {}

  /** A settlement: SETTLED, and HELD when it held the ticket. */
  public static List<Event.Draft> ofSettlement(Run settled, Ticket after, long nowMs) {
    Objects.requireNonNull(settled, "settled");
    List<Event.Draft> out = new ArrayList<>(2);
    out.add(new Event.Draft(nowMs, Event.Kind.SETTLED, after.id(), settled.id(), null, settled.verdict(),
        after.state(), settled.diagnosis() == null ? "" : settled.diagnosis()));
    if (after.state() == TicketState.HELD) {
      out.add(held(after, settled.id(), nowMs));
    }
    return out;
  }

  /**
   * A rolled-back claim: HELD when it held the ticket (spawn failures, a hand-started claim, a kill
   * that holds), CANCELLED when it cancelled it (a kill of a run that never started).
   */
  public static List<Event.Draft> ofAbort(Run abandoned, Ticket after, long nowMs) {
    if (after.state() == TicketState.HELD) {
      return List.of(held(after, abandoned.id(), nowMs));
    } else if (after.state() == TicketState.CANCELLED) {
      return List.of(cancelled(after, abandoned.id(), "killed by an operator before it started", nowMs));
    }
    return List.of();
  }

  /** An operator's cancel of a waiting or held ticket: CANCELLED. */
  public static List<Event.Draft> ofCancel(Ticket after, long nowMs) {
    return List.of(cancelled(after, null, "cancelled by an operator", nowMs));
  }

  /** A retry: CANCELLED for a held original (a finished one stays as it was, and a submission writes nothing). */
  public static List<Event.Draft> ofRetry(Ticket before, Ticket originalAfter, long nowMs) {
    return before.state() == TicketState.HELD && originalAfter.state() == TicketState.CANCELLED
        ? List.of(cancelled(originalAfter, null, "retried as " + originalAfter.retriedAs(), nowMs))
        : List.of();
  }

  /** An operator's hold: HELD when the ticket was not held before. */
  public static List<Event.Draft> ofHold(Ticket before, Ticket after, long nowMs) {
    return before.state() != TicketState.HELD && after.state() == TicketState.HELD ? List.of(held(after, null, nowMs))
        : List.of();
  }

  /** A recorded stop intent: KILL or TIMEOUT when the intent on record changed. */
  public static List<Event.Draft> ofStop(StopRequest.Recorded r, String note, long nowMs) {
    if (!r.changed()) {
      return List.of();
    }
    Run run = r.run();
    Event.Kind kind = run.stopIntent() == StopIntent.TIMEOUT ? Event.Kind.TIMEOUT : Event.Kind.KILL;
    return List.of(new Event.Draft(nowMs, kind, run.ticket(), run.id(), null, null, null, note));
  }

  /** A service given up. */
  public static Event.Draft ofServiceGivenUp(String service, String why, long nowMs) {
    Objects.requireNonNull(service, "service");
    return new Event.Draft(nowMs, Event.Kind.SERVICE_GIVEN_UP, null, null, service, null, null, why);
  }

  /** Q16: a question asked, about its ticket (with the asking run) or else its service; {@code q-N: TEXT}. */
  public static Event.Draft ofQuestion(Question q) {
    NewQuestion n = q.question();
    return new Event.Draft(q.askedAtMs(), Event.Kind.QUESTION, n.ticket(), n.ticket() == null ? null : n.askedBy(),
        n.ticket() == null ? n.service() : null, null, null, q.id() + ": " + n.text());
  }

  private static Event.Draft cancelled(Ticket after, RunId run, String text, long nowMs) {
    return new Event.Draft(nowMs, Event.Kind.CANCELLED, after.id(), run, null, null, TicketState.CANCELLED, text);
  }

  private static Event.Draft held(Ticket after, RunId run, long nowMs) {
    return new Event.Draft(nowMs, Event.Kind.HELD, after.id(), run, null, null, TicketState.HELD, after.holdReason());
  }
}
