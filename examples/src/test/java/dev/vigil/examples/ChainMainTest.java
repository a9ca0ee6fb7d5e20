package dev.vigil.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The chain example runs as written (Q14), on a real daemon in this JVM with real worker processes. */
class ChainMainTest {
  @TempDir
  Path tmp;

  @Test
  void Q14_theChainRunsInOrder_andAHeldStepGoesOnOnceWhatItWaitsForIsRetried() throws Exception {
    Path home = tmp.resolve("home");
    List<String> out = Stdout.of(() -> ChainMain.main(new String[] {home.toString()}));
    assertEquals(List.of("ran in order: build, test, package", "t-5 HELD: waits for t-4, which is held",
        "t-5 SUCCEEDED after [t-6]", "all steps: build, test, package, deploy, notify"), out);
  }
}
