package dev.vigil.launcher;

import static dev.vigil.launcher.CliEndToEndTest.json;
import static dev.vigil.launcher.CliEndToEndTest.poll;
import static dev.vigil.launcher.CliEndToEndTest.vigil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.launcher.CliEndToEndTest.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vigil prune} end to end on a real daemon (Q18): a dry run changes nothing; a prune deletes only
 * finished tasks, their runs and their run directories, never a task that waits, runs or is held, nor one
 * that a waiting task needs; a prune job whose daemon is killed with {@code kill -9} between the store's
 * deletion and the directories' removal is taken over by the next daemon and finishes once.
 */
@Tag("slow")
class PruneCliTest {
  @TempDir Path tmp;
  private final List<Path> homes = new ArrayList<>();

  @AfterEach
  void stopDaemons() throws Exception {
    for (Path h : homes) {
      vigil(h, "down", "--stop-workers");
    }
  }

  private static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  private static void succeeded(Path home, String t) throws Exception {
    poll(home, t, n -> n.path("state").asText().equals("SUCCEEDED"));
  }

  @Test
  void Q18_aDryRunChangesNothing_aPruneDeletesOnlyFinishedTasksAndTheirRunDirectories() throws Exception {
    Path home = CliEndToEndTest.ownerOnlyHome(tmp, "prune", homes);
    Path go = tmp.resolve("go");
    assertEquals(0, vigil(home, "up").code());
    String done = vigil(home, "submit", "--", "true").line();
    succeeded(home, done);
    String running = vigil(home, "submit", "--", "sh", "-c", "while [ ! -f '" + go + "' ]; do sleep 0.2; done").line();
    String waiting = vigil(home, "submit", "--after", running, "--", "true").line();
    String old = vigil(home, "submit", "--", "true").line();
    succeeded(home, old);
    String needed = vigil(home, "submit", "--", "true").line();
    succeeded(home, needed);
    String dependent = vigil(home, "submit", "--after", needed, "--after", running, "--", "true").line();
    JsonNode live = poll(home, running, n -> n.path("runs").size() == 1
        && n.path("runs").get(0).path("state").asText().equals("RUNNING"));
    long pid = live.path("runs").get(0).path("pid").asLong();

    Result bad = vigil(home, "prune", "--older-than", "banana");
    assertEquals(2, bad.code(), bad.err());
    assertEquals("vigil: --older-than 'banana': not an age (like 30d, 12h or 90m)", bad.err().trim());

    JsonNode dry = json(vigil(home, "prune", "--older-than", "0s", "--dry-run", "--json"));
    assertTrue(dry.path("dryRun").asBoolean());
    assertEquals(List.of(done, old), texts(dry.path("tickets")), "only finished tasks no waiting task needs: " + dry);
    assertEquals(List.of(done + ".1", old + ".1"), texts(dry.path("directories")));
    assertEquals(1, dry.path("kept").path("linked").asInt(), "the prerequisite of a waiting task stays: " + dry);
    assertTrue(Files.isDirectory(home.resolve("runs").resolve(done + ".1")), "a dry run removes nothing");
    assertEquals(0, vigil(home, "show", done).code(), "a dry run deletes nothing");
    String text = vigil(home, "prune", "--older-than", "0s", "--dry-run").out();
    assertTrue(text.startsWith("would prune 2 tasks (" + done + ", " + old + ") and 2 runs"), text);
    assertTrue(text.contains("nothing was changed (a dry run)"), text);

    Result real = vigil(home, "prune", "--older-than", "0s", "--json");
    assertEquals(0, real.code(), real.err());
    JsonNode r = json(real);
    assertEquals(List.of(done, old), texts(r.path("tickets")), r.toString());
    assertEquals(List.of(done + ".1", old + ".1"), texts(r.path("directories")));
    assertFalse(Files.exists(home.resolve("runs").resolve(done + ".1")), "its run directory is removed");
    assertFalse(Files.exists(home.resolve("runs").resolve(old + ".1")));
    assertEquals(2, vigil(home, "show", done).code(), "a pruned task is gone");
    assertEquals(2, vigil(home, "show", old).code());
    for (String stays : List.of(running, waiting, needed, dependent)) {
      assertEquals(0, vigil(home, "show", stays).code(), stays + " stays");
    }
    assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "the running task runs on");
    assertTrue(Files.isDirectory(home.resolve("runs").resolve(running + ".1")), "a live run's directory stays");
    JsonNode jobs = json(vigil(home, "status", "--json")).path("maintenance").path("jobs");
    assertEquals("prune", jobs.get(0).path("job").asText(), jobs.toString());
    assertEquals("2 tasks and 2 runs deleted; 2 run directories removed (" + r.path("bytes").asLong() + " bytes)",
        jobs.get(0).path("summary").asText());
    assertTrue(vigil(home, "status").out().contains("Maintenance:\n  prune last ran "), "status says when it ran");

