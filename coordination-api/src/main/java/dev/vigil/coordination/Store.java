package dev.vigil.coordination;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Read-only queries over tickets, runs, leases, owners and questions. Nothing here changes state. */
public interface Store extends QuestionReads, CheckpointReads, TranscriptReads {
  Optional<Ticket> ticket(TicketId id);

  /** The ticket's runs in run-number order (empty for an unknown ticket). */
  List<Run> runsOf(TicketId id);

  Optional<Run> run(RunId id);

  /** Tickets matching the query, in id order. */
  List<Ticket> tickets(TicketQuery query);

  /** Runs matching the query, in id order: one page of at most {@code query.limit()}. */
  List<Run> runs(RunQuery query);

  /** Runs in any of the given states, in id order; all runs when none is given. */
  default List<Run> runs(RunState... states) {
    return runs(states.length == 0 ? RunQuery.all() : new RunQuery(Set.of(states), null, Integer.MAX_VALUE));
  }

  /** Runs that hold a lease (CLAIMED, RUNNING, EXITED), in id order: the live work. */
  default List<Run> liveRuns() {
    return runs(RunQuery.all().live());
  }

  /** Every lease, in ticket order. */
  List<Lease> leases();

  Optional<Lease> lease(TicketId ticket);

  /** How many tickets are in each state; every state is present, zero included. */
  Map<TicketState, Integer> countsByState();

  Set<Lane> parkedLanes();

  Optional<Owner> owner(OwnerId id);

  /** Every registered owner, in id order. */
  List<Owner> owners();

  /** Events whose id is greater than {@code afterId}, in id order: at most {@code limit} (at least 1). */
  List<Event> events(long afterId, int limit);

  /** Tickets, runs, leases, parked lanes, owners and events, read together. */
  Snapshot snapshot();
}
