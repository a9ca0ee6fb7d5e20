package dev.vigil.coordination.law;

import dev.vigil.coordination.Coordination;
import dev.vigil.coordination.Store;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * What a list of {@link Step}s did to one {@link Coordination}: one line per step, the step and
 * its decision. Two implementations that keep the same laws produce equal transcripts;
 * {@link #firstDifference} says where two transcripts part.
 */
public record Transcript(List<String> lines) {
  public Transcript {
    lines = List.copyOf(lines);
  }

  /** Applies the steps in order. */
  public static Transcript of(Coordination c, List<? extends Step> steps) {
    return of(c, steps, store -> { });
  }

  /** Applies the steps in order, calling {@code afterEach} with the store after every step. */
  public static Transcript of(Coordination c, List<? extends Step> steps, Consumer<Store> afterEach) {
    Objects.requireNonNull(afterEach, "afterEach");
    List<String> out = new ArrayList<>(steps.size());
    for (int i = 0; i < steps.size(); i++) {
      Step step = steps.get(i);
      out.add(line(i, step, step.apply(c)));
      afterEach.accept(c.store());
    }
    return new Transcript(out);
  }

  /** The transcript line for step {@code index} and its decision. */
  public static String line(int index, Step step, Object decision) {
    return (index + 1) + ". " + step + " -> " + decision;
  }

  /** A description of the first line where the transcripts differ, or {@code null} if equal. */
  public String firstDifference(Transcript other) {
    int n = Math.min(lines.size(), other.lines.size());
    for (int i = 0; i < n; i++) {
      if (!lines.get(i).equals(other.lines.get(i))) {
        return "line " + (i + 1) + " differs:\n  expected: " + lines.get(i) + "\n  actual:   " + other.lines.get(i);
      }
    }
    if (lines.size() != other.lines.size()) {
      return "lengths differ: " + lines.size() + " vs " + other.lines.size();
    }
    return null;
  }

  @Override
  public String toString() {
    return String.join("\n", lines);
  }
}
