package dev.vigil.coordination;

import dev.vigil.coordination.law.LeaseLaw;

/** The reference model passes the checkpoint contract. */
class LeaseLawCheckpointContractTest extends CheckpointContract {
  @Override
  protected Coordination create() {
    return new LeaseLaw();
  }

  @Override
  protected Coordination reopen(Coordination coordination) {
    return coordination;
  }
}
