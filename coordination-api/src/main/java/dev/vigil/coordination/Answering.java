package dev.vigil.coordination;

import java.util.Objects;

/** The decision of {@code answer} (Q16): recorded (ANSWERED), or refused and nothing changed. */
public sealed interface Answering {
  /** The question is ANSWERED with the option; the daemon applies it. */
  record Answered(Question question) implements Answering {
    public Answered {
      Objects.requireNonNull(question, "question");
    }
  }

  /** Nothing changed; {@code question} is the question as it is, when there is one. */
  record Denied(Reason reason, Question question) implements Answering {
    public Denied {
      Objects.requireNonNull(reason, "reason");
      if ((reason == Reason.NOT_FOUND) != (question == null)) {
        throw new IllegalArgumentException("a denial names the question exactly when there is one");
      }
    }

    /** One line for people: why the answer {@code option} to {@code id} was refused, and that nothing changed. */
    public String line(QuestionId id, String option) {
      return switch (reason) {
        case NOT_FOUND -> "no such question " + id;
        case ALREADY_ANSWERED -> "question " + id + " was answered before ('" + question.answer()
            + "'); an answer is given once";
        case UNKNOWN_OPTION -> "question " + id + " has no option '" + option + "' (options: "
            + String.join(", ", question.optionNames()) + "); nothing was recorded";
      };
    }
  }

  /** Why an answer was refused, checked in this order. */
  enum Reason {
    /** No such question. */
    NOT_FOUND,
    /** The question was answered before (by this option or another): an answer is given once. */
    ALREADY_ANSWERED,
    /** The question offers no option of that name. */
    UNKNOWN_OPTION
  }
}
