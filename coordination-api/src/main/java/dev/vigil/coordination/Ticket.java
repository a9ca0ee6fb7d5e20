package dev.vigil.coordination;

import java.util.Objects;
import java.util.Optional;

/**
 * A finite unit of work (a task) as stored. Immutable: every verb returns the ticket as it is
 * after the verb.
 *
 * @param id            the ticket's id
 * @param lane          the lane it is queued in
 * @param type          the worker type that runs it
 * @param payload       the worker's input, JSON text
 * @param state         its state
 * @param attemptsUsed  settled runs whose verdict charged an attempt ({@link Verdict#chargesAttempt()})
 * @param maxAttempts   attempts allowed before the ticket is HELD (Q1)
 * @param priority      higher is claimed first
 * @param notBeforeMs   wall-clock ms before which it is not due
 * @param createdAtMs   wall-clock ms of submission
 * @param parked        durable flag: a parked ticket is never claimed (Q9)
 * @param holdReason    why it is HELD, or {@code null} when it is not
 * @param spawnFailures claims rolled back since the last release; three hold the ticket
 */
public record Ticket(
    TicketId id,
    Lane lane,
    String type,
    String payload,
    TicketState state,
    int attemptsUsed,
    int maxAttempts,
    int priority,
    long notBeforeMs,
    long createdAtMs,
    boolean parked,
    String holdReason,
    int spawnFailures) {

  public Ticket {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(lane, "lane");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(state, "state");
    if (attemptsUsed < 0) {
      throw new IllegalArgumentException("attemptsUsed (" + attemptsUsed + ") must be >= 0");
    }
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts (" + maxAttempts + ") must be >= 1");
    }
    if (spawnFailures < 0) {
      throw new IllegalArgumentException("spawnFailures (" + spawnFailures + ") must be >= 0");
    }
    if ((state == TicketState.HELD) != (holdReason != null)) {
      throw new IllegalArgumentException("holdReason must be set exactly when the ticket is HELD (state " + state + ")");
    }
  }

  /**
   * True when the ticket may be claimed at {@code nowMs}, ignoring lane parking: READY, unparked and
   * due ({@link Denials#claim} finds no reason to refuse it).
   */
  public boolean claimableAt(long nowMs) {
    return Denials.claim(Optional.of(this), false, false, nowMs).isEmpty();
  }

  public Ticket withState(TicketState newState, String newHoldReason) {
    return new Ticket(id, lane, type, payload, newState, attemptsUsed, maxAttempts, priority, notBeforeMs,
        createdAtMs, parked, newHoldReason, spawnFailures);
  }

  public Ticket withParked(boolean newParked) {
    return new Ticket(id, lane, type, payload, state, attemptsUsed, maxAttempts, priority, notBeforeMs,
        createdAtMs, newParked, holdReason, spawnFailures);
  }

  public Ticket withSpawnFailures(int newSpawnFailures) {
    return new Ticket(id, lane, type, payload, state, attemptsUsed, maxAttempts, priority, notBeforeMs,
        createdAtMs, parked, holdReason, newSpawnFailures);
  }

  /** The ticket after a settlement moved it (see {@link RetryPolicy}). */
  public Ticket moved(TicketState newState, int newAttemptsUsed, long newNotBeforeMs, String newHoldReason) {
    return new Ticket(id, lane, type, payload, newState, newAttemptsUsed, maxAttempts, priority, newNotBeforeMs,
        createdAtMs, parked, newHoldReason, spawnFailures);
  }
}
