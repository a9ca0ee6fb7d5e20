package dev.vigil.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.coordination.h2.testing.FaultyFileSystem;
import dev.vigil.launcher.internal.Daemon;
import dev.vigil.launcher.internal.Home;
import dev.vigil.launcher.internal.VigilConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * D5 on a real daemon in this JVM, with real worker processes and the real CLI over the socket: its
 * store reached through an H2 file system that fails every write under the home on demand, as a
 * full disk or a failing device would, while run directories and the socket stay on the real disk.
 */
@Tag("slow")
class StoreOutageDaemonTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long PATIENCE_MS = 60_000;

  @TempDir
  Path tmp;

  private Path home;
  private Daemon daemon;
  private final List<Long> workers = new ArrayList<>();

  record Cli(int code, String out, String err) {}

  @BeforeAll
  static void fileSystem() {
    FaultyFileSystem.register();
  }

  @BeforeEach
  void start() throws Exception {
    home = Files.createDirectory(tmp.resolve("home"),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    daemon = Daemon.start(new Home(home), VigilConfig.defaults(), Daemon.Changes.NONE,
        o -> o.withFileSystem(FaultyFileSystem.PREFIX));
  }

  @AfterEach
  void stop() {
    FaultyFileSystem.heal(home);
    daemon.close();
    workers.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
  }

  private Cli vigil(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    String[] all = new String[args.length + 2];
    all[0] = "--home";
    all[1] = home.toString();
    System.arraycopy(args, 0, all, 2, args.length);
    PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
    PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
    PrintStream stdout = System.out;
    int code;
    System.setOut(o); // the commands print to System.out, as a CLI does; errors go to e
    try {
      code = Main.run(all, o, e);
    } finally {
      System.setOut(stdout);
    }
    return new Cli(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private JsonNode json(String... args) throws Exception {
    Cli c = vigil(args);
    assertEquals(0, c.code(), c.err());
    return JSON.readTree(c.out());
  }

  private JsonNode until(String what, Predicate<JsonNode> done, String... args) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PATIENCE_MS);
    while (true) {
      JsonNode n = json(args);
      if (done.test(n)) {
        return n;
      }
      assertTrue(System.nanoTime() < deadline, what + ": " + n);
      Thread.sleep(100);
    }
  }

  private Cli untilCode(String what, int code, String... args) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PATIENCE_MS);
    while (true) {
      Cli c = vigil(args);
      if (c.code() == code) {
        return c;
      }
      assertTrue(System.nanoTime() < deadline, what + ": exit " + c.code() + " " + c.out() + c.err());
      Thread.sleep(100);
    }
  }

  private String unavailableLine(String reason) {
    return "the store is unavailable: " + reason + " in " + home.resolve("vigil.mv.db")
        + "; running work continues; nothing new starts";
  }

  /** Submits {@code sh -c script} and waits until its worker runs; returns the worker's pid. */
  private long running(String ticket, String script) throws Exception {
    Cli s = vigil("submit", "--", "sh", "-c", script);
    assertEquals(0, s.code(), s.err());
    assertEquals(ticket, s.out().trim());
    JsonNode t = until(ticket + " runs", n -> n.path("state").asText().equals("LEASED")
        && n.path("runs").size() == 1 && n.path("runs").get(0).hasNonNull("pid")
        && n.path("runs").get(0).path("state").asText().equals("RUNNING"), "show", ticket, "--json");
    long pid = t.path("runs").get(0).path("pid").asLong();
    workers.add(pid);
    return pid;
  }

  @Test
  void D5_aFullDisk_stopsDecisionsNotWork_andTheDaemonGoesOnByItself_onceItCanWriteAgain() throws Exception {
    Path done = tmp.resolve("done");
    Path go = tmp.resolve("go");
    long pid = running("t-1", "while [ ! -f " + go + " ]; do sleep 0.05; done; echo finished > " + done);
    FaultyFileSystem.failWrites(home, FaultyFileSystem.Fault.NO_SPACE);

    Cli refused = vigil("submit", "--", "echo", "never");
    assertEquals(5, refused.code(), refused.err());
    assertEquals("vigil: " + unavailableLine("no space left on device") + "\n", refused.err(),
        "one line naming the cause and the file");
    Cli status = vigil("status");
    assertEquals(5, status.code(), status.out() + status.err());
    assertTrue(status.out().startsWith(unavailableLine("no space left on device") + " (since "), status.out());
    Cli statusJson = vigil("status", "--json");
    assertEquals(5, statusJson.code());
    JsonNode s = JSON.readTree(statusJson.out());
    assertEquals("Unavailable", s.path("kind").asText());
    assertEquals("no space left on device", s.path("store").path("reason").asText());
    assertEquals(home.resolve("vigil.mv.db").toString(), s.path("store").path("file").asText());
    assertTrue(s.path("store").path("sinceWallMs").asLong() <= System.currentTimeMillis());
    java.util.Map<String, String> fields = new java.util.TreeMap<>();
    s.properties().forEach(f -> {
      if (f.getValue().isObject()) {
        f.getValue().properties().forEach(g -> fields.put(f.getKey() + "." + g.getKey(), JsonShapesTest.typeOf(g.getValue())));
      } else {
        fields.put(f.getKey(), JsonShapesTest.typeOf(f.getValue()));
      }
    });
    assertEquals(new java.util.TreeMap<>(JsonShapesTest.shapes().get("store unavailable")), fields,
        "status --json during an outage is documented field by field in CLI.md");
    assertEquals(5, vigil("down").code(), "nothing stops the daemon through its store meanwhile");
    assertEquals(5, vigil("store", "check").code());
    assertTrue(daemon.outage().isPresent());
    JsonNode file = JSON.readTree(Files.readString(home.resolve("daemon.json")));
    assertEquals("STORE_UNAVAILABLE", file.path("state").asText());
    assertEquals("no space left on device", file.path("store").path("reason").asText());

    assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "the worker runs on");
    Files.writeString(go, "go"); // the task ends during the outage
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!Files.exists(done) && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertEquals("finished\n", Files.readString(done), "the task ran to its end during the outage");
    assertTrue(FaultyFileSystem.failedWrites(home) > 0, "the store's writes failed");

    FaultyFileSystem.heal(home);
    untilCode("the daemon answers again by itself", 0, "status");
    assertFalse(daemon.outage().isPresent());
    JsonNode t1 = until("t-1 settles", n -> n.path("state").asText().equals("SUCCEEDED"), "show", "t-1", "--json");
    assertEquals(1, t1.path("attemptsUsed").asInt(), "nothing was run twice: " + t1);
    assertEquals(1, t1.path("runs").size(), t1.toString());
    JsonNode tasks = json("tasks", "--json");
    assertEquals(1, tasks.size(), "the submission refused during the outage left nothing: " + tasks);
    Cli after = vigil("submit", "--", "true");
    assertEquals(0, after.code(), after.err());
    assertEquals("t-2", after.out().trim());
    until("t-2 succeeds", n -> n.path("state").asText().equals("SUCCEEDED"), "show", "t-2", "--json");
  }

  @Test
  void D5_whileTheStoreStaysUnavailable_everyReopenFails_andTheReasonShownFollowsTheCause() throws Exception {
    FaultyFileSystem.failWrites(home, FaultyFileSystem.Fault.IO_ERROR);
    Cli refused = vigil("submit", "--", "true");
    assertEquals(5, refused.code(), refused.err());
    assertTrue(refused.err().contains(unavailableLine("an I/O error")), refused.err());
    JsonNode s = untilUnavailable(n -> n.path("store").path("failedReopenAttempts").asInt() >= 2);
    assertEquals("an I/O error", s.path("store").path("reason").asText());
    Cli watch = vigil("watch", "--once");
    assertEquals(0, watch.code(), watch.err());
    assertTrue(watch.out().contains(unavailableLine("an I/O error") + " (since "), "watch shows it: " + watch.out());
    FaultyFileSystem.failWrites(home, FaultyFileSystem.Fault.NO_SPACE);
    s = untilUnavailable(n -> n.path("store").path("reason").asText().equals("no space left on device"));
    long since = s.path("store").path("sinceWallMs").asLong();
    assertTrue(s.path("store").path("failedReopenAttempts").asInt() >= 3, s.toString());
    FaultyFileSystem.heal(home);
    untilCode("the daemon answers again by itself", 0, "status");
    assertEquals(0, json("tasks", "--json").size(), "nothing was submitted");
    assertTrue(since <= System.currentTimeMillis());
  }

  @Test
  void D5_anEmbeddedCaller_getsUnavailable_andACommandBeforeTheFailureWasAnswered() throws Exception {
    FaultyFileSystem.failWrites(home, FaultyFileSystem.Fault.NO_SPACE);
    java.util.concurrent.CompletableFuture<dev.vigil.supervisor.engine.Reply> f =
        daemon.call(new dev.vigil.supervisor.engine.Command.StatusQuery());
    java.util.concurrent.ExecutionException e = null;
    dev.vigil.supervisor.engine.Reply r = null;
    try {
      r = f.get(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException x) {
      e = x;
    }
    // a status query reads; the first write that fails starts the outage, and every call after it is refused
    Cli refused = vigil("submit", "--", "true");
    assertEquals(5, refused.code(), refused.err());
    java.util.concurrent.ExecutionException later = assertThrows(java.util.concurrent.ExecutionException.class,
        () -> daemon.call(new dev.vigil.supervisor.engine.Command.StatusQuery()).get(30, TimeUnit.SECONDS));
    assertTrue(later.getCause() instanceof Daemon.Unavailable, later.toString());
    assertEquals(unavailableLine("no space left on device"), later.getCause().getMessage());
    assertTrue(r != null || e.getCause() instanceof Daemon.Unavailable, "the first call was answered or refused");
  }

  private JsonNode untilUnavailable(Predicate<JsonNode> done) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PATIENCE_MS);
    while (true) {
      Cli c = vigil("status", "--json");
      assertEquals(5, c.code(), c.out() + c.err());
      JsonNode n = JSON.readTree(c.out());
      if (done.test(n)) {
        return n;
      }
      assertTrue(System.nanoTime() < deadline, "status: " + n);
      Thread.sleep(200);
    }
  }
}
