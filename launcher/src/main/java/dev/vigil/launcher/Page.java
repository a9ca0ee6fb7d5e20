package dev.vigil.launcher;

import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketQuery;
import java.util.List;
import java.util.Optional;

/**
 * One page of {@link Vigil#tasks(TicketQuery)}, in id order.
 *
 * @param tickets the tickets of this page
 * @param next    the query of the next page, or empty when this page is the last
 */
public record Page(List<Ticket> tickets, Optional<TicketQuery> next) {
  public Page {
    tickets = List.copyOf(tickets);
    java.util.Objects.requireNonNull(next, "next");
  }
}
