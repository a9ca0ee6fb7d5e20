package dev.vigil.coordination;

import java.util.Objects;

/**
 * The decision of {@code ask} (Q16): a new OPEN question, the earlier one of the same key (unchanged), or a
 * refusal that changed nothing.
 */
public sealed interface Asking {

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

  /** Nothing changed: the question names a ticket or an asking run the store does not have ({@code missing}: "ticket t-7"). */
  record Denied(String missing) implements Asking {
    public Denied {
      Objects.requireNonNull(missing, "missing");
    }
  }
}
