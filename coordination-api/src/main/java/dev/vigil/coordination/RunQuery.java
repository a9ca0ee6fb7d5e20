package dev.vigil.coordination;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * A filter for {@link Store#runs(RunQuery)}, in run id order. Pages through many runs with
 * {@link #after(RunId)}: the next page starts after the last id seen.
 *
 * @param states only runs in one of these states (not empty)
 * @param after  only runs whose id is greater than this one, or {@code null}
 * @param limit  at most this many
 */
public record RunQuery(Set<RunState> states, RunId after, int limit) {
  public RunQuery {
    Objects.requireNonNull(states, "states");
    if (states.isEmpty()) {
      throw new IllegalArgumentException("states must name at least one state");
    }
    states = Set.copyOf(states);
    if (limit < 1) {
      throw new IllegalArgumentException("limit (" + limit + ") must be >= 1");
    }
  }

  /** Every run. */
  public static RunQuery all() {
    return new RunQuery(EnumSet.allOf(RunState.class), null, Integer.MAX_VALUE);
  }

  /** Only runs that hold a lease (CLAIMED, RUNNING, EXITED): the live work. */
  public RunQuery live() {
    return new RunQuery(EnumSet.of(RunState.CLAIMED, RunState.RUNNING, RunState.EXITED), after, limit);
  }

  public RunQuery after(RunId id) {
    return new RunQuery(states, id, limit);
  }

  public RunQuery limit(int n) {
    return new RunQuery(states, after, n);
  }

  public boolean matches(Run r) {
    return states.contains(r.state()) && (after == null || r.id().compareTo(after) > 0);
  }
}
