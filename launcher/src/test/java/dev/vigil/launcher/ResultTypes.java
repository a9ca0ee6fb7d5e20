package dev.vigil.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * A worker type that returns a result, compiled at test time into a directory of its own (as
 * {@link ProbeTypes} are), so that only its configured classpath has it: {@code results.CountPrimes},
 * called {@code count-primes}. Its payload binds to the record {@code Job(below, asOf, waitFor, huge)}:
 * it waits for the file {@code waitFor} to exist when one is named, appends a line to
 * {@code <waitFor>.starts} each time it starts, then counts the primes below {@code below} and returns
 * the record {@code Summary(below, primes, firstFive, asOf)}; with {@code huge} it returns a result
 * over the 64 KiB bound instead.
 */
public final class ResultTypes {
  /** The type's class name. */
  public static final String COUNT_PRIMES = "results.CountPrimes";
  /** The name configurations give it here. */
  public static final String NAME = "count-primes";

  private static final String SOURCE = """
      package results;

      import dev.vigil.worker.Outcome;
      import dev.vigil.worker.WorkContext;
      import java.nio.file.Files;
      import java.nio.file.Path;
      import java.nio.file.StandardOpenOption;
      import java.time.Instant;
      import java.util.ArrayList;
      import java.util.List;

      public final class CountPrimes implements dev.vigil.worker.WorkerType {
        public record Job(int below, Instant asOf, String waitFor, Boolean huge) {}

        public record Summary(int below, int primes, List<Integer> firstFive, Instant asOf) {}

        @Override
        public String name() {
          return "count-primes";
        }

        @Override
        public Outcome run(WorkContext ctx) throws Exception {
          Job job = ctx.payload(Job.class);
          if (job.waitFor() != null) {
            Files.writeString(Path.of(job.waitFor() + ".starts"), ctx.runId() + "\\n", StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
            while (!Files.exists(Path.of(job.waitFor()))) {
              if (ctx.awaitStop(50)) {
                return ctx.stalled(System.currentTimeMillis(), "stopped before the file came");
              }
            }
          }
          if (Boolean.TRUE.equals(job.huge())) {
            return Outcome.succeeded(List.of("x".repeat(70_000)));
          }
          List<Integer> primes = new ArrayList<>();
          for (int i = 2; i < job.below(); i++) {
            boolean prime = true;
            for (int d = 2; d * d <= i; d++) {
              prime &= i % d != 0;
            }
            if (prime) {
              primes.add(i);
            }
          }
          return Outcome.succeeded(new Summary(job.below(), primes.size(), primes.subList(0, Math.min(5, primes.size())),
              job.asOf()), primes.size() + " primes below " + job.below());
        }
      }
      """;

  private ResultTypes() {}

  /** Compiles {@code results.CountPrimes} into {@code dir} (created), against this JVM's classpath; returns {@code dir}. */
  public static Path compileInto(Path dir) throws IOException {
    Path src = Files.createDirectories(dir.resolveSibling(dir.getFileName() + "-src").resolve("results"));
    Path file = Files.writeString(src.resolve("CountPrimes.java"), SOURCE, StandardCharsets.UTF_8);
    Files.createDirectories(dir);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertTrue(javac != null, "tests run on a JDK");
    int status = javac.run(null, null, null, List.of("--release", "17", "-cp", System.getProperty("java.class.path"),
        "-d", dir.toString(), file.toString()).toArray(String[]::new));
    assertEquals(0, status, "the result type compiles");
    return dir;
  }
}
