package dev.vigil.worker.host;

import dev.vigil.supervisor.engine.WorkerTypeSpec;
import dev.vigil.worker.WorkerType;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Modifier;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Finds the declared class of a custom worker type (DESIGN.md §5): the daemon checks every type
 * with {@link #check} when it starts, and the worker host loads the class it was given through
 * {@link #instantiate}; both ask the same questions, so a type the daemon accepted is one its
 * worker can load.
 *
 * <ol>
 *   <li>The class is on Vigil's own classpath plus the type's own entries (no other type's).
 *   <li>It implements {@link WorkerType}, is a public, non-abstract top-level or static class and has a
 *       public no-argument constructor.
 * </ol>
 *
 * The check loads the class without initializing it: no code of the type runs in the daemon.
 */
public final class TypeLoader {
  private TypeLoader() {}

  /** Whether a worker type can be run. */
  public sealed interface Check {
    /** Its worker host can load and construct it. */
    record Usable() implements Check {}

    /**
     * Its worker could not run it.
     *
     * @param why one line naming the type and the problem
     */
    record Unusable(String why) implements Check {
      public Unusable {
        Objects.requireNonNull(why, "why");
      }
    }
  }

  /**
   * A loader that sees what a worker host's system class loader sees before the entries of its
   * type: Vigil's own classpath {@code runtime} over the JDK's platform classes, and nothing of the
   * JVM that asks. Close it after the check.
   */
  public static URLClassLoader hostLoader(List<Path> runtime) {
    List<URL> urls = new ArrayList<>();
    for (Path p : runtime) {
      try {
        urls.add(p.toAbsolutePath().toUri().toURL());
      } catch (MalformedURLException e) {
        throw new IllegalArgumentException("classpath entry '" + p + "' is not a path", e);
      }
    }
    return new URLClassLoader("vigil-worker-host", urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
  }

  /**
   * Whether the worker of {@code type} can load and construct it, looking where its worker host
   * will: {@code runtime} (the loader of Vigil's own classpath, as {@link #hostLoader} makes it) and
   * then the type's classpath.
   */
  public static Check check(WorkerTypeSpec type, ClassLoader runtime) {
    if (!(type.implementation() instanceof WorkerTypeSpec.Declared d)) {
      return new Check.Usable();
    }
    List<URL> urls = new ArrayList<>();
    for (String entry : type.classpath()) {
      try {
        urls.add(Path.of(entry).toAbsolutePath().toUri().toURL());
      } catch (MalformedURLException | RuntimeException e) {
        return new Check.Unusable("worker type '" + type.name() + "': classpath entry '" + entry + "' is not a path");
      }
    }
    try (URLClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new), runtime)) {
      loadable(d.className(), loader);
      return new Check.Usable();
    } catch (IllegalArgumentException e) {
      return new Check.Unusable("worker type '" + type.name() + "': " + e.getMessage()
          + (type.classpath().isEmpty() ? " (the type names no classpath)" : " (classpath " + type.classpath() + ")"));
    } catch (IOException e) {
      return new Check.Unusable("worker type '" + type.name() + "': " + e);
    }
  }

  /** Loads, checks and constructs {@code className} from {@code loader}: what the worker host runs. */
  static WorkerType instantiate(String className, ClassLoader loader) {
    Constructor<?> c = loadable(className, loader);
    Object made;
    try {
      made = c.newInstance();
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      Throwable cause = e instanceof java.lang.reflect.InvocationTargetException i ? i.getCause() : e;
      throw new IllegalArgumentException("class " + className + " could not be constructed: " + cause, e);
    }
    if (made instanceof WorkerType w) {
      return w;
    }
    throw new IllegalArgumentException("class " + className + " implements another copy of "
        + WorkerType.class.getName() + " than Vigil's (its classpath holds the worker runtime twice)");
  }

  /** The public no-argument constructor of a loadable worker type, else a one-line reason. */
  private static Constructor<?> loadable(String className, ClassLoader loader) {
    Class<?> c;
    Class<?> spi;
    try {
      c = Class.forName(className, false, loader);
      spi = Class.forName(WorkerType.class.getName(), false, loader);
    } catch (ClassNotFoundException e) {
      throw new IllegalArgumentException("class " + className + " is not found");
    } catch (LinkageError e) {
      throw new IllegalArgumentException("class " + className + " cannot be loaded: " + e);
    }
    if (!spi.isAssignableFrom(c)) {
      throw new IllegalArgumentException("class " + className + " does not implement " + WorkerType.class.getName());
    }
    int m = c.getModifiers();
    if (!Modifier.isPublic(m) || Modifier.isAbstract(m) || c.isInterface()
        || c.getEnclosingClass() != null && !Modifier.isStatic(m)) {
      throw new IllegalArgumentException("class " + className + " must be a public, concrete, top-level or static class");
    }
    try {
      return c.getConstructor();
    } catch (NoSuchMethodException e) {
      throw new IllegalArgumentException("class " + className + " has no public no-argument constructor");
    } catch (LinkageError | SecurityException e) {
      throw new IllegalArgumentException("class " + className + " cannot be loaded: " + e);
    }
  }
}
