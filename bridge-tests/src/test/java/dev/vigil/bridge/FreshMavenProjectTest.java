package dev.vigil.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.h2.H2Coordination;
import dev.vigil.launcher.Vigil;
import dev.vigil.supervisor.TimeoutLattice;
import dev.vigil.worker.engine.HostClasspath;
import dev.vigil.worker.host.WorkerMain;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A user's first project: a fresh Maven project, generated here, that depends on this build's
 * {@code dev.vigil:launcher}, with a {@code Main} that starts Vigil on a home, submits a command and
 * prints the state it ended in. It is built by a nested {@code mvn} and run both through
 * {@code mvn exec:java} (an isolated class loader, while {@code java.class.path} holds only Maven's
 * own jars) and through {@code java -cp} of the classpath {@code dependency:build-classpath} wrote;
 * the task succeeds in both.
 *
 * <p>The nested build never writes to {@code ~/.m2}: this build's artifacts (as this JVM loaded them,
 * with their poms and the parent pom) are laid out in a temporary local repository, which is the
 * nested build's own; {@code ~/.m2/repository} is its first remote repository (a {@code file:} URL, so
 * what the outer build fetched is copied, not downloaded), and Maven Central is asked only for the
 * rest (the exec and dependency plugins, which the outer build does not run).
 */
