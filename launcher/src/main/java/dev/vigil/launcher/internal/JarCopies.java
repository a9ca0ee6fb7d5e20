package dev.vigil.launcher.internal;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Vigil's jars copied into the home, one directory per build ({@code lib/BUILD}), so that the
 * daemon and its worker hosts run from files nothing else writes: a rebuild ({@code mvn package})
 * or an upgrade that replaces the jars in place would otherwise change classes under a running
 * JVM, which then fails the first time it loads one. Directories (a development classpath) are
 * left as they are. A copy is written to a temporary name and moved into place, so that a reader
 * sees a whole file or none; a copy that fails leaves the original in use. The copies of the three
 * builds used last are kept.
 */
public final class JarCopies {
  private static final Logger LOG = LoggerFactory.getLogger(JarCopies.class);
  /** Builds whose copies are kept besides this one. */
  static final int KEEP_OTHER_BUILDS = 2;

  private JarCopies() {}

  /** The directory of this build's copies. */
  static Path dir(Home home, String build) {
    return home.dir().resolve("lib").resolve(build.replaceAll("[^A-Za-z0-9._+-]", "_"));
  }

  /**
   * {@code entries} with every jar file replaced by its copy under {@code lib/BUILD} of {@code home},
   * in the same order.
   */
  public static List<Path> stable(Home home, String build, List<Path> entries) {
    Path dir = dir(home, build);
    List<Path> out = new ArrayList<>(entries.size());
    int i = 0;
    for (Path e : entries) {
      i++;
      if (!Files.isRegularFile(e) || !e.getFileName().toString().endsWith(".jar")) {
        out.add(e);
        continue;
      }
      Path copy = dir.resolve(String.format("%02d-%s", i, e.getFileName()));
      try {
        if (!Files.isRegularFile(copy) || Files.size(copy) != Files.size(e)) {
          Files.createDirectories(dir);
          Path tmp = Files.createTempFile(dir, ".copy-", ".tmp");
          try {
            Files.copy(e, tmp, StandardCopyOption.REPLACE_EXISTING);
            try {
              Files.move(tmp, copy, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException x) {
              Files.move(tmp, copy, StandardCopyOption.REPLACE_EXISTING);
            }
          } finally {
            Files.deleteIfExists(tmp);
          }
        }
        out.add(copy);
      } catch (IOException x) {
        LOG.warn("cannot copy {} into {} ({}); running from the original", e, dir, x.toString());
        out.add(e);
      }
    }
    try { // the directory's time tells which builds ran last
      if (!Files.isDirectory(dir)) {
        return out;
      }
      Files.setLastModifiedTime(dir, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis()));
    } catch (IOException ignored) {
      // an older time only lets its copies go sooner
    }
    prune(home, dir);
    return out;
  }

  /** Deletes the copies of builds other than {@code keep} and the {@value #KEEP_OTHER_BUILDS} used last. */
  private static void prune(Home home, Path keep) {
    Path lib = home.dir().resolve("lib");
    if (!Files.isDirectory(lib)) {
      return;
    }
    List<Path> others;
    try (Stream<Path> s = Files.list(lib)) {
      others = s.filter(p -> !p.equals(keep) && Files.isDirectory(p))
          .sorted(Comparator.comparing(JarCopies::modified).reversed()).toList();
    } catch (IOException e) {
      return;
    }
    for (Path old : others.subList(Math.min(KEEP_OTHER_BUILDS, others.size()), others.size())) {
      try (Stream<Path> files = Files.list(old)) {
        for (Path f : files.toList()) {
          Files.deleteIfExists(f);
        }
        Files.deleteIfExists(old);
      } catch (IOException e) {
        LOG.debug("cannot delete the copies in {}: {}", old, e.toString());
      }
    }
  }

  private static long modified(Path p) {
    try {
      return Files.getLastModifiedTime(p).toMillis();
    } catch (IOException e) {
      return 0;
    }
  }
}
