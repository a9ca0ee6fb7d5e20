package dev.vigil.coordination;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The latest checkpoint the store keeps for a ticket (Q17): what a worker of {@code run} saved as its
 * {@code seq}-th checkpoint, as JSON text. A ticket has at most one; a later attempt of a resumable worker
 * type starts from it.
 *
 * @param run       the run whose worker saved it (its ticket is the checkpoint's ticket)
 * @param seq       its number within the run, from 1; a run's checkpoints are numbered in the order saved
 * @param value     the saved value, JSON text of at most {@link #MAX_BYTES} bytes of UTF-8
 * @param savedAtMs wall-clock ms at which the store kept it
 */
public record Checkpoint(RunId run, long seq, String value, long savedAtMs) {
  /** The largest checkpoint a ticket keeps, bytes of UTF-8 JSON (64 KiB, as a result). */
  public static final int MAX_BYTES = Run.MAX_RESULT_BYTES;

  public Checkpoint {
    Objects.requireNonNull(run, "run");
    check(seq, value);
  }

  /** The ticket it belongs to. */
  public TicketId ticket() {
    return run.ticket();
  }

  /** Its size in bytes of UTF-8. */
  public int bytes() {
    return value.getBytes(StandardCharsets.UTF_8).length;
  }

  /**
   * Checks an offered checkpoint: a number from 1 and a value of at most {@link #MAX_BYTES} bytes.
   *
   * @throws IllegalArgumentException naming the rule broken
   */
  public static void check(long seq, String value) {
    Objects.requireNonNull(value, "value");
    if (seq < 1) {
      throw new IllegalArgumentException("seq (" + seq + ") must be >= 1");
    }
    if (value.isBlank()) {
      throw new IllegalArgumentException("a checkpoint's value must be JSON text, not blank");
    }
    int bytes = value.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_BYTES) {
      throw new IllegalArgumentException("a checkpoint of " + bytes + " bytes is more than the " + MAX_BYTES
          + " a ticket keeps");
    }
  }
}
