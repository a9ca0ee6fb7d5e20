package dev.vigil.supervisor;

/**
 * Why the engine stops a worker; each kind carries its own protocol, which {@link Stopping} keeps
 * for task runs and service workers alike.
 */
public enum StopKind {
  /**
   * The idle-shutdown stop after every worker quiesced (S5). The worker complies only when it has
   * no work ({@code WorkGate.onIdleStop}); it is never followed by a signal, so no interleaving
   * stops a worker with work.
   */
  IDLE_SHUTDOWN,
  /**
   * Stop as a lost worker does (S6: a worker of another build, or one unreachable after boot): it
   * records busy evidence, leaves its work resumable and exits. TERM follows after
   * {@code stopGrace} and KILL one more grace later, repeated every grace, identity-gated. A task
   * run stopped this way without an outcome settles STALLED: no attempt is spent.
   */
  LOST,
  /**
   * The ticket or its lane was parked (Q9): stop at the next safe point. TERM follows after
   * {@code stopGrace} (the worker host's cooperative stop: its type is asked to stop and may still
   * return an outcome), never KILL: a worker that cannot stop runs to its end. A run that ends
   * without an outcome after it was told so settles STALLED: no attempt is spent.
   */
  PARK,
  /**
   * An operator asked for a shutdown that stops workers ({@code vigil down --stop-workers}) or
   * stopped a service: like {@link #LOST}, escalated to TERM and KILL.
   */
  OPERATOR,
  /**
   * The run passed its time limit (Q12): TERM to its group at once, KILL one {@code stopGrace}
   * later, repeated every grace, identity-gated. The decision is to stop, never that the run is dead
   * (C5): it settles once it is dead by identity and reservation, FAILED "timed out", an attempt spent.
   */
  TIMEOUT,
  /**
   * An operator's kill (Q13): TERM to its group at once, KILL one {@code stopGrace} later, repeated
   * every grace, identity-gated; the run settles KILLED, no attempt spent.
   */
  KILL;

  /** Whether the frame is followed by TERM after {@code stopGrace} (at once for {@link #termsAtOnce()}). */
  public boolean escalates() {
    return this != IDLE_SHUTDOWN;
  }

  /** Whether TERM is followed by KILL one more {@code stopGrace} later, repeated every grace. */
  public boolean kills() {
    return this == LOST || this == OPERATOR || this == TIMEOUT || this == KILL;
  }

  /** Whether the first TERM is due at once rather than one grace after the stop began: a time-out and a kill. */
  public boolean termsAtOnce() {
    return this == TIMEOUT || this == KILL;
  }

  /**
   * How hard a stop is: a frame only (0), then TERM (1), then KILL (2). A stop in progress is
   * replaced only by a strictly harder kind.
   */
  public int strength() {
    return kills() ? 2 : escalates() ? 1 : 0;
  }
}
