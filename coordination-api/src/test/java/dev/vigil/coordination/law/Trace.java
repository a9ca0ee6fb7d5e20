package dev.vigil.coordination.law;

import dev.vigil.coordination.Coordination;
import dev.vigil.coordination.Snapshot;
import java.util.ArrayList;
import java.util.List;

/** One step of a run: the store before, the step, its decision, the store after. */
public record Trace(int index, Snapshot before, Step step, Object decision, Snapshot after) {
  /** Applies the steps to {@code c}, recording every transition and checking the invariants. */
  public static List<Trace> record(Coordination c, List<Step> steps, long seed) {
    List<Trace> out = new ArrayList<>(steps.size());
    Snapshot before = c.store().snapshot();
    for (int i = 0; i < steps.size(); i++) {
      Object d = steps.get(i).apply(c);
      Snapshot after = c.store().snapshot();
      List<String> v = CoordinationInvariants.violations(after);
      if (!v.isEmpty()) {
        throw new AssertionError("seed " + seed + ", step " + (i + 1) + " " + steps.get(i) + " -> " + d + ":\n  "
            + String.join("\n  ", v));
      }
      out.add(new Trace(i + 1, before, steps.get(i), d, after));
      before = after;
    }
    return out;
  }

  public String where(long seed) {
    return "seed " + seed + ", step " + index + ": " + step + " -> " + decision;
  }
}
