package dev.vigil.coordination;

/**
 * The verbs of questions for a person (Q16), part of {@link Coordination}: each one transaction returning a
 * decision; a denial changes nothing. A client may {@link #answer}; only the daemon calls {@link #applyAnswer}.
 */
public interface QuestionVerbs {
  /**
   * Records an OPEN question with a QUESTION event, or names the earlier one with the same key (asking again
   * asks nothing); refused for a ticket or an asking run the store does not have.
   */
  Asking ask(NewQuestion question, long nowMs);

  /** OPEN → ANSWERED with the option named {@code option}; nothing else changes (a deputy never acts). */
  Answering answer(QuestionId id, String option, long nowMs);

  /**
   * Q16: ANSWERED → APPLIED, in one transaction with every ticket and lane action of the chosen option that
   * still makes sense ({@link QuestionPlan#decide}); the question records the plan's outcome line. Granted
   * once per question: a second apply is refused, so a daemon that crashed before the commit applies it
   * after its restart, and one that crashed after it never applies it again.
   */
  Applying applyAnswer(QuestionId id, long nowMs);
}
