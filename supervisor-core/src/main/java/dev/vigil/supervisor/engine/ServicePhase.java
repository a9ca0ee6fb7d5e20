package dev.vigil.supervisor.engine;

import dev.vigil.coordination.ProcessIdentity;

/**
 * Where a service is: one type per phase; only {@link ServiceTable#transition} moves a service from
 * one to the next.
 */
sealed interface ServicePhase {
  /** A phase in which the service has a worker process. */
  sealed interface WithWorker extends ServicePhase {
    /** The worker (null when unknown: only its reservation speaks). */
    ProcessIdentity identity();

    /** Its token hash, or null when there is none to check its hello against. */
    String tokenHash();
  }

  /** No worker. */
  record Down() implements ServicePhase {}

  /** Launched; waiting for its reservation and hello within launchHandoff. */
  record Launching(ProcessIdentity identity, String tokenHash, long deadlineMonoMs) implements WithWorker {}

  /**
   * Found alive at boot (by identity or reservation); adoption waits for its hello (S6).
   *
   * @param identity  from its identity record, or null when it wrote none
   * @param tokenHash from its identity record, or null when the record carries none
   */
  record Adopting(ProcessIdentity identity, String tokenHash) implements WithWorker {}

  /** Its worker serves. */
  record Up(ProcessIdentity identity, String tokenHash, String build) implements WithWorker {}

  /**
   * Its worker is being stopped.
   *
   * @param identity  the worker (null when unknown: only its reservation speaks)
   * @param tokenHash the worker's token hash, or null when none is known
   * @param stop      the stop and its escalation
   * @param then      what follows its death
   * @param was       the serving phase it left (to resume an abandoned idle shutdown), or null
   */
  record Stopping(ProcessIdentity identity, String tokenHash, dev.vigil.supervisor.Stopping stop, Then then, Up was)
      implements WithWorker {
    Stopping with(dev.vigil.supervisor.Stopping s) {
      return new Stopping(identity, tokenHash, s, then, was);
    }
  }

  /** Waiting out a restart pause (S1). */
  record Backoff(long dueMonoMs) implements ServicePhase {}

  /** The restart budget gave up (S1). */
  record GivenUp() implements ServicePhase {}

  /** What follows a stopped worker's death. */
  enum Then {
    /** Launch on this build (S6): a worker that survives its stop counts as a failure. */
    RELAUNCH,
    /** Leave the session down (an operator stop, an idle shutdown). */
    DOWN
  }
}
