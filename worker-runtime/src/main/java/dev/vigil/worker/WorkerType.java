package dev.vigil.worker;

/**
 * A kind of work a worker process can do. A configuration declares each custom type by class, under
 * the name tickets and services use ({@code "workerTypes": {"mine": {"class": "com.example.Mine",
 * "classpath": [...]}}}); the daemon checks at start that the class loads from Vigil's classpath plus
 * the type's entries, and each worker host of the type loads exactly that class and calls {@link #run}
 * once per worker process, on a thread of its own, only after the daemon confirmed the run's start
 * (Q3).
 *
 * <p>An implementation must be a public class with a public no-argument constructor, keep no state
 * between processes except through its own storage, and return promptly once {@link
 * WorkContext#stopRequested()} turns true. The name {@code command} is the built-in command type.
 */
public interface WorkerType {
  /**
   * The type's own name, for the worker's messages (letters, digits, {@code .}, {@code _} and
   * {@code -}); tickets and services use the name the configuration gives it.
   */
  String name();

  /**
   * Does the work. A thrown exception settles the run as FAILED with the exception as the detail,
   * except two that a retry could only repeat, which settle it PERMANENT_FAILURE with their one-line
   * message: a {@link PayloadBindingException} (the payload does not bind to the type asked for,
   * {@link WorkContext#payload(Class)}) and a {@link ResultRefusedException} (the result is too large
   * or cannot be written as JSON, {@link Outcome#succeeded(Object)}).
   *
   * @param context ids, payload, busy evidence, quiesce and stop notifications, outcome helpers
   * @return how the work ended
   */
  Outcome run(WorkContext context) throws Exception;
}
