package dev.vigil.worker;

/**
 * A kind of work a worker process can do, named in tickets and sessions by {@link #name()}. The
 * worker host finds implementations with {@link java.util.ServiceLoader} (a
 * {@code META-INF/services/dev.vigil.worker.WorkerType} file on the worker's classpath) and calls
 * {@link #run} once per worker process, on a thread of its own, only after the daemon confirmed the
 * run's start (Q3).
 *
 * <p>An implementation must have a public no-argument constructor, keep no state between
 * processes except through its own storage, and return promptly once {@link
 * WorkContext#stopRequested()} turns true. The name {@code command} is the built-in command type.
 */
public interface WorkerType {
  /** The type's name: letters, digits, {@code .}, {@code _} and {@code -}. */
  String name();

  /**
   * Does the work. A thrown exception settles the run as FAILED with the exception as the detail.
   *
   * @param context ids, payload, busy evidence, quiesce and stop notifications, outcome helpers
   * @return how the work ended
   */
  Outcome run(WorkContext context) throws Exception;
}
