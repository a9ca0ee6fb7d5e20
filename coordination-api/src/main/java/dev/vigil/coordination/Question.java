package dev.vigil.coordination;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A durable question for a person (Q16): asked by a worker (which waits for the reply) or by the daemon
 * (a ticket HELD, a service given up). A client records the answer (ANSWERED); only the daemon applies
 * it, exactly once, in the transaction that marks it APPLIED and records what it did and what it skipped.
 *
 * @param id          the store's id
 * @param question    what was asked
 * @param state       OPEN, ANSWERED or APPLIED
 * @param askedAtMs   wall-clock ms of the ask
 * @param answer      the chosen option's name once ANSWERED, else {@code null}
 * @param answeredAtMs wall-clock ms of the answer, 0 while OPEN
 * @param outcome     once APPLIED, one line: what was done and what was skipped, and why; else {@code null}
 * @param appliedAtMs wall-clock ms of the apply, 0 until APPLIED
 */
public record Question(QuestionId id, NewQuestion question, State state, long askedAtMs, String answer,
                       long answeredAtMs, String outcome, long appliedAtMs) {
  /** Where a question is in its life. */
  public enum State {
    /** Waiting for a person. */
    OPEN,
    /** A person chose an option; the daemon has not applied it yet. */
    ANSWERED,
    /** The daemon applied the chosen option: its actions and this state were committed together. */
    APPLIED
  }

  public Question {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(question, "question");
    Objects.requireNonNull(state, "state");
    if ((state == State.OPEN) != (answer == null)) {
      throw new IllegalArgumentException("a question has an answer exactly when it is not OPEN");
    }
    if ((state == State.APPLIED) != (outcome != null)) {
      throw new IllegalArgumentException("a question has an outcome exactly when it is APPLIED");
    }
    if (answer != null && question.options().stream().noneMatch(o -> o.name().equals(answer))) {
      throw new IllegalArgumentException("answer '" + answer + "' is not an option of " + id);
    }
  }

  /** A question just asked. */
  public static Question asked(QuestionId id, NewQuestion q, long nowMs) {
    return new Question(id, q, State.OPEN, nowMs, null, 0, null, 0);
  }

  public Question answered(String option, long nowMs) {
    return new Question(id, question, State.ANSWERED, askedAtMs, option, nowMs, null, 0);
  }

  public Question applied(String newOutcome, long nowMs) {
    return new Question(id, question, State.APPLIED, askedAtMs, answer, answeredAtMs, newOutcome, nowMs);
  }

  /** The option named {@code name}, if the question offers it. */
  public Optional<QuestionOption> option(String name) {
    return question.options().stream().filter(o -> o.name().equals(name)).findFirst();
  }

  /** The chosen option, once answered. */
  public Optional<QuestionOption> chosen() {
    return answer == null ? Optional.empty() : option(answer);
  }

  /** The value handed back to the asking worker: the chosen option's reply, once APPLIED; else empty. */
  public Optional<String> reply() {
    return state == State.APPLIED ? Optional.ofNullable(chosen().orElseThrow().reply()) : Optional.empty();
  }

  /** The options' names, in order. */
  public List<String> optionNames() {
    return question.options().stream().map(QuestionOption::name).toList();
  }
}
