package dev.vigil.launcher;

import static dev.vigil.launcher.CliEndToEndTest.json;
import static dev.vigil.launcher.CliEndToEndTest.vigil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.launcher.CliEndToEndTest.Result;
import dev.vigil.launcher.internal.Client;
import dev.vigil.launcher.internal.Home;
import dev.vigil.launcher.internal.Wire;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full disk under a running daemon, end to end: the home is a small tmpfs of its own, each
 * command a JVM of its own, the daemon detached by {@code vigil up}. A filler file takes every free
 * byte while a task runs; the store cannot write, so the daemon refuses new work with one line
 * (exit 5) and keeps the task's worker running; once the filler is gone it opens the store again by
 * itself and the task settles as it ended, in its one attempt (D5).
 *
 * <p>Mounting needs root (as in CI); where it is refused the test is skipped and says why.
 */
@org.junit.jupiter.api.Tag("slow")
class DiskFullCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String UNAVAILABLE = "the store is unavailable: ";
  private static final String RUNNING_ON = "; running work continues; nothing new starts";

  @TempDir
  Path tmp;

  private final List<Path> homes = new ArrayList<>();
  private final List<Long> pids = new ArrayList<>();
  private Path mounted;
  private Path gate;

  @AfterEach
  void cleanup() throws Exception {
    if (gate != null) {
      Files.writeString(gate, "go"); // a task still waiting ends by itself
    }
    if (mounted != null) {
      Files.deleteIfExists(mounted.resolve("filler"));
    }
    for (Path h : homes) {
      vigil(h, "down", "--stop-workers");
    }
    for (long pid : pids) {
      ProcessHandle.of(pid).ifPresent(p -> {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
      });
    }
    if (mounted != null && sh("umount", mounted.toString()).code() != 0) {
      Result lazy = sh("umount", "-l", mounted.toString());
      assertEquals(0, lazy.code(), "umount -l " + mounted + ": " + lazy.out());
    }
  }

  /** Runs a system command to its end; its stdout and stderr together. */
  private static Result sh(String... cmd) throws Exception {
    Process p;
    try {
      p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    } catch (IOException e) {
      return new Result(127, e.getMessage(), "");
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), String.join(" ", cmd) + " finished");
    return new Result(p.exitValue(), out.strip(), "");
  }

  /** A new home (0700) that is a tmpfs of {@code mib} MiB, or the test is skipped when nothing can be mounted here. */
  private Path smallDiskHome(String name, int mib) throws Exception {
    Path home = CliEndToEndTest.ownerOnlyHome(tmp, name, homes);
    Result m = sh("mount", "-t", "tmpfs", "-o", "size=" + mib + "m,mode=0700", "tmpfs", home.toString());
    if (m.code() != 0) {
      homes.remove(home);
      String why = "skipped: cannot mount a tmpfs on " + home + " (" + (m.out().isEmpty() ? "exit " + m.code() : m.out())
          + "); a full disk needs a small file system of its own (root, as in CI)";
      System.out.println("DiskFullCliTest " + why);
      Assumptions.assumeTrue(false, why);
    }
    mounted = home;
    Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwx------"));
    return home;
  }

  /**
   * Writes {@code file} until the file system has no byte left (ENOSPC), then once more after a
   * pause for what others freed meanwhile; returns its size.
   */
  private static long fill(Path file) throws Exception {
    ByteBuffer chunk = ByteBuffer.allocate(1 << 20);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      for (int round = 0; round < 2; round++) {
        try {
          while (true) {
            chunk.clear();
            while (chunk.hasRemaining()) {
              ch.write(chunk);
            }
          }
        } catch (IOException e) {
          assertTrue(String.valueOf(e.getMessage()).contains("No space left"), "the disk is full: " + e);
        }
        chunk = ByteBuffer.allocate(4096);
        Thread.sleep(300);
      }
      return ch.size();
    }
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  /** The daemon's status reply, asked on the socket from this JVM (no JVM start per question). */
  private static JsonNode statusReply(Path home) {
    try (Client c = Client.connect(new Home(home), false, 0)) {
      return c.call("status", Wire.JSON.createObjectNode());
    }
  }

  private static Optional<JsonNode> daemonJson(Path home) {
    try {
      return Optional.of(JSON.readTree(Files.readString(home.resolve("daemon.json"))));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  private static List<String> ids(JsonNode tickets) {
    return StreamSupport.stream(tickets.spliterator(), false).map(t -> t.path("id").asText()).toList();
  }

  @Test
  void aFullDisk_refusesNewWorkWithExit5_keepsTheRunningTask_andTheDaemonComesBackByItselfOnceThereIsRoom()
      throws Exception {
    // the home holds the daemon's copies of its jars too (about 14 MiB when the modules are packaged jars): 48 MiB
    // leaves the store room to work in once the filler is gone
    Path home = smallDiskHome("home", 48);
    gate = tmp.resolve("gate");
    Path config = Files.writeString(tmp.resolve("vigil.json"), """
        { "timeouts": { "heartbeat": "1s", "statusStale": "6s", "reconcile": "1s", "leaseTtl": "5s" } }
        """);
    Result up = vigil(home, "up", "--config", config.toString());
    assertEquals(0, up.code(), up.err());
    long daemon = Long.parseLong(up.line().substring("pid ".length()));
    pids.add(daemon);

    String ticket = vigil(home, "submit", "--", "sh", "-c",
        "while [ ! -e '" + gate + "' ]; do sleep 0.1; done; echo done").line();
    JsonNode running = CliEndToEndTest.poll(home, ticket, t -> t.path("runs").size() == 1
        && "RUNNING".equals(t.path("runs").get(0).path("state").asText()) && t.path("runs").get(0).path("pid").asLong() > 0);
    long worker = running.path("runs").get(0).path("pid").asLong();
    pids.add(worker);
    List<String> before = ids(json(vigil(home, "tasks", "--json")));
    assertEquals(List.of(ticket), before);

    // the disk fills: the daemon's next write fails (the store only appends) and the outage begins,
    // at a renewal or at this very submission, which is refused either way
    long filled = fill(home.resolve("filler"));
    assertTrue(filled >= 4L << 20, "the disk had room before the filler took it (" + filled / 1024 + " KiB): without it the"
        + " store cannot come back when the filler goes, and the test would prove nothing");
    long fullAtMs = System.currentTimeMillis();
    Result submit = vigil(home, "submit", "--", "true");
    assertEquals(5, submit.code(), "a submission is refused while the store is unavailable: " + submit.out() + submit.err());
    assertEquals("", submit.out(), "no ticket");
    assertEquals(1, submit.err().lines().count(), "one line: " + submit.err());
    assertTrue(submit.err().contains(UNAVAILABLE) && submit.err().contains(RUNNING_ON), submit.err());

    Result status = vigil(home, "status");
    assertEquals(5, status.code(), status.out() + status.err());
    assertTrue(status.out().contains(UNAVAILABLE) && status.out().contains(RUNNING_ON)
        && status.out().contains("(since "), "status says since when: " + status.out());

    Result statusJson = vigil(home, "status", "--json");
    assertEquals(5, statusJson.code(), statusJson.err());
    JsonNode outage = JSON.readTree(statusJson.out());
    assertEquals("Unavailable", outage.path("kind").asText(), outage.toString());
    assertTrue(outage.path("message").asText().startsWith(UNAVAILABLE)
        && outage.path("message").asText().endsWith(RUNNING_ON), outage.toString());
    long since = outage.path("store").path("sinceWallMs").asLong();
    assertTrue(since >= fullAtMs - 5_000 && since <= System.currentTimeMillis(), "since the disk filled: " + outage);
    assertEquals(home.resolve("vigil.mv.db").toString(), outage.path("store").path("file").asText(), outage.toString());

    assertTrue(alive(daemon), "the daemon runs on");
    assertTrue(alive(worker), "the task's worker runs on");
    // daemon.json says so while not one byte can be added to the disk: it is rewritten within its own blocks
    long beatDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    JsonNode fullDiskStatus = daemonJson(home).orElse(null);
    while (fullDiskStatus == null || !fullDiskStatus.path("state").asText().equals("STORE_UNAVAILABLE")) {
      assertTrue(System.nanoTime() < beatDeadline, "daemon.json says STORE_UNAVAILABLE on the full disk: " + fullDiskStatus);
      Thread.sleep(50);
      fullDiskStatus = daemonJson(home).orElse(null);
    }
    assertEquals(since, fullDiskStatus.path("store").path("sinceWallMs").asLong(), fullDiskStatus.toString());
    assertEquals(daemon, fullDiskStatus.path("pid").asLong());
    System.out.printf("DiskFullCliTest: filler %d KiB; daemon.json on the full disk says %s, heartbeat %d ms old%n",
        filled / 1024, fullDiskStatus.path("state").asText(),
        System.currentTimeMillis() - fullDiskStatus.path("heartbeat_at").asLong());

    // room again, just after a failed reopen, so that the pause before the next one (2 s or more)
    // holds heartbeats: daemon.json says the store is unavailable, and the task ends meanwhile
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    int attempts = statusReply(home).path("store").path("failedReopenAttempts").asInt();
    while (true) {
      JsonNode r = statusReply(home);
      assertEquals("Unavailable", r.path("kind").asText(), "still unavailable on a full disk: " + r);
      int now = r.path("store").path("failedReopenAttempts").asInt();
      if (now > attempts && now >= 2) {
        break;
      }
      attempts = now;
      assertTrue(System.nanoTime() < deadline, "the daemon tries to reopen the store: " + r);
      Thread.sleep(50);
    }
    Files.delete(home.resolve("filler"));
    long freedAt = System.nanoTime();
    assertTrue(alive(worker), "the task's worker ran on throughout the full disk");
    Files.writeString(gate, "go");

    JsonNode outageStatus = null;
    // the next reopen comes within the longest pause between attempts (15 s), then the boot's recovery: 90 s
    // leaves room for a loaded machine, and costs nothing when the store is back sooner
    deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (statusReply(home).path("kind").asText().equals("Unavailable")) {
      Optional<JsonNode> s = daemonJson(home);
      if (s.isPresent() && s.get().path("state").asText().equals("STORE_UNAVAILABLE")) {
        outageStatus = s.get();
      }
      if (System.nanoTime() >= deadline) {
        Path log = home.resolve("logs").resolve("daemon.log");
        fail("the store is back within 90 s of the filler's removal; daemon.log:\n"
            + (Files.exists(log) ? new String(Files.readAllBytes(log), StandardCharsets.UTF_8) : "(none)"));
      }
      Thread.sleep(50);
    }
    assertTrue(outageStatus != null, "daemon.json said STORE_UNAVAILABLE while the outage lasted with room on the disk");
    assertEquals(since, outageStatus.path("store").path("sinceWallMs").asLong(), outageStatus.toString());
    assertEquals(daemon, outageStatus.path("pid").asLong());

    // the CLI agrees, by itself: no restart, the same daemon
    status = vigil(home, "status");
    assertEquals(0, status.code(), status.out() + status.err());
    double backS = (System.nanoTime() - freedAt) / 1e9;
    assertTrue(alive(daemon), "the same daemon");
    assertEquals(0, vigil(home, "wait", ticket, "--timeout", "60s").code());
    JsonNode t = json(vigil(home, "show", ticket, "--json"));
    assertEquals("SUCCEEDED", t.path("state").asText(), t.toString());
    assertEquals(1, t.path("attemptsUsed").asInt(), "nothing was launched again: " + t);
    assertEquals(1, t.path("runs").size(), t.toString());
    assertEquals(worker, t.path("runs").get(0).path("pid").asLong(), "the run is the one that was running");
    Result logs = vigil(home, "logs", ticket);
    assertEquals(0, logs.code(), logs.err());
    assertEquals("done\n", logs.out(), "its output");
    assertEquals(before, ids(json(vigil(home, "tasks", "--json"))), "the refused submission made no ticket");

    String next = vigil(home, "submit", "--", "sh", "-c", "echo again").line();
    assertNotEquals(ticket, next);
    assertEquals(0, vigil(home, "wait", next, "--timeout", "60s").code());
    assertEquals("SUCCEEDED", json(vigil(home, "show", next, "--json")).path("state").asText());
    assertEquals("again\n", vigil(home, "logs", next).out());

    Result down = vigil(home, "down");
    assertEquals(0, down.code(), down.err());

    // the log names the outage's end (its beginning too, when the full disk let it be written), not every attempt
    // read leniently: a line cut by the full disk may end inside a character
    List<String> outageLines = new String(Files.readAllBytes(home.resolve("logs").resolve("daemon.log")),
        StandardCharsets.UTF_8).lines().filter(l -> l.contains("the store is ")).toList();
    System.out.printf("DiskFullCliTest: back %.1f s after the filler's removal; daemon.log has %d outage lines:%n%s%n",
        backS, outageLines.size(), String.join("\n", outageLines));
    assertEquals(1, outageLines.stream().filter(l -> l.contains("the store is back after")).count(), outageLines.toString());
    assertTrue(outageLines.size() <= 3, "a few lines, not one per attempt: " + outageLines);
  }
}
