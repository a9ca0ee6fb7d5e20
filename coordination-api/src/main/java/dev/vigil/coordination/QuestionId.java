package dev.vigil.coordination;

/**
 * A question's id: a positive sequence number handed out by the store when the question is asked,
 * written {@code q-<seq>}.
 *
 * @param seq the store's sequence number, {@code > 0}
 */
public record QuestionId(long seq) implements Comparable<QuestionId> {
  public QuestionId {
    if (seq <= 0) {
      throw new IllegalArgumentException("question seq (" + seq + ") must be > 0");
    }
  }

  /** Reads {@code q-12} (or a bare {@code 12}); a one-line error names the bad text. */
  public static QuestionId parse(String text) {
    String digits = text.startsWith("q-") ? text.substring(2) : text;
    try {
      return new QuestionId(Long.parseLong(digits));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("not a question id: '" + text + "' (expected q-<number>)");
    }
  }

  @Override
  public int compareTo(QuestionId o) {
    return Long.compare(seq, o.seq);
  }

  @Override
  public String toString() {
    return "q-" + seq;
  }
}
