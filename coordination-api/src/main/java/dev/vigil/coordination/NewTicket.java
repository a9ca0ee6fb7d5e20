package dev.vigil.coordination;

import java.util.Objects;

/**
 * A submission.
 *
 * @param lane        the lane to queue in
 * @param type        the worker type to run it with ({@link WorkerTypeName})
 * @param payload     the worker's input as JSON text (not parsed here)
 * @param maxAttempts attempts allowed before the ticket is HELD (Q1), 1-{@value #MAX_ATTEMPTS}
 * @param priority    higher is claimed first
 * @param notBeforeMs wall-clock ms before which it is not due
 * @param key         an idempotency key, or {@code null}: a second submission with the same key
 *                    creates nothing ({@link Submission.Duplicate})
 */
public record NewTicket(Lane lane, String type, String payload, int maxAttempts, int priority, long notBeforeMs,
                        String key) {
  /** The default number of attempts (Q1). */
  public static final int DEFAULT_MAX_ATTEMPTS = 3;
  /** The most attempts a ticket may be given. */
  public static final int MAX_ATTEMPTS = 1000;

  public NewTicket {
    Objects.requireNonNull(lane, "lane");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(payload, "payload");
    new WorkerTypeName(type); // validates the name
    checkMaxAttempts(maxAttempts);
    if (key != null && (key.isEmpty() || key.length() > 200)) {
      throw new IllegalArgumentException("key must be 1-200 characters");
    }
  }

  /**
   * The rule for a number of attempts (Q1), for a ticket and for a configured default alike.
   *
   * @return {@code maxAttempts}
   * @throws IllegalArgumentException unless it is 1-{@value #MAX_ATTEMPTS}
   */
  public static int checkMaxAttempts(int maxAttempts) {
    if (maxAttempts < 1 || maxAttempts > MAX_ATTEMPTS) {
      throw new IllegalArgumentException("maxAttempts (" + maxAttempts + ") must be between 1 and " + MAX_ATTEMPTS);
    }
    return maxAttempts;
  }

  /** A ticket of {@code type} in {@code lane}, due now, default attempts and priority 0. */
  public static NewTicket of(Lane lane, String type, String payload) {
    return new NewTicket(lane, type, payload, DEFAULT_MAX_ATTEMPTS, 0, 0, null);
  }
}
