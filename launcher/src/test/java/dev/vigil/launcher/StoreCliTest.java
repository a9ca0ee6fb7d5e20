package dev.vigil.launcher;

import static dev.vigil.launcher.CliEndToEndTest.json;
import static dev.vigil.launcher.CliEndToEndTest.vigil;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.coordination.Snapshot;
import dev.vigil.coordination.h2.H2Coordination;
import dev.vigil.coordination.h2.H2Maintenance;
import dev.vigil.coordination.h2.H2Options;
import dev.vigil.coordination.h2.StoreCheck;
import dev.vigil.coordination.law.CoordinationInvariants;
import dev.vigil.launcher.CliEndToEndTest.Result;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vigil store check|backup|restore|recover} and {@code vigil up} on damaged stores, end to
 * end: each command a JVM of its own, daemons detached by {@code vigil up}, real H2 files damaged
 * on disk (a 4 KiB block overwritten where it hits the tasks' rows, a file cut short, a file cut
 * inside its only chunk), real {@code kill -9}.
 */
@org.junit.jupiter.api.Tag("slow")
class StoreCliTest {
  private static final Pattern RECOVERED_TASKS = Pattern.compile("recovered: tasks ([0-9]+),");

  @TempDir
  Path tmp;

  private final List<Path> homes = new ArrayList<>();

  @AfterEach
  void stopDaemons() throws Exception {
    for (Path h : homes) {
      vigil(h, "down", "--stop-workers");
    }
  }

  private Path newHome(String name) throws IOException {
    return CliEndToEndTest.ownerOnlyHome(tmp, name, homes);
  }

  /** Queues {@code n} tasks in one call, task i running {@code true} with the label {@code n=i}; waits for them. */
  private void submitAndFinish(Path home, int from, int to) throws Exception {
    StringBuilder lines = new StringBuilder();
    for (int i = from; i <= to; i++) {
      lines.append("true\n");
    }
    Path file = Files.writeString(tmp.resolve("tasks-" + from + ".txt"), lines.toString());
    Result r = vigil(home, "submit", "--file", file.toString());
    assertEquals(0, r.code(), r.err());
    assertEquals(to - from + 1, r.out().trim().lines().count(), r.out());
    Result w = vigil(home, "wait", "t-" + to, "--timeout", "90s");
    assertEquals(0, w.code(), w.out() + w.err());
  }

  private static long pidOf(Result up) {
    assertEquals(0, up.code(), up.err());
    return Long.parseLong(up.line().substring("pid ".length()));
  }

  private static String oneLine(Result r) {
    assertEquals(1, r.err().lines().count(), "one line: " + r.err());
    return r.err().strip();
  }

  /** Overwrites one 4 KiB block of {@code store} at {@code offset} with a fixed pattern. */
  private static void overwriteBlock(Path store, long offset) throws IOException {
    byte[] junk = new byte[4096];
    Arrays.fill(junk, (byte) 0xa5);
    try (RandomAccessFile f = new RandomAccessFile(store.toFile(), "rw")) {
      f.seek(offset);
      f.write(junk);
    }
  }

  /**
   * Damages {@code store} in place where it hits the tasks' rows: from the middle of the file
   * outwards, the first 4 KiB block whose damage the check reports in table TICKETS.
   */
  private void damageTheTasks(Path store) throws IOException {
    Path pristine = Files.copy(store, tmp.resolve("pristine.mv.db"), StandardCopyOption.REPLACE_EXISTING);
    long blocks = Files.size(pristine) / 4096;
    for (long d = 0; d < blocks / 2; d++) {
      for (long b : new long[] {blocks / 2 + d, blocks / 2 - d - 1}) {
        if (b < 2 || b >= blocks - 1) {
          continue;
        }
        Files.copy(pristine, store, StandardCopyOption.REPLACE_EXISTING);
        overwriteBlock(store, b * 4096);
        StoreCheck c = H2Maintenance.check(store);
        // the tasks' rows themselves, not the schema's records (then every rule naming the table is unreadable too)
        if (c.problems().stream().anyMatch(p -> p.kind() == StoreCheck.Kind.UNREADABLE
            && p.what().contains("(table TICKETS)"))) {
          return;
        }
      }
    }
    fail("no block of " + store + " holds tasks' rows");
  }

  private static String damagedSentence(Path store) {
    return "the store " + store + " is damaged (";
  }

