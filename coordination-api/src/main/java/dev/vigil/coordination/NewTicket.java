package dev.vigil.coordination;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

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
 * @param spec        where and how its runs run: directory, environment, time limit
 * @param labels      labels by name ({@link Labels})
 * @param after       the tickets it waits for (Q14, {@link Prerequisites}), at most {@value Prerequisites#MAX}
 */
public record NewTicket(Lane lane, String type, String payload, int maxAttempts, int priority, long notBeforeMs,
                        String key, RunSpec spec, SortedMap<String, String> labels, List<Prerequisite> after) {
  /** The default number of attempts (Q1). */
  public static final int DEFAULT_MAX_ATTEMPTS = 3;
  /** The most attempts a ticket may be given. */
  public static final int MAX_ATTEMPTS = 1000;

  public NewTicket {
    Objects.requireNonNull(lane, "lane");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(spec, "spec");
    new WorkerTypeName(type); // validates the name
    checkMaxAttempts(maxAttempts);
    if (key != null && (key.isEmpty() || key.length() > 200)) {
      throw new IllegalArgumentException("key must be 1-200 characters");
    }
    labels = Labels.check(labels);
    after = List.copyOf(Objects.requireNonNull(after, "after"));
    if (after.size() > Prerequisites.MAX) {
      throw new IllegalArgumentException("a task may wait for at most " + Prerequisites.MAX + " others, not "
          + after.size());
    }
  }

  /** A submission that waits for nothing. */
  public NewTicket(Lane lane, String type, String payload, int maxAttempts, int priority, long notBeforeMs,
                   String key, RunSpec spec, SortedMap<String, String> labels) {
    this(lane, type, payload, maxAttempts, priority, notBeforeMs, key, spec, labels, List.of());
  }

  /** A submission with the default run spec and no labels. */
  public NewTicket(Lane lane, String type, String payload, int maxAttempts, int priority, long notBeforeMs,
                   String key) {
    this(lane, type, payload, maxAttempts, priority, notBeforeMs, key, RunSpec.DEFAULT, new TreeMap<>());
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

  /** This submission with {@code s} as its run spec. */
  public NewTicket withSpec(RunSpec s) {
    return new NewTicket(lane, type, payload, maxAttempts, priority, notBeforeMs, key, s, labels, after);
  }

  /** This submission with {@code l} as its labels. */
  public NewTicket withLabels(Map<String, String> l) {
    return new NewTicket(lane, type, payload, maxAttempts, priority, notBeforeMs, key, spec, new TreeMap<>(l), after);
  }

  /** This submission waiting for {@code prerequisites} (Q14). */
  public NewTicket withAfter(List<Prerequisite> prerequisites) {
    return new NewTicket(lane, type, payload, maxAttempts, priority, notBeforeMs, key, spec, labels, prerequisites);
  }
}
