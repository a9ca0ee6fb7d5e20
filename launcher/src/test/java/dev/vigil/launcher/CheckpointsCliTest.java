package dev.vigil.launcher;

import static dev.vigil.launcher.CliEndToEndTest.json;
import static dev.vigil.launcher.CliEndToEndTest.poll;
import static dev.vigil.launcher.CliEndToEndTest.vigil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.launcher.CliEndToEndTest.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Q17 end to end on a real daemon started by {@code vigil up}, with real worker processes running
 * {@code resume.Steps} ({@link CheckpointTypes}) under two names, {@code steps} (resumable) and
 * {@code steps-plain} (not): a worker killed with {@code kill -9} is followed by an attempt that resumes from
 * its latest checkpoint; a checkpoint saved while the daemon was dead after its own {@code kill -9}, by a
 * worker then killed too, is the one the next daemon hands on; {@code vigil run --resume} starts a ticket that
 * would resume and refuses, changing nothing, one whose type is not resumable or that keeps no checkpoint.
 */
@Tag("slow")
class CheckpointsCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path tmp;

  private final List<Path> homes = new ArrayList<>();

  @AfterEach
  void stopDaemons() throws Exception {
    for (Path h : homes) {
      vigil(h, "down", "--stop-workers");
    }
  }

  private Path config(Path classes) throws Exception {
    String type = "{\"class\": \"" + CheckpointTypes.STEPS + "\", \"classpath\": [\"" + classes + "\"]";
    return Files.writeString(tmp.resolve("vigil.json"), "{\"retry\": {\"backoffBase\": \"200ms\"}, \"workerTypes\": {"
        + "\"steps\": " + type + ", \"resumable\": true}, \"steps-plain\": " + type + "}}}");
  }

  private static String submit(Path home, String type, int steps, Path dir) throws Exception {
    Files.createDirectories(dir);
    Result r = vigil(home, "submit", "--type", type, "--max-attempts", "5", "--payload",
        JSON.writeValueAsString(Map.of("steps", steps, "dir", dir.toString())));
    assertEquals(0, r.code(), r.err());
    return r.line();
  }

  private static JsonNode running(Path home, String ticket, int runs) throws Exception {
    return poll(home, ticket, t -> t.path("runs").size() == runs
        && "RUNNING".equals(t.path("runs").get(runs - 1).path("state").asText()));
  }

  private static void go(Path dir, int step) throws Exception {
    Files.createFile(dir.resolve("go-" + step));
    awaitFile(dir.resolve("saved-" + step));
  }

  @Test
  void Q17_anAttemptResumesFromTheLatestCheckpoint_afterKill9OfTheWorker_andOfTheDaemon() throws Exception {
    Path classes = CheckpointTypes.compileInto(tmp.resolve("classes"));
    Path home = CliEndToEndTest.ownerOnlyHome(tmp, "h", homes);
    Path config = config(classes);
    long daemon1 = Long.parseLong(vigil(home, "up", "--config", config.toString()).line().substring(4));
    Path dir = tmp.resolve("a");
    String ticket = submit(home, "steps", 4, dir);

    // attempt 1 saves checkpoints 1 and 2, and its worker is killed
    long worker1 = running(home, ticket, 1).path("runs").get(0).path("pid").asLong();
    go(dir, 1);
    go(dir, 2);
    kill9(worker1);
    JsonNode second = running(home, ticket, 2);
    JsonNode kept = second.path("checkpoint");
    assertEquals(ticket + ".1", kept.path("run").asText(), second.toString());
    assertEquals(2, kept.path("seq").asInt(), "Q17: the latest checkpoint, never an older one: " + kept);
    assertEquals(2, kept.path("value").asInt());
    assertEquals(1, kept.path("bytes").asInt());
    assertEquals("LOST", second.path("runs").get(0).path("verdict").asText());
    awaitLines(dir.resolve("starts"), List.of(ticket + ".1 from 0", ticket + ".2 from 2"));

    // attempt 2 saves checkpoint 3 while no daemon runs, then its worker is killed too
    long worker2 = second.path("runs").get(1).path("pid").asLong();
    kill9(daemon1);
    assertEquals(4, vigil(home, "--wait-daemon", "0", "status").code(), "no daemon after kill -9");
    go(dir, 3);
    kill9(worker2);
    assertEquals(0, vigil(home, "up", "--config", config.toString()).code());
    running(home, ticket, 3);
    awaitLines(dir.resolve("starts"), List.of(ticket + ".1 from 0", ticket + ".2 from 2", ticket + ".3 from 3"));
    go(dir, 4);
    assertEquals(0, vigil(home, "wait", ticket, "--timeout", "90s").code());
    JsonNode done = json(vigil(home, "show", ticket, "--json"));
    assertEquals("RECOVERY", done.path("runs").get(1).path("exitOwner").path("role").asText(),
        "attempt 2 was settled by the next daemon's recovery, from its run directory: " + done);
    assertEquals(JSON.readTree("{\"steps\":4,\"resumedFrom\":3}"), done.path("runs").get(2).path("result"));
    assertEquals(4, done.path("checkpoint").path("value").asInt(), "the last step of the last attempt");
    assertEquals(1, done.path("checkpoint").path("seq").asInt(), "numbered within its run: " + done);
    assertEquals(ticket + ".3", done.path("checkpoint").path("run").asText());
    Result view = vigil(home, "show", ticket);
    assertTrue(view.out().contains("\n  checkpoint   the last one " + ticket + ".3 saved, kept since "), view.out());
    assertTrue(view.out().contains(", 1 byte: a resumable type's next attempt starts from it\n"), view.out());
  }

  @Test
  void Q17_runResume_startsOnlyATicketThatWouldResume_andOtherwiseSaysWhyAndChangesNothing() throws Exception {
    Path classes = CheckpointTypes.compileInto(tmp.resolve("classes"));
    Path home = CliEndToEndTest.ownerOnlyHome(tmp, "h", homes);
    assertEquals(0, vigil(home, "up", "--config", config(classes).toString()).code());
    assertEquals(0, vigil(home, "pause").code());
    Path bDir = tmp.resolve("b");
    Path cDir = tmp.resolve("c");
    String b = submit(home, "steps", 2, bDir);
    String c = submit(home, "steps-plain", 2, cDir);

    Result none = vigil(home, "run", "--resume", b);
    assertEquals(3, none.code(), none.err());
    assertEquals("vigil: denied: ticket " + b + " would start over, not resume: no earlier run of it saved a checkpoint; "
        + "nothing was started (vigil run " + b + " starts it over)", none.err().strip());
    Result plain = vigil(home, "run", "--resume", c);
    assertEquals(3, plain.code(), plain.err());
    assertTrue(plain.err().strip().startsWith("vigil: denied: ticket " + c + " would start over, not resume: its worker type "
        + "'steps-plain' is not resumable"), plain.err());
    assertEquals(1, plain.err().strip().lines().count(), plain.err());
    for (String t : List.of(b, c)) {
      JsonNode unchanged = json(vigil(home, "show", t, "--json"));
      assertEquals("READY", unchanged.path("state").asText(), "nothing changed: " + unchanged);
      assertEquals(0, unchanged.path("runs").size(), "nothing started: " + unchanged);
      assertTrue(unchanged.path("checkpoint").isNull(), unchanged.toString());
    }

    // a plain hand start saves checkpoint 1 and is killed: its ticket is held (by hand), then released
    Process first = CliEndToEndTest.start(home, "run", b);
    long worker = running(home, b, 1).path("runs").get(0).path("pid").asLong();
    go(bDir, 1);
    kill9(worker);
    assertEquals(1, CliEndToEndTest.finish(first).code());
    poll(home, b, t -> "HELD".equals(t.path("state").asText()));
    assertEquals(0, vigil(home, "release", b).code());
    Files.createFile(bDir.resolve("go-2"));
    Result resumed = vigil(home, "run", "--resume", b);
    assertEquals(0, resumed.code(), resumed.err());
    assertTrue(resumed.err().contains(b + ".2 started by hand (attempt 2), resuming from checkpoint 1 of " + b + ".1"),
        resumed.err());
    assertEquals(List.of(b + ".1 from 0", b + ".2 from 1"), Files.readAllLines(bDir.resolve("starts")));
    JsonNode done = json(vigil(home, "show", b, "--json"));
    assertEquals("SUCCEEDED", done.path("state").asText());
    assertEquals(2, done.path("checkpoint").path("value").asInt());
    assertEquals(b + ".2", done.path("checkpoint").path("run").asText());
  }

  private static void kill9(long pid) throws Exception {
    assertTrue(pid > 1 && pid != ProcessHandle.current().pid(), "not a process to kill: " + pid); // kill -9 0 would end this group
    new ProcessBuilder("kill", "-9", Long.toString(pid)).start().waitFor();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
      assertTrue(System.nanoTime() < deadline, "process " + pid + " ended in time");
      Thread.sleep(50);
    }
  }

  private static void awaitFile(Path file) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (!Files.exists(file)) {
      assertTrue(System.nanoTime() < deadline, file + " appeared in time");
      Thread.sleep(50);
    }
  }

  private static void awaitLines(Path file, List<String> lines) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (!Files.exists(file) || !Files.readAllLines(file).equals(lines)) {
      assertTrue(System.nanoTime() < deadline, file + " holds " + lines + " in time: "
          + (Files.exists(file) ? Files.readAllLines(file) : "none"));
      Thread.sleep(50);
    }
  }
}
