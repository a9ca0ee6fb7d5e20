package dev.vigil.supervisor;

import java.util.Objects;

/**
 * One stop of a worker in progress, and the one rule for how it escalates, for task runs and
 * service workers alike (S5, S6, Q9):
 *
 * <ol>
 *   <li>The stop frame goes to the worker's connection when the stop begins, and again while no
 *       connection of the worker has it ({@link #frameDue()}; a new connection has not got it,
 *       {@link #redeliver()}). The caller sends it and reports whether it was taken.
 *   <li>A kind that escalates is followed by TERM one {@code graceMs} after the stop began, whether
 *       the frame was delivered or not: a worker that reconnects within the grace gets the frame
 *       first; a time-out and a kill ({@link StopKind#termsAtOnce()}) send TERM at once (Q12, Q13).
 *       {@link StopKind#IDLE_SHUTDOWN} never signals (S5).
 *   <li>A kind that kills ({@link StopKind#LOST}, {@link StopKind#OPERATOR}) is followed by KILL
 *       one grace after TERM, then KILL again every grace while the worker lives.
 *       {@link StopKind#PARK} sends TERM and never KILL: a worker that cannot stop runs to its end
 *       (Q9).
 *   <li>A stop before a relaunch ({@code beforeRelaunch}, S6): a worker still alive one grace after
 *       a KILL is a {@link Action.Survivor}; the stop ends there, and the caller counts one more
 *       failure and stops the survivor again before each retry ({@link Adoption.Relaunch}).
 *   <li>Once the worker is dead by identity and reservation (C5, the caller's judgement), the stop
 *       is {@link Action.Done}.
 *   <li>A stop in progress is replaced only by a strictly harder kind ({@link StopKind#strength()},
 *       {@link #replacedBy}); the harder stop's first signal comes one grace after the replacement:
 *       KILL when TERM was already sent, else TERM.
 * </ol>
 *
 * <p>An immutable value on one process's monotonic clock: {@link #advance} decides and returns the
 * next value; the caller acts (sends, signals identity-gated, settles) and keeps the next value.
 *
 * @param kind           why, and so how hard
 * @param beforeRelaunch whether a relaunch follows the worker's death (S6: a service worker stopped as lost)
 * @param graceMs        the stop grace, ms
 * @param delivered      whether a connection of the worker took the stop frame
 * @param next           the signal due next
 * @param signalAtMonoMs when {@code next} is due, ms
 * @param kills          how many KILLs were sent
 */
