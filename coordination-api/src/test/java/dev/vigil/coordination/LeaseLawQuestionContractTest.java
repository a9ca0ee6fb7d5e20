package dev.vigil.coordination;

import dev.vigil.coordination.law.LeaseLaw;

/** The reference model passes the question contract. */
class LeaseLawQuestionContractTest extends QuestionContract {
  @Override
  protected Coordination create() {
    return new LeaseLaw();
  }

  @Override
  protected Coordination reopen(Coordination coordination) {
    return coordination;
  }
}
