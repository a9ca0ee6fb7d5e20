package dev.vigil.coordination.h2;

import dev.vigil.coordination.Coordination;
import dev.vigil.coordination.CoordinationContract;
import dev.vigil.coordination.RetryPolicy;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The coordination contract on a real H2 file database, one fresh file per test. */
class H2CoordinationContractTest extends CoordinationContract {
  @TempDir
  Path dir;
  private int files;

  @Override
  protected Coordination create(RetryPolicy policy) {
    return H2Coordination.open(dir.resolve("contract-" + (++files) + ".mv.db"),
        H2Options.defaults().withRetryPolicy(policy));
  }

  @Override
  protected void dispose(Coordination coordination) {
    ((H2Coordination) coordination).close();
  }
}
