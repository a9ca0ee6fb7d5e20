package dev.vigil.launcher;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * The start of every CLI command line the tests run: {@code java}, the flags of the {@code vigil}
 * script, and the test classpath. A build runs the CLI some thousands of times, each a new JVM, so
 * this test JVM makes a class archive once (as the {@code vigil} script does next to the jar): the
 * classpath's class directories are packed into jars (a class archive takes classes from jars only),
 * one {@code status} call records what a call loads, and every later call maps it and starts in
 * about half the CPU time. Any step that fails leaves the plain classpath without an archive, which
 * runs the same commands, only slower.
 */
final class CliJvm {
  private static List<String> prefix;

  private CliJvm() {}

  /** {@code java}, its flags and {@code -cp CLASSPATH}, ready for a main class and its arguments. */
  static synchronized List<String> prefix() {
    if (prefix == null) {
      prefix = make();
    }
    return prefix;
  }

  private static List<String> make() {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> flags = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
    String classpath = System.getProperty("java.class.path");
    List<String> plain = new ArrayList<>(List.of(java));
    plain.addAll(flags);
    plain.addAll(List.of("-cp", classpath));
    try {
      Path dir = Files.createDirectories(Path.of("target", "cli-jvm", Long.toString(ProcessHandle.current().pid())))
          .toAbsolutePath();
      List<String> entries = new ArrayList<>();
      int n = 0;
      for (String entry : classpath.split(File.pathSeparator)) {
        Path p = Path.of(entry);
        entries.add(Files.isDirectory(p) ? packed(p, dir.resolve("classes-" + n++ + ".jar")).toString() : entry);
      }
      String jars = String.join(File.pathSeparator, entries);
      Path archive = dir.resolve("cli.jsa");
      Path home = Files.createTempDirectory(dir, "home-", PosixFilePermissions.asFileAttribute(
          PosixFilePermissions.fromString("rwx------")));
      List<String> record = new ArrayList<>(List.of(java));
      record.addAll(flags);
      record.addAll(List.of("-XX:ArchiveClassesAtExit=" + archive, "-Xlog:cds*=off", "-cp", jars,
          Main.class.getName(), "--home", home.toString(), "status"));
      Process p = new ProcessBuilder(record).redirectErrorStream(true)
          .redirectOutput(dir.resolve("record.log").toFile()).start();
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return plain;
      }
      if (!Files.isRegularFile(archive) || Files.size(archive) == 0) {
        return plain;
      }
      List<String> fast = new ArrayList<>(List.of(java));
      fast.addAll(flags);
      fast.addAll(List.of("-XX:SharedArchiveFile=" + archive, "-Xshare:auto", "-Xlog:cds*=off", "-cp", jars));
      return fast;
    } catch (IOException e) {
      return plain;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return plain;
    }
  }

  /** {@code dir}'s files as the jar {@code jar}. */
  private static Path packed(Path dir, Path jar) throws IOException {
    try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out);
        Stream<Path> files = Files.walk(dir)) {
      for (Path f : (Iterable<Path>) files.sorted()::iterator) {
        if (f.equals(dir)) {
          continue;
        }
        String name = dir.relativize(f).toString().replace(File.separatorChar, '/');
        if (Files.isDirectory(f)) {
          j.putNextEntry(new JarEntry(name + "/"));
        } else {
          j.putNextEntry(new JarEntry(name));
          Files.copy(f, j);
        }
        j.closeEntry();
      }
    }
    return jar;
  }
}
