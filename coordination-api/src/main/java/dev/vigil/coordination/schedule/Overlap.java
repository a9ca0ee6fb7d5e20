package dev.vigil.coordination.schedule;

/** What a schedule does with a due fire while its previous fire's ticket is still live (Q15). */
public enum Overlap {
  /** The fire is passed over: no ticket (the default). */
  SKIP,
  /**
   * The fire waits and submits its ticket once the previous one has ended; at most one fire waits, and
   * fires that come while one waits are folded into it.
   */
  QUEUE,
  /** The fire submits its ticket at once, beside the live one. */
  PARALLEL;

  /** The policy for its lower-case name ({@code skip}, {@code queue}, {@code parallel}). */
  public static Overlap parse(String text) {
    return Words.parse(values(), text, "overlap");
  }

  /** Its lower-case name, as written in the configuration and on the command line. */
  public String word() {
    return Words.word(this);
  }
}
