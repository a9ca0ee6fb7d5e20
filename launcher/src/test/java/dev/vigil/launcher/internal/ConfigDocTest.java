package dev.vigil.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.Lane;
import dev.vigil.coordination.RetryPolicy;
import dev.vigil.coordination.h2.H2Options;
import dev.vigil.supervisor.Durations;
import dev.vigil.supervisor.OutputBound;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.engine.ServiceSpec;
import dev.vigil.supervisor.engine.WorkerTypeSpec;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/CONFIG.md against the real loader: its full example loads and means what the text says, and
 * every field the loader reads and every timeout is documented, with the timeouts' real defaults.
 */
class ConfigDocTest {
  private static final Path CONFIG_MD = Path.of("..", "docs", "CONFIG.md");

  private static String doc() throws IOException {
    return Files.readString(CONFIG_MD);
  }

  /** The JSON block right after the {@code <!-- config-example -->} marker. */
  private static String example(String doc) {
    Matcher m = Pattern.compile("<!-- config-example -->\\s*```json\\n(.*?)```", Pattern.DOTALL).matcher(doc);
    assertTrue(m.find(), "docs/CONFIG.md has a tagged example");
    return m.group(1);
  }

  @Test
  void theFullExampleLoadsThroughTheRealLoader(@TempDir Path dir) throws IOException {
    Path file = Files.writeString(dir.resolve("vigil.json"), example(doc()));
    VigilConfig c = ConfigLoader.load(file);

    assertEquals(2, c.workload().concurrency(Lane.DEFAULT));
    assertEquals(4, c.workload().concurrency(new Lane("batch")));
    assertEquals(30 * 60_000L, c.workload().timeoutMs(new Lane("batch")));
    assertEquals(1, c.workload().concurrency(new Lane("gpu")));
    assertEquals(6 * 3_600_000L, c.workload().timeoutMs(new Lane("gpu")));
    assertEquals(0, c.workload().timeoutMs(Lane.DEFAULT));
    assertEquals(new OutputBound(256L << 20), c.workload().output(new Lane("batch")));
    assertEquals(OutputBound.DEFAULT, c.workload().output(new Lane("gpu")));
    assertEquals(3, c.maxAttempts());
    assertEquals(new RetryPolicy(1_000, 300_000), c.retry());
    assertEquals(H2Options.Durability.PROCESS, c.durability());
    assertEquals(new WorkerTypeSpec.Command(42),
        c.workload().workerTypes().get("quota-aware").orElseThrow().implementation());
    WorkerTypeSpec prime = c.workload().workerTypes().get("prime-count").orElseThrow();
    assertEquals(new WorkerTypeSpec.Declared("dev.vigil.examples.PrimeCountWorker"), prime.implementation());
    assertEquals(List.of(dir.resolve("../examples/target/vigil-examples.jar").normalize().toString()),
        prime.classpath(), "a classpath entry is relative to the configuration file");
    List<ServiceSpec> services = c.workload().services();
    assertEquals(List.of("indexer", "warm-cache"), services.stream().map(ServiceSpec::name).toList());
    assertEquals(ServiceSpec.Activation.ALWAYS, services.get(0).activation());
    assertEquals(ServiceSpec.Activation.ON_DEMAND, services.get(1).activation());
    assertEquals(10_000, c.timeouts().ms(Timeout.STOP_GRACE));
    assertEquals(86_400_000, c.timeouts().ms(Timeout.STALE_CLAIM));
    assertEquals(5, c.timeouts().restartGiveUpCount());
    assertEquals(Optional.of(file.toAbsolutePath().normalize()), c.source());
    StoreConfig.Postgres pg = (StoreConfig.Postgres) c.store();
    assertEquals("jdbc:postgresql://db.example.com:5432/vigil", pg.url());
    assertEquals(Optional.of(Path.of("/etc/vigil/pg.password")), pg.passwordFile());
    assertEquals(Optional.of("build-box-1"), c.hostId());
  }

  @Test
  void theExampleUsesEveryTopLevelField() throws IOException {
    String example = example(doc());
    List<String> missing = new ArrayList<>();
    for (RecordComponent rc : ConfigLoader.FileJson.class.getRecordComponents()) {
      if (!example.contains("\"" + rc.getName() + "\"")) {
        missing.add(rc.getName());
      }
    }
    assertEquals(List.of(), missing, "top-level fields the full example leaves out");
    assertTrue(ConfigLoader.FileJson.class.getRecordComponents().length >= 8);
  }

  @Test
  void everyFieldTheLoaderReadsIsDocumented() throws IOException {
    String doc = doc();
    List<String> missing = new ArrayList<>();
    int checked = 0;
    for (Class<?> part : List.of(ConfigLoader.FileJson.class, ConfigLoader.LaneJson.class,
        ConfigLoader.RetryJson.class, ConfigLoader.TypeJson.class, ConfigLoader.ServiceJson.class,
        ConfigLoader.PostgresJson.class)) {
      for (RecordComponent rc : part.getRecordComponents()) {
        String name = rc.getName().equals("className") ? "class" : rc.getName();
        checked++;
        if (!doc.contains("| `" + name + "` |") && !doc.contains("### `" + name + "`")) {
          missing.add(part.getSimpleName() + "." + name);
        }
      }
    }
    assertTrue(checked >= 20, "fields checked: " + checked);
    assertEquals(List.of(), missing, "fields of the configuration that docs/CONFIG.md does not describe");
  }

  @Test
  void everyTimeoutIsDocumentedWithItsRealDefault() throws IOException {
    String doc = doc();
    List<String> wrong = new ArrayList<>();
    for (Timeout t : Timeout.values()) {
      String row = "| `" + t.configName() + "` | " + Durations.format(t.defaultMs()) + " |";
      if (!doc.contains(row)) {
        wrong.add(row);
      }
    }
    assertEquals(List.of(), wrong, "timeout rows missing from docs/CONFIG.md");
    Matcher m = Pattern.compile("^\\| `([a-zA-Z]+)` \\| [0-9]+(?:ms|s|m|h) \\|", Pattern.MULTILINE).matcher(doc);
    int rows = 0;
    while (m.find()) {
      rows++;
      assertTrue(Timeout.byConfigName(m.group(1)).isPresent(), "docs/CONFIG.md documents a timeout that does not exist: "
          + m.group(1));
    }
    assertEquals(Timeout.values().length, rows, "one row per timeout");
  }
}
