package dev.vigil.coordination;

/**
 * A filter for {@link Store#tickets(TicketQuery)}; a {@code null} field does not filter. Pages
 * through many tickets with {@link #after(TicketId)}: the next page starts after the last id seen.
 *
 * @param state only tickets in this state
 * @param lane  only tickets of this lane
 * @param limit at most this many, in id order
 * @param after only tickets whose id is greater than this one
 */
public record TicketQuery(TicketState state, Lane lane, int limit, TicketId after) {
  public TicketQuery {
    if (limit < 1) {
      throw new IllegalArgumentException("limit (" + limit + ") must be >= 1");
    }
  }

  public static TicketQuery all() {
    return new TicketQuery(null, null, Integer.MAX_VALUE, null);
  }

  public TicketQuery inState(TicketState s) {
    return new TicketQuery(s, lane, limit, after);
  }

  public TicketQuery inLane(Lane l) {
    return new TicketQuery(state, l, limit, after);
  }

  public TicketQuery limit(int n) {
    return new TicketQuery(state, lane, n, after);
  }

  public TicketQuery after(TicketId id) {
    return new TicketQuery(state, lane, limit, id);
  }

  public boolean matches(Ticket t) {
    return (state == null || t.state() == state) && (lane == null || t.lane().equals(lane))
        && (after == null || t.id().compareTo(after) > 0);
  }
}
