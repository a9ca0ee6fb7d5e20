package dev.vigil.coordination;

import dev.vigil.coordination.law.LeaseLaw;

/** The reference model passes the coordination contract. */
class LeaseLawContractTest extends CoordinationContract {
  @Override
  protected Coordination create(RetryPolicy policy) {
    return new LeaseLaw(policy);
  }
}
