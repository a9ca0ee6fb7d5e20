package dev.vigil.worker.host;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Ends the worker host's own descendants: TERM, then KILL after the child drain (S2:
 * {@code workerTeardown ≥ killRoute + childDrain}). {@link ProcessHandle} re-checks each process's
 * start time before signalling, so a reused pid is never hit.
 */
final class Children {
  /** Poll period while waiting for children to exit, ms. */
  private static final long POLL_MS = 20;

  private Children() {}

  /** TERMs every process in {@code processes}, waits up to {@code drainMs}, KILLs the rest. */
  static void terminate(List<ProcessHandle> processes, long drainMs) {
    if (processes.isEmpty()) {
      return;
    }
    processes.forEach(ProcessHandle::destroy);
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(drainMs);
    while (processes.stream().anyMatch(ProcessHandle::isAlive) && System.nanoTime() - deadline < 0) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(POLL_MS));
    }
    processes.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
  }

  /** Every living descendant of this process, deepest last. */
  static List<ProcessHandle> ofThisProcess() {
    return ProcessHandle.current().descendants().toList();
  }
}
