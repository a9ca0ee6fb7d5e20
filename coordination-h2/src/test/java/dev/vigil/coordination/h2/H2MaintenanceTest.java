package dev.vigil.coordination.h2;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.vigil.coordination.Claim;
import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Finish;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.Owner;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunStart;
import dev.vigil.coordination.Snapshot;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.Verdict;
import dev.vigil.coordination.law.CoordinationInvariants;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checks, backups, restores and recovery on real files: a healthy store, one with a 4 KiB block
 * overwritten inside its data, one cut short, one cut inside its only chunk; backups taken closed
 * and while verbs run; bad input that changes nothing.
 */
class H2MaintenanceTest {
  private static final long NOW = 1_796_000_000_000L;
  private static final OwnerId OWNER = new OwnerId("d-test-1");
  private static final RunStart START = new RunStart(new ProcessIdentity("boot-test", 4343, 9, 4343), "1.0.0",
      "ab".repeat(32), 2);

  @TempDir
  Path dir;

  // ---- stores with known contents

  /** A task's payload, large and hardly compressible, so that tasks fill most of the file. */
  static String payload(long i) {
    java.util.SplittableRandom r = new java.util.SplittableRandom(i);
    StringBuilder pad = new StringBuilder();
    while (pad.length() < 1500) {
      pad.append(Long.toHexString(r.nextLong()));
    }
    return "{\"i\":" + i + ",\"pad\":\"" + pad + "\"}";
  }

  /**
   * Submits tasks {@code from..to} (labelled team=even on even ids); settles the first half of them
   * SUCCEEDED, leaves the one before the last RUNNING and the last CLAIMED.
   */
  static void fill(H2Coordination h2, int from, int to) {
    h2.registerOwner(new Owner(OWNER, "host", new ProcessIdentity("boot-test", 4242, 7, 4242), "1.0.0", 1));
    for (int i = from; i <= to; i++) {
      NewTicket n = NewTicket.of(Lane.DEFAULT, "command", payload(i))
          .withLabels(i % 2 == 0 ? Map.of("team", "even") : Map.of());
      assertInstanceOf(Submission.Accepted.class, h2.submit(n, i));
    }
    int settle = from + (to - from + 1) / 2;
    for (int i = from; i < settle; i++) {
      RunId run = claim(h2, i);
      h2.start(run, OWNER, START);
      h2.takeExit(run, ExitOwner.supervisor(OWNER), RunExit.code(0, 3));
      h2.finish(Finish.as(ExitOwner.supervisor(OWNER), run, Verdict.SUCCEEDED, "exit code 0"), 4);
    }
    h2.start(claim(h2, to - 1), OWNER, START);
    claim(h2, to);
  }

  private static RunId claim(H2Coordination h2, long ticket) {
    return ((Claim.Granted) h2.claim(new TicketId(ticket), OWNER, 10, 60_000)).run().id();
  }

  /** A closed (compacted) store of {@code n} tasks. */
  private Path store(String name, int n) {
    Path file = dir.resolve(name + ".mv.db");
    try (H2Coordination h2 = H2Coordination.open(file, H2Options.defaults())) {
      fill(h2, 1, n);
    }
    return file;
  }

  private static Snapshot snapshot(Path file) {
    try (H2Coordination h2 = H2Coordination.open(file, H2Options.defaults())) {
      return h2.store().snapshot();
    }
  }

