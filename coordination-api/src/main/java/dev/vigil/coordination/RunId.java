package dev.vigil.coordination;

import java.util.Objects;

/**
 * A run's id: its ticket and its number among that ticket's runs (1, 2, …), written
 * {@code t-<seq>.<n>}. Every claim creates a new run, so a ticket's runs are numbered densely.
 *
 * @param ticket the ticket the run belongs to
 * @param number the run's number within the ticket, {@code >= 1}
 */
public record RunId(TicketId ticket, int number) implements Comparable<RunId> {
  public RunId {
    Objects.requireNonNull(ticket, "ticket");
    if (number < 1) {
      throw new IllegalArgumentException("run number (" + number + ") must be >= 1");
    }
  }

  /** Reads {@code t-12.3}; a one-line error names the bad text. */
  public static RunId parse(String text) {
    int dot = text.lastIndexOf('.');
    if (dot < 0) {
      throw new IllegalArgumentException("not a run id: '" + text + "' (expected t-<number>.<number>)");
    }
    try {
      return new RunId(TicketId.parse(text.substring(0, dot)), Integer.parseInt(text.substring(dot + 1)));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("not a run id: '" + text + "' (expected t-<number>.<number>)");
    }
  }

  @Override
  public int compareTo(RunId o) {
    int c = ticket.compareTo(o.ticket);
    return c != 0 ? c : Integer.compare(number, o.number);
  }

  @Override
  public String toString() {
    return ticket + "." + number;
  }
}
