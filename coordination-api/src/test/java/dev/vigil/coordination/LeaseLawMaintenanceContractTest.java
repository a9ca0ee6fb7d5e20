package dev.vigil.coordination;

import dev.vigil.coordination.law.LeaseLaw;

/** The reference model passes the maintenance contract. */
class LeaseLawMaintenanceContractTest extends MaintenanceContract {
  @Override
  protected Coordination create() {
    return new LeaseLaw();
  }

  @Override
  protected Coordination reopen(Coordination coordination) {
    return coordination;
  }
}
