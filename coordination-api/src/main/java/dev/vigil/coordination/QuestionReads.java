package dev.vigil.coordination;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Read-only queries over questions (Q16), part of {@link Store}. */
public interface QuestionReads {
  Optional<Question> question(QuestionId id);

  /** The question asked with {@code key}, if any. */
  Optional<Question> questionByKey(String key);

  /** Questions in any of the given states (all when empty), in id order. */
  List<Question> questions(Set<Question.State> states);
}
