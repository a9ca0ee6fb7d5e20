package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Store;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The answers to the commands that only read the store (tickets, one ticket with its runs, runs,
 * events, a service's transcript): one function for the engine and for a view that reads the store while no daemon runs,
 * so that both answer alike.
 */
public final class Reads {
  private Reads() {}

  /** The reply to {@code command} read from {@code store}; empty when it is not a read. */
  public static Optional<Reply> answer(Store store, Command command) {
    if (command instanceof Command.ListTickets l) {
      List<Ticket> tickets = store.tickets(l.query());
      return Optional.of(new Reply.TicketList(tickets, prerequisiteStates(store, tickets)));
    } else if (command instanceof Command.Show s) {
      return Optional.of(store.ticket(s.ticket()).<Reply>map(t -> new Reply.TicketDetail(t, store.runsOf(t.id()),
          prerequisiteStates(store, List.of(t)), store.checkpoint(t.id()).orElse(null))).orElseGet(() -> new Reply.NotFound("ticket " + s.ticket())));
    } else if (command instanceof Command.ListRuns l) {
      return Optional.of(new Reply.RunList(store.runs(l.query())));
    } else if (command instanceof Command.Events e) {
      return Optional.of(new Reply.EventList(store.events(e.afterId(), e.limit())));
    } else if (command instanceof Command.Transcript t) {
      return Optional.of(new Reply.TranscriptPage(t.service(), store.transcript(t.service(), t.afterId(), t.limit())));
    }
    return Optional.empty();
  }

  /** Q14: the state of every ticket that one of {@code tickets} waits for, read once each. */
  private static Map<TicketId, TicketState> prerequisiteStates(Store store, List<Ticket> tickets) {
    Map<TicketId, TicketState> out = new HashMap<>();
    for (Ticket t : tickets) {
      for (TicketId p : t.after()) {
        if (!out.containsKey(p)) {
          store.ticket(p).ifPresent(found -> out.put(p, found.state()));
        }
      }
    }
    return out;
  }
}
