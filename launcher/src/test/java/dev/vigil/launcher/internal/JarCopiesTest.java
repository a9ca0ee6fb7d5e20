package dev.vigil.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Vigil's jars copied per build into the home: jars are replaced by whole copies in order,
 * directories kept, a copy reused while it is whole, the original free to change, and only the
 * copies of the three builds used last kept.
 */
class JarCopiesTest {
  @TempDir Path tmp;

  @Test
  void jarsAreCopiedPerBuild_directoriesKept_andTheOriginalMayChangeAfterwards() throws Exception {
    Home home = new Home(tmp.resolve("home"));
    home.prepare();
    Path a = Files.write(tmp.resolve("a.jar"), new byte[] {1, 2, 3});
    Path b = Files.write(tmp.resolve("b.jar"), new byte[] {4, 5});
    Path classes = Files.createDirectories(tmp.resolve("classes"));
    List<Path> out = JarCopies.stable(home, "0.1.0+abc", List.of(a, classes, b));
    assertEquals(3, out.size());
    assertEquals(classes, out.get(1), "a directory is used as it is");
    assertTrue(out.get(0).startsWith(home.dir().resolve("lib")) && out.get(2).startsWith(home.dir().resolve("lib")));
    assertEquals("01-a.jar", out.get(0).getFileName().toString());
    assertArrayEquals(new byte[] {1, 2, 3}, Files.readAllBytes(out.get(0)));
    FileTime copied = Files.getLastModifiedTime(out.get(0));
    Files.write(a, new byte[] {9}); // a rebuild rewrites the original
    assertArrayEquals(new byte[] {1, 2, 3}, Files.readAllBytes(out.get(0)), "the copy is untouched");
    Files.write(a, new byte[] {1, 2, 3});
    assertEquals(out, JarCopies.stable(home, "0.1.0+abc", List.of(a, classes, b)));
    assertEquals(copied, Files.getLastModifiedTime(out.get(0)), "a whole copy is reused, not written again");
    try (var left = Files.list(out.get(0).getParent())) {
      assertEquals(2, left.count(), "no temporary file is left");
    }
  }

  @Test
  void theCopiesOfTheThreeBuildsUsedLastAreKept() throws Exception {
    Home home = new Home(tmp.resolve("home"));
    home.prepare();
    Path a = Files.write(tmp.resolve("a.jar"), new byte[] {1});
    long t = System.currentTimeMillis() - 100_000;
    for (String build : List.of("b1", "b2", "b3", "b4")) {
      JarCopies.stable(home, build, List.of(a));
      Files.setLastModifiedTime(JarCopies.dir(home, build), FileTime.fromMillis(t += 1_000));
    }
    assertFalse(Files.exists(JarCopies.dir(home, "b1")), "the build used longest ago is gone");
    for (String build : List.of("b2", "b3", "b4")) {
      assertTrue(Files.isRegularFile(JarCopies.dir(home, build).resolve("01-a.jar")), build);
    }
    JarCopies.stable(home, "b2", List.of(a)); // used again: now the newest
    JarCopies.stable(home, "b5", List.of(a));
    assertTrue(Files.exists(JarCopies.dir(home, "b2")) && Files.exists(JarCopies.dir(home, "b5")));
    assertFalse(Files.exists(JarCopies.dir(home, "b3")), "b3 was used longest ago");
  }
}
