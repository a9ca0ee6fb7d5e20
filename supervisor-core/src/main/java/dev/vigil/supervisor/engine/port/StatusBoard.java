package dev.vigil.supervisor.engine.port;

import dev.vigil.supervisor.engine.Status;

/**
 * Where the engine publishes its status every {@code heartbeat} (D1): the launcher writes it to
 * {@code <home>/daemon.json} atomically (temporary file, rename) and serves it to clients.
 *
 * <p>Threading: called only on the scheduling thread; must not block longer than a small local
 * file write (an adapter may hand the value to a writer thread instead).
 */
public interface StatusBoard {
  void publish(Status status);
}
