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
  OPERATOR;

  /** Whether the frame is followed by TERM after {@code stopGrace}. */
  public boolean escalates() {
    return this != IDLE_SHUTDOWN;
  }

  /** Whether TERM is followed by KILL one more {@code stopGrace} later, repeated every grace. */
  public boolean kills() {
    return this == LOST || this == OPERATOR;
  }

  /**
   * How hard a stop is: a frame only (0), then TERM (1), then KILL (2). A stop in progress is
   * replaced only by a strictly harder kind.
   */
  public int strength() {
    return kills() ? 2 : escalates() ? 1 : 0;
  }
}
