package dev.vigil.coordination.schedule;

import java.util.List;
import java.util.Objects;

/**
 * What a schedule does at one look ({@link FireRule#decide}). Every variant but {@link Idle} names the
 * latest fire it decided ({@code throughMs}): the schedule's {@code lastFireMs} becomes it, so no fire
 * is decided twice (Q15).
 */
public sealed interface FireDecision {
  /** Nothing is due, or a waiting fire still waits behind a live ticket: nothing changes. */
  record Idle() implements FireDecision {}

  /**
   * Submit one ticket per fire of {@code firesMs} (oldest first), each with the key
   * {@code schedule:NAME:FIRE_TIME}; nothing waits afterwards.
   *
   * @param firesMs   the fires that submit, wall-clock ms, oldest first, not empty
   * @param dropped   due fires looked at that submit nothing (missed ones the catch-up policy drops, or
   *                  fires folded into a waiting one)
   * @param throughMs the latest fire decided
   */
  record Submit(List<Long> firesMs, int dropped, long throughMs) implements FireDecision {
    public Submit {
      firesMs = List.copyOf(firesMs);
      if (firesMs.isEmpty()) {
        throw new IllegalArgumentException("a submit names at least one fire");
      }
      if (dropped < 0) {
        throw new IllegalArgumentException("dropped (" + dropped + ") must be >= 0");
      }
    }
  }

  /**
   * Due fires submit nothing.
   *
   * @param skipped   how many due fires were passed over
   * @param throughMs the latest fire decided
   * @param reason    why
   */
  record Skip(int skipped, long throughMs, Reason reason) implements FireDecision {
    public Skip {
      Objects.requireNonNull(reason, "reason");
      if (skipped < 1) {
        throw new IllegalArgumentException("skipped (" + skipped + ") must be >= 1");
      }
    }
  }

  /**
   * Overlap {@code queue}: the fire {@code pendingMs} waits until the previous fire's ticket has ended.
   *
   * @param pendingMs the waiting fire
   * @param dropped   due fires folded into it
   * @param throughMs the latest fire decided
   */
  record Wait(long pendingMs, int dropped, long throughMs) implements FireDecision {
    public Wait {
      if (dropped < 0) {
        throw new IllegalArgumentException("dropped (" + dropped + ") must be >= 0");
      }
    }
  }

  /** Why due fires submitted nothing. */
  enum Reason {
    /** Catch-up {@code none}: the fires were missed. */
    MISSED,
    /** Overlap {@code skip}: the previous fire's ticket is still live. */
    STILL_LIVE
  }
}
