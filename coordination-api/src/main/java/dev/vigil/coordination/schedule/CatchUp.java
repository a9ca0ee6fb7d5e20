package dev.vigil.coordination.schedule;

/**
 * What a schedule does with fires it missed (Q15): fires whose time passed while no daemon ran, or
 * that the daemon reached more than {@link FireRule#LATE_MS} late.
 */
public enum CatchUp {
  /** Missed fires are dropped; only a fire reached on time submits a ticket. */
  NONE,
  /** One ticket for the latest due fire, however many were missed (the default). */
  LATEST,
  /** One ticket for each missed fire, at most {@link FireRule#CATCH_UP_ALL_MAX} (the latest ones). */
  ALL;

  /** The policy for its lower-case name ({@code none}, {@code latest}, {@code all}). */
  public static CatchUp parse(String text) {
    return Words.parse(values(), text, "catch-up");
  }

  /** Its lower-case name, as written in the configuration and on the command line. */
  public String word() {
    return Words.word(this);
  }
}
