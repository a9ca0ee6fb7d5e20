package dev.vigil.worker.testkit;

import dev.vigil.worker.Outcome;
import dev.vigil.worker.WorkContext;
import dev.vigil.worker.WorkerType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A service worker type for host tests ({@code test-service}): idle until the file {@code start-job}
 * appears in its run directory, then asks to start a job through the run gate (S5) and holds it
 * until {@code end-job} appears; returns {@code succeeded("stopped")} when a stop is requested.
 * It reports each step as progress: {@code started}, {@code job wants in}, {@code job admitted},
 * {@code job done}.
 */
public final class TestService implements WorkerType {
  public static final String NAME = "test-service";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Outcome run(WorkContext ctx) throws Exception {
    Path start = ctx.runDirectory().resolve("start-job");
    Path end = ctx.runDirectory().resolve("end-job");
    ctx.progress("started");
    while (!ctx.awaitStop(20)) {
      if (Files.deleteIfExists(start)) {
        ctx.progress("job wants in");
        Optional<WorkContext.Work> job = ctx.busy("job");
        if (job.isEmpty()) {
          return ctx.succeeded("stopped before the job");
        }
        ctx.progress("job admitted");
        while (!Files.deleteIfExists(end)) {
          if (ctx.awaitStop(20)) {
            return ctx.failed("stopped during the job");
          }
        }
        job.get().close();
        ctx.progress("job done");
      }
    }
    return ctx.succeeded("stopped");
  }
}