public record Stopping(StopKind kind, boolean beforeRelaunch, long graceMs, boolean delivered, Next next,
                       long signalAtMonoMs, int kills) {
  public Stopping {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(next, "next");
    if (graceMs <= 0 || graceMs > TimeoutLattice.MAX_MS) {
      throw new IllegalArgumentException("stopGrace (" + graceMs + " ms) must be > 0 and ≤ "
          + Durations.format(TimeoutLattice.MAX_MS));
    }
    if (kills < 0) {
      throw new IllegalArgumentException("kills (" + kills + ") must be ≥ 0");
    }
    if (!kind.escalates() && (next != Next.NONE || kills > 0)) {
      throw new IllegalArgumentException("an " + kind + " stop never signals: next " + next + ", kills " + kills);
    }
    if (!kind.kills() && (next == Next.KILL || kills > 0)) {
      throw new IllegalArgumentException("a " + kind + " stop never kills: next " + next + ", kills " + kills);
    }
    if (beforeRelaunch && !kind.kills()) {
      throw new IllegalArgumentException("a stop before a relaunch must be one that kills, not " + kind);
    }
  }

  /** The signal a stop sends next. */
  public enum Next {
    /** TERM to the worker's group. */
    TERM,
    /** KILL to the worker's group. */
    KILL,
    /** None: only the worker's exit ends the stop. */
    NONE
  }

  /** What the caller does now. */
  public sealed interface Action {
    /** The worker is dead by identity and reservation: the stop is over. */
    record Done() implements Action {}

    /**
     * Nothing is due before {@code untilMonoMs}, when the next signal is.
     *
     * @param untilMonoMs when the next signal is due, ms
     */
    record Wait(long untilMonoMs) implements Action {}

    /** No signal follows (IDLE_SHUTDOWN; PARK after its TERM): only the worker's exit ends the stop. */
    record AwaitExit() implements Action {}

    /** Send TERM to the worker's group, identity-gated. */
    record Term() implements Action {}

    /**
     * Send KILL to the worker's group, identity-gated.
     *
     * @param nth which KILL of this stop this is, from 1
     */
    record Kill(int nth) implements Action {}

    /**
     * S6: the worker outlived a KILL by a grace and a relaunch waits for its death: the stop ends
     * here; the caller counts a failure and stops the survivor again before each retry.
     */
    record Survivor() implements Action {}
  }

  /**
   * A stop that begins at {@code nowMonoMs}: its first signal (for a kind that escalates) is due one
   * grace later.
   *
   * @param delivered whether a connection of the worker took the stop frame just now
   */
  public static Stopping begin(StopKind kind, boolean beforeRelaunch, long graceMs, long nowMonoMs, boolean delivered) {
    Objects.requireNonNull(kind, "kind");
    return new Stopping(kind, beforeRelaunch, graceMs, delivered, kind.escalates() ? Next.TERM : Next.NONE,
        Math.addExact(nowMonoMs, kind.termsAtOnce() ? 0 : graceMs), 0);
  }

  /** Whether a stop of {@code harder} replaces this one: only a strictly harder kind does. */
  public boolean yieldsTo(StopKind harder) {
    return harder.strength() > kind.strength();
  }

  /**
   * This stop replaced at {@code nowMonoMs} by a harder kind: its first signal is due one grace
   * later, KILL when TERM was already sent, else TERM (at once for a kind that terms at once).
   *
   * @param delivered whether a connection of the worker took the harder stop's frame just now
   * @throws IllegalArgumentException when {@code harder} is not harder than this stop's kind
   */
  public Stopping replacedBy(StopKind harder, long nowMonoMs, boolean delivered) {
    if (!yieldsTo(harder)) {
      throw new IllegalArgumentException("a " + kind + " stop is replaced only by a harder one, not " + harder);
    }
    boolean termSent = kind.escalates() && next != Next.TERM;
    return new Stopping(harder, beforeRelaunch, graceMs, delivered, termSent ? Next.KILL : Next.TERM,
        Math.addExact(nowMonoMs, !termSent && harder.termsAtOnce() ? 0 : graceMs), kills);
  }

  /** Whether the stop frame still has to reach the worker: the caller sends it (again) before {@link #advance}. */
  public boolean frameDue() {
    return !delivered;
  }

  /** A new connection of the worker (a hello): it has not got the frame. */
  public Stopping redeliver() {
    return delivered ? new Stopping(kind, beforeRelaunch, graceMs, false, next, signalAtMonoMs, kills) : this;
  }

  /**
   * Moves the stop on at {@code nowMonoMs}.
   *
   * @param delivered whether a connection of the worker has the stop frame now (taken earlier, or by
   *                  the send the caller made because {@link #frameDue()})
   * @param alive     whether the worker is alive by identity or reservation (C5); false ends the stop
   */
  public Step<Stopping, Action> advance(long nowMonoMs, boolean delivered, boolean alive) {
    Stopping s = delivered == this.delivered ? this
        : new Stopping(kind, beforeRelaunch, graceMs, delivered, next, signalAtMonoMs, kills);
    if (!alive) {
      return new Step<>(s, new Action.Done());
    }
    if (next == Next.NONE) {
      return new Step<>(s, new Action.AwaitExit());
    }
    if (nowMonoMs < signalAtMonoMs) {
      return new Step<>(s, new Action.Wait(signalAtMonoMs));
    }
    if (beforeRelaunch && kills > 0) {
      return new Step<>(s, new Action.Survivor());
    }
    long again = Math.addExact(nowMonoMs, graceMs);
    Next after = kind.kills() ? Next.KILL : Next.NONE;
    if (next == Next.TERM) {
      return new Step<>(new Stopping(kind, beforeRelaunch, graceMs, delivered, after, again, kills), new Action.Term());
    }
    return new Step<>(new Stopping(kind, beforeRelaunch, graceMs, delivered, after, again, kills + 1),
        new Action.Kill(kills + 1));
  }
}
