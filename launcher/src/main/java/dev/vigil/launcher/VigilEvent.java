package dev.vigil.launcher;

import dev.vigil.coordination.Event;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.Verdict;
import java.util.Objects;

/**
 * One entry of the store's event stream, as {@link Vigil#events(long, java.util.function.Consumer)}
 * delivers it. Each is written in the transaction of the decision it reports and numbered without
 * gaps in commit order ({@link #id()}, from 1), so a listener that remembers the last id it saw and
 * passes it again after a restart misses nothing and sees nothing twice.
 */
public sealed interface VigilEvent {
  /** The event's id: 1, 2, 3… in commit order. */
  long id();

  /** Wall-clock ms of the decision. */
  long atMs();

  /** A run was settled: its verdict and where its ticket went. */
  record Settled(long id, long atMs, TicketId ticket, RunId run, Verdict verdict, TicketState ticketState,
                 String diagnosis) implements VigilEvent {
    public Settled {
      Objects.requireNonNull(ticket, "ticket");
      Objects.requireNonNull(verdict, "verdict");
    }
  }

  /** A ticket became HELD for a person (no attempt left, blocked, spawn failures, an operator). */
  record Held(long id, long atMs, TicketId ticket, RunId run, String reason) implements VigilEvent {
    public Held {
      Objects.requireNonNull(ticket, "ticket");
    }
  }

  /**
   * A ticket was CANCELLED without a run settling: by a cancel of a waiting or held ticket, by a retry
   * of a held ticket ({@code note} names the new ticket), or by a kill of a run that never started
   * ({@code run} is that run, else {@code null}). A killed run's cancelled ticket is a {@link Settled}.
   */
  record Cancelled(long id, long atMs, TicketId ticket, RunId run, String note) implements VigilEvent {
    public Cancelled {
      Objects.requireNonNull(ticket, "ticket");
    }
  }

  /** A kill of a run is on record and it is being stopped (Q13). */
  record Killed(long id, long atMs, TicketId ticket, RunId run, String note) implements VigilEvent {
    public Killed {
      Objects.requireNonNull(ticket, "ticket");
    }
  }

  /** A run passed its time limit and is being stopped (Q12). */
  record TimedOut(long id, long atMs, TicketId ticket, RunId run, String note) implements VigilEvent {
    public TimedOut {
      Objects.requireNonNull(ticket, "ticket");
    }
  }

  /** A service exceeded its restart budget and was given up (S1). */
  record ServiceGivenUp(long id, long atMs, String service, String why) implements VigilEvent {
    public ServiceGivenUp {
      Objects.requireNonNull(service, "service");
    }
  }

  /**
   * Q16: a question for a person was asked, about a ticket (with the run whose worker asked, if one did) or a
   * service; answer it with {@link Vigil#answer}.
   */
  record Asked(long id, long atMs, dev.vigil.coordination.QuestionId question, TicketId ticket, RunId run,
               String service, String text) implements VigilEvent {
    public Asked {
      Objects.requireNonNull(question, "question");
      Objects.requireNonNull(text, "text");
    }
  }

  /** The store's event as a public value. */
  static VigilEvent of(Event e) {
    return switch (e.kind()) {
      case SETTLED -> new Settled(e.id(), e.atMs(), e.ticket(), e.run(), e.verdict(), e.ticketState(), e.text());
      case HELD -> new Held(e.id(), e.atMs(), e.ticket(), e.run(), e.text());
      case CANCELLED -> new Cancelled(e.id(), e.atMs(), e.ticket(), e.run(), e.text());
      case KILL -> new Killed(e.id(), e.atMs(), e.ticket(), e.run(), e.text());
      case TIMEOUT -> new TimedOut(e.id(), e.atMs(), e.ticket(), e.run(), e.text());
      case SERVICE_GIVEN_UP -> new ServiceGivenUp(e.id(), e.atMs(), e.service(), e.text());
      case QUESTION -> {
        int colon = e.text().indexOf(": ");
        yield new Asked(e.id(), e.atMs(), dev.vigil.coordination.QuestionId.parse(e.text().substring(0, colon)),
            e.ticket(), e.run(), e.service(), e.text().substring(colon + 2));
      }
    };
  }
}
