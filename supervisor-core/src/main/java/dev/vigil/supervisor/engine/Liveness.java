package dev.vigil.supervisor.engine;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.supervisor.engine.port.ProcessTable;
import dev.vigil.supervisor.engine.port.RunDirectories;

/**
 * The engine's only test of whether a worker is dead (C5, Q4, Q6): no live process matches its
 * recorded identity <em>and</em> its reservation lock is free. It takes no time argument, reads no
 * lease, no heartbeat and no message age, so no clock can make a live worker dead.
 */
final class Liveness {
  private Liveness() {}

  /** A liveness verdict. */
  sealed interface Life {
    /** Some evidence of life: the identity matches a live process, or the reservation is held. */
    record Alive(boolean byIdentity, boolean byReservation) implements Life {}

    /** Neither: the worker is dead. */
    record Dead() implements Life {}
  }

  /**
   * Judges the worker of {@code key} whose identity is {@code identity} ({@code null} when no
   * identity is known yet: then only the reservation speaks).
   */
  static Life judge(ProcessTable processes, RunDirectories directories, WorkerKey key, ProcessIdentity identity) {
    boolean byIdentity = identity != null && processes.alive(identity);
    boolean byReservation = directories.isReserved(key);
    return byIdentity || byReservation ? new Life.Alive(byIdentity, byReservation) : new Life.Dead();
  }

  static boolean dead(ProcessTable processes, RunDirectories directories, WorkerKey key, ProcessIdentity identity) {
    return judge(processes, directories, key, identity) instanceof Life.Dead;
  }
}
