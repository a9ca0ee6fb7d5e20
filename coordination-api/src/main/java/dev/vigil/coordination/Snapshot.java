package dev.vigil.coordination;

import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Everything a store holds, read in one transaction, each list in id order: what invariants and
 * differential tests compare.
 *
 * @param tickets     every ticket, by id
 * @param runs        every run, by id
 * @param leases      every lease, by ticket
 * @param parkedLanes the parked lanes
 * @param owners      every registered owner (scheduler incarnation), by id
 * @param events      every event, by id
 */
public record Snapshot(List<Ticket> tickets, List<Run> runs, List<Lease> leases, SortedSet<Lane> parkedLanes,
                       List<Owner> owners, List<Event> events) {
  public Snapshot {
    tickets = List.copyOf(tickets);
    runs = List.copyOf(runs);
    leases = List.copyOf(leases);
    parkedLanes = new TreeSet<>(parkedLanes);
    owners = owners.stream().sorted(Comparator.comparing(Owner::id)).toList();
    events = List.copyOf(events);
  }

  public static Snapshot of(List<Ticket> tickets, List<Run> runs, List<Lease> leases, Set<Lane> parkedLanes,
                            List<Owner> owners, List<Event> events) {
    return new Snapshot(tickets, runs, leases, new TreeSet<>(parkedLanes), owners, events);
  }
}
