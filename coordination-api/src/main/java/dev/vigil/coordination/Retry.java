package dev.vigil.coordination;

import java.util.Objects;

/**
 * The decision of {@code retry}: a finished ticket queued again as a new ticket of the same work.
 * A HELD original is CANCELLED in the same transaction, so that it can never run beside its retry;
 * each ticket is retried at most once (retry the newer one instead), so no two retries of one
 * ticket run side by side either.
 */
public sealed interface Retry {
  /**
   * @param ticket   the new READY ticket ({@code retryOf} names the original)
   * @param original the original after the verb ({@code retriedAs} names the new ticket)
   */
  record Retried(Ticket ticket, Ticket original) implements Retry {
    public Retried {
      Objects.requireNonNull(ticket, "ticket");
      Objects.requireNonNull(original, "original");
    }
  }

  /** Nothing changed. */
  record Denied(Reason reason, TicketId retriedAs) implements Retry {
    public Denied {
      Objects.requireNonNull(reason, "reason");
      if ((reason == Reason.ALREADY_RETRIED) != (retriedAs != null)) {
        throw new IllegalArgumentException("the newer ticket is named exactly when the ticket was retried already");
      }
    }
  }

  /** Why a retry was refused; checked in this order. */
  enum Reason {
    /** No such ticket. */
    NOT_FOUND,
    /** The ticket is READY or LEASED: it may still run as it is. */
    NOT_FINISHED,
    /** It was retried before (the denial names the newer ticket). */
    ALREADY_RETRIED
  }
}
