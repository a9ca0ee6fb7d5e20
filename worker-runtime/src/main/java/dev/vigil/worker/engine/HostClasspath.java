package dev.vigil.worker.engine;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.supervisor.TimeoutLattice;
import dev.vigil.worker.host.WorkerMain;
import java.io.File;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The classpath of a worker host: Vigil's own jars, found where this JVM actually loaded their
 * classes from, never this JVM's {@code java.class.path}. The embedding application may run on a
 * plain {@code java -cp}, as one shaded jar (then that jar is the whole classpath), in an isolated
 * class loader whose {@code java.class.path} names only its launcher's jars (as {@code mvn exec:java}
 * does) or under a test runner with a manifest-only jar: in each, the jar or directory a class was
 * loaded from is where the host finds it too.
 *
 * <p>{@link #HOST} names one class of each jar the host loads: worker-runtime and its runtime
 * dependencies (supervisor-core, coordination-api, Jackson's databind, core and annotations, its
 * java.time and Optional modules that typed payloads and results bind with, the SLF4J API). The entries keep the order of the classes, each once, so that one installation gives the same
 * classpath in every run and the hosts' class archive ({@code StartArchive}) is made once and reused.
 *
 * <p>A class loaded from anything but a jar file or a directory (a jar inside a jar, a {@code jrt:}
 * image, a network URL) cannot be given to another JVM: {@link #of} says so in one line, and the
 * daemon refuses to start rather than fail each run.
 */
public final class HostClasspath {
  /** One class of each jar a worker host loads, in classpath order. */
  public static final List<Class<?>> HOST = List.of(WorkerMain.class, TimeoutLattice.class, ProcessIdentity.class,
      JsonNode.class, JsonFactory.class, JsonProperty.class, JavaTimeModule.class, Jdk8Module.class,
      org.slf4j.LoggerFactory.class);

  private HostClasspath() {}

  /** Where a set of classes was found. */
  public sealed interface Resolution {
    /**
     * Every class was loaded from one of {@code entries} (absolute jar files or directories, each once).
     */
    record Found(List<Path> entries) implements Resolution {
      public Found {
        entries = List.copyOf(entries);
        if (entries.isEmpty()) {
          throw new IllegalArgumentException("entries must not be empty");
        }
      }

      /** The entries joined with the path separator, as {@code -cp} takes them. */
      public String classpath() {
        return entries.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator));
      }
    }

    /** @param why one line naming the class and where it came from */
    record Unknown(String why) implements Resolution {
      public Unknown {
        Objects.requireNonNull(why, "why");
      }
    }
  }

  /** The worker host's classpath: the entries of {@link #HOST}. */
  public static Resolution host() {
    return of(HOST);
  }

  /** The jars and directories {@code classes} were loaded from, in their order, each once. */
  public static Resolution of(List<Class<?>> classes) {
    Set<Path> entries = new LinkedHashSet<>();
    for (Class<?> c : classes) {
      Optional<Path> at = entryOf(c);
      if (at.isEmpty()) {
        return new Resolution.Unknown("cannot tell where class " + c.getName() + " was loaded from (" + origin(c)
            + "): worker processes need Vigil's classes in jar files or directories, as on a plain java -cp");
      }
      entries.add(at.get());
    }
    return new Resolution.Found(new ArrayList<>(entries));
  }

  /**
   * The jar file or directory {@code c} was loaded from: its code source when that is a {@code file:}
   * URL of an existing jar or directory, else the jar or directory its own class file resource lies
   * in; empty for anything else.
   */
  static Optional<Path> entryOf(Class<?> c) {
    CodeSource source = c.getProtectionDomain().getCodeSource();
    if (source != null && source.getLocation() != null) {
      Optional<Path> p = fileOf(source.getLocation().toString());
      if (p.isPresent()) {
        return p;
      }
    }
    String classFile = c.getName().replace('.', '/') + ".class";
    URL resource = c.getResource("/" + classFile);
    if (resource == null) {
      return Optional.empty();
    }
    String url = resource.toString();
    if (url.startsWith("jar:")) {
      int bang = url.indexOf("!/");
      if (bang < 0 || !url.substring(bang + 2).equals(classFile)) {
        return Optional.empty(); // a jar inside a jar, or some other nesting
      }
      return fileOf(url.substring("jar:".length(), bang));
    }
    if (url.startsWith("file:") && url.endsWith("/" + classFile)) {
      return fileOf(url.substring(0, url.length() - classFile.length()));
    }
    return Optional.empty();
  }

  /** The existing jar file (any regular file) or directory a {@code file:} URL names. */
  private static Optional<Path> fileOf(String url) {
    if (!url.startsWith("file:")) {
      return Optional.empty();
    }
    Path p;
    try {
      p = Path.of(new URI(url)).toAbsolutePath().normalize();
    } catch (URISyntaxException | IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
      return Optional.empty();
    }
    return Files.isDirectory(p) || Files.isRegularFile(p) ? Optional.of(p) : Optional.empty();
  }

  private static String origin(Class<?> c) {
    CodeSource source = c.getProtectionDomain().getCodeSource();
    if (source != null && source.getLocation() != null) {
      return "from " + source.getLocation();
    }
    URL resource = c.getResource("/" + c.getName().replace('.', '/') + ".class");
    return resource != null ? "from " + resource : "it has no code source";
  }
}
