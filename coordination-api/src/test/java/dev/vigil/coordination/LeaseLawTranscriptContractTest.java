package dev.vigil.coordination;

import dev.vigil.coordination.law.LeaseLaw;

/** The reference model passes the transcript contract. */
class LeaseLawTranscriptContractTest extends TranscriptContract {
  @Override
  protected Coordination create() {
    return new LeaseLaw();
  }

  @Override
  protected Coordination reopen(Coordination coordination) {
    return coordination;
  }
}
