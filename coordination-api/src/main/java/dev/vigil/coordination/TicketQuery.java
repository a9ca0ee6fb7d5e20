package dev.vigil.coordination;

/**
 * A filter for {@link Store#tickets(TicketQuery)}; a {@code null} field does not filter.
 *
 * @param state only tickets in this state
 * @param lane  only tickets of this lane
 * @param limit at most this many, in id order
 */
public record TicketQuery(TicketState state, Lane lane, int limit) {
  public TicketQuery {
    if (limit < 1) {
      throw new IllegalArgumentException("limit (" + limit + ") must be >= 1");
    }
  }

  public static TicketQuery all() {
    return new TicketQuery(null, null, Integer.MAX_VALUE);
  }

  public TicketQuery inState(TicketState s) {
    return new TicketQuery(s, lane, limit);
  }

  public TicketQuery inLane(Lane l) {
    return new TicketQuery(state, l, limit);
  }

  public TicketQuery limit(int n) {
    return new TicketQuery(state, lane, n);
  }

  public boolean matches(Ticket t) {
    return (state == null || t.state() == state) && (lane == null || t.lane().equals(lane));
  }
}
