package dev.vigil.examples;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.worker.Outcome;
import dev.vigil.worker.WorkContext;
import dev.vigil.worker.WorkerType;

/**
 * An example custom worker type, {@code prime-count}: counts the primes below {@code below}
 * (payload {@code {"below": 10000}}), reporting progress every tenth of the way and stopping early
 * when a stop is requested. It shows the whole SPI a task type needs:
 *
 * <ol>
 *   <li>read and validate the payload; a payload that can never work is a permanent failure;
 *   <li>report progress (best effort, for humans);
 *   <li>check {@link WorkContext#stopRequested()} at safe points and return promptly;
 *   <li>return an outcome built with the context's helpers. The host writes it durably before it
 *       reports it; the type never touches the run directory's bookkeeping.
 * </ol>
 *
 * <p>A configuration declares it by class, with this module's jar as the type's classpath (see
 * {@code examples/vigil.json}); the daemon checks the class when it starts, and each worker host of
 * the type loads it.
 */
public final class PrimeCountWorker implements WorkerType {
  /** The largest accepted bound. */
  static final long MAX_BELOW = 50_000_000;

  @Override
  public String name() {
    return "prime-count";
  }

  @Override
  public Outcome run(WorkContext ctx) {
    JsonNode below = ctx.payload().get("below");
    if (below == null || !below.canConvertToLong() || !below.isIntegralNumber() || below.longValue() < 2
        || below.longValue() > MAX_BELOW) {
      return ctx.permanentFailure("payload field 'below' must be a whole number in [2, " + MAX_BELOW + "]");
    }
    long n = below.longValue();
    long tenth = Math.max(1, n / 10);
    long count = 0;
    for (long k = 2; k < n; k++) {
      if (k % tenth == 0) {
        if (ctx.stopRequested()) {
          return ctx.failed("stopped at " + k + " of " + n + " (" + count + " primes so far)");
        }
        ctx.progress("checked " + k + " of " + n, (double) k / n);
      }
      if (isPrime(k)) {
        count++;
      }
    }
    return ctx.succeeded(count + " primes below " + n);
  }

  static boolean isPrime(long k) {
    if (k < 4) {
      return k >= 2;
    }
    if (k % 2 == 0) {
      return false;
    }
    for (long d = 3; d * d <= k; d += 2) {
      if (k % d == 0) {
        return false;
      }
    }
    return true;
  }
}
