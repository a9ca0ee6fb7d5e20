package dev.vigil.launcher;

import dev.vigil.coordination.Lane;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.Ticket;
import dev.vigil.supervisor.engine.Reply;
import java.util.Objects;

/**
 * What the daemon decided about a control verb of {@link Vigil} (cancel, kill, hold, release, retry,
 * park, unpark, pause, resume, answer): a value, never an exception. A refusal changed nothing.
 */
public sealed interface Decision {
  /** Whether the verb applied (or the thing was already so). */
  default boolean applied() {
    return !(this instanceof Refused || this instanceof NotFound || this instanceof Invalid);
  }

  /** The ticket after the verb; {@code note} says what else happened (a worker told to stop). */
  record Changed(Ticket ticket, String note) implements Decision {
    public Changed {
      Objects.requireNonNull(ticket, "ticket");
      Objects.requireNonNull(note, "note");
    }
  }

  /** A lane parked or unparked; {@code workersTold} live workers were told to stop at a safe point (Q9). */
  record LaneChanged(Lane lane, boolean parked, boolean changed, int workersTold) implements Decision {
    public LaneChanged {
      Objects.requireNonNull(lane, "lane");
    }
  }

  /** Q13: the kill is on record and the run is being stopped; it settles KILLED, spending nothing. */
  record Killing(Run run, String message) implements Decision {
    public Killing {
      Objects.requireNonNull(run, "run");
      Objects.requireNonNull(message, "message");
    }
  }

  /** A finished ticket was queued again as {@code ticket}; {@code original} as it is after the retry. */
  record Retried(Ticket ticket, Ticket original) implements Decision {
    public Retried {
      Objects.requireNonNull(ticket, "ticket");
      Objects.requireNonNull(original, "original");
    }
  }

  /** Q16: the answer is recorded; the daemon applies it next, once ({@link Vigil#allQuestions()} shows what it did). */
  record Answered(dev.vigil.coordination.Question question) implements Decision {
    public Answered {
      Objects.requireNonNull(question, "question");
    }
  }

  /** Done (pause, resume); the message says what changed. */
  record Done(String message) implements Decision {
    public Done {
      Objects.requireNonNull(message, "message");
    }
  }

  /** Refused by the state of things (a leased ticket cannot be held, a finished one not cancelled…). */
  record Refused(String reason) implements Decision {
    public Refused {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** No such ticket. */
  record NotFound(String what) implements Decision {
    public NotFound {
      Objects.requireNonNull(what, "what");
    }
  }

  /** The verb itself is wrong for this daemon (a lane it does not have). */
  record Invalid(String reason) implements Decision {
    public Invalid {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** The engine's reply to a control verb as a decision. */
  static Decision of(Reply r) {
    if (r instanceof Reply.TicketChanged c) {
      return new Changed(c.ticket(), c.note());
    } else if (r instanceof Reply.LaneChanged l) {
      return new LaneChanged(l.lane(), l.parked(), l.changed(), l.workersTold());
    } else if (r instanceof Reply.Killing k) {
      return new Killing(k.run(), k.message());
    } else if (r instanceof Reply.Retried t) {
      return new Retried(t.ticket(), t.original());
    } else if (r instanceof Reply.QuestionAnswered a) {
      return new Answered(a.question());
    } else if (r instanceof Reply.Acknowledged a) {
      return new Done(a.message());
    } else if (r instanceof Reply.Denied d) {
      return new Refused(d.reason());
    } else if (r instanceof Reply.Busy b) {
      return new Refused(b.message());
    } else if (r instanceof Reply.NotFound n) {
      return new NotFound(n.what());
    } else if (r instanceof Reply.Invalid i) {
      return new Invalid(i.reason());
    }
    throw new AssertionError(r);
  }
}
