package dev.vigil.benchmarks;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * A text summary of a JFR recording, for docs/PERFORMANCE.md (the binary recordings stay out of
 * the repository): CPU samples by top frame (self), by every frame on the stack (inclusive), and by
 * Vigil method (inclusive); GC pauses; file writes and forces.
 */
public final class JfrSummary {
  private JfrSummary() {}

  public static String summarize(Path file, int top) throws IOException {
    Map<String, Integer> self = new HashMap<>();
    Map<String, Integer> inclusive = new HashMap<>();
    Map<String, Integer> vigil = new HashMap<>();
    int samples = 0;
    long gcNanos = 0;
    int gcs = 0;
    long writeBytes = 0;
    long writeNanos = 0;
    int writes = 0;
    int forces = 0;
    long forceNanos = 0;
    Map<String, Integer> forcedBy = new HashMap<>();
    for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
      String type = e.getEventType().getName();
      switch (type) {
        case "jdk.ExecutionSample", "jdk.NativeMethodSample" -> {
          if (!type.equals("jdk.ExecutionSample")) {
            break;
          }
          RecordedStackTrace st = e.getStackTrace();
          if (st == null || st.getFrames().isEmpty()) {
            break;
          }
          samples++;
          List<RecordedFrame> frames = st.getFrames();
          self.merge(name(frames.get(0)), 1, Integer::sum);
          Set<String> seen = new HashSet<>();
          Set<String> seenVigil = new HashSet<>();
          for (RecordedFrame f : frames) {
            String n = name(f);
            if (seen.add(n)) {
              inclusive.merge(n, 1, Integer::sum);
            }
            if (n.startsWith("dev.vigil.") && !n.startsWith("dev.vigil.benchmarks.") && seenVigil.add(n)) {
              vigil.merge(n, 1, Integer::sum);
            }
          }
        }
        case "jdk.GarbageCollection" -> {
          gcs++;
          gcNanos += e.getDuration("sumOfPauses").toNanos();
        }
        case "jdk.FileWrite" -> {
          writes++;
          writeBytes += e.getLong("bytesWritten");
          writeNanos += e.getDuration().toNanos();
        }
        case "jdk.FileForce" -> {
          forces++;
          forceNanos += e.getDuration().toNanos();
          forcedBy.merge(vigilCaller(e.getStackTrace()), 1, Integer::sum);
        }
        default -> {
        }
      }
    }
    StringBuilder out = new StringBuilder();
    out.append("JFR summary of ").append(file.getFileName()).append(": ").append(samples).append(" CPU samples\n");
    out.append(String.format("GC: %d collections, %.0f ms of pauses; file writes over the event threshold: %d,"
        + " %.1f MiB, %.0f ms; file forces: %d, %.0f ms%n", gcs, gcNanos / 1e6, writes, writeBytes / 1048576.0,
        writeNanos / 1e6, forces, forceNanos / 1e6));
    if (!forcedBy.isEmpty()) {
      out.append("\nfile forces by their innermost Vigil frames:\n");
      forcedBy.entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue()).limit(top)
          .forEach(e -> out.append(String.format("  %5d  %s%n", e.getValue(), e.getKey())));
    }
    table(out, "top frames (self)", self, samples, top);
    table(out, "Vigil methods (inclusive)", vigil, samples, top);
    table(out, "all methods (inclusive)", inclusive, samples, top);
    return out.toString();
  }

  private static void table(StringBuilder out, String title, Map<String, Integer> counts, int samples, int top) {
    out.append("\n").append(title).append(":\n");
    counts.entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue()).limit(top).forEach(e ->
        out.append(String.format("  %5.1f%%  %s%n", 100.0 * e.getValue() / Math.max(1, samples), e.getKey())));
  }

  /** The three innermost Vigil frames, innermost first. */
  private static String vigilCaller(RecordedStackTrace st) {
    List<String> out = new java.util.ArrayList<>();
    if (st != null) {
      for (RecordedFrame f : st.getFrames()) {
        String n = name(f);
        if (n.startsWith("dev.vigil.") && out.size() < 3) {
          out.add(n.substring(n.lastIndexOf('.', n.lastIndexOf('.') - 1) + 1) + ":" + f.getLineNumber());
        }
      }
    }
    return out.isEmpty() ? "(no Vigil frame)" : String.join(" ← ", out);
  }

  private static String name(RecordedFrame f) {
    return f.getMethod().getType().getName() + "." + f.getMethod().getName();
  }

  /** A duration as ms, for callers that print one. */
  static double ms(Duration d) {
    return d.toNanos() / 1e6;
  }
}
