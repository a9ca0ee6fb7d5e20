package dev.vigil.coordination;

import java.util.Objects;
import java.util.Optional;

/**
 * Q17: whether an attempt of a ticket resumes, and from what. An attempt of a resumable worker type
 * receives its ticket's latest stored checkpoint; an attempt of any other type, or of a ticket that keeps
 * none, starts over. The same rule answers the launch of every attempt and {@code vigil run --resume}.
 */
public sealed interface Resumption {
  /** The attempt receives {@code checkpoint}. */
  record Resume(Checkpoint checkpoint) implements Resumption {
    public Resume {
      Objects.requireNonNull(checkpoint, "checkpoint");
    }
  }

  /** The attempt starts over, for {@code reason}. */
  record Fresh(Reason reason) implements Resumption {
    public Fresh {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** Why an attempt starts over. */
  enum Reason {
    /** Its worker type is not declared resumable. */
    NOT_RESUMABLE,
    /** Its ticket keeps no checkpoint (no earlier attempt saved one). */
    NO_CHECKPOINT
  }

  /**
   * The decision for an attempt of {@code ticket} whose type is {@code resumable}, when the store keeps
   * {@code stored} for the ticket.
   *
   * @throws IllegalArgumentException when {@code stored} is another ticket's (a caller's bug)
   */
  static Resumption decide(TicketId ticket, boolean resumable, Optional<Checkpoint> stored) {
    Objects.requireNonNull(ticket, "ticket");
    if (stored.isPresent() && !stored.get().ticket().equals(ticket)) {
      throw new IllegalArgumentException("ticket " + ticket + " given the checkpoint of " + stored.get().ticket());
    }
    if (!resumable) {
      return new Fresh(Reason.NOT_RESUMABLE);
    }
    return stored.<Resumption>map(Resume::new).orElseGet(() -> new Fresh(Reason.NO_CHECKPOINT));
  }
}
