package dev.vigil.examples;

import dev.vigil.worker.Outcome;
import dev.vigil.worker.WorkContext;
import dev.vigil.worker.WorkerType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * An example worker type with a typed payload and a typed result, {@code word-count}: it counts the
 * lines, words and characters of a text file. Its input is an {@link Input} record and its result a
 * {@link Counts} record; the submitter writes one ({@code Task.worker("word-count", new Input(path))})
 * and reads the other ({@code vigil.runResult(run, Counts.class)}), and JSON stays out of sight.
 *
 * <ol>
 *   <li>{@link WorkContext#payload(Class)} binds the payload to the record; a payload that does not
 *       bind (a missing or misspelt field) settles the run as a permanent failure naming the field,
 *       since no retry could mend it;
 *   <li>{@link Outcome#succeeded(Object)} keeps the result with the run, durably, as its verdict is.
 * </ol>
 */
public final class WordCountWorker implements WorkerType {
  /**
   * What to count.
   *
   * @param file the text file (UTF-8)
   */
  public record Input(String file) {}

  /** What was counted. */
  public record Counts(long lines, long words, long chars) {}

  @Override
  public String name() {
    return "word-count";
  }

  @Override
  public Outcome run(WorkContext ctx) throws Exception {
    Input in = ctx.payload(Input.class);
    if (in.file() == null) {
      return ctx.permanentFailure("payload field 'file' is required");
    }
    Path file = Path.of(in.file());
    if (!Files.isRegularFile(file)) {
      return ctx.permanentFailure("no such file: " + file);
    }
    List<String> lines = Files.readAllLines(file);
    long words = lines.stream().map(String::strip).filter(l -> !l.isEmpty()).mapToLong(l -> l.split("\\s+").length)
        .sum();
    long chars = Files.readString(file).length();
    return Outcome.succeeded(new Counts(lines.size(), words, chars));
  }
}