    Files.writeString(go, "");
    succeeded(home, dependent);
    JsonNode again = json(vigil(home, "prune", "--older-than", "0s", "--dry-run", "--json"));
    assertTrue(texts(again.path("tickets")).containsAll(List.of(running, waiting, needed, dependent)),
        "once all are finished the linked tasks go together: " + again);
  }

  @Test
  void Q18_aPruneJobCutByKill9OfItsDaemon_isTakenOverByTheNextDaemon_andFinishesOnce() throws Exception {
    Path home = CliEndToEndTest.ownerOnlyHome(tmp, "prune-kill", homes);
    Result up = vigil(home, "up");
    assertEquals(0, up.code(), up.err());
    long daemon = Long.parseLong(up.line().substring("pid ".length()));
    List<String> finished = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      finished.add(vigil(home, "submit", "--", "sh", "-c", "echo out " + i).line());
    }
    for (String t : finished) {
      succeeded(home, t);
    }
    // the job vigil prune queues, made to wait between the store's deletion and the directories' removal
    String job = vigil(home, "submit", "--lane", "vigil-maintenance", "--type", "vigil-maintenance", "--payload",
        "{\"job\": \"prune\", \"olderThanMs\": 0, \"pauseBeforeRemovalMs\": 6000}").line();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (vigil(home, "show", finished.get(0)).code() == 0) {
      assertTrue(System.nanoTime() < deadline, "the job pruned the finished tasks");
      Thread.sleep(200);
    }
    for (String t : finished) {
      assertTrue(Files.isDirectory(home.resolve("runs").resolve(t + ".1")), "not removed yet: " + t);
    }
    JsonNode running = json(vigil(home, "show", job, "--json"));
    assertEquals("RUNNING", running.path("runs").get(0).path("state").asText(), running.toString());
    long worker = running.path("runs").get(0).path("pid").asLong();

    assertEquals(0, new ProcessBuilder("kill", "-9", Long.toString(daemon)).start().waitFor());
    long gone = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (ProcessHandle.of(daemon).map(ProcessHandle::isAlive).orElse(false)) {
      assertTrue(System.nanoTime() < gone, "the daemon died");
      Thread.sleep(50);
    }
    Result again = vigil(home, "up");
    assertEquals(0, again.code(), again.err());

    JsonNode t = poll(home, job, n -> n.path("state").asText().equals("SUCCEEDED"));
    assertEquals(1, t.path("runs").size(), "the job ran once, taken over, never started again: " + t);
    assertEquals(worker, t.path("runs").get(0).path("pid").asLong(), "the same worker process finished it");
    JsonNode result = t.path("runs").get(0).path("result");
    assertEquals(finished, texts(result.path("tickets")), result.toString());
    for (String f : finished) {
      assertFalse(Files.exists(home.resolve("runs").resolve(f + ".1")), "removed after the restart: " + f);
    }
    assertEquals(List.of(), texts(json(vigil(home, "prune", "--older-than", "1h", "--dry-run", "--json"))
        .path("directories")), "no directory is left listed");
    JsonNode jobs = json(vigil(home, "status", "--json")).path("maintenance").path("jobs");
    assertEquals("3 tasks and 3 runs deleted; 3 run directories removed (" + result.path("bytes").asLong() + " bytes)",
        jobs.get(0).path("summary").asText(), jobs.toString());
  }
}
