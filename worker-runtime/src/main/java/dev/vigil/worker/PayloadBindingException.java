package dev.vigil.worker;

/**
 * The run's payload does not bind to the type a worker asked for ({@link WorkContext#payload(Class)}).
 * Its message is one line naming the type, the field and why, like {@code payload does not bind to
 * com.example.Job: field 'count': Cannot deserialize value of type `int` from String "many"}.
 *
 * <p>Let it escape {@link WorkerType#run}: the worker host settles the run PERMANENT_FAILURE with that
 * line as its detail. The payload is the ticket's and the same on every attempt, so a retry could
 * only fail the same way; no further attempt is spent on it.
 */
public class PayloadBindingException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message one line naming the type, the field and why
   * @param cause   Jackson's exception
   */
  public PayloadBindingException(String message, Throwable cause) {
    super(message, cause);
  }
}
