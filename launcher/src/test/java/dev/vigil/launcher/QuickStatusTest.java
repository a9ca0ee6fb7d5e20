package dev.vigil.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@code vigil status} and {@code vigil daemon} without the command model: exactly the forms picocli
 * would read the same way are taken, with the same values; every other form (help, a bad value, another
 * option or command) is left to picocli, so that its usage errors stay the only ones.
 */
class QuickStatusTest {
  private static Optional<Main.StatusCmd> quick(String... args) {
    return Main.quickStatus(args);
  }

  @Test
  void theFormsOfStatusAreTakenWithTheirValues() {
    Main.StatusCmd plain = quick("status").orElseThrow();
    assertFalse(plain.json);
    assertEquals(null, plain.root.homeOption);
    assertEquals(null, plain.root.waitDaemonMs);
    assertTrue(quick("status", "--json").orElseThrow().json);
    Main.StatusCmd full = quick("--home", "/tmp/h", "--wait-daemon=0", "status", "--json").orElseThrow();
    assertEquals(Path.of("/tmp/h"), full.root.homeOption);
    assertEquals(0L, full.root.waitDaemonMs);
    assertTrue(full.json);
    assertEquals(30_000L, quick("--wait-daemon", "30s", "--home=/x", "status").orElseThrow().root.waitDaemonMs);
  }

  @Test
  void everyOtherFormIsLeftToTheCommandModel() {
    for (List<String> a : List.<List<String>>of(List.of(), List.of("status", "--help"), List.of("status", "-h"),
        List.of("status", "--json", "--json"), List.of("status", "extra"), List.of("tasks"), List.of("--help"),
        List.of("--wait-daemon", "soon", "status"), List.of("--home"), List.of("--home", "status"),
        List.of("--home", "/a", "--home", "/b", "status"), List.of("--verbose", "status"), List.of("-V"),
        List.of("--home=", "status"), List.of("status", "--home", "/x"))) {
      assertTrue(quick(a.toArray(String[]::new)).isEmpty(), a.toString());
    }
  }

  @Test
  void aBadWaitIsStillSaidByTheCommandModel() {
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    int code = Main.run(new String[] {"--wait-daemon", "soon", "status"}, System.out,
        new java.io.PrintStream(err, true));
    assertEquals(2, code);
    assertTrue(err.toString().contains("'soon' is not a duration"), err.toString());
  }

  @Test
  void theFormsOfDaemonAreTakenWithTheirValues() {
    Main.DaemonCmd plain = Main.quickDaemon(new String[] {"daemon"}).orElseThrow();
    assertEquals(null, plain.config);
    assertFalse(plain.paused);
    assertEquals(null, plain.root.homeOption);
    Main.DaemonCmd up = Main.quickDaemon(new String[] {"--home", "/tmp/h", "daemon", "--config", "/c.json", "--paused"})
        .orElseThrow();
    assertEquals(Path.of("/tmp/h"), up.root.homeOption);
    assertEquals(Path.of("/c.json"), up.config);
    assertTrue(up.paused);
    Main.DaemonCmd eq = Main.quickDaemon(new String[] {"--home=/h", "daemon", "--paused", "--config=c.json"}).orElseThrow();
    assertEquals(Path.of("c.json"), eq.config);
    assertTrue(eq.paused);
    assertTrue(Main.quickStatus(new String[] {"daemon"}).isEmpty());
    assertTrue(Main.quickDaemon(new String[] {"status"}).isEmpty());
  }

  @Test
  void everyOtherFormOfDaemonIsLeftToTheCommandModel() {
    for (List<String> a : List.<List<String>>of(List.of("daemon", "--help"), List.of("daemon", "-h"),
        List.of("daemon", "--paused", "--paused"), List.of("daemon", "--config"), List.of("daemon", "--config="),
        List.of("daemon", "--config", "a", "--config", "b"), List.of("daemon", "--config", "--paused"),
        List.of("daemon", "extra"), List.of("daemon", "--verbose"), List.of("--home", "daemon"),
        List.of("daemon", "--home", "/x"), List.of("--wait-daemon", "soon", "daemon"))) {
      assertTrue(Main.quickDaemon(a.toArray(String[]::new)).isEmpty(), a.toString());
    }
  }
}
