package dev.vigil.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The end-to-end drivers: {@code java -cp benchmarks/target/benchmarks.jar dev.vigil.benchmarks.Main
 * WHAT [options]}, WHAT one of {@code b1 b1-pg b3 b4 b6 daemon host jfr-summary}; each prints its tables in
 * Markdown on stdout (progress on stderr). The JMH benchmarks (B2) run with
 * {@code java -jar benchmarks/target/benchmarks.jar}. See docs/PERFORMANCE.md for each command.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      System.err.println("usage: Main b1|b1-pg|b3|b4|b6|daemon|host|jfr-summary [--reps N] [--seconds S] [--smoke] [--dir DIR] [--NAME VALUE]…");
      System.exit(2);
    }
    String what = args[0];
    String[] rest = Arrays.copyOfRange(args, 1, args.length);
    if (what.equals("jfr-summary")) {
      for (String file : rest) {
        System.out.print(JfrSummary.summarize(Path.of(file), 25));
      }
      return;
    }
    Path tmp = Files.createTempDirectory("vigil-bench");
    Options o = Options.parse(rest, tmp);
    List<Report> reports = new ArrayList<>();
    Report.begin();
    try {
      switch (what) {
        case "b1" -> reports.addAll(B1Coordination.report(B1Coordination.measure(o), o));
        case "b1-pg" -> reports.addAll(B1Postgres.report(B1Postgres.measure(o), o));
        case "b3" -> reports.addAll(B3EndToEnd.report(B3EndToEnd.measure(o), o));
        case "b4" -> reports.addAll(B4Readoption.report(B4Readoption.measure(o), o));
        case "b6" -> reports.addAll(B6StoreScale.report(B6StoreScale.measure(o), o));
        case "daemon" -> reports.addAll(DaemonCosts.report(DaemonCosts.measure(o), o));
        case "host" -> reports.addAll(HostStartup.report(HostStartup.measure(o), o));
        default -> throw new IllegalArgumentException("unknown benchmark '" + what + "'");
      }
    } finally {
      deleteTree(tmp);
    }
    reports.forEach(r -> r.print(System.out));
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var walk = Files.walk(dir)) {
      for (Path p : walk.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          // a socket or a file a worker still writes: left for the OS's temp cleanup
        }
      }
    }
  }
}
