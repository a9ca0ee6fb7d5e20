package dev.vigil.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runnable jar {@code launcher/target/vigil.jar} as a user runs it: up, submit, wait, show, a
 * {@code kill -9} of the daemon while its task runs, and a second {@code up} that adopts the same
 * worker and collects its outcome, with the command started exactly once.
 */
class VigilJarTest {
  private static final Path JAR = Path.of("..", "launcher", "target", "vigil.jar").toAbsolutePath().normalize();
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path tmp;

  private Path home;

  record Result(int code, String out, String err) {}

  private Result vigil(String... args) throws Exception {
    return vigilFrom(JAR, args);
  }

  private Result vigilFrom(Path jar, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    cmd.addAll(CliArchive.flags(jar));
    cmd.addAll(List.of("-jar", jar.toString(), "--home", home.toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(tmp.resolve("err.txt").toFile());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS));
    return new Result(p.exitValue(), out.trim(), Files.readString(tmp.resolve("err.txt")));
  }

  private JsonNode show(String ticket) throws Exception {
    Result r = vigil("show", ticket, "--json");
    assertEquals(0, r.code(), r.err());
    return JSON.readTree(r.out());
  }

  @AfterEach
  void down() throws Exception {
    if (home != null) {
      vigil("down", "--stop-workers");
    }
  }

  /**
   * A rebuild writes the jar that a running daemon was started from: the daemon and its workers run
   * from copies in the home, so the daemon still answers every command (loading classes it had not
   * needed yet), its running task finishes and a new task starts.
   */
  @Test
  void theJarRewrittenUnderARunningDaemon_changesNothingForTheDaemonOrItsWorkers() throws Exception {
    assertTrue(Files.isRegularFile(JAR), "the runnable jar is built: " + JAR);
    home = tmp.resolve("home");
    Path jar = tmp.resolve("vigil.jar");
    Files.copy(JAR, jar);
    Result up = vigilFrom(jar, "up");
    assertEquals(0, up.code(), up.err());
    Path go = tmp.resolve("go");
    String t1 = vigilFrom(jar, "submit", "--", "sh", "-c", "while [ ! -f '" + go + "' ]; do sleep 0.2; done").out();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (!show(t1).path("runs").path(0).path("state").asText().equals("RUNNING")) {
      assertTrue(System.nanoTime() < deadline, "the task runs");
      Thread.sleep(300);
    }
    try (java.io.OutputStream o = Files.newOutputStream(jar, java.nio.file.StandardOpenOption.TRUNCATE_EXISTING)) {
      o.write("a rebuild in progress".getBytes(StandardCharsets.UTF_8)); // the same file, rewritten in place
    }
    try (var copies = Files.list(home.resolve("lib"))) {
      assertEquals(1, copies.count(), "one build's copies in the home");
    }
    Result runs = vigil("runs");
    assertEquals(0, runs.code(), runs.err());
    assertTrue(runs.out().contains(t1 + ".1"), runs.out());
    assertEquals(0, vigil("events").code(), "the daemon loads what it had not loaded yet from its copy");
    Files.writeString(go, "");
    assertEquals(0, vigil("wait", t1, "--timeout", "90s").code());
    String t2 = vigil("submit", "--", "true").out();
    assertEquals(0, vigil("wait", t2, "--timeout", "90s").code(), "a new worker host starts from the copies");
    assertEquals(1, show(t1).path("runs").size());
  }

  @Test
  void theJar_upSubmitWaitShow_andAKilledDaemonsWorkerIsAdoptedAndRunsOnce() throws Exception {
    assertTrue(Files.isRegularFile(JAR), "the runnable jar is built: " + JAR);
    home = tmp.resolve("home");
    assertTrue(vigil("version").out().startsWith("vigil "));
    Result up = vigil("up");
    assertEquals(0, up.code(), up.err());
    long daemon = Long.parseLong(up.out().substring("pid ".length()));
    String t1 = vigil("submit", "--", "sh", "-c", "echo hello").out();
    assertEquals(0, vigil("wait", t1, "--timeout", "90s").code());
    assertEquals("SUCCEEDED", show(t1).path("state").asText());

    Path starts = tmp.resolve("starts.log");
    String t2 = vigil("submit", "--", "sh", "-c", "echo $$ >> " + starts + "; sleep 5").out();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    JsonNode running = show(t2);
    while (!(running.path("runs").size() == 1 && "RUNNING".equals(running.path("runs").get(0).path("state").asText()))) {
      assertTrue(System.nanoTime() < deadline, "the task runs: " + running);
      Thread.sleep(300);
      running = show(t2);
    }
    long worker = running.path("runs").get(0).path("pid").asLong();
    new ProcessBuilder("kill", "-9", Long.toString(daemon)).start().waitFor();
    while (ProcessHandle.of(daemon).map(ProcessHandle::isAlive).orElse(false)) {
      Thread.sleep(100);
    }
    // --wait-daemon 0: a daemon killed a moment ago is otherwise waited for (it may be restarted)
    assertEquals(4, vigil("--wait-daemon", "0", "status").code(), "no daemon after kill -9");
    assertEquals(0, vigil("up").code());
    assertEquals(worker, show(t2).path("runs").get(0).path("pid").asLong(), "the same worker is adopted");
    assertEquals(0, vigil("wait", t2, "--timeout", "90s").code());
    JsonNode done = show(t2);
    assertEquals(1, done.path("runs").size(), "nothing launched twice");
    assertEquals(1, Files.readAllLines(starts).size(), "the command started exactly once");
  }

}
