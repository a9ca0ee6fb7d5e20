package dev.vigil.coordination;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A finite unit of work (a task) as stored. Immutable: every verb returns the ticket as it is
 * after the verb.
 *
 * @param id              the ticket's id
 * @param lane            the lane it is queued in
 * @param type            the worker type that runs it
 * @param payload         the worker's input, JSON text
 * @param state           its state
 * @param attemptsUsed    settled runs whose verdict charged an attempt ({@link Verdict#chargesAttempt()})
 * @param maxAttempts     attempts allowed at submission before the ticket is HELD (Q1)
 * @param priority        higher is claimed first
 * @param notBeforeMs     wall-clock ms before which it is not due
 * @param createdAtMs     wall-clock ms of submission
 * @param parked          durable flag: a parked ticket is never claimed (Q9)
 * @param holdReason      why it is HELD, or {@code null} when it is not
 * @param spawnFailures   claims rolled back since the last release; three hold the ticket
 * @param spec            where and how its runs run: directory, environment, time limit
 * @param labels          the submitter's labels, by name
 * @param attemptsGranted attempts granted by releases on top of {@code maxAttempts}
 * @param retryOf         the finished ticket this one retries ({@code vigil retry}), or {@code null}
 * @param retriedAs       the ticket that retries this one, or {@code null}
 * @param after           the tickets it waits for (Q14), in id order without repeats; empty for none
 * @param heldFor         the prerequisite whose end holds it (a dependency hold, {@link Prerequisites}),
 *                        or {@code null}: set only while it is HELD for that reason
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
    int spawnFailures,
    RunSpec spec,
    SortedMap<String, String> labels,
    int attemptsGranted,
    TicketId retryOf,
    TicketId retriedAs,
    List<TicketId> after,
    TicketId heldFor) {

  public Ticket {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(lane, "lane");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(spec, "spec");
    labels = Labels.check(labels);
    if (attemptsUsed < 0) {
      throw new IllegalArgumentException("attemptsUsed (" + attemptsUsed + ") must be >= 0");
    }
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts (" + maxAttempts + ") must be >= 1");
    }
    if (attemptsGranted < 0 || attemptsGranted > NewTicket.MAX_ATTEMPTS) {
      throw new IllegalArgumentException("attemptsGranted (" + attemptsGranted + ") must be 0-" + NewTicket.MAX_ATTEMPTS);
    }
    if (spawnFailures < 0) {
      throw new IllegalArgumentException("spawnFailures (" + spawnFailures + ") must be >= 0");
    }
    if ((state == TicketState.HELD) != (holdReason != null)) {
      throw new IllegalArgumentException("holdReason must be set exactly when the ticket is HELD (state " + state + ")");
    }
    if (id.equals(retryOf) || id.equals(retriedAs)) {
      throw new IllegalArgumentException("ticket " + id + " cannot retry itself");
    }
    after = List.copyOf(Objects.requireNonNull(after, "after"));
    if (after.contains(id) || !isSortedDistinct(after)) {
      throw new IllegalArgumentException("after must name other tickets in id order without repeats: " + after);
    }
    if (after.size() > Prerequisites.MAX) {
      throw new IllegalArgumentException("after names " + after.size() + " tickets, at most " + Prerequisites.MAX);
    }
    if (heldFor != null && (state != TicketState.HELD || !after.contains(heldFor))) {
      throw new IllegalArgumentException("heldFor (" + heldFor + ") must be one of after " + after
          + " of a HELD ticket (state " + state + ")");
    }
  }

  private static boolean isSortedDistinct(List<TicketId> ids) {
    for (int i = 1; i < ids.size(); i++) {
      if (ids.get(i - 1).compareTo(ids.get(i)) >= 0) {
        return false;
      }
    }
    return true;
  }

  /** A ticket that waits for nothing. */
  public Ticket(TicketId id, Lane lane, String type, String payload, TicketState state, int attemptsUsed,
                int maxAttempts, int priority, long notBeforeMs, long createdAtMs, boolean parked, String holdReason,
                int spawnFailures, RunSpec spec, SortedMap<String, String> labels, int attemptsGranted,
                TicketId retryOf, TicketId retriedAs) {
    this(id, lane, type, payload, state, attemptsUsed, maxAttempts, priority, notBeforeMs, createdAtMs, parked,
        holdReason, spawnFailures, spec, labels, attemptsGranted, retryOf, retriedAs, List.of(), null);
  }

  /** A ticket as submitted before this version kept directories, environments, labels, grants and retries. */
  public Ticket(TicketId id, Lane lane, String type, String payload, TicketState state, int attemptsUsed,
                int maxAttempts, int priority, long notBeforeMs, long createdAtMs, boolean parked, String holdReason,
                int spawnFailures) {
    this(id, lane, type, payload, state, attemptsUsed, maxAttempts, priority, notBeforeMs, createdAtMs, parked,
        holdReason, spawnFailures, RunSpec.DEFAULT, new TreeMap<>(), 0, null, null);
  }

  /** The ticket a submission creates: READY, nothing used, waiting for nothing. */
  public static Ticket submitted(TicketId id, NewTicket n, long nowMs, TicketId retryOf) {
    return submitted(id, n, nowMs, retryOf, List.of());
  }

  /** The ticket a submission creates: READY, nothing used, waiting for {@code after} (resolved, Q14). */
  public static Ticket submitted(TicketId id, NewTicket n, long nowMs, TicketId retryOf, List<TicketId> after) {
    return new Ticket(id, n.lane(), n.type(), n.payload(), TicketState.READY, 0, n.maxAttempts(), n.priority(),
        n.notBeforeMs(), nowMs, false, null, 0, n.spec(), n.labels(), 0, retryOf, null, after, null);
  }

  /** Attempts it may spend in all: those of its submission and those releases granted (Q1). */
  public int allowedAttempts() {
    return maxAttempts + attemptsGranted;
  }

  /**
   * A submission of the same work: its type, payload, lane, attempts, priority, directory, environment,
   * labels and prerequisites.
   */
  public NewTicket resubmission() {
    return new NewTicket(lane, type, payload, maxAttempts, priority, 0, null, spec, labels,
        after.stream().<Prerequisite>map(Prerequisite.Existing::new).toList());
  }

  /**
   * True when the ticket may be claimed at {@code nowMs}, ignoring lane parking and prerequisites
   * (Q14, which need the other tickets): READY, unparked and due ({@link Denials#claim} finds no
   * reason to refuse it).
   */
  public boolean claimableAt(long nowMs) {
    return Denials.claim(Optional.of(this), false, false, nowMs).isEmpty();
  }

  /** The ticket in {@code newState}; a dependency hold ({@link #heldFor}) ends with it. */
  public Ticket withState(TicketState newState, String newHoldReason) {
    return new Ticket(id, lane, type, payload, newState, attemptsUsed, maxAttempts, priority, notBeforeMs,
        createdAtMs, parked, newHoldReason, spawnFailures, spec, labels, attemptsGranted, retryOf, retriedAs, after,
        null);
  }

  /** The ticket HELD for its prerequisite {@code prerequisite} with {@code reason} (Q14, {@link Prerequisites#follow}). */
  public Ticket heldFor(TicketId prerequisite, String reason) {
    return new Ticket(id, lane, type, payload, TicketState.HELD, attemptsUsed, maxAttempts, priority, notBeforeMs,
        createdAtMs, parked, reason, spawnFailures, spec, labels, attemptsGranted, retryOf, retriedAs, after,
        prerequisite);
  }

  /**
   * The ticket waiting for {@code retry} instead of {@code original} (a retry stood in for its
   * prerequisite, Q14); a hold for {@code original} becomes a hold for {@code retry}.
   */
  public Ticket waitingOnRetry(TicketId original, TicketId retry) {
    java.util.TreeSet<TicketId> moved = new java.util.TreeSet<>(after);
    if (!moved.remove(original)) {
      throw new IllegalArgumentException(id + " does not wait for " + original);
    }
    moved.add(retry);
    return new Ticket(id, lane, type, payload, state, attemptsUsed, maxAttempts, priority, notBeforeMs,
        createdAtMs, parked, holdReason, spawnFailures, spec, labels, attemptsGranted, retryOf, retriedAs,
        List.copyOf(moved), original.equals(heldFor) ? retry : heldFor);
  }

  public Ticket withParked(boolean newParked) {
    return new Ticket(id, lane, type, payload, state, attemptsUsed, maxAttempts, priority, notBeforeMs,
        createdAtMs, newParked, holdReason, spawnFailures, spec, labels, attemptsGranted, retryOf, retriedAs, after, heldFor);
  }

  public Ticket withSpawnFailures(int newSpawnFailures) {
    return new Ticket(id, lane, type, payload, state, attemptsUsed, maxAttempts, priority, notBeforeMs,
        createdAtMs, parked, holdReason, newSpawnFailures, spec, labels, attemptsGranted, retryOf, retriedAs, after, heldFor);
  }

  /** The ticket with {@code more} attempts granted on top of its earlier grants. */
  public Ticket withGranted(int more) {
    return new Ticket(id, lane, type, payload, state, attemptsUsed, maxAttempts, priority, notBeforeMs,
        createdAtMs, parked, holdReason, spawnFailures, spec, labels, attemptsGranted + more, retryOf, retriedAs, after, heldFor);
  }

  /** The ticket once {@code retry} queued {@code newer} in its place. */
  public Ticket retriedAs(TicketId newer) {
    return new Ticket(id, lane, type, payload, state, attemptsUsed, maxAttempts, priority, notBeforeMs,
        createdAtMs, parked, holdReason, spawnFailures, spec, labels, attemptsGranted, retryOf, newer, after, heldFor);
  }

  /** The ticket after a settlement moved it (see {@link RetryPolicy}). */
  public Ticket moved(TicketState newState, int newAttemptsUsed, long newNotBeforeMs, String newHoldReason) {
    return new Ticket(id, lane, type, payload, newState, newAttemptsUsed, maxAttempts, priority, newNotBeforeMs,
        createdAtMs, parked, newHoldReason, spawnFailures, spec, labels, attemptsGranted, retryOf, retriedAs, after, heldFor);
  }

  /** Whether the ticket carries every one of {@code wanted}'s labels with its value. */
  public boolean hasLabels(Map<String, String> wanted) {
    for (Map.Entry<String, String> e : wanted.entrySet()) {
      if (!e.getValue().equals(labels.get(e.getKey()))) {
        return false;
      }
    }
    return true;
  }
}
