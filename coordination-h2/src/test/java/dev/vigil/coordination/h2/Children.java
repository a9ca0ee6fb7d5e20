package dev.vigil.coordination.h2;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A child JVM running {@link ChildDatabase} on the test classpath, its stdout read line by line. */
final class Children implements AutoCloseable {
  final Process process;
  private final List<String> lines = new ArrayList<>();
  private final Thread reader;

  private Children(Process process) {
    this.process = process;
    this.reader = new Thread(this::read, "child-stdout-" + process.pid());
    reader.setDaemon(true);
    reader.start();
  }

  static Children start(Path logDir, String... args) {
    String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", classpath, ChildDatabase.class.getName()));
    cmd.addAll(List.of(args));
    try {
      return new Children(new ProcessBuilder(cmd)
          .redirectError(logDir.resolve("child-" + System.nanoTime() + ".err").toFile())
          .start());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void read() {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
        StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        synchronized (lines) {
          lines.add(line);
          lines.notifyAll();
        }
      }
    } catch (IOException e) {
      // the child was killed mid-line; what was read so far stands
    }
  }

  /** Waits until the child printed a line starting with {@code prefix}; false on timeout or exit. */
  boolean awaitLine(String prefix, long timeoutMs) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    synchronized (lines) {
      while (lines.stream().noneMatch(l -> l.startsWith(prefix))) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0 || (!process.isAlive() && !reader.isAlive())) {
          return false;
        }
        lines.wait(Math.min(left, 100));
      }
      return true;
    }
  }

  /** SIGKILL ({@code destroyForcibly} on Linux), then every complete line the child printed. */
  List<String> kill9() {
    process.destroyForcibly();
    try {
      process.waitFor(30, TimeUnit.SECONDS);
      reader.join(30_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while killing child " + process.pid(), e);
    }
    synchronized (lines) {
      return List.copyOf(lines);
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      kill9();
    }
  }
}
