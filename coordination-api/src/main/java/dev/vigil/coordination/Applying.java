package dev.vigil.coordination;

import java.util.Objects;

/**
 * The decision of {@code applyAnswer} (Q16): the question is APPLIED, with every ticket and lane action of its
 * chosen option that still made sense, in the same transaction; or refused and nothing changed.
 */
public sealed interface Applying {
  /** Applied once; {@code plan} says what was done and what was skipped. */
  record Applied(Question question, QuestionPlan plan) implements Applying {
    public Applied {
      Objects.requireNonNull(question, "question");
      Objects.requireNonNull(plan, "plan");
    }
  }

  /** Nothing changed. */
  record Denied(Reason reason) implements Applying {
    public Denied {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** Why an apply was refused, checked in this order. */
  enum Reason {
    /** No such question. */
    NOT_FOUND,
    /** Nobody answered it yet. */
    NOT_ANSWERED,
    /** It was applied before: an answer is applied once. */
    ALREADY_APPLIED
  }
}
