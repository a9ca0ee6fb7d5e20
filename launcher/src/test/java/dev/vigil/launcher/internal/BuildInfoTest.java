package dev.vigil.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The build id is a hash of what was built: the same classes give the same id, a changed class another. */
class BuildInfoTest {
  /** The launcher's own compiled classes, the code this test runs. */
  private static final Path CLASSES = Path.of("target", "classes").toAbsolutePath();

  @TempDir
  Path tmp;

  private static List<Path> files(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).sorted().toList();
    }
  }

  private static Path copy(Path from, Path to) throws IOException {
    for (Path f : files(from)) {
      Path t = to.resolve(from.relativize(f).toString());
      Files.createDirectories(t.getParent());
      Files.copy(f, t);
    }
    return to;
  }

  /** A jar of {@code dir}'s files, in {@code order} (reversed or not), every entry stamped {@code stampMs}. */
  private static Path jar(Path dir, Path jar, boolean reversed, long stampMs) throws IOException {
    List<Path> fs = new ArrayList<>(files(dir));
    if (reversed) {
      Collections.reverse(fs);
    }
    try (OutputStream o = Files.newOutputStream(jar); ZipOutputStream z = new ZipOutputStream(o)) {
      for (Path f : fs) {
        ZipEntry e = new ZipEntry(dir.relativize(f).toString().replace('\\', '/'));
        e.setLastModifiedTime(FileTime.fromMillis(stampMs));
        z.putNextEntry(e);
        z.write(Files.readAllBytes(f));
        z.closeEntry();
      }
    }
    return jar;
  }

  @Test
  void twoBuildsOfTheSameClassesHaveOneId_andAChangedClassAnother() throws Exception {
    assertTrue(Files.isDirectory(CLASSES.resolve("dev/vigil/launcher")), "the launcher is compiled: " + CLASSES);
    Path a = copy(CLASSES, tmp.resolve("a"));
    Path b = copy(CLASSES, tmp.resolve("b"));
    Files.setLastModifiedTime(files(b).get(0), FileTime.fromMillis(0));
    String id = BuildInfo.contentHash(a);
    assertTrue(id.matches("[0-9a-f]{" + BuildInfo.HASH_CHARS + "}"), id);
    assertEquals(id, BuildInfo.contentHash(b), "the same classes, copied at another time");
    assertEquals(id, BuildInfo.contentHash(jar(a, tmp.resolve("a.jar"), false, 0)), "a jar of them");
    assertEquals(id, BuildInfo.contentHash(jar(b, tmp.resolve("b.jar"), true, 1_800_000_000_000L)),
        "another jar of them, made later and in another order");

    Path props = b.resolve(BuildInfo.PROPERTIES);
    Files.writeString(props, "version=9.9.9\nbuild=elsewhere\n");
    assertEquals(id, BuildInfo.contentHash(b), "build.properties is not code");

    Path cls = b.resolve("dev/vigil/launcher/internal/BuildInfo.class");
    byte[] bytes = Files.readAllBytes(cls);
    bytes[bytes.length - 1] ^= 1;
    Files.write(cls, bytes);
    String changed = BuildInfo.contentHash(b);
    assertNotEquals(id, changed, "a changed class is another build");
    assertEquals(changed, BuildInfo.contentHash(jar(b, tmp.resolve("c.jar"), false, 0)));

    Files.writeString(b.resolve("dev/vigil/launcher/Extra.class"), "x");
    assertNotEquals(changed, BuildInfo.contentHash(b), "an added class is another build");
  }

  @Test
  void thisBuildsIdIsTheVersionAndTheHashOfItsCode() throws Exception {
    assertEquals(BuildInfo.VERSION + "+" + BuildInfo.contentHash(CLASSES), BuildInfo.BUILD);
  }
}
