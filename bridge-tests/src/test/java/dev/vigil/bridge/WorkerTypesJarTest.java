package dev.vigil.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Worker types as the real jar runs them: the example configuration's {@code prime-count} type runs
 * from the examples jar its configuration names, and a daemon whose configured class is missing or
 * is no worker type refuses to start (exit 2, one line naming the type).
 */
class WorkerTypesJarTest {
  private static final Path EXAMPLE_CONFIG = Path.of("..", "examples", "vigil.json").toAbsolutePath().normalize();

  @TempDir
  Path tmp;

  private JarBuilds jars;
  private JarBuilds.Build vigil;

  @BeforeEach
  void setUp() {
    jars = new JarBuilds(tmp);
    vigil = new JarBuilds.Build(JarBuilds.VIGIL_JAR, "", "");
  }

  @AfterEach
  void cleanUp() throws Exception {
    jars.cleanup();
  }

  @Test
  void theExampleConfiguration_runsThePrimeCountTypeFromTheExamplesJar() throws Exception {
    assertTrue(Files.isRegularFile(JarBuilds.VIGIL_JAR), "the runnable jar is built: " + JarBuilds.VIGIL_JAR);
    Path home = jars.home("example");
    jars.up(vigil, home, "--config", EXAMPLE_CONFIG.toString());
    JarBuilds.Result submit = jars.run(vigil, home, "submit", "--type", "prime-count", "--payload", "{\"below\": 100000}");
    assertEquals(0, submit.code(), submit.err());
    JarBuilds.Result waited = jars.run(vigil, home, "wait", submit.out(), "--timeout", "90s");
    assertEquals(0, waited.code(), waited.err());
    JsonNode shown = jars.show(vigil, home, submit.out());
    assertEquals("SUCCEEDED", shown.path("state").asText(), shown.toString());
    assertTrue(shown.toString().contains("9592 primes below 100000"), "the example type's own outcome: " + shown);
  }

  @Test
  void aDaemonWhoseWorkerClassIsMissingOrNoWorkerType_exits2_namingTheType() throws Exception {
    Path missing = Files.writeString(tmp.resolve("missing.json"),
        "{\"workerTypes\": {\"mine\": {\"class\": \"com.example.Missing\", \"classpath\": [\"lib/mine.jar\"]}}}");
    Path notAType = Files.writeString(tmp.resolve("not-a-type.json"),
        "{\"workerTypes\": {\"odd\": {\"class\": \"java.lang.String\"}}}");
    Path home = tmp.resolve("never-created");
    for (String verb : new String[] {"daemon", "up"}) {
      JarBuilds.Result m = jars.run(vigil, home, verb, "--config", missing.toString());
      assertEquals(2, m.code(), verb + ": " + m.err());
      assertEquals(1, m.err().trim().lines().count(), "one line: " + m.err());
      assertTrue(m.err().contains("worker type 'mine'") && m.err().contains("com.example.Missing"), m.err());
      JarBuilds.Result n = jars.run(vigil, home, verb, "--config", notAType.toString());
      assertEquals(2, n.code(), verb + ": " + n.err());
      assertEquals(1, n.err().trim().lines().count(), "one line: " + n.err());
      assertTrue(n.err().contains("worker type 'odd'") && n.err().contains("does not implement"), n.err());
    }
    assertFalse(Files.exists(home), "nothing changed: no home was made");
  }
}
