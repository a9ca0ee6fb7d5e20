package dev.vigil.coordination;

import java.util.Objects;

/** The decision of {@code ask} (Q16): a new OPEN question, or the earlier one of the same key, unchanged. */
public sealed interface Asking {
  /** The question as it is now. */
  Question question();

  /** A new OPEN question. */
  record Asked(Question question) implements Asking {
    public Asked {
      Objects.requireNonNull(question, "question");
    }
  }

  /** The key was used before: nothing changed; {@code question} is the earlier one, in whatever state it is. */
  record Duplicate(Question question) implements Asking {
    public Duplicate {
      Objects.requireNonNull(question, "question");
    }
  }
}
