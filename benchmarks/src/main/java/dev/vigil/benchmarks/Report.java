package dev.vigil.benchmarks;

import java.io.PrintStream;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/**
 * A table of results in Markdown, headed by the machine, the date and the load average while it
 * was measured, as docs/PERFORMANCE.md keeps them.
 */
public final class Report {
  private final String title;
  private final List<String> header;
  private final List<List<String>> rows = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  /** The load average and time when the current measurement began ({@link #begin}). */
  private static volatile String begunLoad;
  private static volatile ZonedDateTime begunAt;
  private final String loadAtStart;
  private final ZonedDateTime at;

  public Report(String title, String... header) {
    this.title = title;
    this.header = List.of(header);
    this.loadAtStart = begunLoad != null ? begunLoad : Proc.loadAverage();
    this.at = begunAt != null ? begunAt : ZonedDateTime.now();
  }

  /** Marks the start of a measurement: the tables made after it report this time and load average. */
  public static void begin() {
    begunLoad = Proc.loadAverage();
    begunAt = ZonedDateTime.now();
  }

  public Report row(Object... cells) {
    List<String> r = new ArrayList<>();
    for (Object c : cells) {
      r.add(c instanceof Double d ? Stats.fmt(d) : String.valueOf(c));
    }
    rows.add(r);
    return this;
  }

  public Report note(String text) {
    notes.add(text);
    return this;
  }

  public List<List<String>> rows() {
    return List.copyOf(rows);
  }

  /** One line naming the machine: cores, CPU, JDK, OS. */
  public static String machine() {
    return Runtime.getRuntime().availableProcessors() + " cores (" + Proc.cpuModel() + "), "
        + Runtime.getRuntime().maxMemory() / (1 << 20) + " MiB max heap here, JDK " + System.getProperty("java.vm.version")
        + ", " + System.getProperty("os.name") + " " + System.getProperty("os.version");
  }

  public void print(PrintStream out) {
    out.println();
    out.println("### " + title);
    out.println();
    out.println("Measured " + at.format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")) + " on " + machine()
        + "; load average " + loadAtStart + " at the start, " + Proc.loadAverage() + " at the end.");
    out.println();
    out.println("| " + String.join(" | ", header) + " |");
    out.println("|" + "---|".repeat(header.size()));
    for (List<String> r : rows) {
      out.println("| " + String.join(" | ", r) + " |");
    }
    if (!notes.isEmpty()) {
      out.println();
      notes.forEach(n -> out.println("- " + n));
    }
    out.flush();
  }
}
