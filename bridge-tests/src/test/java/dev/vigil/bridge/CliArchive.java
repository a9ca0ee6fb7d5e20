package dev.vigil.bridge;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A class archive per vigil jar for the CLI calls of the tests, as the {@code vigil} script keeps
 * one next to its jar: the first call of a jar records what a call loads ({@code
 * -XX:ArchiveClassesAtExit}), every later call maps it and starts in about half the CPU time. A
 * jar without an archive (the recording failed) runs the same commands, only slower.
 */
final class CliArchive {
  private static final Map<Path, List<String>> FLAGS = new HashMap<>();

  private CliArchive() {}

  /** The JVM flags that map {@code jar}'s archive, made on first use; none when it could not be made. */
  static synchronized List<String> flags(Path jar) {
    return FLAGS.computeIfAbsent(jar.toAbsolutePath(), CliArchive::make);
  }

  private static List<String> make(Path jar) {
    Path home = null;
    try {
      // a test's copy of the jar: beside it, deleted with the test's directory; the built jar (another
      // module's target): in this module's target, one directory per test JVM, so two never write one
      Path archive = jar.startsWith(Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath())
          ? jar.resolveSibling(jar.getFileName() + ".jsa")
          : Files.createDirectories(Path.of("target", "cli-archives", Long.toString(ProcessHandle.current().pid())))
              .toAbsolutePath().resolve(jar.getFileName() + ".jsa");
      home = Files.createTempDirectory("vigil-archive-home-",
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      List<String> record = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:ArchiveClassesAtExit=" + archive, "-Xlog:cds*=off",
          "-jar", jar.toString(), "--home", home.toString(), "status"));
      Process p = new ProcessBuilder(record).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return List.of();
      }
      return Files.isRegularFile(archive) && Files.size(archive) > 0
          ? List.of("-XX:SharedArchiveFile=" + archive, "-Xshare:auto", "-Xlog:cds*=off")
          : List.of();
    } catch (IOException e) {
      return List.of();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return List.of();
    } finally {
      deleteQuietly(home);
    }
  }

  /** Deletes the call's home (a store nobody else opens). */
  private static void deleteQuietly(Path dir) {
    if (dir == null) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    } catch (IOException | UncheckedIOException e) {
      // left in the temporary directory
    }
  }
}
