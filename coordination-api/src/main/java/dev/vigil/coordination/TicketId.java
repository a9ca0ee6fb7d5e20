package dev.vigil.coordination;

/**
 * A ticket's id: a positive sequence number handed out by the store at submission, written
 * {@code t-<seq>}. Sequence numbers order tickets of equal priority and age.
 *
 * @param seq the store's sequence number, {@code > 0}
 */
public record TicketId(long seq) implements Comparable<TicketId> {
  public TicketId {
    if (seq <= 0) {
      throw new IllegalArgumentException("ticket seq (" + seq + ") must be > 0");
    }
  }

  /** Reads {@code t-12} (or a bare {@code 12}); a one-line error names the bad text. */
  public static TicketId parse(String text) {
    String digits = text.startsWith("t-") ? text.substring(2) : text;
    try {
      return new TicketId(Long.parseLong(digits));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("not a ticket id: '" + text + "' (expected t-<number>)");
    }
  }

  @Override
  public int compareTo(TicketId o) {
    return Long.compare(seq, o.seq);
  }

  @Override
  public String toString() {
    return "t-" + seq;
  }
}
