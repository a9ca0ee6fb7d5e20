package dev.vigil.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.launcher.ProbeTypes;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real daemon checks every declared worker class when it starts, and refuses to start without it. */
class DaemonWorkerTypesTest {
  @TempDir
  Path tmp;

  private Daemon.Refused refused(String types) throws Exception {
    Path file = Files.writeString(tmp.resolve("vigil.json"), "{\"workerTypes\": {" + types + "}}");
    Path home = tmp.resolve("home");
    Daemon.Refused r = assertThrows(Daemon.Refused.class, () -> Daemon.start(new Home(home), ConfigLoader.load(file)));
    assertEquals(2, r.exitCode(), r.getMessage());
    assertFalse(r.getMessage().contains("\n"), "one line: " + r.getMessage());
    assertFalse(Files.exists(home), "nothing changed: the home is not even created");
    return r;
  }

  @Test
  void aDeclaredClassThatIsMissing_refusesTheDaemon_namingTheType() throws Exception {
    Path lib = Files.createDirectories(tmp.resolve("lib"));
    Daemon.Refused r = refused("\"mine\": {\"class\": \"com.example.Missing\", \"classpath\": [\"" + lib + "\"]}");
    assertTrue(r.getMessage().contains("worker type 'mine'") && r.getMessage().contains("com.example.Missing"),
        r.getMessage());
  }

  @Test
  void aDeclaredClassThatIsNoWorkerType_refusesTheDaemon_namingTheType() throws Exception {
    Path probes = ProbeTypes.compileInto(tmp.resolve("probes"));
    Daemon.Refused r = refused("\"odd\": {\"class\": \"" + ProbeTypes.NOT_A_TYPE + "\", \"classpath\": [\"" + probes + "\"]}");
    assertTrue(r.getMessage().contains("worker type 'odd'") && r.getMessage().contains("dev.vigil.worker.WorkerType"),
        r.getMessage());
  }

  @Test
  void aDeclaredClassOnlyInAnotherTypesClasspath_refusesTheDaemon_namingTheType() throws Exception {
    Path probes = ProbeTypes.compileInto(tmp.resolve("probes"));
    Daemon.Refused r = refused("\"a\": {\"class\": \"" + ProbeTypes.PROBE + "\", \"classpath\": [\"" + probes + "\"]},"
        + " \"b\": {\"class\": \"" + ProbeTypes.PROBE + "\"}");
    assertTrue(r.getMessage().contains("worker type 'b'"), r.getMessage());
  }
}
