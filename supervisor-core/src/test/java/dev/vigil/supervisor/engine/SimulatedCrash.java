package dev.vigil.supervisor.engine;

/**
 * Thrown by a simulated port to end the daemon process at that exact point (before or after a verb
 * took effect); the simulation throws the engine instance away and boots a new one.
 */
final class SimulatedCrash extends RuntimeException {
  private static final long serialVersionUID = 1L;

  SimulatedCrash(String where) {
    super("simulated daemon crash " + where, null, false, false);
  }
}
