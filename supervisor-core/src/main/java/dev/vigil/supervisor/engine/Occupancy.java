package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Lane;
import dev.vigil.coordination.Store;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketQuery;
import dev.vigil.coordination.TicketState;
import java.util.HashMap;
import java.util.Map;

/**
 * Live runs per lane (Q11: the occupied slots), kept in memory: counted from the store's LEASED
 * tickets (a LEASED ticket has exactly one unsettled run, C1, whoever owns it) when first asked and
 * again after every {@link #recount} (each reconcile pass, so a change the engine did not make is
 * seen within one pass), then moved by the engine's own claims and settlements. A verb that failed
 * may or may not have committed: its caller calls {@link #recount}.
 */
final class Occupancy {
  private final Store store;
  private Map<Lane, Integer> live;
  private boolean freedSinceAsked;

  Occupancy(Store store) {
    this.store = store;
  }

  /** Live runs per lane (lanes without any are absent). */
  Map<Lane, Integer> perLane() {
    return Map.copyOf(counted());
  }

  /**
   * Live runs in every lane, configured or not; zero means the store had no live run when last
   * counted (each live run's ticket is LEASED, C1) and the engine has claimed none since.
   */
  int total() {
    int n = 0;
    for (int v : counted().values()) {
      n += v;
    }
    return n;
  }

  private Map<Lane, Integer> counted() {
    if (live == null) {
      Map<Lane, Integer> counted = new HashMap<>();
      for (Ticket t : store.tickets(TicketQuery.all().inState(TicketState.LEASED))) {
        counted.merge(t.lane(), 1, Integer::sum);
      }
      live = counted;
    }
    return live;
  }

  int of(Lane lane) {
    return perLane().getOrDefault(lane, 0);
  }

  /** A claim was granted in {@code lane}. */
  void claimed(Lane lane, int runs) {
    if (live != null && runs > 0) {
      live.merge(lane, runs, Integer::sum);
    }
  }

  /** A live run of {@code lane} was settled or rolled back. */
  void freed(Lane lane) {
    freedSinceAsked = true;
    if (live != null) {
      live.computeIfPresent(lane, (l, n) -> n <= 1 ? null : n - 1);
    }
  }

  /** Whether a run was settled or rolled back since the last {@link #takeFreed}. */
  boolean freedPending() {
    return freedSinceAsked;
  }

  /** Whether a run was settled or rolled back since the last call: a slot to refill. */
  boolean takeFreed() {
    boolean was = freedSinceAsked;
    freedSinceAsked = false;
    return was;
  }

  /** Counts again from the store at the next question. */
  void recount() {
    live = null;
  }
}
