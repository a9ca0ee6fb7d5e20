package dev.vigil.launcher;

import static dev.vigil.launcher.CliEndToEndTest.json;
import static dev.vigil.launcher.CliEndToEndTest.vigil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recurring schedules end to end (Q15): {@code vigil schedule} against a daemon of {@code vigil up} on
 * real processes and a real H2 file, the daemon killed with {@code kill -9} across fire times and started
 * again; what {@code schedule list} and {@code status} show; a schedule from the configuration file; bad
 * input refused with one line, changing nothing.
 */
class ScheduleCliTest {
  @TempDir
  Path tmp;

  private final List<Path> homes = new ArrayList<>();

  @AfterEach
  void stopDaemons() throws Exception {
    for (Path h : homes) {
      vigil(h, "down", "--stop-workers");
    }
  }

  /** The fire times of a schedule's tasks, in order; fails if a fire has two tasks. */
  private static TreeSet<Long> fires(Path home, String schedule) throws Exception {
    JsonNode tasks = json(vigil(home, "tasks", "--label", "schedule=" + schedule, "--json"));
    TreeSet<Long> out = new TreeSet<>();
    for (JsonNode t : tasks) {
      long fire = Instant.parse(t.path("labels").path("fire").asText()).toEpochMilli();
      assertTrue(out.add(fire), "Q15 fire " + Instant.ofEpochMilli(fire) + " of " + schedule + " has two tasks: " + tasks);
    }
    return out;
  }

