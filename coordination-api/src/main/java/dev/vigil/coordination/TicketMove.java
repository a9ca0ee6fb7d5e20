package dev.vigil.coordination;

import java.util.Objects;

/**
 * What a settlement does to its ticket, as decided by {@link RetryPolicy}. Every variant carries
 * the ticket's attempts used after the move.
 */
public sealed interface TicketMove {
  int attemptsUsed();

  /** The ticket is SUCCEEDED. */
  record Succeed(int attemptsUsed) implements TicketMove {}

  /** The ticket is FAILED for good (a permanent failure). */
  record Fail(int attemptsUsed) implements TicketMove {}

  /** The ticket is READY again at {@code notBeforeMs}, an attempt spent (Q1). */
  record Retry(int attemptsUsed, long notBeforeMs) implements TicketMove {}

  /** The ticket is READY again at {@code notBeforeMs}, no attempt spent (Q2). */
  record Resume(int attemptsUsed, long notBeforeMs) implements TicketMove {}

  /** The ticket is CANCELLED: an operator killed its run and asked for nothing more (Q13). */
  record Cancel(int attemptsUsed) implements TicketMove {}

  /** The ticket is HELD for a human (Q1 exhausted, blocked, hand-started Q8, or killed and held Q13). */
  record Hold(int attemptsUsed, String reason) implements TicketMove {
    public Hold {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** Applies the move to the ticket. */
  default Ticket applyTo(Ticket t) {
    if (this instanceof Succeed) {
      return t.moved(TicketState.SUCCEEDED, attemptsUsed(), t.notBeforeMs(), null);
    } else if (this instanceof Fail) {
      return t.moved(TicketState.FAILED, attemptsUsed(), t.notBeforeMs(), null);
    } else if (this instanceof Retry r) {
      return t.moved(TicketState.READY, r.attemptsUsed(), r.notBeforeMs(), null);
    } else if (this instanceof Resume r) {
      return t.moved(TicketState.READY, r.attemptsUsed(), r.notBeforeMs(), null);
    } else if (this instanceof Cancel) {
      return t.moved(TicketState.CANCELLED, attemptsUsed(), t.notBeforeMs(), null);
    } else if (this instanceof Hold h) {
      return t.moved(TicketState.HELD, h.attemptsUsed(), t.notBeforeMs(), h.reason());
    } else {
      throw new AssertionError(this);
    }
  }
}