  private static void assertTheDamagedSentence(Path store, String line) {
    assertTrue(line.startsWith("vigil: " + damagedSentence(store)), line);
    assertTrue(line.endsWith("); run vigil store check for details, vigil store recover to salvage it, or vigil store "
        + "restore FILE from a backup"), line);
    assertFalse(line.toLowerCase(java.util.Locale.ROOT).contains("read only"), line);
  }

  private static List<String> filesIn(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  private static Snapshot snapshot(Path store) {
    try (H2Coordination h2 = H2Coordination.open(store, H2Options.defaults())) {
      return h2.store().snapshot();
    }
  }

  @Test
  void aDamagedBlockIsNamedByTheCheck_upRefusesInOneLine_andRecoverBringsBackTheReadableTasks() throws Exception {
    Path home = newHome("damaged");
    Path store = home.resolve("vigil.mv.db");
    pidOf(vigil(home, "up"));
    submitAndFinish(home, 1, 40);
    Result healthy = vigil(home, "store", "check");
    assertEquals(0, healthy.code(), healthy.out() + healthy.err());
    assertTrue(healthy.out().contains(": healthy (checked by the running daemon") && healthy.out().contains("tasks 40"),
        healthy.out());
    assertEquals(0, vigil(home, "down").code());
    Result closed = vigil(home, "store", "check");
    assertEquals(0, closed.code(), closed.out() + closed.err());
    assertTrue(closed.out().contains("healthy (checked with the daemon stopped)"), closed.out());

    damageTheTasks(store);
    Result check = vigil(home, "store", "check");
    assertEquals(1, check.code(), check.out() + check.err());
    assertTrue(check.out().contains(": damaged") && check.out().contains("tasks (table TICKETS)")
        && check.out().contains("vigil store recover"), check.out());

    Result up = vigil(home, "up");
    assertEquals(2, up.code(), up.out() + up.err());
    assertTheDamagedSentence(store, oneLine(up));
    IllegalStateException embedded = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
        () -> Vigil.builder().home(home).start());
    assertTrue(embedded.getMessage().startsWith(damagedSentence(store)), embedded.getMessage());

    byte[] damaged = Files.readAllBytes(store);
    Result recover = vigil(home, "store", "recover");
    assertEquals(0, recover.code(), recover.out() + recover.err());
    Matcher m = RECOVERED_TASKS.matcher(recover.out());
    assertTrue(m.find(), recover.out());
    int recovered = Integer.parseInt(m.group(1));
    assertTrue(recovered > 0 && recovered < 40, recover.out());
    assertTrue(recover.out().contains("lost: tasks t-") && recover.out().contains("(" + (40 - recovered) + " in all)"),
        recover.out());
    List<String> kept = filesIn(home).stream().filter(f -> f.startsWith("vigil.mv.db.damaged-")).toList();
    assertEquals(1, kept.size(), filesIn(home).toString());
    assertArrayEquals(damaged, Files.readAllBytes(home.resolve(kept.get(0))), "the damaged file is kept as it was");
    assertTrue(recover.out().contains("the damaged file is kept as " + home.resolve(kept.get(0))), recover.out());
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(store)));

    pidOf(vigil(home, "up"));
    JsonNode tasks = json(vigil(home, "tasks", "--json"));
    assertEquals(recovered, tasks.size(), "the recovered store starts and holds the tasks that were readable");
    for (JsonNode t : tasks) {
      assertEquals("SUCCEEDED", t.path("state").asText(), t.toString());
    }
    assertEquals(0, vigil(home, "store", "check").code());
    String next = vigil(home, "submit", "--", "true").line();
    assertEquals("t-41", next, "new tasks take new ids, also above the lost ones");
  }

  @Test
  void aStoreCutShort_isDamaged_andRecoverBringsBackItsLastCompleteVersion() throws Exception {
    Path home = newHome("cut");
    Path store = home.resolve("vigil.mv.db");
    pidOf(vigil(home, "up"));
    submitAndFinish(home, 1, 20);
    assertEquals(0, vigil(home, "down").code());
    long base = Files.size(store);
    long pid = pidOf(vigil(home, "up"));
    submitAndFinish(home, 21, 40);
    new ProcessBuilder("kill", "-9", Long.toString(pid)).start().waitFor();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    long size = Files.size(store);
    assertTrue(size > base + 8192, "the second 20 were appended to the compacted first 20: " + base + " -> " + size);
    try (RandomAccessFile f = new RandomAccessFile(store.toFile(), "rw")) {
      f.setLength(base + (size - base) / 2 + 100);
    }

    Result check = vigil(home, "store", "check");
    assertEquals(1, check.code(), check.out() + check.err());
    assertTrue(check.out().contains("cut short"), check.out());
    Result up = vigil(home, "up");
    assertEquals(2, up.code(), up.out() + up.err());
    assertTheDamagedSentence(store, oneLine(up));

    Result recover = vigil(home, "store", "recover");
    assertEquals(0, recover.code(), recover.out() + recover.err());
    pidOf(vigil(home, "up"));
    JsonNode tasks = json(vigil(home, "tasks", "--json"));
    assertTrue(tasks.size() >= 20 && tasks.size() <= 40, tasks.size() + " tasks: " + recover.out());
    for (int i = 0; i < tasks.size(); i++) {
      assertEquals("t-" + (i + 1), tasks.get(i).path("id").asText(), "the first tasks, without gaps");
    }
    assertEquals(0, vigil(home, "store", "check").code());
  }

  @Test
  void aStoreCutInsideItsOnlyChunk_cannotBeSalvaged_soNothingChanges_andABackupRestoresIt() throws Exception {
    Path home = newHome("half");
    Path store = home.resolve("vigil.mv.db");
    Path backup = tmp.resolve("half.zip");
    pidOf(vigil(home, "up"));
    submitAndFinish(home, 1, 10);
    Result b = vigil(home, "store", "backup", backup.toString());
    assertEquals(0, b.code(), b.out() + b.err());
    assertTrue(b.out().startsWith("backed up " + store + " to " + backup) && b.out().contains("made by the running daemon"),
        b.out());
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(backup)));
    assertEquals(0, vigil(home, "down").code());
    try (RandomAccessFile f = new RandomAccessFile(store.toFile(), "rw")) {
      f.setLength(Files.size(store) / 2 / 4096 * 4096);
    }
    byte[] cut = Files.readAllBytes(store);
    List<String> files = filesIn(home);

    assertEquals(1, vigil(home, "store", "check").code());
    Result up = vigil(home, "up");
    assertEquals(2, up.code(), up.err());
    assertTheDamagedSentence(store, oneLine(up));
    Result recover = vigil(home, "store", "recover");
    assertEquals(1, recover.code(), recover.out() + recover.err());
    assertTrue(oneLine(recover).startsWith("vigil: nothing could be salvaged from " + store), recover.err());
    assertArrayEquals(cut, Files.readAllBytes(store), "nothing changed");
    assertEquals(files, filesIn(home), "nothing was left beside it");

    Result restore = vigil(home, "store", "restore", backup.toString());
    assertEquals(0, restore.code(), restore.out() + restore.err());
    assertTrue(restore.out().contains("tasks 10") && restore.out().contains("it passes the check"), restore.out());
    Path kept = home.resolve(filesIn(home).stream().filter(f -> f.startsWith("vigil.mv.db.before-restore-")).findFirst()
        .orElseThrow());
    assertArrayEquals(cut, Files.readAllBytes(kept), "the replaced store is kept beside it");
    pidOf(vigil(home, "up"));
    assertEquals(10, json(vigil(home, "tasks", "--json")).size());
  }

  @Test
  void aBackupWhileTasksAreSubmitted_restoresIntoAnotherHomeTheSameTasksAndRuns() throws Exception {
    Path home = newHome("live");
    Path backup = tmp.resolve("live.zip");
    pidOf(vigil(home, "up"));
    submitAndFinish(home, 1, 5);
    assertEquals(0, vigil(home, "pause").code(), "queued tasks stay as they are, so the stores compare exactly");
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger submitted = new AtomicInteger(5);
    List<String> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    Thread submitter = new Thread(() -> {
      while (!stop.get()) {
        try {
          Result r = vigil(home, "submit", "--", "true");
          if (r.code() != 0) {
            failures.add(r.err());
          }
          submitted.incrementAndGet();
        } catch (Exception e) {
          failures.add(e.toString());
        }
      }
    });
    submitter.start();
    while (submitted.get() < 8) {
      Thread.sleep(50);
    }
    Result b = vigil(home, "store", "backup", backup.toString());
    int atBackup = submitted.get();
    while (submitted.get() < atBackup + 3) {
      Thread.sleep(50);
    }
    stop.set(true);
    submitter.join();
    assertEquals(0, b.code(), b.out() + b.err());
    assertEquals(List.of(), failures, "every submission was taken while the backup was made");
    assertEquals(0, vigil(home, "down").code());

    Path other = tmp.resolve("restored-home");
    Result restore = vigil(other, "store", "restore", backup.toString());
    assertEquals(0, restore.code(), restore.out() + restore.err());
    assertFalse(restore.out().contains("kept as"), "there was no store to keep: " + restore.out());
    Snapshot original = snapshot(home.resolve("vigil.mv.db"));
    Snapshot restored = snapshot(other.resolve("vigil.mv.db"));
    CoordinationInvariants.check(restored);
    int n = restored.tickets().size();
    assertTrue(n >= 8 && n < original.tickets().size(), "the backup holds one moment while tasks were submitted: " + n
        + " of " + original.tickets().size());
    assertEquals(original.tickets().subList(0, n), restored.tickets(), "the same tasks");
    assertEquals(original.runs(), restored.runs(), "the same runs");
    homes.add(other);
    pidOf(vigil(other, "up"));
    assertEquals(n, json(vigil(other, "tasks", "--json")).size());
  }

  @Test
  void restoreAndRecover_refuseWhileADaemonRuns_andBadInputChangesNothing() throws Exception {
    Path home = newHome("bad");
    Path store = home.resolve("vigil.mv.db");
    Path backup = tmp.resolve("bad.zip");
    Result none = vigil(home, "store", "check");
    assertEquals(2, none.code(), none.out() + none.err());
    assertTrue(oneLine(none).contains("there is no store at " + store), none.err());
    pidOf(vigil(home, "up"));
    submitAndFinish(home, 1, 3);
    assertEquals(0, vigil(home, "store", "backup", backup.toString()).code());
    byte[] backupBytes = Files.readAllBytes(backup);

    Result exists = vigil(home, "store", "backup", backup.toString());
    assertEquals(2, exists.code());
    assertEquals("vigil: " + backup + " exists; add --force to replace it (nothing was written)", oneLine(exists));
    assertArrayEquals(backupBytes, Files.readAllBytes(backup));
    assertEquals(2, vigil(home, "store", "backup", tmp.resolve("no-such-dir").resolve("b.zip").toString()).code());
    Result self = vigil(home, "store", "backup", "--force", store.toString());
    assertEquals(2, self.code(), self.err());
    assertTrue(oneLine(self).contains("is the store itself"), self.err());
    Result restoreRunning = vigil(home, "store", "restore", backup.toString());
    assertEquals(3, restoreRunning.code(), restoreRunning.err());
    assertTrue(oneLine(restoreRunning).startsWith("vigil: refused: a daemon (pid ")
        && restoreRunning.err().contains("vigil down"), restoreRunning.err());
    Result recoverRunning = vigil(home, "store", "recover");
    assertEquals(3, recoverRunning.code(), recoverRunning.err());
    assertEquals(0, vigil(home, "store", "backup", "--force", backup.toString()).code(), "--force replaces it");
    assertEquals(0, vigil(home, "down").code());

    byte[] storeBytes = Files.readAllBytes(store);
    List<String> files = filesIn(home);
    Path notes = Files.writeString(tmp.resolve("notes.txt"), "not a backup\n");
    Path newer = tmp.resolve("newer.mv.db");
    try (java.util.zip.ZipFile z = new java.util.zip.ZipFile(backup.toFile())) {
      Files.copy(z.getInputStream(z.getEntry("vigil.mv.db")), newer);
    }
    int known = H2Maintenance.check(newer).schemaVersion();
    String base = newer.toString().substring(0, newer.toString().length() - ".mv.db".length());
    try (Connection c = DriverManager.getConnection("jdbc:h2:file:" + base + ";IFEXISTS=TRUE", "sa", "");
         Statement s = c.createStatement()) {
      s.execute("INSERT INTO schema_version(version, description, applied_at) VALUES (" + (known + 1)
          + ", 'the future', CURRENT_TIMESTAMP)");
    }
    for (Path bad : List.of(tmp.resolve("missing.zip"), notes, newer)) {
      Result r = vigil(home, "store", "restore", bad.toString());
      assertEquals(2, r.code(), bad + ": " + r.out() + r.err());
      String line = oneLine(r);
      assertTrue(line.endsWith("(nothing was changed)"), line);
      if (bad.equals(newer)) {
        assertTrue(line.contains("schema version " + (known + 1)) && line.contains("newer"), line);
      }
      assertArrayEquals(storeBytes, Files.readAllBytes(store), "nothing changed: " + bad);
      assertEquals(files, filesIn(home), "nothing was left beside it: " + bad);
    }
    Result healthy = vigil(home, "store", "recover");
    assertEquals(0, healthy.code(), healthy.err());
    assertTrue(healthy.out().contains("there is nothing to recover"), healthy.out());
    assertArrayEquals(storeBytes, Files.readAllBytes(store));
  }
}
