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
 * A worker type that saves checkpoints, compiled at test time into a directory of its own (as
 * {@link ResultTypes} is): {@code resume.Steps}. Its payload binds to {@code Job(steps, dir)}: it starts
 * at the step after its previous checkpoint (0 without one), appends {@code <run> from <n>} to
 * {@code <dir>/starts}, and for each step {@code i} waits for the file {@code <dir>/go-i}, saves {@code i}
 * as its checkpoint and then writes {@code <dir>/saved-i}; after the last step it succeeds with the result
 * {@code Done(steps, resumedFrom)}.
 */
public final class CheckpointTypes {
  /** The type's class name. */
  public static final String STEPS = "resume.Steps";

  private static final String SOURCE = """
      package resume;

      import dev.vigil.worker.Outcome;
      import dev.vigil.worker.WorkContext;
      import java.nio.file.Files;
      import java.nio.file.Path;
      import java.nio.file.StandardOpenOption;

      public final class Steps implements dev.vigil.worker.WorkerType {
        public record Job(int steps, String dir) {}

        public record Done(int steps, int resumedFrom) {}

        @Override
        public String name() {
          return "steps";
        }

        @Override
        public Outcome run(WorkContext ctx) throws Exception {
          Job job = ctx.payload(Job.class);
          Path dir = Path.of(job.dir());
          int from = ctx.previousCheckpoint(Integer.class).orElse(0);
          Files.writeString(dir.resolve("starts"), ctx.runId() + " from " + from + "\\n", StandardOpenOption.CREATE,
              StandardOpenOption.APPEND);
          for (int i = from + 1; i <= job.steps(); i++) {
            while (!Files.exists(dir.resolve("go-" + i))) {
              if (ctx.awaitStop(50)) {
                return ctx.stalled(System.currentTimeMillis(), "stopped before step " + i);
              }
            }
            ctx.checkpoint(i);
            Files.writeString(dir.resolve("saved-" + i), ctx.runId());
          }
          return Outcome.succeeded(new Done(job.steps(), from), "done, resumed from " + from);
        }
      }
      """;

  private CheckpointTypes() {}

  /** Compiles {@code resume.Steps} into {@code dir} (created), against this JVM's classpath; returns {@code dir}. */
  public static Path compileInto(Path dir) throws IOException {
    Path src = Files.createDirectories(dir.resolveSibling(dir.getFileName() + "-src").resolve("resume"));
    Path file = Files.writeString(src.resolve("Steps.java"), SOURCE, StandardCharsets.UTF_8);
    Files.createDirectories(dir);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertTrue(javac != null, "tests run on a JDK");
    int status = javac.run(null, null, null, List.of("--release", "17", "-cp", System.getProperty("java.class.path"),
        "-d", dir.toString(), file.toString()).toArray(String[]::new));
    assertEquals(0, status, "the checkpoint type compiles");
    return dir;
  }
}
