package dev.vigil.coordination;

import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Everything a store holds, read in one transaction, each list in id order: what invariants and
 * differential tests compare.
 */
public record Snapshot(List<Ticket> tickets, List<Run> runs, List<Lease> leases, SortedSet<Lane> parkedLanes) {
  public Snapshot {
    tickets = List.copyOf(tickets);
    runs = List.copyOf(runs);
    leases = List.copyOf(leases);
    parkedLanes = new TreeSet<>(parkedLanes);
  }

  public static Snapshot of(List<Ticket> tickets, List<Run> runs, List<Lease> leases, Set<Lane> parkedLanes) {
    return new Snapshot(tickets, runs, leases, new TreeSet<>(parkedLanes));
  }
}
