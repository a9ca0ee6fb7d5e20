package dev.vigil.supervisor;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * A worker's run gate, the worker side of idle shutdown (S5). Every new piece of work (any
 * {@link WorkSet.Kind}) enters the worker only through {@link #admit(long)}.
 *
 * <ol>
 *   <li>On {@code quiesce}, an idle worker closes its gate and answers {@link Answer.Quiesced}; a
 *       busy one answers {@link Answer.Busy} and its gate stays as it was.
 *   <li>While closed, the gate admits nothing, so a quiesced worker stays idle.
 *   <li>{@code release} reopens the gate. A closed gate also reopens by itself once
 *       {@code quiesceHold} has passed since it closed without stop or release (a closed gate
 *       reopens at {@code closedAt + quiesceHold} exactly).
 *   <li>On the idle-shutdown {@code stop}, the worker stops only if it has no work, and then its
 *       gate stays shut for good; a worker with work refuses that stop. So no interleaving stops a
 *       worker with work, even a stop that arrives after the gate reopened.
 * </ol>
 *
 * <p>The TimeoutLattice edge {@code quiesceHold > quiesceAnswer} makes the gate still closed when
 * the supervisor's decision arrives, as long as delivery takes less than the difference.
 *
 * <p>An immutable value on the worker's monotonic clock.
 */
public final class WorkGate {
  /** The worker's answer to {@code quiesce}. */
  public sealed interface Answer {
    /** Idle: the gate is closed. */
    record Quiesced() implements Answer {}

    /**
     * Busy: the gate stays open and the round will release every worker.
     *
     * @param work the work in flight
     */
    record Busy(WorkSet work) implements Answer {
      public Busy {
        Objects.requireNonNull(work, "work");
      }
    }
  }

  /** Whether a new piece of work may enter. */
  public sealed interface Admission {
    /** The gate is open: take the work. */
    record Admit() implements Admission {}

    /**
     * The gate is closed or the worker is stopping: leave the work outside (refuse or defer it).
     *
     * @param reopensAtMonoMs when the gate reopens by itself, or empty when the worker is stopping
     */
    record Refuse(OptionalLong reopensAtMonoMs) implements Admission {
      public Refuse {
        Objects.requireNonNull(reopensAtMonoMs, "reopensAtMonoMs");
      }
    }
  }

  /** The worker's answer to the idle-shutdown stop. */
  public sealed interface StopAnswer {
    /** No work: stop; the gate stays shut. */
    record Comply() implements StopAnswer {}

    /**
     * Work in flight: do not stop (S5); the gate is as it was.
     *
     * @param work the work in flight
     */
    record Refuse(WorkSet work) implements StopAnswer {
      public Refuse {
        Objects.requireNonNull(work, "work");
      }
    }
  }

  private enum State { OPEN, CLOSED, STOPPING }

  private final long quiesceHoldMs;
  private final State state;
  /** When the gate closed, meaningful while CLOSED, ms. */
  private final long closedAtMonoMs;

  private WorkGate(long quiesceHoldMs, State state, long closedAtMonoMs) {
    this.quiesceHoldMs = quiesceHoldMs;
    this.state = state;
    this.closedAtMonoMs = closedAtMonoMs;
  }

  /** An open gate that holds a quiesce for {@code quiesceHoldMs}. */
  public static WorkGate open(long quiesceHoldMs) {
    if (quiesceHoldMs <= 0) {
      throw new IllegalArgumentException("quiesceHold (" + Durations.format(quiesceHoldMs) + ") must be > 0");
    }
    return new WorkGate(quiesceHoldMs, State.OPEN, 0);
  }

  /** An open gate with the lattice's {@code quiesceHold}. */
  public static WorkGate open(TimeoutLattice t) {
    return open(t.ms(TimeoutLattice.Timeout.QUIESCE_HOLD));
  }

  /** Answers {@code quiesce} (S5). */
  public Step<WorkGate, Answer> onQuiesce(WorkSet work, long nowMonoMs) {
    Objects.requireNonNull(work, "work");
    WorkGate now = onTick(nowMonoMs);
    if (work.isBusy()) {
      return new Step<>(now, new Answer.Busy(work));
    }
    if (now.state == State.STOPPING) {
      return new Step<>(now, new Answer.Quiesced());
    }
    return new Step<>(new WorkGate(quiesceHoldMs, State.CLOSED, nowMonoMs), new Answer.Quiesced());
  }

  /** Reopens the gate on {@code release}; a stopping worker stays shut. */
  public WorkGate onRelease() {
    return state == State.CLOSED ? new WorkGate(quiesceHoldMs, State.OPEN, 0) : this;
  }

  /** Reopens a gate whose hold has passed; otherwise returns this gate. */
  public WorkGate onTick(long nowMonoMs) {
    if (state == State.CLOSED && nowMonoMs - closedAtMonoMs >= quiesceHoldMs) {
      return new WorkGate(quiesceHoldMs, State.OPEN, 0);
    }
    return this;
  }

  /** Decides whether a new piece of work may enter at {@code nowMonoMs}. */
  public Step<WorkGate, Admission> admit(long nowMonoMs) {
    WorkGate now = onTick(nowMonoMs);
    return switch (now.state) {
      case OPEN -> new Step<>(now, new Admission.Admit());
      case CLOSED -> new Step<>(now, new Admission.Refuse(OptionalLong.of(now.closedAtMonoMs + quiesceHoldMs)));
      case STOPPING -> new Step<>(now, new Admission.Refuse(OptionalLong.empty()));
    };
  }

  /** Answers the stop that ends an idle shutdown (S5). */
  public Step<WorkGate, StopAnswer> onIdleStop(WorkSet work, long nowMonoMs) {
    Objects.requireNonNull(work, "work");
    WorkGate now = onTick(nowMonoMs);
    if (work.isBusy()) {
      return new Step<>(now, new StopAnswer.Refuse(work));
    }
    return new Step<>(new WorkGate(quiesceHoldMs, State.STOPPING, 0), new StopAnswer.Comply());
  }

  /** Whether the gate is open (as of the last event; see {@link #onTick(long)}). */
  public boolean isOpen() {
    return state == State.OPEN;
  }

  /** When a closed gate reopens by itself; empty when open or stopping. */
  public OptionalLong reopensAtMonoMs() {
    return state == State.CLOSED ? OptionalLong.of(closedAtMonoMs + quiesceHoldMs) : OptionalLong.empty();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WorkGate g && g.quiesceHoldMs == quiesceHoldMs && g.state == state
        && g.closedAtMonoMs == closedAtMonoMs;
  }

  @Override
  public int hashCode() {
    return Objects.hash(quiesceHoldMs, state, closedAtMonoMs);
  }

  @Override
  public String toString() {
    return "WorkGate[" + state + (state == State.CLOSED ? " until " + (closedAtMonoMs + quiesceHoldMs) : "") + "]";
  }
}
