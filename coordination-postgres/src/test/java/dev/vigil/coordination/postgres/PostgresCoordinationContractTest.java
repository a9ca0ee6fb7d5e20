package dev.vigil.coordination.postgres;

import dev.vigil.coordination.Coordination;
import dev.vigil.coordination.CoordinationContract;
import dev.vigil.coordination.RetryPolicy;

/** The coordination contract on a real PostgreSQL server, one fresh schema per test. */
class PostgresCoordinationContractTest extends CoordinationContract {
  @Override
  protected Coordination create(RetryPolicy policy) {
    return PostgresCoordination.open(PostgresServer.get().freshOptions().withRetryPolicy(policy));
  }

  @Override
  protected void dispose(Coordination coordination) {
    PostgresCoordination pg = (PostgresCoordination) coordination;
    pg.close();
    PostgresServer.get().release(pg.schema());
  }
}