  /** Copies {@code from} and overwrites one 4 KiB block of the copy at {@code offset} with a fixed pattern. */
  private static void overwriteBlock(Path from, Path to, long offset) throws IOException {
    Files.copy(from, to, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    byte[] junk = new byte[4096];
    Arrays.fill(junk, (byte) 0xa5);
    try (RandomAccessFile f = new RandomAccessFile(to.toFile(), "rw")) {
      f.seek(offset);
      f.write(junk);
    }
  }

  /**
   * A copy of {@code pristine} with one 4 KiB block overwritten where it hits the tasks' rows: from
   * the middle of the file outwards, the first block whose damage the check reports in table
   * TICKETS (the damage is deterministic for the same contents).
   */
  private Path damagedInTheMiddle(Path pristine) throws IOException {
    Path to = dir.resolve("damaged.mv.db");
    long blocks = Files.size(pristine) / 4096;
    List<String> seen = new java.util.ArrayList<>();
    for (long d = 0; d < blocks / 2; d++) {
      for (long b : new long[] {blocks / 2 + d, blocks / 2 - d - 1}) {
        if (b < 2 || b >= blocks - 1) {
          continue;
        }
        overwriteBlock(pristine, to, b * 4096);
        StoreCheck c = H2Maintenance.check(to);
        seen.add("block " + b + ": " + c.problems());
        if (c.problems().stream().anyMatch(p -> p.kind() == StoreCheck.Kind.UNREADABLE
            && p.what().contains("(table TICKETS)"))) { // the rows themselves, not the schema's records
          return to;
        }
      }
    }
    return fail("no block of " + pristine + " holds tasks' rows: " + seen);
  }

  private static List<String> invariantViolations(Snapshot s) {
    // event ids of a recovered store may have gaps where events were lost with their tasks
    return CoordinationInvariants.violations(s).stream().filter(v -> !v.startsWith("events:")).toList();
  }

  // ---- check

  @Test
  void aHealthyStore_passesTheCheck_withEveryRowRead() {
    Path file = store("healthy", 30);
    StoreCheck c = H2Maintenance.check(file);
    assertTrue(c.healthy(), "healthy: " + c.problems());
    assertEquals(Schema.CURRENT_VERSION, c.schemaVersion());
    assertEquals(30, c.rowsOf("TICKETS"));
    assertEquals(17, c.rowsOf("RUNS"), "15 settled, one running, one claimed");
    assertEquals(2, c.rowsOf("LEASES"), "two claims");
    assertEquals(15, c.rowsOf("EVENTS"), "one event per settlement");
  }

  @Test
  void anOpenStore_isCheckedInsideItsOwnConnection_whileVerbsGoOn() {
    try (H2Coordination h2 = H2Coordination.open(dir.resolve("open.mv.db"), H2Options.defaults())) {
      fill(h2, 1, 10);
      StoreCheck c = h2.check();
      assertTrue(c.healthy(), "healthy: " + c.problems());
      assertEquals(10, c.rowsOf("TICKETS"));
      assertThrows(CoordinationStoreException.class, () -> H2Maintenance.check(h2.file()),
          "a store open in this process is not checked from outside it");
    }
  }

  @Test
  void aBreakOfVigilsRules_isReportedInPlainWords() throws Exception {
    Path file = store("rules", 10);
    try (Connection c = raw(file); Statement s = c.createStatement()) {
      s.execute("DELETE FROM leases WHERE ticket_id = 9");
      s.execute("UPDATE counters SET issued = 3 WHERE name = 'ticket_seq'");
    }
    StoreCheck c = H2Maintenance.check(file);
    assertFalse(c.healthy());
    assertFalse(c.damaged(), "readable, but inconsistent: " + c.problems());
    List<String> what = c.problems().stream().map(StoreCheck.Problem::what).toList();
    assertTrue(what.stream().anyMatch(w -> w.startsWith("tasks marked running without exactly one run in progress and a "
        + "claim naming it: t-9 (1)")), what.toString());
    assertTrue(what.stream().anyMatch(w -> w.startsWith("the task id counter is missing or below")), what.toString());
  }

  // ---- damage

  @Test
  void fourKiBOverwrittenInTheMiddle_isFoundByTheCheck_refusedAtTheFirstRead_andRecoveredWithTheReadableTasks()
      throws Exception {
    Path pristine = store("pristine", 60);
    Snapshot original = snapshot(pristine);
    Path damaged = damagedInTheMiddle(pristine);
    byte[] damagedBytes = Files.readAllBytes(damaged);

    StoreCheck c = H2Maintenance.check(damaged);
    assertTrue(c.damaged(), c.problems().toString());
    assertArrayEquals(damagedBytes, Files.readAllBytes(damaged), "the check writes nothing");
    DamagedStoreException e = assertThrows(DamagedStoreException.class, () -> {
      try (H2Coordination h2 = H2Coordination.open(Files.copy(damaged, dir.resolve("opened.mv.db")), H2Options.defaults())) {
        h2.store().snapshot();
      }
    });
    assertTrue(e.getMessage().contains("damaged") && !e.getMessage().contains("read only"), e.getMessage());

    H2Maintenance.Recovery.Recovered r = recovered(damaged, 0);
    assertTrue(r.check().healthy(), r.check().problems().toString());
    assertArrayEquals(damagedBytes, Files.readAllBytes(r.keptAs()), "the damaged file is kept as it was");
    assertEquals(dir.resolve("damaged.mv.db." + "damaged-" + H2Maintenance.stamp(NOW)), r.keptAs());
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(damaged)));
    long recovered = r.recovered().get("TICKETS");
    assertTrue(recovered > 0 && recovered < 60, "some tasks recovered, some lost: " + r.recovered());
    assertTrue(r.lost().stream().anyMatch(l -> l.startsWith("tasks t-") && l.contains("(" + (60 - recovered) + " in all)")),
        r.lost().toString());

