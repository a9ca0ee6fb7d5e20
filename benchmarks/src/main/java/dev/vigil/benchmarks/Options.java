package dev.vigil.benchmarks;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The driver's options: {@code --reps N} (interleaved repetitions), {@code --seconds S} (one
 * window), {@code --smoke} (the smallest sizes, as the smoke tests run them), {@code --dir DIR}
 * (where homes and database files go; a fresh temporary directory by default), and named sizes
 * ({@code --tasks 200}, {@code --live 50,150,200}…) that each benchmark documents.
 */
public record Options(int reps, double seconds, boolean smoke, Path dir, Map<String, String> named) {
  public Options {
    if (reps < 1) {
      throw new IllegalArgumentException("--reps (" + reps + ") must be >= 1");
    }
    if (!(seconds > 0)) {
      throw new IllegalArgumentException("--seconds (" + seconds + ") must be > 0");
    }
    named = Map.copyOf(named);
  }

  public static Options parse(String[] args, Path defaultDir) {
    int reps = 3;
    double seconds = 5;
    boolean smoke = false;
    Path dir = defaultDir;
    Map<String, String> named = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--smoke")) {
        smoke = true;
      } else if (a.startsWith("--") && i + 1 < args.length) {
        String v = args[++i];
        switch (a) {
          case "--reps" -> reps = Integer.parseInt(v);
          case "--seconds" -> seconds = Double.parseDouble(v);
          case "--dir" -> dir = Path.of(v);
          default -> named.put(a.substring(2), v);
        }
      } else {
        throw new IllegalArgumentException("unknown argument '" + a + "'");
      }
    }
    return new Options(reps, seconds, smoke, dir, named);
  }

  /** The smoke options: one repetition, a short window. */
  public static Options smoke(Path dir) {
    return new Options(1, 0.5, true, dir, Map.of());
  }

  public Options with(String name, String value) {
    Map<String, String> m = new HashMap<>(named);
    m.put(name, value);
    return new Options(reps, seconds, smoke, dir, m);
  }

  public int integer(String name, int full, int smallest) {
    return named.containsKey(name) ? Integer.parseInt(named.get(name)) : smoke ? smallest : full;
  }

  public double real(String name, double full, double smallest) {
    return named.containsKey(name) ? Double.parseDouble(named.get(name)) : smoke ? smallest : full;
  }

  public int[] integers(String name, int[] full, int[] smallest) {
    if (!named.containsKey(name)) {
      return smoke ? smallest : full;
    }
    String[] f = named.get(name).split(",");
    int[] out = new int[f.length];
    for (int i = 0; i < f.length; i++) {
      out[i] = Integer.parseInt(f[i].trim());
    }
    return out;
  }
}
