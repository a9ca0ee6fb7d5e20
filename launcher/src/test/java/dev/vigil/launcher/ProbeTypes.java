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
 * Worker types compiled at test time into a directory of their own, so that they are on no
 * classpath but the one a configuration gives them: {@code probe.ClasspathProbe} (a worker type
 * called {@code classpath-probe} that writes its worker's {@code java.class.path} to the file its
 * payload names in {@code out}) and {@code probe.NotAType} (a class that is no worker type).
 */
public final class ProbeTypes {
  /** The probe's class name. */
  public static final String PROBE = "probe.ClasspathProbe";
  /** A class that does not implement the worker SPI. */
  public static final String NOT_A_TYPE = "probe.NotAType";

  private static final String PROBE_SOURCE = """
      package probe;

      public final class ClasspathProbe implements dev.vigil.worker.WorkerType {
        @Override
        public String name() {
          return "classpath-probe";
        }

        @Override
        public dev.vigil.worker.Outcome run(dev.vigil.worker.WorkContext ctx) throws Exception {
          java.nio.file.Files.writeString(java.nio.file.Path.of(ctx.payload().get("out").asText()),
              System.getProperty("java.class.path"));
          return ctx.succeeded("probed");
        }
      }
      """;

  private static final String NOT_A_TYPE_SOURCE = """
      package probe;

      public final class NotAType {
        public String name() {
          return "not-a-type";
        }
      }
      """;

  private ProbeTypes() {}

  /** Compiles both probe classes into {@code dir} (created), against this JVM's classpath; returns {@code dir}. */
  public static Path compileInto(Path dir) throws IOException {
    Path src = Files.createDirectories(dir.resolveSibling(dir.getFileName() + "-src").resolve("probe"));
    Path probe = Files.writeString(src.resolve("ClasspathProbe.java"), PROBE_SOURCE, StandardCharsets.UTF_8);
    Path other = Files.writeString(src.resolve("NotAType.java"), NOT_A_TYPE_SOURCE, StandardCharsets.UTF_8);
    Files.createDirectories(dir);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertTrue(javac != null, "tests run on a JDK");
    int status = javac.run(null, null, null, List.of("--release", "17", "-cp", System.getProperty("java.class.path"),
        "-d", dir.toString(), probe.toString(), other.toString()).toArray(String[]::new));
    assertEquals(0, status, "the probe types compile");
    return dir;
  }
}
