package dev.vigil.worker;

/**
 * A worker's result cannot be kept with its run: it is larger than {@link Outcome#MAX_RESULT_BYTES}
 * bytes of JSON, or Jackson cannot write it as JSON. Thrown where the result is given
 * ({@link Outcome#succeeded(Object)}, {@link Outcome.Succeeded}), with a one-line message naming the
 * size or the type, so that a worker may catch it and return less.
 *
 * <p>When it escapes {@link WorkerType#run}, the worker host settles the run PERMANENT_FAILURE with
 * that line as its detail, and the ticket fails without another attempt. Not FAILED, which would retry:
 * the work was done and paid for, and doing it again would produce the same result and be refused
 * again. Not SUCCEEDED without the result either: whoever reads the result would find none and could
 * not tell it from a success that returned nothing. Keep large output in a file or a store of your
 * own and return where it is.
 */
public class ResultRefusedException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message one line: how large the result is, or which type cannot be written and why
   * @param cause   Jackson's exception, or {@code null}
   */
  public ResultRefusedException(String message, Throwable cause) {
    super(message, cause);
  }
}
