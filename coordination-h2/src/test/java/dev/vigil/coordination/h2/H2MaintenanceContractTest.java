package dev.vigil.coordination.h2;

import dev.vigil.coordination.Coordination;
import dev.vigil.coordination.MaintenanceContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The maintenance contract on a real H2 file database, closed and opened again where a daemon would restart. */
class H2MaintenanceContractTest extends MaintenanceContract {
  @TempDir
  Path dir;

  @Override
  protected Coordination create() {
    return H2Coordination.open(dir.resolve("maintenance.mv.db"), H2Options.defaults());
  }

  @Override
  protected Coordination reopen(Coordination coordination) {
    ((H2Coordination) coordination).close();
    return create();
  }

  @Override
  protected void dispose(Coordination coordination) {
    ((H2Coordination) coordination).close();
  }
}