    Snapshot after = snapshot(damaged);
    assertEquals(recovered, after.tickets().size());
    for (Ticket t : after.tickets()) {
      Ticket was = original.tickets().get((int) t.id().seq() - 1);
      assertEquals(was.payload(), t.payload(), "a recovered task is the task it was");
      assertEquals(was.labels(), t.labels());
      if (was.state() != TicketState.LEASED) {
        assertEquals(was, t, "a recovered task is the task it was: " + t.id());
      }
    }
    assertEquals(List.of(), invariantViolations(after), "the recovered store keeps the coordination invariants");
    try (H2Coordination h2 = H2Coordination.open(damaged, H2Options.defaults())) {
      Ticket next = ((Submission.Accepted) h2.submit(NewTicket.of(Lane.DEFAULT, "command", "{}"), 99)).ticket();
      assertEquals(61, next.id().seq(), "new tasks take new ids");
    }
  }

  @Test
  void aStoreCutShort_isFoundByTheCheck_refusedAtOpen_andRecoveredAsItsLastCompleteVersion() throws Exception {
    Path file = dir.resolve("cut.mv.db");
    Path copy = dir.resolve("copy.mv.db");
    try (H2Coordination h2 = H2Coordination.open(file, H2Options.defaults())) {
      fill(h2, 1, 20);
    }
    long base = Files.size(file);
    try (H2Coordination h2 = H2Coordination.open(file, H2Options.defaults())) {
      for (int i = 21; i <= 60; i++) {
        h2.submit(NewTicket.of(Lane.DEFAULT, "command", payload(i)), i);
      }
      Files.copy(file, copy); // while open and idle: the file as a kill -9 would leave it, every chunk appended
    }
    long size = Files.size(copy);
    assertTrue(size > base + 8192, "tasks 21-60 were appended after the compacted first 20: " + base + " -> " + size);
    long cutAt = base + (size - base) / 2 + 100;
    try (RandomAccessFile f = new RandomAccessFile(copy.toFile(), "rw")) {
      f.setLength(cutAt);
    }
    byte[] cutBytes = Files.readAllBytes(copy);

    StoreCheck c = H2Maintenance.check(copy);
    assertTrue(c.damaged() && c.problems().get(0).what().contains("cut short"), c.problems().toString());
    DamagedStoreException e = assertThrows(DamagedStoreException.class,
        () -> H2Coordination.open(copy, H2Options.defaults()).close());
    assertTrue(e.reason().contains("cut short"), e.getMessage());
    assertArrayEquals(cutBytes, Files.readAllBytes(copy), "a refused open writes nothing");

    H2Maintenance.Recovery.Recovered r = recovered(copy, 0);
    assertTrue(r.lost().stream().anyMatch(l -> l.startsWith("the last ") && l.contains(" bytes of the file")),
        r.lost().toString());
    Snapshot after = snapshot(copy);
    long n = after.tickets().size();
    assertTrue(n > 20 && n < 60, "the first 20 and the tasks appended before the cut: " + n);
    for (int i = 0; i < n; i++) {
      assertEquals(i + 1, after.tickets().get(i).id().seq(), "the recovered tasks are the first ones, without gaps");
      assertEquals(payload(i + 1), after.tickets().get(i).payload());
    }
    assertEquals(List.of(), invariantViolations(after));
    assertArrayEquals(cutBytes, Files.readAllBytes(r.keptAs()));
  }

  @Test
  void aStoreCutInsideItsOnlyChunk_isDamaged_andNothingCanBeSalvaged_soNothingChanges() throws Exception {
    Path file = store("half", 20);
    long half = Files.size(file) / 2 / 4096 * 4096;
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.setLength(half);
    }
    byte[] bytes = Files.readAllBytes(file);
    StoreCheck c = H2Maintenance.check(file);
    assertTrue(c.damaged(), c.problems().toString());
    assertTrue(c.problems().get(0).what().contains("no complete version"), c.problems().toString());
    DamagedStoreException e = assertThrows(DamagedStoreException.class,
        () -> H2Coordination.open(file, H2Options.defaults()).close());
    assertFalse(e.getMessage().contains("read only"), e.getMessage());
    assertInstanceOf(H2Maintenance.Recovery.NothingSalvaged.class, H2Maintenance.recover(file, NOW, 0));
    assertArrayEquals(bytes, Files.readAllBytes(file));
    assertEquals(List.of("half.mv.db"), names(), "nothing left beside it");
  }

  @Test
  void anEmptyOrForeignStartedFile_isDamaged() throws Exception {
    Path empty = Files.createFile(dir.resolve("empty.mv.db"));
    assertTrue(H2Maintenance.check(empty).damaged());
    assertInstanceOf(DamagedStoreException.class, assertThrows(CoordinationStoreException.class,
        () -> H2Coordination.open(empty, H2Options.defaults())));
  }

  /**
   * Q14 and recovery: a task held for the retry of its prerequisite (a ticket numbered after it) is
   * recovered with its prerequisites and its hold, which are set once every task is in.
   */
  @Test
  void aRecoveredStore_keepsItsPrerequisitesAndDependencyHolds_evenForARetryNumberedAfterTheTaskItHolds()
      throws Exception {
    Path pristine = dir.resolve("chain.mv.db");
    try (H2Coordination h2 = H2Coordination.open(pristine, H2Options.defaults())) {
      fill(h2, 1, 60);
      TicketId a = ((Submission.Accepted) h2.submit(new NewTicket(Lane.DEFAULT, "command", "{}", 1, 0, 0, null), 5))
          .ticket().id();
      TicketId b = ((Submission.Accepted) h2.submit(NewTicket.of(Lane.DEFAULT, "command", "{}")
          .withAfter(List.of(new dev.vigil.coordination.Prerequisite.Existing(a))), 5)).ticket().id();
      RunId run = claim(h2, a.seq());
      h2.start(run, OWNER, START);
      h2.takeExit(run, ExitOwner.supervisor(OWNER), RunExit.code(1, 6));
      h2.finish(Finish.as(ExitOwner.supervisor(OWNER), run, Verdict.FAILED, "exit code 1"), 6);
      TicketId retry = ((dev.vigil.coordination.Retry.Retried) h2.retry(a, 7)).ticket().id();
      h2.hold(retry, "not yet", 8);
      Ticket held = h2.store().ticket(b).orElseThrow();
      assertEquals(retry, held.heldFor(), "b is held for the retry, numbered after it");
      assertTrue(retry.seq() > b.seq());
    }
    Snapshot original = snapshot(pristine);
    Path damaged = damagedInTheMiddle(pristine);
    H2Maintenance.Recovery.Recovered r = recovered(damaged, 0);
    assertTrue(r.check().healthy(), r.check().problems().toString());
    Snapshot after = snapshot(damaged);
    for (long id = 61; id <= 63; id++) {
      Ticket was = original.tickets().get((int) id - 1);
      long seq = id;
      Ticket now = after.tickets().stream().filter(t -> t.id().seq() == seq).findFirst().orElseThrow(
          () -> new AssertionError("t-" + seq + " was written last, away from the damage: " + r.lost()));
      assertEquals(was, now, "recovered as it was, prerequisites and hold included");
    }
    assertEquals(List.of(), invariantViolations(after), "the recovered store keeps the coordination invariants");
  }

  @Test
  void recoveringAHealthyStore_changesNothing() throws Exception {
    Path file = store("fine", 5);
    byte[] bytes = Files.readAllBytes(file);
    assertInstanceOf(H2Maintenance.Recovery.Healthy.class, H2Maintenance.recover(file, NOW, 0));
    assertArrayEquals(bytes, Files.readAllBytes(file));
    assertEquals(List.of("fine.mv.db"), names());
  }

  @Test
  void recovery_raisesTheTaskCounterAboveTasksKnownOnlyElsewhere() throws Exception {
    Path pristine = store("pristine", 60);
    Path damaged = damagedInTheMiddle(pristine);
    H2Maintenance.Recovery.Recovered r = recovered(damaged, 500);
    assertTrue(r.repairs().stream().anyMatch(l -> l.startsWith("set the task id counter to 500")), r.repairs().toString());
    try (H2Coordination h2 = H2Coordination.open(damaged, H2Options.defaults())) {
      assertEquals(501, ((Submission.Accepted) h2.submit(NewTicket.of(Lane.DEFAULT, "command", "{}"), 99)).ticket().id()
          .seq());
    }
  }

  // ---- backup and restore

  @Test
  void aBackupOfAClosedStore_restoresExactly_andKeepsTheStoreItReplaces() throws Exception {
    Path file = store("source", 12);
    byte[] before = Files.readAllBytes(file);
    Path zip = dir.resolve("backup.zip");
    H2Maintenance.Backup b = H2Maintenance.backup(file, zip, false);
    assertEquals(Schema.CURRENT_VERSION, b.schemaVersion());
    assertEquals(Files.size(zip), b.bytes());
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(zip)));
    assertArrayEquals(before, Files.readAllBytes(file), "the backup changed nothing");

    Path other = Files.createDirectory(dir.resolve("other")).resolve("vigil.mv.db");
    H2Maintenance.Restore.Restored r = assertInstanceOf(H2Maintenance.Restore.Restored.class,
        H2Maintenance.restore(zip, other, NOW));
    assertTrue(r.keptAs().isEmpty());
    assertEquals(snapshot(file), snapshot(other), "the restored store holds what the backed-up one held");

    Path replacing = store("replaced", 3);
    byte[] replacedBytes = Files.readAllBytes(replacing);
    r = assertInstanceOf(H2Maintenance.Restore.Restored.class, H2Maintenance.restore(zip, replacing, NOW));
    assertArrayEquals(replacedBytes, Files.readAllBytes(r.keptAs().orElseThrow()), "the replaced store is kept");
    assertEquals(dir.resolve("replaced.mv.db.before-restore-" + H2Maintenance.stamp(NOW)), r.keptAs().get());
    assertEquals(snapshot(file), snapshot(replacing));
    assertThrows(CoordinationStoreException.class, () -> H2Maintenance.backup(file, zip, false),
        "an existing backup is not replaced");
    H2Maintenance.backup(file, zip, true);
  }

  @Test
  void aBackupWhileVerbsRun_isOneConsistentVersion() throws Exception {
    Path file = dir.resolve("busy.mv.db");
    Path zip = dir.resolve("busy.zip");
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger submitted = new AtomicInteger();
    try (H2Coordination h2 = H2Coordination.open(file, H2Options.defaults())) {
      fill(h2, 1, 10);
      Thread writer = new Thread(() -> {
        for (int i = 11; !stop.get(); i++) {
          h2.submit(NewTicket.of(Lane.DEFAULT, "command", payload(i)), i);
          submitted.set(i);
        }
      });
      writer.start();
      while (submitted.get() < 30) {
        Thread.sleep(5);
      }
      h2.backup(zip, false);
      int atBackup = submitted.get();
      while (submitted.get() < atBackup + 20) {
        Thread.sleep(5);
      }
      stop.set(true);
      writer.join();
    }
    Path restored = Files.createDirectory(dir.resolve("restored")).resolve("vigil.mv.db");
    assertInstanceOf(H2Maintenance.Restore.Restored.class, H2Maintenance.restore(zip, restored, NOW));
    Snapshot s = snapshot(restored);
    CoordinationInvariants.check(s);
    int n = s.tickets().size();
    assertTrue(n >= 30 && n < submitted.get(), "a version between the start of the backup and later writes: " + n);
    for (int i = 10; i < n; i++) {
      assertEquals(payload(i + 1), s.tickets().get(i).payload(), "tasks 1.." + n + " without gaps");
    }
  }

  @Test
  void restore_refusesWhatIsNotAHealthyBackupOfAKnownSchema_changingNothing() throws Exception {
    Path target = store("target", 4);
    byte[] bytes = Files.readAllBytes(target);
    Path notes = Files.writeString(dir.resolve("notes.txt"), "not a backup\n");
    Path emptyZip = dir.resolve("empty.zip");
    try (ZipOutputStream z = new ZipOutputStream(Files.newOutputStream(emptyZip))) {
      z.putNextEntry(new ZipEntry("readme.txt"));
      z.write("hello".getBytes(StandardCharsets.UTF_8));
    }
    Path newer = store("newer", 4);
    try (Connection c = raw(newer); Statement s = c.createStatement()) {
      s.execute("INSERT INTO schema_version(version, description, applied_at) VALUES (" + (Schema.CURRENT_VERSION + 1)
          + ", 'the future', CURRENT_TIMESTAMP)");
    }
    Path newerZip = dir.resolve("newer.zip");
    H2Maintenance.backup(newer, newerZip, false);
    Path damaged = damagedInTheMiddle(store("pristine", 60));
    List<String> names = names();

    record Case(Path backup, H2Maintenance.Restore.Reason reason) {}
    for (Case k : List.of(new Case(dir.resolve("missing.zip"), H2Maintenance.Restore.Reason.NOT_FOUND),
        new Case(notes, H2Maintenance.Restore.Reason.NOT_A_BACKUP),
        new Case(emptyZip, H2Maintenance.Restore.Reason.NOT_A_BACKUP),
        new Case(newerZip, H2Maintenance.Restore.Reason.NEWER_SCHEMA),
        new Case(damaged, H2Maintenance.Restore.Reason.DAMAGED),
        new Case(target, H2Maintenance.Restore.Reason.NOT_A_BACKUP))) {
      H2Maintenance.Restore.Refused r = assertInstanceOf(H2Maintenance.Restore.Refused.class,
          H2Maintenance.restore(k.backup(), target, NOW), k.toString());
      assertEquals(k.reason(), r.reason(), r.why());
      assertFalse(r.why().contains("\n"), r.why());
      assertArrayEquals(bytes, Files.readAllBytes(target), "refused: nothing changed (" + k + ")");
      assertEquals(names, names(), "refused: nothing left beside it (" + k + ")");
    }
  }

  // ---- helpers

  private static H2Maintenance.Recovery.Recovered recovered(Path file, long ticketSeqAtLeast) {
    H2Maintenance.Recovery r = H2Maintenance.recover(file, NOW, ticketSeqAtLeast);
    return assertInstanceOf(H2Maintenance.Recovery.Recovered.class, r, "recovered: " + r);
  }

  private List<String> names() throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  private static Connection raw(Path file) throws java.sql.SQLException {
    String s = file.toString();
    return DatabaseFile.connect("jdbc:h2:file:" + s.substring(0, s.length() - ".mv.db".length()) + ";IFEXISTS=TRUE");
  }
}
