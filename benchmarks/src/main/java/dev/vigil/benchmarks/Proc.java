package dev.vigil.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What {@code /proc} says about a process: CPU time, resident and proportional set sizes, age;
 * and about the machine: load average, cores, CPU model. Linux only.
 */
public final class Proc {
  /** Clock ticks per second of {@code /proc/<pid>/stat} times ({@code getconf CLK_TCK}; 100 on Linux). */
  public static final long CLK_TCK = clockTicks();

  private Proc() {}

  /** CPU times of one process, in clock ticks: its own user+system, and that of its waited-for children. */
  public record Cpu(long selfTicks, long childrenTicks) {
    public double selfSeconds() {
      return selfTicks / (double) CLK_TCK;
    }

    public double childrenSeconds() {
      return childrenTicks / (double) CLK_TCK;
    }

    public Cpu minus(Cpu earlier) {
      return new Cpu(selfTicks - earlier.selfTicks, childrenTicks - earlier.childrenTicks);
    }
  }

  /** The fields of {@code /proc/<pid>/stat} after the command name, so that index 0 is field 3 (state). */
  private static String[] statFields(String pid) throws IOException {
    String s = Files.readString(Path.of("/proc", pid, "stat"));
    return s.substring(s.lastIndexOf(')') + 2).trim().split(" ");
  }

  /** utime+stime (fields 14, 15) and cutime+cstime (16, 17), or empty when the process is gone. */
  public static Optional<Cpu> cpu(long pid) {
    return cpu(Long.toString(pid));
  }

  /** As {@link #cpu(long)} for this JVM. */
  public static Cpu selfCpu() {
    return cpu("self").orElseThrow();
  }

  private static Optional<Cpu> cpu(String pid) {
    try {
      String[] f = statFields(pid);
      return Optional.of(new Cpu(Long.parseLong(f[11]) + Long.parseLong(f[12]),
          Long.parseLong(f[13]) + Long.parseLong(f[14])));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * Time on a CPU of each live thread of the process, ns by thread id ({@code
   * /proc/<pid>/task/<tid>/schedstat}, the scheduler's own count: no 10 ms rounding), or empty when
   * the process is gone.
   */
  public static Optional<java.util.Map<String, Long>> runNanos(long pid) {
    try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      java.util.Map<String, Long> out = new java.util.HashMap<>();
      for (Path t : tasks.toList()) {
        try {
          out.put(t.getFileName().toString(), Long.parseLong(Files.readString(t.resolve("schedstat")).trim().split(" ")[0]));
        } catch (IOException | RuntimeException gone) {
          // the thread ended meanwhile
        }
      }
      return Optional.of(out);
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * CPU time between two {@link #runNanos} of one process, ns: of each thread alive at the second,
   * since the first (or since it began); a thread that ended in between is left out.
   */
  public static long runNanosBetween(java.util.Map<String, Long> first, java.util.Map<String, Long> second) {
    long sum = 0;
    for (var e : second.entrySet()) {
      sum += e.getValue() - first.getOrDefault(e.getKey(), 0L);
    }
    return sum;
  }

  /** How long ago the process started, ns (10 ms resolution: field 22 against {@code /proc/uptime}). */
  public static Optional<Long> ageNanos(long pid) {
    try {
      String[] f = statFields(Long.toString(pid));
      long startTicks = Long.parseLong(f[19]);
      double uptime = Double.parseDouble(Files.readString(Path.of("/proc/uptime")).split(" ")[0]);
      return Optional.of((long) ((uptime - startTicks / (double) CLK_TCK) * 1e9));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** A line {@code Name:  N kB} of {@code /proc/<pid>/status}, in KiB. */
  public static Optional<Long> statusKb(long pid, String name) {
    return kbLine(Path.of("/proc", Long.toString(pid), "status"), name);
  }

  /** Rss and Pss of {@code /proc/<pid>/smaps_rollup}, KiB. */
  public record Memory(long rssKb, long pssKb) {}

  public static Optional<Memory> memory(long pid) {
    Path rollup = Path.of("/proc", Long.toString(pid), "smaps_rollup");
    Optional<Long> rss = kbLine(rollup, "Rss");
    Optional<Long> pss = kbLine(rollup, "Pss");
    return rss.isPresent() && pss.isPresent() ? Optional.of(new Memory(rss.get(), pss.get())) : Optional.empty();
  }

  private static Optional<Long> kbLine(Path file, String name) {
    try {
      for (String line : Files.readAllLines(file)) {
        if (line.startsWith(name + ":")) {
          return Optional.of(Long.parseLong(line.substring(name.length() + 1).replace("kB", "").trim()));
        }
      }
      return Optional.empty();
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** The 1, 5 and 15 minute load averages, as {@code /proc/loadavg} prints them. */
  public static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The 1-minute load average. */
  public static double load1() {
    return Double.parseDouble(loadAverage().split(" ")[0]);
  }

  /** The CPU model name from {@code /proc/cpuinfo}. */
  public static String cpuModel() {
    try {
      List<String> lines = Files.readAllLines(Path.of("/proc/cpuinfo"));
      return lines.stream().filter(l -> l.startsWith("model name")).findFirst()
          .map(l -> l.substring(l.indexOf(':') + 1).trim()).orElse("unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }

  /** True while {@code /proc/<pid>} exists and the process is not a zombie. */
  public static boolean alive(long pid) {
    try {
      return !statFields(Long.toString(pid))[0].equals("Z");
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  private static long clockTicks() {
    try {
      Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes()).trim();
      p.waitFor();
      return Long.parseLong(out);
    } catch (IOException | RuntimeException e) {
      return 100;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 100;
    }
  }
}
