package dev.vigil.coordination.h2;

import dev.vigil.coordination.Coordination;
import dev.vigil.coordination.TranscriptContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The transcript contract on real H2 file databases (a new one for each fresh store), closed and opened again where a daemon would restart. */
class H2TranscriptContractTest extends TranscriptContract {
  @TempDir
  Path dir;

  private Path current;
  private int created;

  @Override
  protected Coordination create() {
    current = dir.resolve("transcripts-" + (++created) + ".mv.db");
    return H2Coordination.open(current, H2Options.defaults());
  }

  @Override
  protected Coordination reopen(Coordination coordination) {
    ((H2Coordination) coordination).close();
    return H2Coordination.open(current, H2Options.defaults());
  }

  @Override
  protected void dispose(Coordination coordination) {
    ((H2Coordination) coordination).close();
  }
}
