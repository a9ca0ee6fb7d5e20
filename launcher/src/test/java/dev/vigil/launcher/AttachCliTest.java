package dev.vigil.launcher;

import static dev.vigil.launcher.CliEndToEndTest.vigil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.launcher.CliEndToEndTest.Result;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vigil attach} on a real daemon with a real service that restores its snapshot (S7): its worker is killed
 * with {@code kill -9} and so is the daemon; each worker that starts over a snapshot stores one notice, said again
 * to the next daemon and stored once; every attach view, the one that followed across both kills and each new one,
 * shows each notice exactly once, with the lifecycle lines and the output lines in order.
 */
@Tag("slow")
class AttachCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;
  private final List<Path> homes = new ArrayList<>();
  private final List<Process> followers = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    followers.forEach(Process::destroyForcibly);
    for (Path h : homes) {
      vigil(h, "down", "--stop-workers");
    }
  }

  @Test
  void S7_eachRestoreNoticeOncePerView_acrossAKill9OfTheWorkerAndOfTheDaemon() throws Exception {
    Path home = CliEndToEndTest.ownerOnlyHome(tmp, "attach", homes);
    Path classes = Path.of(SnapshotCounterType.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    Path config = Files.writeString(tmp.resolve("vigil.json"), """
        {"workerTypes": {"snapshot-counter": {"class": %s, "classpath": [%s]}},
         "services": [{"name": "counter", "type": "snapshot-counter", "payload": {}}]}
        """.formatted(JSON.writeValueAsString(SnapshotCounterType.class.getName()),
        JSON.writeValueAsString(classes.toString())));
    Result up = vigil(home, "up", "--config", config.toString());
    assertEquals(0, up.code(), up.err());
    long daemon = Long.parseLong(up.line().substring("pid ".length()));
    long first = upPid(home, -1);
    awaitOutput(home, "count 3");

    Path followed = tmp.resolve("follow.jsonl");
    Process follower = CliEndToEndTest.start(home, "attach", "counter", "--follow", "--json");
    followers.add(follower);
    Thread pump = pump(follower, followed);

    kill9(first); // its daemon restarts it; the new worker starts over the snapshot
    long second = upPid(home, first);
    List<JsonNode> afterWorkerKill = awaitView(home, v -> restores(v).size() == 1);
    String restore1 = restores(afterWorkerKill).get(0).path("restoreId").asText();
    assertTrue(restores(afterWorkerKill).get(0).path("text").asText().startsWith("counter-"), afterWorkerKill.toString());

    kill9(daemon); // the worker lives on (its daemon is lost) and says its restore again to the next daemon
    Result read = vigil(home, "attach", "counter", "--json");
    assertEquals(0, read.code(), read.err());
    assertTrue(read.err().contains("read from its store"), "without a daemon the store is read: " + read.err());
    assertEquals(1, restores(lines(read.out())).size(), "one notice, read from the store: " + read.out());

    Result again = vigil(home, "up", "--config", config.toString());
    assertEquals(0, again.code(), again.err());
    assertEquals(second, upPid(home, -1), "the new daemon took the worker over");
    List<JsonNode> adopted = awaitView(home, v -> has(v, "ADOPTED"));
    assertEquals(1, restores(adopted).size(), "the restore said again to the new daemon is stored once: " + adopted);
    awaitJournal(home, "\"event\":\"ServiceRestored\"", "\"added\":false");

    kill9(second); // a second restore, stored by the second daemon
    upPid(home, second);
    List<JsonNode> fresh = awaitView(home, v -> restores(v).size() == 2);
    String restore2 = restores(fresh).stream().map(e -> e.path("restoreId").asText())
        .filter(id -> !id.equals(restore1)).findFirst().orElseThrow();
    awaitOutput(home, "starting over counter-");

    List<JsonNode> view = fresh;
    assertEquals(1, count(view, restore1), "a new view shows each notice once: " + view);
    assertEquals(1, count(view, restore2), "a new view shows each notice once: " + view);
    assertTrue(kinds(view).containsAll(List.of("LAUNCHED", "EXITED", "RESTARTING", "ADOPTED", "RESTORED", "OUTPUT")),
        "lifecycle and output lines: " + kinds(view));
    assertOutputInOrder(view);
    assertLaunchBeforeItsRestore(view);

    awaitFile(followed, v -> restores(v).size() == 2 && has(v, "ADOPTED"));
    follower.destroy();
    follower.waitFor(30, TimeUnit.SECONDS);
    pump.join(10_000);
    List<JsonNode> live = lines(Files.readString(followed));
    assertEquals(1, count(live, restore1), "the view that followed across both kills showed each notice once: " + live);
    assertEquals(1, count(live, restore2), "the view that followed across both kills showed each notice once: " + live);
    assertTrue(kinds(live).containsAll(List.of("EXITED", "RESTARTING", "LAUNCHED", "ADOPTED", "OUTPUT")), kinds(live).toString());
    assertOutputInOrder(live);

    Result text = vigil(home, "attach", "counter");
    assertEquals(0, text.code(), text.err());
    assertEquals(2, text.out().lines().filter(l -> l.startsWith("-- ") && l.contains(" restored from snapshot counter-"))
        .count(), text.out());
    assertTrue(text.out().lines().anyMatch(l -> l.startsWith("-- ") && l.contains(" taken over by a new daemon")), text.out());
    assertTrue(text.out().lines().anyMatch(l -> l.startsWith("count ")), text.out());

    Result unknown = vigil(home, "attach", "nosuch");
    assertEquals(2, unknown.code(), unknown.out() + unknown.err());
    assertTrue(unknown.err().contains("nosuch") && unknown.err().strip().lines().count() == 1, unknown.err());
    Result bad = vigil(home, "attach", "Bad Name");
    assertEquals(2, bad.code(), bad.err());
  }

  /** The service's worker pid once it is up with a pid other than {@code not}. */
  private static long upPid(Path home, long not) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      Result r = vigil(home, "services", "--json");
      if (r.code() == 0) {
        for (JsonNode s : JSON.readTree(r.out())) {
          if (s.path("name").asText().equals("counter") && s.path("state").asText().equals("UP") && s.path("pid").isNumber()
              && s.path("pid").asLong() != not) {
            return s.path("pid").asLong();
          }
        }
      }
      assertTrue(System.nanoTime() < deadline, "service counter came up: " + r.out() + r.err());
      Thread.sleep(200);
    }
  }

  private static void kill9(long pid) throws Exception {
    assertTrue(pid > 1 && pid != ProcessHandle.current().pid(), "not a process to kill: " + pid); // kill -9 0 would end this group
    assertEquals(0, new ProcessBuilder("kill", "-9", Long.toString(pid)).start().waitFor());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
      assertTrue(System.nanoTime() < deadline, "pid " + pid + " died");
      Thread.sleep(50);
    }
  }

  private static void awaitOutput(Path home, String text) throws Exception {
    Path log = home.resolve("runs").resolve("s-counter").resolve("stdout.log");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!Files.exists(log) || !Files.readString(log).contains(text)) {
      assertTrue(System.nanoTime() < deadline, "the service wrote " + text);
      Thread.sleep(100);
    }
  }

  private static void awaitJournal(Path home, String... parts) throws Exception {
    Path journal = home.resolve("logs").resolve("journal.jsonl");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      if (Files.exists(journal) && Files.readAllLines(journal).stream().anyMatch(l -> List.of(parts).stream()
          .allMatch(l::contains))) {
        return;
      }
      assertTrue(System.nanoTime() < deadline, "the journal records " + List.of(parts));
      Thread.sleep(200);
    }
  }

  /** A new view ({@code vigil attach --json}) once it satisfies {@code until}. */
  private static List<JsonNode> awaitView(Path home, Predicate<List<JsonNode>> until) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      Result r = vigil(home, "attach", "counter", "--json");
      List<JsonNode> v = r.code() == 0 ? lines(r.out()) : List.of();
      if (until.test(v)) {
        return v;
      }
      assertTrue(System.nanoTime() < deadline, "the view came to what was awaited: " + r.out() + r.err());
      Thread.sleep(300);
    }
  }

  private static void awaitFile(Path file, Predicate<List<JsonNode>> until) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      List<JsonNode> v = Files.exists(file) ? lines(completeLines(Files.readString(file))) : List.of();
      if (until.test(v)) {
        return;
      }
      assertTrue(System.nanoTime() < deadline, "the following view came to what was awaited: " + v);
      Thread.sleep(300);
    }
  }

  private static String completeLines(String s) {
    int end = s.lastIndexOf('\n');
    return end < 0 ? "" : s.substring(0, end + 1);
  }

  private static Thread pump(Process p, Path to) {
    Thread t = new Thread(() -> {
      try (var in = p.getInputStream(); var out = Files.newOutputStream(to)) {
        byte[] buf = new byte[8192];
        for (int n; (n = in.read(buf)) > 0; ) {
          out.write(buf, 0, n);
          out.flush();
        }
      } catch (java.io.IOException e) {
        // the follower ended
      }
    });
    t.setDaemon(true);
    t.start();
    Thread err = new Thread(() -> {
      try {
        p.getErrorStream().transferTo(java.io.OutputStream.nullOutputStream());
      } catch (java.io.IOException e) {
        // the follower ended
      }
    });
    err.setDaemon(true);
    err.start();
    return t;
  }

  private static List<JsonNode> lines(String out) throws Exception {
    List<JsonNode> v = new ArrayList<>();
    for (String l : out.split("\n")) {
      if (!l.isBlank()) {
        v.add(JSON.readTree(l.getBytes(StandardCharsets.UTF_8)));
      }
    }
    return v;
  }

  private static List<JsonNode> restores(List<JsonNode> v) {
    return v.stream().filter(e -> e.path("kind").asText().equals("RESTORED")).toList();
  }

  private static boolean has(List<JsonNode> v, String kind) {
    return v.stream().anyMatch(e -> e.path("kind").asText().equals(kind));
  }

  private static long count(List<JsonNode> v, String restoreId) {
    return v.stream().filter(e -> restoreId.equals(e.path("restoreId").asText(null))).count();
  }

  private static List<String> kinds(List<JsonNode> v) {
    return v.stream().map(e -> e.path("kind").asText()).distinct().toList();
  }

  /** Output lines come in the order written: each worker counts up from where its snapshot left it. */
  private static void assertOutputInOrder(List<JsonNode> v) {
    long last = 0;
    Map<Long, Integer> seen = new HashMap<>();
    for (JsonNode e : v) {
      String text = e.path("text").asText();
      if (e.path("kind").asText().equals("OUTPUT") && text.startsWith("count ")) {
        long n = Long.parseLong(text.substring("count ".length()));
        assertTrue(n >= last - 2, "counts go on from the snapshot (a kill -9 may lose the last line or two): " + n
            + " after " + last);
        seen.merge(n, 1, Integer::sum);
        last = n;
      }
    }
    assertTrue(seen.size() >= 3, "output lines were shown: " + v);
  }

  /** A restore notice comes after the launch of the worker that restored, and its output mark is not before it. */
  private static void assertLaunchBeforeItsRestore(List<JsonNode> v) {
    long launchMark = -1;
    for (JsonNode e : v) {
      String kind = e.path("kind").asText();
      if (kind.equals("LAUNCHED")) {
        launchMark = e.path("outputAt").asLong();
      } else if (kind.equals("RESTORED")) {
        assertTrue(launchMark >= 0 && e.path("outputAt").asLong() >= launchMark, "a restore follows its launch: " + v);
      }
    }
  }
}