@Tag("slow")
class FreshMavenProjectTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final long PATIENCE_S = 480;
  /** The modules an application depends on, each with one of its classes. */
  private static final Map<String, Class<?>> MODULES = modules();

  @TempDir
  Path tmp;

  private static Map<String, Class<?>> modules() {
    Map<String, Class<?>> m = new LinkedHashMap<>();
    m.put("coordination-api", ProcessIdentity.class);
    m.put("coordination-h2", H2Coordination.class);
    m.put("coordination-postgres", dev.vigil.coordination.postgres.PostgresCoordination.class);
    m.put("supervisor-core", TimeoutLattice.class);
    m.put("worker-runtime", WorkerMain.class);
    m.put("launcher", Vigil.class);
    return m;
  }

  @Test
  void aFreshProject_runsACommandTask_throughExecJava_andThroughJavaCp() throws Exception {
    Optional<Path> mvn = onPath("mvn");
    if (mvn.isEmpty()) {
      System.out.println("FreshMavenProjectTest skipped: mvn is not on PATH");
    }
    Assumptions.assumeTrue(mvn.isPresent(), "mvn is not on PATH");
    String pom = Files.readString(ROOT.resolve("pom.xml"), StandardCharsets.UTF_8);
    String version = after(pom, "<artifactId>vigil-parent</artifactId>\\s*<version>([^<]+)</version>");
    Path repo = tmp.resolve("repo");
    install(repo, "vigil-parent", version, ROOT.resolve("pom.xml"), null);
    for (Map.Entry<String, Class<?>> m : MODULES.entrySet()) {
      install(repo, m.getKey(), version, ROOT.resolve(m.getKey()).resolve("pom.xml"), jarOf(m.getKey(), m.getValue()));
    }
    Path settings = Files.writeString(tmp.resolve("settings.xml"), """
        <settings>
          <localRepository>%s</localRepository>
          <profiles>
            <profile>
              <id>outer-build</id>
              <repositories>
                <repository><id>outer-build</id><url>%s</url><snapshots><enabled>false</enabled></snapshots></repository>
              </repositories>
              <pluginRepositories>
                <pluginRepository><id>outer-build</id><url>%s</url><snapshots><enabled>false</enabled></snapshots></pluginRepository>
              </pluginRepositories>
            </profile>
          </profiles>
          <activeProfiles><activeProfile>outer-build</activeProfile></activeProfiles>
        </settings>
        """.formatted(repo, m2().toUri(), m2().toUri()), StandardCharsets.UTF_8);

    Path project = tmp.resolve("first-project");
    Files.createDirectories(project.resolve("src/main/java/app"));
    Files.writeString(project.resolve("pom.xml"), """
        <project xmlns="http://maven.apache.org/POM/4.0.0">
          <modelVersion>4.0.0</modelVersion>
          <groupId>app</groupId>
          <artifactId>first-project</artifactId>
          <version>1</version>
          <properties>
            <maven.compiler.release>17</maven.compiler.release>
            <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
          </properties>
          <dependencies>
            <dependency><groupId>dev.vigil</groupId><artifactId>launcher</artifactId><version>%s</version></dependency>
          </dependencies>
          <build>
            <plugins>
              <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-resources-plugin</artifactId><version>%s</version></plugin>
              <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>%s</version></plugin>
            </plugins>
          </build>
        </project>
        """.formatted(version, pluginVersion(pom, "maven-resources-plugin"), pluginVersion(pom, "maven-compiler-plugin")),
        StandardCharsets.UTF_8);
    Files.writeString(project.resolve("src/main/java/app/Main.java"), """
        package app;

        import dev.vigil.coordination.Ticket;
        import dev.vigil.launcher.Submitted;
        import dev.vigil.launcher.Task;
        import dev.vigil.launcher.Vigil;
        import java.nio.file.Path;
        import java.time.Duration;

        public final class Main {
          public static void main(String[] args) throws Exception {
            System.out.println("java.class.path " + System.getProperty("java.class.path"));
            try (Vigil vigil = Vigil.builder().home(Path.of(args[0])).start()) {
              Submitted s = vigil.submit(Task.command("sh", "-c", "echo hello from a worker").build());
              Ticket done = vigil.await(s.id(), Duration.ofMinutes(3));
              System.out.println("state " + done.state() + (done.holdReason() == null ? "" : ": " + done.holdReason()));
            }
          }
        }
        """, StandardCharsets.UTF_8);

    Path installed = m2().resolve("dev/vigil/launcher").resolve(version);
    boolean installedBefore = Files.exists(installed);
    Path classpathFile = tmp.resolve("classpath.txt");
    Path execHome = tmp.resolve("home-exec-java");
    Result exec = run(project, List.of(mvn.get().toString(), "-B", "-q", "-nsu", "-s", settings.toString(),
        "-Dmaven.repo.local=" + repo, "compile",
        "org.apache.maven.plugins:maven-dependency-plugin:" + pluginVersion(pom, "maven-dependency-plugin")
            + ":build-classpath", "-Dmdep.outputFile=" + classpathFile, "-Dmdep.includeScope=runtime",
        "org.codehaus.mojo:exec-maven-plugin:" + EXEC_PLUGIN + ":java", "-Dexec.mainClass=app.Main",
        "-Dexec.args=" + execHome));
    assertEquals(0, exec.code(), "the nested build ran: " + exec.out() + "\n" + exec.err());
    assertTrue(exec.out().contains("state SUCCEEDED"), "through mvn exec:java: " + exec.out() + "\n" + exec.err());
    assertFalse(line(exec.out(), "java.class.path").contains("worker-runtime"),
        "exec:java ran it in a class loader of its own: " + line(exec.out(), "java.class.path"));
    assertEquals(installedBefore, Files.exists(installed), "the nested build installed nothing into ~/.m2: " + installed);

    String classpath = project.resolve("target/classes") + File.pathSeparator
        + Files.readString(classpathFile, StandardCharsets.UTF_8).trim();
    Result java = run(project, List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
        classpath, "app.Main", tmp.resolve("home-java-cp").toString()));
    assertEquals(0, java.code(), java.out() + "\n" + java.err());
    assertTrue(java.out().contains("state SUCCEEDED"), "through java -cp: " + java.out() + "\n" + java.err());
    assertTrue(classpath.contains(repo.resolve("dev/vigil/worker-runtime").toString()),
        "from the temporary repository: " + classpath);
  }

  /** The exec plugin's version (not one the reactor runs, so its pluginManagement names none). */
  private static final String EXEC_PLUGIN = "3.5.0";

  record Result(int code, String out, String err) {}

  private static Path m2() {
    return Path.of(System.getProperty("user.home"), ".m2", "repository");
  }

  /**
   * Lays out {@code artifactId} as {@code mvn install} would in the local repository {@code repo}:
   * its pom and, unless it is the parent, its jar.
   */
  private static void install(Path repo, String artifactId, String version, Path pom, Path jar) throws IOException {
    Path dir = Files.createDirectories(repo.resolve("dev/vigil").resolve(artifactId).resolve(version));
    Files.copy(pom, dir.resolve(artifactId + "-" + version + ".pom"));
    if (jar != null) {
      Files.copy(jar, dir.resolve(artifactId + "-" + version + ".jar"));
    }
  }

  /** The module's jar as this JVM loaded it; its classes jarred into a temporary file when it loaded a directory. */
  private Path jarOf(String module, Class<?> c) throws IOException {
    Path at = ((HostClasspath.Resolution.Found) HostClasspath.of(List.of(c))).entries().get(0);
    if (Files.isRegularFile(at)) {
      return at;
    }
    Path jar = tmp.resolve("jars").resolve(module + ".jar");
    Files.createDirectories(jar.getParent());
    EmbeddedClasspathTest.jarDirectory(at, jar);
    return jar;
  }

  private static String pluginVersion(String pom, String artifactId) {
    return after(pom, "<artifactId>" + Pattern.quote(artifactId) + "</artifactId>\\s*<version>([^<]+)</version>");
  }

  private static String after(String text, String regex) {
    Matcher m = Pattern.compile(regex).matcher(text);
    assertTrue(m.find(), "the reactor's pom has " + regex);
    return m.group(1).trim();
  }

  private static String line(String out, String key) {
    return out.lines().filter(l -> l.startsWith(key + " ")).findFirst().orElse("");
  }

  private static Optional<Path> onPath(String program) {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      Path p = Path.of(dir.isEmpty() ? "." : dir, program);
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  private Result run(Path dir, List<String> cmd) throws Exception {
    Path out = Files.createTempFile(tmp, "out", ".txt");
    Path err = Files.createTempFile(tmp, "err", ".txt");
    ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(cmd)).directory(dir.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .redirectOutput(out.toFile()).redirectError(err.toFile());
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    pb.environment().remove("MAVEN_OPTS");
    pb.environment().remove("MAVEN_ARGS");
    Process p = pb.start();
    if (!p.waitFor(PATIENCE_S, TimeUnit.SECONDS)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      throw new AssertionError(String.join(" ", cmd) + " did not finish in " + PATIENCE_S + " s: "
          + Files.readString(out) + "\n" + Files.readString(err));
    }
    return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
  }
}
