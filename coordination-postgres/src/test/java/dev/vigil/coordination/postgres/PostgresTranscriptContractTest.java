package dev.vigil.coordination.postgres;

import dev.vigil.coordination.Coordination;
import dev.vigil.coordination.TranscriptContract;

/** The transcript contract on a real PostgreSQL server, one fresh schema per test, closed and opened again where a daemon would restart. */
class PostgresTranscriptContractTest extends TranscriptContract {
  private PostgresOptions current;

  @Override
  protected Coordination create() {
    current = PostgresServer.get().freshOptions();
    return PostgresCoordination.open(current);
  }

  @Override
  protected Coordination reopen(Coordination coordination) {
    ((PostgresCoordination) coordination).close();
    return PostgresCoordination.open(current);
  }

  @Override
  protected void dispose(Coordination coordination) {
    PostgresCoordination pg = (PostgresCoordination) coordination;
    pg.close();
    PostgresServer.get().release(pg.schema());
  }
}
