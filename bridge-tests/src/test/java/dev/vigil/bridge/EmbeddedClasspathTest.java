package dev.vigil.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.vigil.coordination.h2.H2Coordination;
import dev.vigil.examples.PrimeCountWorker;
import dev.vigil.launcher.Vigil;
import dev.vigil.worker.engine.HostClasspath;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An application that embeds Vigil ({@link EmbeddingApp}) in a JVM of its own, on each kind of
 * classpath an application runs on: a plain {@code java -cp} of jars, one shaded jar holding
 * everything, and a class loader of its own while {@code java.class.path} names something else (as
 * {@code mvn exec:java} runs it). In each, its real daemon's worker hosts start from the jars Vigil
 * was loaded from, and a command task and a task of a Java worker type succeed. The hosts' class
 * archive made by one run is mapped by the next; a host that cannot start says why in the diagnosis.
 */
@Tag("slow")
class EmbeddedClasspathTest {
  private static final long PATIENCE_S = 240;

  @TempDir
  Path tmp;

  record Result(int code, String out, String err) {
    /** The rest of the line that starts with {@code key} and a space; fails when there is none. */
    String line(String key) {
      return out.lines().filter(l -> l.startsWith(key + " ")).map(l -> l.substring(key.length() + 1)).findFirst()
          .orElseThrow(() -> new AssertionError("no line '" + key + " …' in: " + out + "\nstderr: " + err));
    }

    List<String> lines(String key) {
      return out.lines().filter(l -> l.startsWith(key + " ")).map(l -> l.substring(key.length() + 1)).toList();
    }
  }

  @Test
  void aPlainClasspathOfJars_runsBothTasks_andTheNextRunMapsTheClassArchiveOfTheFirst() throws Exception {
    List<Path> jars = jarred(vigilEntries(), tmp.resolve("lib"));
    List<String> cmd = java("-cp", classpath(appClasses(), jars), EmbeddingApp.class.getName(), home("home"),
        typeClasspath(), "run");
    Result first = run(cmd);
    assertSucceeded(first);
    List<String> hosts = List.of(first.line("hosts").split(File.pathSeparator));
    assertEquals(HostClasspath.HOST.size(), hosts.size(), "one jar per part of the worker host: " + hosts);
    for (String h : hosts) {
      assertTrue(jars.contains(Path.of(h)), "the hosts start from the jars on the application's classpath: " + h);
    }
    Path archive = Path.of(first.line("archive"));
    assertTrue(Files.isRegularFile(archive), "the hosts' class archive is in place: " + archive);
    FileTime made = Files.getLastModifiedTime(archive);

    Result second = run(cmd);
    assertSucceeded(second);
    assertEquals(first.line("hosts"), second.line("hosts"), "the same classpath in every run");
    assertEquals(archive.toString(), second.line("archive"), "so the same archive");
    assertEquals(made, Files.getLastModifiedTime(archive), "mapped, not made again");
  }

  @Test
  void aShadedJar_isTheWholeClasspathOfItsHosts() throws Exception {
    assertTrue(Files.isRegularFile(JarBuilds.VIGIL_JAR), "the runnable jar is built: " + JarBuilds.VIGIL_JAR);
    Path shaded = tmp.resolve("app-with-everything.jar");
    Files.copy(JarBuilds.VIGIL_JAR, shaded);
    try (FileSystem zip = FileSystems.newFileSystem(shaded)) {
      copyClasses(EmbeddingApp.class, zip.getPath("/"));
    }
    Result r = run(java("-cp", shaded.toString(), EmbeddingApp.class.getName(), home("home"), typeClasspath(), "run"));
    assertSucceeded(r);
    assertEquals(shaded.toString(), r.line("hosts"), "one jar holds everything, so it is the hosts' classpath");
    assertTrue(Files.isRegularFile(Path.of(r.line("archive"))), r.line("archive"));
  }

  @Test
  void anIsolatedClassLoader_asMavenExecJavaRunsTheApplication_givesItsHostsTheJarsItLoaded() throws Exception {
    Path start = Files.createDirectories(tmp.resolve("start"));
    copyClasses(IsolatedStart.class, start);
    List<String> entries = new ArrayList<>(List.of(appClasses().toString()));
    vigilEntries().forEach(p -> entries.add(p.toString()));
    Path list = Files.write(tmp.resolve("entries.txt"), entries, StandardCharsets.UTF_8);
    Result r = run(java("-cp", start.toString(), IsolatedStart.class.getName(), list.toString(),
        EmbeddingApp.class.getName(), home("home"), typeClasspath(), "run"));
    assertSucceeded(r);
    assertEquals(((HostClasspath.Resolution.Found) HostClasspath.host()).classpath(), r.line("hosts"),
        "the hosts get the jars and directories the isolated loader read Vigil from");
    assertFalse(r.line("hosts").contains(start.toString()), "never the JVM's own java.class.path");
  }

