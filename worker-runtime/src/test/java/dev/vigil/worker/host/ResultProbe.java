package dev.vigil.worker.host;

import dev.vigil.worker.Outcome;
import dev.vigil.worker.WorkContext;
import dev.vigil.worker.WorkerType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A worker type for the results tests, run by real worker hosts: its payload's {@code mode} says what
 * it returns. {@code count} binds the payload to {@link Job} and returns a {@link Summary} record;
 * {@code huge} returns a result over the bound; {@code unwritable} one Jackson cannot write;
 * {@code caught} catches the refusal of a huge result and returns a smaller one.
 */
public final class ResultProbe implements WorkerType {
  /** The type's name in these tests. */
  public static final String NAME = "result-probe";

  /** The input of {@code count}. */
  public record Job(String mode, int below, Instant asOf) {}

  /** The result of {@code count}: the primes below a bound. */
  public record Summary(int below, int primes, List<Integer> firstFive, Instant asOf) {}

  /** Jackson cannot write it: its getter throws. */
  public static final class Unwritable {
    public String getValue() {
      throw new IllegalStateException("no value today");
    }
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Outcome run(WorkContext ctx) {
    String mode = ctx.payload().path("mode").asText();
    return switch (mode) {
      case "huge" -> Outcome.succeeded("x".repeat(Outcome.MAX_RESULT_BYTES));
      case "unwritable" -> Outcome.succeeded(new Unwritable());
      case "caught" -> {
        try {
          yield Outcome.succeeded("x".repeat(Outcome.MAX_RESULT_BYTES));
        } catch (dev.vigil.worker.ResultRefusedException e) {
          yield Outcome.succeeded("stored elsewhere", "too large to keep: " + e.getMessage().length());
        }
      }
      default -> {
        Job job = ctx.payload(Job.class);
        List<Integer> primes = primesBelow(job.below());
        yield Outcome.succeeded(new Summary(job.below(), primes.size(), primes.subList(0, Math.min(5, primes.size())),
            job.asOf()), primes.size() + " primes below " + job.below());
      }
    };
  }

  static List<Integer> primesBelow(int n) {
    List<Integer> out = new ArrayList<>();
    for (int i = 2; i < n; i++) {
      boolean prime = true;
      for (int d = 2; d * d <= i; d++) {
        if (i % d == 0) {
          prime = false;
          break;
        }
      }
      if (prime) {
        out.add(i);
      }
    }
    return out;
  }
}
