package dev.vigil.examples;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Runs an example's main with {@code System.out} captured, as a person running it would see it. */
final class Stdout {
  private Stdout() {}

  /** A main method. */
  interface Main {
    void run() throws Exception;
  }

  /** The lines {@code main} printed; {@code System.out} is restored after it, whatever happens. */
  static List<String> of(Main main) throws Exception {
    PrintStream before = System.out;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (PrintStream captured = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      System.setOut(captured);
      main.run();
    } finally {
      System.setOut(before);
    }
    List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
    lines.forEach(before::println);
    return lines;
  }
}
