package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Lane;
import dev.vigil.coordination.Lease;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.Store;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketQuery;
import dev.vigil.coordination.TicketState;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Live runs per lane (Q11: the occupied slots), kept in memory: counted from the store's LEASED
 * tickets (a LEASED ticket has exactly one unsettled run, C1, and its lease names the run's owner)
 * when first asked and again after every {@link #recount} (each reconcile pass, so a change the
 * engine did not make is seen within one pass), then moved by the engine's own claims and
 * settlements. A verb that failed may or may not have committed: its caller calls {@link #recount}.
 *
 * <p>A lane's slots are this host's (H1): only runs whose lease is held by an owner of this host
 * occupy them, so each host's daemons keep their own concurrency per lane on a store that several
 * hosts share. {@link #total()} counts the live runs of every host.
 */
final class Occupancy {
  private final Store store;
  private final Predicate<OwnerId> ofThisHost;
  /** This host's live runs per lane (lanes without any are absent), or null until counted. */
  private Map<Lane, Integer> live;
  /** The live runs of every host, as of the same count. */
  private int all;
  private boolean freedSinceAsked;
  /** The last dispatch claimed fewer than its lanes had room for because too many workers were starting. */
  private boolean startsFull;

  Occupancy(Store store, Predicate<OwnerId> ofThisHost) {
    this.store = store;
    this.ofThisHost = ofThisHost;
  }

  /** This host's live runs per lane (lanes without any are absent). */
  Map<Lane, Integer> perLane() {
    return Map.copyOf(counted());
  }

  /**
   * Live runs of every host in every lane, configured or not; zero means the store had no live run
   * when last counted (each live run's ticket is LEASED, C1) and the engine has claimed none since.
   */
  int total() {
    counted();
    return all;
  }

  private Map<Lane, Integer> counted() {
    if (live == null) {
      List<Ticket> leased = store.tickets(TicketQuery.all().inState(TicketState.LEASED));
      Map<TicketId, OwnerId> holders = new HashMap<>();
      if (!leased.isEmpty()) { // an idle store is read once per count
        for (Lease l : store.leases()) {
          holders.put(l.ticket(), l.owner());
        }
      }
      Map<Lane, Integer> counted = new HashMap<>();
      int n = 0;
      for (Ticket t : leased) {
        n++;
        OwnerId holder = holders.get(t.id());
        if (holder == null || ofThisHost.test(holder)) {
          counted.merge(t.lane(), 1, Integer::sum);
        }
      }
      live = counted;
      all = n;
    }
    return live;
  }

  /** This host's live runs in {@code lane}. */
  int of(Lane lane) {
    return counted().getOrDefault(lane, 0);
  }

  /** This daemon's claim was granted in {@code lane}. */
  void claimed(Lane lane, int runs) {
    if (live != null && runs > 0) {
      live.merge(lane, runs, Integer::sum);
      all += runs;
    }
  }

  /**
   * A live run of {@code lane} was settled or rolled back; {@code ofThisHost} when its owner is of
   * this host (a released host's runs occupy none of this host's slots).
   */
  void freed(Lane lane, boolean ofThisHost) {
    freedSinceAsked = true;
    if (live != null) {
      all = Math.max(0, all - 1);
      if (ofThisHost) {
        live.computeIfPresent(lane, (l, n) -> n <= 1 ? null : n - 1);
      }
    }
  }

  /**
   * A run of this host was settled or rolled back by another owner (H1: a release of this host): its slot is
   * free; counted again from the store at the next question.
   */
  void freedElsewhere() {
    freedSinceAsked = true;
    live = null;
  }

  /**
   * A dispatch left free slots unclaimed because {@code maxStarting} workers were starting: the next
   * {@link #startEnded} counts as a freed slot, so that dispatch looks again at once.
   */
  void startsFull() {
    startsFull = true;
  }

  /** A worker's start ended (it was told to go, or its run ended first): a dispatch held back by starts may claim again. */
  void startEnded() {
    if (startsFull) {
      startsFull = false;
      freedSinceAsked = true;
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
