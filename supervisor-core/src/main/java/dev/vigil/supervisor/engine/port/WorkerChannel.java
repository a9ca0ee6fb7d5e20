package dev.vigil.supervisor.engine.port;

import dev.vigil.supervisor.engine.Engine;
import dev.vigil.supervisor.engine.ToWorker;
import dev.vigil.supervisor.engine.WorkerKey;

/**
 * The daemon's side of the worker socket (worker-runtime implements it over the Unix domain
 * socket). A connection belongs to a {@link WorkerKey} once the engine answered its hello with
 * {@link ToWorker.Welcome}; the adapter writes the engine's answer to {@link Engine#onHello} on
 * the connection that said hello and binds it to the key (replacing and closing an older connection
 * of that key), or closes it after {@link ToWorker.AdoptDenied}. A connection that closes no longer
 * takes frames.
 *
 * <p>Threading: called only on the scheduling thread; a send queues the frame for the connection's
 * writer and returns at once, never waiting for the worker.
 */
public interface WorkerChannel {
  /**
   * Queues {@code message} for the worker of {@code key}.
   *
   * @return true when a welcomed connection of {@code key} took the frame, false when none is open
   *         (the engine repeats what matters at the worker's next hello)
   */
  boolean send(WorkerKey key, ToWorker message);
}