  @Test
  void aHostThatCannotStart_leavesTheEndOfItsStderrInTheDiagnosis_theHoldAndTheEvent() throws Exception {
    List<Path> jars = jarred(vigilEntries(), tmp.resolve("lib"));
    Result r = run(java("-cp", classpath(appClasses(), jars), EmbeddingApp.class.getName(), home("home"),
        typeClasspath(), "break"));
    assertEquals(0, r.code(), r.err());
    String said = "its stderr ends: Error: Could not find or load main class dev.vigil.worker.host.WorkerMain";
    assertTrue(r.line("held").startsWith("worker failed to start 3 times, last: ") && r.line("held").contains(said),
        r.line("held"));
    List<String> runs = r.lines("run");
    assertEquals(3, runs.size(), r.out());
    for (String diagnosis : runs) {
      assertTrue(diagnosis.contains(said) && diagnosis.contains("Caused by: java.lang.ClassNotFoundException"), diagnosis);
    }
    assertTrue(r.line("event").contains(said), "the held event says it too: " + r.line("event"));
  }

  // ---- helpers ----

  private static void assertSucceeded(Result r) {
    assertEquals(0, r.code(), "the application ran: " + r.out() + "\n" + r.err());
    assertEquals("SUCCEEDED", r.line("command"), "a command task");
    assertEquals("SUCCEEDED", r.line("prime-count"), "a task of a Java worker type");
  }

  /**
   * Vigil's jars and directories as this JVM loaded them: what an application that embeds it depends
   * on (the launcher, the H2 store and their libraries, cron-utils for the schedules that every daemon
   * has), and SLF4J's no-op binding.
   */
  private static List<Path> vigilEntries() {
    List<Class<?>> classes = new ArrayList<>(HostClasspath.HOST);
    classes.addAll(List.of(Vigil.class, H2Coordination.class, org.h2.Driver.class, HikariDataSource.class,
        picocli.CommandLine.class, com.cronutils.model.Cron.class, org.slf4j.nop.NOPServiceProvider.class));
    return ((HostClasspath.Resolution.Found) HostClasspath.of(classes)).entries();
  }

  /** The example worker type's classpath: the examples jar or classes. */
  private static String typeClasspath() {
    return ((HostClasspath.Resolution.Found) HostClasspath.of(List.of(PrimeCountWorker.class))).classpath();
  }

  /** A directory holding the application's classes only. */
  private Path appClasses() throws IOException {
    Path dir = tmp.resolve("app");
    if (!Files.isDirectory(dir)) {
      copyClasses(EmbeddingApp.class, Files.createDirectories(dir));
    }
    return dir;
  }

  /** Copies the class files of {@code c} (and of its nested classes) under {@code root}. */
  private static void copyClasses(Class<?> c, Path root) throws IOException {
    Path from = classFile(c).getParent();
    Path to = root.resolve(c.getPackageName().replace('.', '/'));
    Files.createDirectories(to);
    try (Stream<Path> files = Files.list(from)) {
      for (Path f : files.filter(f -> f.getFileName().toString().matches(c.getSimpleName() + "(\\$.*)?\\.class")).toList()) {
        Files.copy(f, to.resolve(f.getFileName().toString()));
      }
    }
  }

  private static Path classFile(Class<?> c) {
    try {
      return Path.of(c.getResource(c.getSimpleName() + ".class").toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Each entry as a jar in {@code dir}: a jar is copied, a directory of classes is jarred. */
  private static List<Path> jarred(List<Path> entries, Path dir) throws IOException {
    Files.createDirectories(dir);
    List<Path> jars = new ArrayList<>();
    for (Path e : entries) {
      if (Files.isDirectory(e)) {
        // <module>/target/classes: named after the module
        Path jar = dir.resolve(e.getParent().getParent().getFileName() + ".jar");
        jarDirectory(e, jar);
        jars.add(jar);
      } else {
        jars.add(Files.copy(e, dir.resolve(e.getFileName())));
      }
    }
    return jars;
  }

  /** Jars the classes under the directory {@code classes} into {@code jar}. */
  static void jarDirectory(Path classes, Path jar) throws IOException {
    try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out);
         Stream<Path> files = Files.walk(classes)) {
      for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
        j.putNextEntry(new JarEntry(classes.relativize(f).toString().replace(File.separatorChar, '/')));
        Files.copy(f, j);
        j.closeEntry();
      }
    }
  }

  private static String classpath(Path first, List<Path> rest) {
    List<String> all = new ArrayList<>(List.of(first.toString()));
    rest.forEach(p -> all.add(p.toString()));
    return String.join(File.pathSeparator, all);
  }

  private String home(String name) {
    return tmp.resolve(name).toString();
  }

  private static List<String> java(String... args) {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    cmd.addAll(List.of(args));
    return cmd;
  }

  private int runs;

  private Result run(List<String> cmd) throws Exception {
    int n = ++runs;
    Path out = tmp.resolve("out-" + n + ".txt");
    Path err = tmp.resolve("err-" + n + ".txt");
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(tmp.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .redirectOutput(out.toFile()).redirectError(err.toFile());
    pb.environment().put("VIGIL_CDS", "on"); // the build's tests run without class archives; these test the hosts'
    Process p = pb.start();
    if (!p.waitFor(PATIENCE_S, TimeUnit.SECONDS)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      throw new AssertionError("the application did not finish in " + PATIENCE_S + " s: " + Files.readString(out)
          + "\n" + Files.readString(err));
    }
    return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
  }
}
