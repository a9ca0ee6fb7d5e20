package dev.vigil.worker.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.worker.host.WorkerMain;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.security.cert.Certificate;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a worker host finds Vigil's classes: the jar or directory each class was loaded from, in
 * any class loader, never this JVM's {@code java.class.path}; one line when a class came from
 * something another JVM cannot be given.
 */
class HostClasspathTest {
  /** A class with nothing but {@code java.base} behind it, loaded again from copies of its class file. */
  public static final class Marker {}

  private static final String MARKER_FILE = Marker.class.getName().replace('.', '/') + ".class";

  @TempDir
  Path tmp;

  @Test
  void theHostsClasspath_holdsEachJarOfItsClassesOnce_inTheirOrder_andIsTheSameEveryTime() throws Exception {
    HostClasspath.Resolution.Found found = assertInstanceOf(HostClasspath.Resolution.Found.class, HostClasspath.host());
    assertEquals(HostClasspath.HOST.size(), found.entries().size(), "one entry per jar: " + found.entries());
    for (int i = 0; i < HostClasspath.HOST.size(); i++) {
      Class<?> c = HostClasspath.HOST.get(i);
      Path entry = found.entries().get(i);
      assertTrue(entry.isAbsolute(), entry.toString());
      assertTrue(holds(entry, c), entry + " holds " + c.getName());
    }
    assertEquals(found.classpath(), ((HostClasspath.Resolution.Found) HostClasspath.host()).classpath(),
        "the same classpath on every call, so the hosts' class archive is reused");
    assertEquals(String.join(File.pathSeparator, found.entries().stream().map(Path::toString).toList()),
        found.classpath());
    assertTrue(found.classpath().contains("worker-runtime"), found.classpath());
  }

  /**
   * Regression: the Jackson modules typed payloads and results bind with were not on the hosts'
   * classpath, so every worker type that called {@code ctx.payload(Type.class)} or
   * {@code Outcome.succeeded(result)} failed with NoClassDefFoundError in a real host.
   */
  @Test
  void theHostsClasspathAlone_bindsTypedPayloadsAndWritesResults() throws Exception {
    HostClasspath.Resolution.Found found = assertInstanceOf(HostClasspath.Resolution.Found.class, HostClasspath.host());
    URL[] urls = new URL[found.entries().size()];
    for (int i = 0; i < urls.length; i++) {
      urls[i] = found.entries().get(i).toUri().toURL();
    }
    try (URLClassLoader host = new URLClassLoader(urls, ClassLoader.getPlatformClassLoader())) {
      Class<?> binding = host.loadClass("dev.vigil.worker.JsonBinding");
      Object json = binding.getMethod("toJson", Object.class).invoke(null, java.time.Instant.EPOCH);
      assertEquals("\"1970-01-01T00:00:00Z\"", json.toString(), "java.time is written as the host writes it");
      assertEquals(binding.getClassLoader(), host, "read from the host's classpath, not from this JVM's");
    }
  }

  @Test
  void classesOfOneJar_giveOneEntry() {
    HostClasspath.Resolution.Found found = assertInstanceOf(HostClasspath.Resolution.Found.class,
        HostClasspath.of(List.of(WorkerMain.class, OsProcessTable.class, WorkerMain.class)));
    assertEquals(1, found.entries().size(), found.entries().toString());
  }

