package dev.vigil.worker.internal;

import dev.vigil.worker.Outcome;
import dev.vigil.worker.PayloadBindingException;
import dev.vigil.worker.ResultRefusedException;
import dev.vigil.worker.WorkContext;
import dev.vigil.worker.WorkerType;

/**
 * One call of {@link WorkerType#run}, read as an {@link Outcome} the way the worker host reads it:
 * a payload that does not bind or a result refused for its size is a PERMANENT_FAILURE with its
 * one-line reason (the same payload or result would be refused on every attempt), any other
 * exception or error of the type's own is a FAILED outcome naming it, and no outcome is a FAILED
 * outcome saying so. The worker host and the test kit's fake context both call it, so a unit
 * test sees the outcome a real run settles with.
 */
public final class TypeCall {
  private TypeCall() {}

  /** Runs {@code type} once with {@code context}; an interrupt is kept on this thread. */
  public static Outcome outcome(WorkerType type, WorkContext context) {
    try {
      Outcome o = type.run(context);
      return o != null ? o : new Outcome.Failed("worker type " + type.name() + " returned no outcome");
    } catch (PayloadBindingException | ResultRefusedException e) {
      return new Outcome.PermanentFailure(e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Outcome.Failed("interrupted");
    } catch (Exception | LinkageError | AssertionError | StackOverflowError e) {
      return new Outcome.Failed("worker type " + type.name() + " threw " + e);
    }
  }
}