  private static void await(long pid) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
  }

  @Test
  void Q15_aDaemonKilledAcrossFireTimes_startsEachFireOnce_andCatchesUpAsEachScheduleSays() throws Exception {
    Path home = CliEndToEndTest.ownerOnlyHome(tmp, "fires", homes);
    Path config = tmp.resolve("vigil.json");
    Files.writeString(config, """
        {"lanes": {"default": {"concurrency": 8}},
         "schedules": [{"name": "from-file", "cron": "*/2 * * * * ?", "zone": "UTC", "catchUp": "all",
                        "overlap": "parallel", "payload": {"argv": ["true"]}}]}""");
    long daemon = Long.parseLong(vigil(home, "up", "--config", config.toString()).line().substring(4));
    CliEndToEndTest.Result added = vigil(home, "schedule", "add", "latest", "--cron", "* * * * * ?", "--zone", "UTC",
        "--overlap", "parallel", "--", "true");
    assertEquals(0, added.code(), added.err());
    assertTrue(added.line().startsWith("schedule latest added; next fire "), added.out());
    assertEquals(0, vigil(home, "schedule", "add", "skipper", "--cron", "* * * * * ?", "--", "sleep", "3").code());
    assertEquals(0, vigil(home, "schedule", "add", "dropper", "--cron", "* * * * * ?", "--catch-up", "none",
        "--overlap", "parallel", "--", "true").code());
    Thread.sleep(4_000);

    long killedAt = System.currentTimeMillis();
    new ProcessBuilder("kill", "-9", Long.toString(daemon)).start().waitFor();
    await(daemon);
    Thread.sleep(5_000); // fires of every schedule pass while no daemon runs
    long restartedAt = System.currentTimeMillis();
    assertEquals(0, vigil(home, "up", "--config", config.toString()).code());
    Thread.sleep(4_000);
    for (String s : List.of("latest", "skipper", "dropper", "from-file")) {
      CliEndToEndTest.Result paused = vigil(home, "schedule", "pause", s);
      assertEquals(0, paused.code(), paused.err());
      assertEquals("schedule " + s + " paused: it starts nothing until resumed", paused.line());
    }

    // catch-up all, parallel: every fire every 2 s has exactly one task, those during the kill included
    TreeSet<Long> all = fires(home, "from-file");
    assertTrue(all.first() < killedAt && all.last() > restartedAt, "from-file fired before and after the kill: " + all);
    for (long f = all.first(); f <= all.last(); f += 2_000) {
      assertTrue(all.contains(f), "Q15 fire " + Instant.ofEpochMilli(f) + " of from-file (catch-up all) has no task: " + all);
    }
    // catch-up latest: of the fires while no daemon ran, one task (the latest)
    TreeSet<Long> latest = fires(home, "latest");
    long inOutage = latest.stream().filter(f -> f > killedAt + 1_000 && f < restartedAt - 1_000).count();
    assertTrue(latest.size() >= 4, "latest fired: " + latest);
    assertTrue(inOutage <= 1, "Q15 catch-up latest started " + inOutage + " of the fires while no daemon ran: " + latest);
    // catch-up none: none of the fires that were missed by more than a minute; here all were late by seconds only,
    // so the latest on-time fire starts, and no fire twice
    TreeSet<Long> dropper = fires(home, "dropper");
    assertTrue(dropper.stream().filter(f -> f > killedAt + 1_000 && f < restartedAt - 1_000).count() <= 1, "" + dropper);
    // overlap skip: no fire while the previous 3-second task is waiting or running
    List<Long> skipper = new ArrayList<>(fires(home, "skipper"));
    assertTrue(skipper.size() >= 2, "skipper fired: " + skipper);
    for (int i = 1; i < skipper.size(); i++) {
      assertTrue(skipper.get(i) - skipper.get(i - 1) >= 3_000, "Q15 overlap skip started a fire while its previous task "
          + "ran: " + skipper);
    }

    JsonNode list = json(vigil(home, "schedule", "list", "--json"));
    assertEquals(4, list.size(), list.toString());
    for (JsonNode s : list) {
      assertTrue(s.path("paused").asBoolean(), s.toString());
      assertTrue(s.path("nextFireMs").isNull(), "a paused schedule has no next fire: " + s);
      assertTrue(s.path("lastTicket").path("id").asText().matches("t-[0-9]+"), s.toString());
    }
    assertTrue(list.findValues("origin").stream().anyMatch(n -> n.asText().equals("config")), list.toString());
    String text = vigil(home, "schedule", "list").out();
    assertTrue(text.lines().anyMatch(l -> l.startsWith("from-file  '*/2 * * * * ?' UTC, catch-up all, overlap parallel: "
        + "paused") && l.matches(".*; last t-[0-9]+ \\(fired [-0-9]+ [:0-9]+ \\([0-9hms]+ ago\\)\\) "
        + "(waiting|running|succeeded|failed|held|cancelled).*") && l.endsWith("[from the configuration]")), text);
    String status = vigil(home, "status").out();
    assertTrue(status.contains("Schedules (4):"), status);
    assertEquals(4, json(vigil(home, "status", "--json")).path("schedules").size());

    CliEndToEndTest.Result resumed = vigil(home, "schedule", "resume", "latest");
    assertEquals("schedule latest resumed: fires from now on start tasks; those it missed while paused do not",
        resumed.line());
    CliEndToEndTest.Result rmFile = vigil(home, "schedule", "rm", "from-file");
    assertEquals(3, rmFile.code(), rmFile.out());
    assertTrue(rmFile.err().contains("defined in the daemon's configuration file"), rmFile.err());
    CliEndToEndTest.Result rm = vigil(home, "schedule", "rm", "dropper");
    assertEquals(0, rm.code(), rm.err());
    assertEquals(3, json(vigil(home, "schedule", "list", "--json")).size());
    assertEquals(dropper, fires(home, "dropper"), "a removed schedule's tasks stay");
  }

  @Test
  void badScheduleInputIsRefusedWithOneLine_andChangesNothing() throws Exception {
    Path home = CliEndToEndTest.ownerOnlyHome(tmp, "bad", homes);
    assertEquals(0, vigil(home, "up").code());
    String[][] bad = {
        {"schedule", "add", "x", "--cron", "61 * * * *", "--", "true"},
        {"schedule", "add", "x", "--cron", "0 3 * *", "--", "true"},
        {"schedule", "add", "x", "--cron", "0 3 * * *", "--zone", "Mars/Olympus", "--", "true"},
        {"schedule", "add", "x", "--cron", "0 3 * * *", "--catch-up", "some", "--", "true"},
        {"schedule", "add", "x", "--cron", "0 3 * * *", "--overlap", "both", "--", "true"},
        {"schedule", "add", "Bad Name", "--cron", "0 3 * * *", "--", "true"},
        {"schedule", "add", "x", "--cron", "0 3 * * *", "--lane", "nosuch", "--", "true"},
        {"schedule", "add", "x", "--cron", "0 3 * * *", "--label", "fire=now", "--", "true"},
        {"schedule", "add", "x", "--cron", "0 3 * * *"},
        {"schedule", "add", "x", "--", "true"},
        {"schedule", "rm", "nosuch"},
        {"schedule", "pause", "nosuch"},
        {"schedule"}};
    for (String[] args : bad) {
      CliEndToEndTest.Result r = vigil(home, args);
      assertEquals(2, r.code(), String.join(" ", args) + ": " + r.out() + r.err());
      assertEquals(1, r.err().lines().count(), String.join(" ", args) + ": one line: " + r.err());
      assertTrue(r.err().startsWith("vigil: "), r.err());
    }
    assertEquals(0, json(vigil(home, "schedule", "list", "--json")).size(), "nothing was added");
    assertEquals(0, vigil(home, "schedule", "add", "x", "--cron", "0 3 * * *", "--", "true").code());
    CliEndToEndTest.Result twice = vigil(home, "schedule", "add", "x", "--cron", "0 4 * * *", "--", "true");
    assertEquals(3, twice.code(), twice.err());
    assertTrue(twice.err().contains("schedule x exists already"), twice.err());
    JsonNode only = json(vigil(home, "schedule", "list", "--json"));
    assertEquals("0 3 * * *", only.get(0).path("cron").asText(), "the first definition stands");
    assertFalse(only.get(0).path("paused").asBoolean());
    assertEquals("no such schedule nosuch", vigil(home, "schedule", "rm", "nosuch").err().trim().substring("vigil: ".length()));
  }
}