  @Test
  void aClassFromAnIsolatedLoader_isFoundInTheJarThatLoaderRead_notOnThisJvmsClasspath() throws Exception {
    Path jar = tmp.resolve("lib dir").resolve("marker.jar");
    Files.createDirectories(jar.getParent());
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      out.putNextEntry(new JarEntry(MARKER_FILE));
      out.write(markerBytes());
      out.closeEntry();
    }
    try (URLClassLoader isolated = new URLClassLoader(new URL[] {jar.toUri().toURL()}, ClassLoader.getPlatformClassLoader())) {
      Class<?> copy = isolated.loadClass(Marker.class.getName());
      assertNotEquals(Marker.class, copy, "loaded apart from this JVM's classpath");
      assertEquals(List.of(jar), ((HostClasspath.Resolution.Found) HostClasspath.of(List.of(copy))).entries(),
          "a path with a space survives its URL");
      assertFalse(System.getProperty("java.class.path").contains(jar.toString()));
    }
  }

  @Test
  void aClassFromADirectory_isFoundInThatDirectory() throws Exception {
    Path dir = tmp.resolve("classes");
    Path file = dir.resolve(MARKER_FILE);
    Files.createDirectories(file.getParent());
    Files.write(file, markerBytes());
    try (URLClassLoader isolated = new URLClassLoader(new URL[] {dir.toUri().toURL()}, ClassLoader.getPlatformClassLoader())) {
      Class<?> copy = isolated.loadClass(Marker.class.getName());
      assertEquals(List.of(dir), ((HostClasspath.Resolution.Found) HostClasspath.of(List.of(copy))).entries());
    }
  }

  @Test
  void aClassWithoutACodeSource_isFoundThroughItsClassFile_inAJarOrADirectory() throws Exception {
    Path jar = Files.write(tmp.resolve("plain.jar"), new byte[] {1});
    Class<?> fromJar = new Defining(null, new URL("jar:" + jar.toUri() + "!/" + MARKER_FILE)).load();
    assertEquals(List.of(jar), ((HostClasspath.Resolution.Found) HostClasspath.of(List.of(fromJar))).entries());

    Path dir = Files.createDirectories(tmp.resolve("out"));
    Class<?> fromDir = new Defining(null, new URL(dir.toUri() + MARKER_FILE)).load();
    assertEquals(List.of(dir), ((HostClasspath.Resolution.Found) HostClasspath.of(List.of(fromDir))).entries());
  }

  @Test
  void aClassFromAJarInsideAJar_orWithNoOrigin_isRefusedInOneLineNamingTheClass() throws Exception {
    Path fat = Files.write(tmp.resolve("app.jar"), new byte[] {1});
    URL nested = new URL("jar:" + fat.toUri() + "!/BOOT-INF/lib/worker-runtime.jar!/");
    Class<?> inJar = new Defining(new CodeSource(nested, (Certificate[]) null), new URL(nested + MARKER_FILE)).load();
    HostClasspath.Resolution.Unknown u = assertInstanceOf(HostClasspath.Resolution.Unknown.class,
        HostClasspath.of(List.of(WorkerMain.class, inJar)));
    assertTrue(u.why().contains(Marker.class.getName()) && u.why().contains("BOOT-INF/lib/worker-runtime.jar"), u.why());
    assertFalse(u.why().contains("\n"), "one line");

    Class<?> nowhere = new Defining(null, null).load();
    u = assertInstanceOf(HostClasspath.Resolution.Unknown.class, HostClasspath.of(List.of(nowhere)));
    assertTrue(u.why().contains("no code source"), u.why());

    Class<?> gone = new Defining(new CodeSource(tmp.resolve("deleted.jar").toUri().toURL(), (Certificate[]) null), null)
        .load();
    assertInstanceOf(HostClasspath.Resolution.Unknown.class, HostClasspath.of(List.of(gone)), "a jar that is not there");
  }

  private static boolean holds(Path entry, Class<?> c) throws IOException {
    String file = c.getName().replace('.', '/') + ".class";
    if (Files.isDirectory(entry)) {
      return Files.isRegularFile(entry.resolve(file));
    }
    try (JarFile jar = new JarFile(entry.toFile())) {
      return jar.getEntry(file) != null;
    }
  }

  private static byte[] markerBytes() throws IOException {
    try (InputStream in = Marker.class.getResourceAsStream("/" + MARKER_FILE)) {
      return in.readAllBytes();
    }
  }

  /**
   * Defines {@link Marker} itself, as a loader of its own kind would (a fat-jar launcher, a
   * generated class): with {@code source} as its code source and {@code resource} as its class file.
   */
  private static final class Defining extends ClassLoader {
    private final CodeSource source;
    private final URL resource;

    Defining(CodeSource source, URL resource) {
      super(ClassLoader.getPlatformClassLoader());
      this.source = source;
      this.resource = resource;
    }

    Class<?> load() throws IOException, ClassNotFoundException {
      byte[] b = markerBytes();
      Class<?> c = defineClass(Marker.class.getName(), b, 0, b.length, new ProtectionDomain(source, null));
      assertEquals(c, loadClass(Marker.class.getName()));
      return c;
    }

    @Override
    protected URL findResource(String name) {
      return name.equals(MARKER_FILE) ? resource : null;
    }
  }
}
