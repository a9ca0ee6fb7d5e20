package dev.vigil.examples;

import dev.vigil.worker.Outcome;
import dev.vigil.worker.WorkContext;
import dev.vigil.worker.WorkerType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * An example of a resumable worker type, {@code chunked-sum}: it adds up the numbers of a file (one a line) in
 * chunks, saving a checkpoint after each chunk, and a later attempt carries on from the last one instead of
 * starting over (registered as resumable: {@code Vigil.builder().resumableWorkerType(...)}, or
 * {@code "resumable": true} in the configuration).
 *
 * <ol>
 *   <li>{@link WorkContext#previousCheckpoint(Class)} binds the checkpoint an earlier attempt saved, empty on a
 *       first attempt;
 *   <li>{@link WorkContext#checkpoint(Object)} returns once the value is on the disk: from then on it survives
 *       the worker's death and the daemon's, and the next attempt gets it.
 * </ol>
 *
 * To show a resume, it fails on purpose once: when the file {@link Input#failOnceAt} names does not exist yet it
 * creates it and fails after the chunk of that number.
 */
public final class ChunkedSumWorker implements WorkerType {
  /**
   * What to add up.
   *
   * @param file       the numbers, one a line
   * @param chunk      lines per chunk
   * @param failOnceAt the chunk after which the first attempt fails, 0 for none
   * @param marker     the file whose absence makes it fail there (it creates it as it fails)
   */
  public record Input(String file, int chunk, int failOnceAt, String marker) {}

  /** Where the sum stands: the chunks done and their sum. */
  public record Done(int chunks, long sum) {}

  /** What it returns: the sum, and the chunk this attempt started from. */
  public record Sum(long sum, int resumedAfterChunk) {}

  @Override
  public String name() {
    return "chunked-sum";
  }

  @Override
  public Outcome run(WorkContext ctx) throws Exception {
    Input in = ctx.payload(Input.class);
    List<String> lines = Files.readAllLines(Path.of(in.file()));
    Done done = ctx.previousCheckpoint(Done.class).orElse(new Done(0, 0));
    int from = done.chunks();
    for (int c = from; c * in.chunk() < lines.size(); c++) {
      long sum = done.sum();
      for (String line : lines.subList(c * in.chunk(), Math.min(lines.size(), (c + 1) * in.chunk()))) {
        sum += Long.parseLong(line.trim());
      }
      done = new Done(c + 1, sum);
      ctx.checkpoint(done);
      if (c + 1 == in.failOnceAt() && !Files.exists(Path.of(in.marker()))) {
        Files.createFile(Path.of(in.marker()));
        return ctx.failed("failed on purpose after chunk " + (c + 1));
      }
    }
    return Outcome.succeeded(new Sum(done.sum(), from), "sum " + done.sum());
  }
}
