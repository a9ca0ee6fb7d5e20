package dev.vigil.bridge;

import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Runs a main class the way {@code mvn exec:java} does: in a class loader of its own over a list of
 * jars and directories, while this JVM's {@code java.class.path} names only the directory of this
 * class. {@code IsolatedStart ENTRIES_FILE MAIN_CLASS ARGS…}, one entry per line in the file. Uses
 * nothing but the JDK, so that it runs from a directory holding this class alone.
 */
public final class IsolatedStart {
  private IsolatedStart() {}

  public static void main(String[] args) throws Exception {
    List<URL> urls = new ArrayList<>();
    for (String line : Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8)) {
      if (!line.isBlank()) {
        urls.add(Path.of(line).toUri().toURL());
      }
    }
    try (URLClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getSystemClassLoader())) {
      Thread.currentThread().setContextClassLoader(loader);
      Class<?> main = Class.forName(args[1], true, loader);
      try {
        main.getMethod("main", String[].class).invoke(null, (Object) Arrays.copyOfRange(args, 2, args.length));
      } catch (InvocationTargetException e) {
        throw e.getCause() instanceof Exception x ? x : e;
      }
    }
  }
}
