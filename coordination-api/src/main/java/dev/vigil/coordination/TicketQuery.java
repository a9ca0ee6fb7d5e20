package dev.vigil.coordination;

import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A filter for {@link Store#tickets(TicketQuery)}; a {@code null} field does not filter. Pages
 * through many tickets with {@link #after(TicketId)}: the next page starts after the last id seen.
 *
 * @param state  only tickets in this state
 * @param lane   only tickets of this lane
 * @param limit  at most this many, in id order
 * @param after  only tickets whose id is greater than this one
 * @param labels only tickets that carry every one of these labels with its value (none: no filter)
 */
public record TicketQuery(TicketState state, Lane lane, int limit, TicketId after, SortedMap<String, String> labels) {
  public TicketQuery {
    if (limit < 1) {
      throw new IllegalArgumentException("limit (" + limit + ") must be >= 1");
    }
    labels = Labels.check(Objects.requireNonNull(labels, "labels"));
  }

  /** A query without a label filter. */
  public TicketQuery(TicketState state, Lane lane, int limit, TicketId after) {
    this(state, lane, limit, after, new TreeMap<>());
  }

  public static TicketQuery all() {
    return new TicketQuery(null, null, Integer.MAX_VALUE, null);
  }

  public TicketQuery inState(TicketState s) {
    return new TicketQuery(s, lane, limit, after, labels);
  }

  public TicketQuery inLane(Lane l) {
    return new TicketQuery(state, l, limit, after, labels);
  }

  public TicketQuery limit(int n) {
    return new TicketQuery(state, lane, n, after, labels);
  }

  public TicketQuery after(TicketId id) {
    return new TicketQuery(state, lane, limit, id, labels);
  }

  /** Only tickets that also carry the label {@code name=value}. */
  public TicketQuery withLabel(String name, String value) {
    SortedMap<String, String> more = new TreeMap<>(labels);
    more.put(name, value);
    return new TicketQuery(state, lane, limit, after, more);
  }

  /** Only tickets that also carry each of {@code more}. */
  public TicketQuery withLabels(Map<String, String> more) {
    SortedMap<String, String> all = new TreeMap<>(labels);
    all.putAll(more);
    return new TicketQuery(state, lane, limit, after, all);
  }

  public boolean matches(Ticket t) {
    return (state == null || t.state() == state) && (lane == null || t.lane().equals(lane))
        && (after == null || t.id().compareTo(after) > 0) && t.hasLabels(labels);
  }
}
