package dev.vigil.coordination.h2;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.vigil.coordination.Claim;
import dev.vigil.coordination.Control;
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
import dev.vigil.coordination.Settlement;
import dev.vigil.coordination.Snapshot;
import dev.vigil.coordination.Start;
import dev.vigil.coordination.StopIntent;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.Verdict;
import dev.vigil.coordination.h2.testing.FaultyFileSystem;
import dev.vigil.coordination.h2.testing.FaultyFileSystem.Fault;
import dev.vigil.coordination.law.CoordinationInvariants;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.h2.mvstore.DataUtils;
import org.h2.mvstore.MVStoreException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The store when its disk fills or fails: real H2 files reached through {@link FaultyFileSystem},
 * which fails writes under one directory on demand as the operating system does (ENOSPC, EIO).
 * A verb that meets the fault throws {@link StoreUnavailableException} and was not acknowledged;
 * after the fault is healed the store closes, opens again in the same process and holds every
 * decision acknowledged before the fault.
 */
class StoreOutageTest {
  private static final OwnerId A = new OwnerId("d-alpha");
  private static final OwnerId B = new OwnerId("d-beta");
  private static final RunStart START = new RunStart(new ProcessIdentity("boot", 9, 9, 9), "1.0.0", "1".repeat(64), 0);
  private static final long NOW = 1_000;
  private static final long TTL = 60_000;
  private static final Lane SLOW = new Lane("slow");

  /** For each verb and fault: whether the verb that threw was absent after the reopen, or persisted. */
  private static final Map<String, String> OUTCOMES = new ConcurrentHashMap<>();

  @TempDir
  Path dir;

  @BeforeAll
  static void registerTheFaultyFileSystem() {
    FaultyFileSystem.register();
  }

  @AfterEach
  void heal() {
    FaultyFileSystem.heal(dir);
  }

  @AfterAll
  static void reportWhatBecameOfTheVerbsThatThrew() {
    // (d): H2 2.5.252 persisted none of them (the commit that meets the failed write is not in the file).
    System.out.println("verbs that threw StoreUnavailableException, after heal and reopen: " + new TreeMap<>(OUTCOMES));
  }

  private static H2Options options() {
    return H2Options.defaults().withFileSystem(FaultyFileSystem.PREFIX);
  }

  private static String reason(Fault fault) {
    return switch (fault) {
      case NO_SPACE -> "no space left on device";
      case IO_ERROR -> "an I/O error";
    };
  }

  private static NewTicket ticket() {
    return NewTicket.of(Lane.DEFAULT, "command", "{}");
  }

  private static TicketId submit(H2Coordination h2) {
    return ((Submission.Accepted) h2.submit(ticket(), NOW)).ticket().id();
  }

  private static RunId claim(H2Coordination h2, TicketId t) {
    return ((Claim.Granted) h2.claim(t, A, NOW, TTL)).run().id();
  }

  /**
   * Acknowledged decisions of every kind: t1 SUCCEEDED, t2 RUNNING, t3 CLAIMED, t4 READY, t5 EXITED,
   * t6 parked, t7 HELD, lane {@code slow} parked, owner A registered.
   */
  private static void acknowledged(H2Coordination h2) {
    h2.registerOwner(new Owner(A, "host-a", new ProcessIdentity("boot", 1, 1, 1), "1.0.0", NOW));
    TicketId t1 = submit(h2);
    RunId r1 = claim(h2, t1);
    assertInstanceOf(Start.Started.class, h2.start(r1, A, START));
    h2.takeExit(r1, ExitOwner.supervisor(A), RunExit.code(0, NOW));
    assertInstanceOf(Settlement.Settled.class, h2.finish(Finish.as(ExitOwner.supervisor(A), r1, Verdict.SUCCEEDED,
        null), NOW));
    TicketId t2 = submit(h2);
    assertInstanceOf(Start.Started.class, h2.start(claim(h2, t2), A, START));
    claim(h2, submit(h2)); // t3
    submit(h2); // t4
    RunId r5 = claim(h2, submit(h2));
    h2.start(r5, A, START);
    h2.takeExit(r5, ExitOwner.supervisor(A), RunExit.code(1, NOW));
    h2.park(submit(h2)); // t6
    h2.hold(submit(h2), "held by hand", NOW); // t7
    assertTrue(h2.parkLane(SLOW));
    Snapshot s = h2.store().snapshot();
    assertEquals(TicketState.SUCCEEDED, s.tickets().get(0).state());
    CoordinationInvariants.check(s);
  }

  private static final TicketId T1 = new TicketId(1);
  private static final TicketId T4 = new TicketId(4);
  private static final TicketId T6 = new TicketId(6);
  private static final TicketId T7 = new TicketId(7);
  private static final RunId R2 = new RunId(new TicketId(2), 1);
  private static final RunId R3 = new RunId(new TicketId(3), 1);
  private static final RunId R5 = new RunId(new TicketId(5), 1);

  /** A verb, named as its failure message names it, called so that it is granted and writes. */
  private record Verb(String name, Consumer<H2Coordination> call) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static List<Verb> writeVerbs() {
    return List.of(
        new Verb("submit", h2 -> h2.submit(ticket(), NOW)),
        new Verb("submitAll", h2 -> h2.submitAll(List.of(ticket(), ticket()), NOW)),
        new Verb("retry", h2 -> h2.retry(T1, NOW)),
        new Verb("registerOwner", h2 -> h2.registerOwner(new Owner(B, "host-b", new ProcessIdentity("boot", 2, 2, 2),
            "1.0.0", NOW))),
        new Verb("claim", h2 -> h2.claim(T4, A, NOW, TTL)),
        new Verb("claimByHand", h2 -> h2.claimByHand(T4, A, NOW, TTL)),
        new Verb("claimNext", h2 -> h2.claimNext(Lane.DEFAULT, A, NOW, TTL, 1)),
        new Verb("start", h2 -> h2.start(R3, A, START)),
        new Verb("abortClaim", h2 -> h2.abortClaim(R3, A, "never started", NOW)),
        new Verb("adoptClaim", h2 -> h2.adoptClaim(R3, B, A, NOW, TTL)),
        new Verb("renew", h2 -> h2.renew(R2, A, NOW + 1, TTL)),
        new Verb("renewAll", h2 -> h2.renewAll(A, NOW + 1, TTL)),
        new Verb("readopt", h2 -> h2.readopt(R2, B, NOW, TTL)),
        new Verb("takeExit", h2 -> h2.takeExit(R2, ExitOwner.supervisor(A), RunExit.code(0, NOW))),
        new Verb("finish", h2 -> h2.finish(Finish.as(ExitOwner.supervisor(A), R5, Verdict.FAILED, "exit 1"), NOW)),
        new Verb("takeExitAndFinish", h2 -> h2.takeExitAndFinish(R2, ExitOwner.supervisor(A), RunExit.code(0, NOW),
            Finish.as(ExitOwner.supervisor(A), R2, Verdict.SUCCEEDED, null), NOW)),
        new Verb("requestStop", h2 -> h2.requestStop(R2, StopIntent.KILL, "stopped by hand", NOW)),
        new Verb("park", h2 -> h2.park(T4)),
        new Verb("unpark", h2 -> h2.unpark(T6)),
        new Verb("hold", h2 -> h2.hold(T4, "held by hand", NOW)),
        new Verb("release", h2 -> h2.release(T7, OptionalInt.empty())),
        new Verb("cancel", h2 -> h2.cancel(T4, NOW)),
        new Verb("parkLane", h2 -> h2.parkLane(Lane.DEFAULT)),
        new Verb("unparkLane", h2 -> h2.unparkLane(SLOW)),
        new Verb("serviceGivenUp", h2 -> h2.serviceGivenUp("web", "gave up after 5 restarts", NOW)),
        new Verb("transcribe", h2 -> h2.transcribe("web", dev.vigil.coordination.TranscriptEntry.Kind.LAUNCHED,
            "started at boot", 0, NOW)),
        new Verb("restored", h2 -> h2.restored("web", "pid-1-1", "snap-1", 0, NOW)));
  }

  static Stream<Arguments> everyWriteVerbUnderEachFault() {
    List<Arguments> out = new ArrayList<>();
    for (Fault f : Fault.values()) {
      for (Verb v : writeVerbs()) {
        out.add(Arguments.of(f, v));
      }
    }
    return out.stream();
  }

  /** Each verb, as the first to meet the fault, is granted on the fixture: shown here without a fault. */
  @Test
  void everyVerbOfTheTable_isGrantedAndWrites_whenTheDiskIsWell() {
    for (Verb v : writeVerbs()) {
      Path sub = dir.resolve(v.name());
      assertDoesNotThrow(() -> Files.createDirectory(sub));
      try (H2Coordination h2 = H2Coordination.open(sub.resolve("vigil.mv.db"), options())) {
        acknowledged(h2);
        // the transcript verbs write the service's transcript, which a snapshot does not hold
        List<Object> before = List.of(h2.store().snapshot(), h2.store().transcript("web", 0, 100));
        v.call().accept(h2);
        assertFalse(before.equals(List.of(h2.store().snapshot(), h2.store().transcript("web", 0, 100))),
            v.name() + " changed nothing: it must be granted to test it");
      }
    }
  }

  // (b), (c), (d)
  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("everyWriteVerbUnderEachFault")
  void aWriteVerbThatMeetsTheFault_throwsStoreUnavailable_namingTheFileAndTheReason_andWasNotAcknowledged(Fault fault,
      Verb verb) {
    Path file = dir.resolve("vigil.mv.db");
    Snapshot before;
    H2Coordination h2 = H2Coordination.open(file, options());
    try {
      acknowledged(h2);
      before = h2.store().snapshot();
      FaultyFileSystem.failWrites(dir, fault);
      assertEquals(before, h2.store().snapshot(), "a read before any write meets the fault works");

      StoreUnavailableException e = assertThrows(StoreUnavailableException.class, () -> verb.call().accept(h2));
      assertEquals(reason(fault), e.reason());
      assertEquals(file, e.file());
      assertEquals(file + ": " + verb.name() + " failed: the store is unavailable (" + reason(fault) + ")",
          e.getMessage());
      assertTrue(FaultyFileSystem.failedWrites(dir) > 0, "the fault was met");

      StoreUnavailableException read = assertThrows(StoreUnavailableException.class, () -> h2.store().snapshot(),
          "once a write failed, H2 has closed the database: reads fail the same way");
      assertEquals(reason(fault), read.reason());
      assertTrue(read.getMessage().startsWith(file + ": snapshot failed: the store is unavailable ("), read.getMessage());
      StoreUnavailableException next = assertThrows(StoreUnavailableException.class, () -> h2.submit(ticket(), NOW));
      assertEquals(reason(fault), next.reason());

      FaultyFileSystem.heal(dir);
      assertThrows(StoreUnavailableException.class, () -> h2.store().snapshot(),
          "healed, the store stays unavailable until it is opened again");
    } finally {
      FaultyFileSystem.heal(dir);
      assertDoesNotThrow(h2::close, "closing a store found unavailable");
    }

    try (H2Coordination again = H2Coordination.open(file, options())) {
      Snapshot after = again.store().snapshot();
      if (after.equals(before)) {
        OUTCOMES.put(fault + " " + verb.name(), "absent");
      } else {
        CoordinationInvariants.check(after);
        OUTCOMES.put(fault + " " + verb.name(), "persisted, consistent");
      }
      CoordinationInvariants.check(again.store());
    }
    assertTrue(H2Maintenance.check(file).healthy(), "the file is whole");
  }

  // (a)
  @ParameterizedTest
  @EnumSource(Fault.class)
  void decisionsAcknowledgedBeforeTheFault_areAllThere_afterHealCloseAndReopen(Fault fault) {
    Path file = dir.resolve("vigil.mv.db");
    Snapshot before;
    try (H2Coordination h2 = H2Coordination.open(file, options())) {
      acknowledged(h2);
      for (int i = 0; i < 20; i++) {
        TicketId t = submit(h2);
        RunId r = claim(h2, t);
        h2.start(r, A, START);
        if (i % 2 == 0) {
          h2.takeExit(r, ExitOwner.supervisor(A), RunExit.code(0, NOW));
          h2.finish(Finish.as(ExitOwner.supervisor(A), r, Verdict.SUCCEEDED, null), NOW);
        }
      }
      before = h2.store().snapshot();
      FaultyFileSystem.failWrites(dir, fault);
      assertThrows(StoreUnavailableException.class, () -> h2.claimNext(Lane.DEFAULT, A, NOW, TTL, 5));
      assertThrows(StoreUnavailableException.class, () -> h2.submit(ticket(), NOW));
      FaultyFileSystem.heal(dir);
    }
    try (H2Coordination again = H2Coordination.open(file, options())) {
      Snapshot after = again.store().snapshot();
      assertEquals(before, after, "every acknowledged decision, and nothing else");
      CoordinationInvariants.check(after);
      // and the reopened store works
      TicketId t = submit(again);
      assertInstanceOf(Claim.Granted.class, again.claim(t, A, NOW, TTL));
    }
  }

  /** Verbs racing on several threads when the disk fills: each stops at a StoreUnavailableException, none hangs. */
  @Test
  void verbsInFlightOnManyThreads_allEndWithStoreUnavailable_andEveryAcknowledgedOneSurvives() throws Exception {
    Path file = dir.resolve("vigil.mv.db");
    int threads = 4;
    List<TicketId> acknowledged = java.util.Collections.synchronizedList(new ArrayList<>());
    java.util.concurrent.CountDownLatch enough = new java.util.concurrent.CountDownLatch(40);
    List<Throwable> ends = java.util.Collections.synchronizedList(new ArrayList<>());
    H2Coordination h2 = H2Coordination.open(file, options());
    List<Thread> workers = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      Thread w = new Thread(() -> {
        try {
          while (true) {
            TicketId t = submit(h2);
            acknowledged.add(t);
            enough.countDown();
            claim(h2, t);
          }
        } catch (Throwable e) {
          ends.add(e);
        }
      }, "verbs-" + i);
      workers.add(w);
      w.start();
    }
    enough.await();
    FaultyFileSystem.failWrites(dir, Fault.NO_SPACE);
    for (Thread w : workers) {
      w.join();
    }
    assertEquals(threads, ends.size());
    for (Throwable e : ends) {
      StoreUnavailableException u = assertInstanceOf(StoreUnavailableException.class, e);
      assertTrue(u.reason().contains("no space left on device"), u.reason() + ": " + chain(u));
    }
    FaultyFileSystem.heal(dir);
    assertDoesNotThrow(h2::close);
    try (H2Coordination again = H2Coordination.open(file, options())) {
      Snapshot after = again.store().snapshot();
      List<TicketId> present = after.tickets().stream().map(t -> t.id()).toList();
      assertTrue(present.containsAll(acknowledged), "every acknowledged submission is there");
      CoordinationInvariants.check(after);
    }
  }

  // (e)
  @ParameterizedTest
  @EnumSource(Fault.class)
  void openDuringTheFault_throwsStoreUnavailable_andChangesNothing(Fault fault) throws IOException {
    Path file = dir.resolve("vigil.mv.db");
    try (H2Coordination h2 = H2Coordination.open(file, options())) {
      acknowledged(h2);
    }
    byte[] bytes = Files.readAllBytes(file);
    FaultyFileSystem.failWrites(dir, fault);

    StoreUnavailableException e = assertThrows(StoreUnavailableException.class,
        () -> H2Coordination.open(file, options()));
    assertEquals(reason(fault), e.reason());
    assertEquals("cannot open " + file + ": the store is unavailable (" + reason(fault) + ")", e.getMessage());
    assertTrue(FaultyFileSystem.failedWrites(dir) > 0, "the open tried to write");
    assertArrayEquals(bytes, Files.readAllBytes(file), "the file is unchanged");
    try (Stream<Path> files = Files.list(dir)) {
      assertEquals(List.of(file), files.toList(), "no other file was created");
    }

    Path fresh = dir.resolve("fresh.mv.db");
    StoreUnavailableException created = assertThrows(StoreUnavailableException.class,
        () -> H2Coordination.open(fresh, options()));
    assertEquals(reason(fault), created.reason());
    assertFalse(Files.exists(fresh), "a new store that could not be created leaves no file");

    FaultyFileSystem.heal(dir);
    try (H2Coordination again = H2Coordination.open(file, options())) {
      assertEquals(7, again.store().snapshot().tickets().size());
      CoordinationInvariants.check(again.store());
    }
  }

  // (f)
  @Test
  void theFaultStrikingTheReopenAfterACompaction_leavesAStoreThatReopensWholeAfterTheHeal() {
    Path file = dir.resolve("vigil.mv.db");
    Tuning compactEarly = new Tuning(0, 0, true, 1);
    List<TicketId> acknowledged = new ArrayList<>();
    StoreUnavailableException e = null;
    H2Coordination h2 = H2Coordination.open(file, options(), compactEarly);
    try {
      FaultyFileSystem.failWritesAfterNextRename(dir, Fault.NO_SPACE);
      for (int i = 0; i < 2_000 && e == null; i++) {
        try {
          acknowledged.add(submit(h2));
        } catch (StoreUnavailableException u) {
          e = u;
        }
      }
      assertTrue(e != null, "a compaction ran within 2,000 submissions, and the fault struck its reopen");
      assertEquals(0, h2.compactions(), "the compaction did not complete");
      assertEquals("no space left on device", e.reason());
      assertEquals(file + ": submit failed: the store is unavailable (no space left on device)", e.getMessage());
      assertTrue(String.valueOf(e.getCause().getMessage()).contains("compaction or the reopen after it failed"),
          String.valueOf(e.getCause()));
      assertThrows(StoreUnavailableException.class, () -> h2.store().snapshot());
      FaultyFileSystem.heal(dir);
    } finally {
      FaultyFileSystem.heal(dir);
      assertDoesNotThrow(h2::close);
    }
    assertTrue(H2Maintenance.check(file).healthy(), "the compacted file is whole");
    try (H2Coordination again = H2Coordination.open(file, options(), compactEarly)) {
      Snapshot after = again.store().snapshot();
      assertEquals(acknowledged, after.tickets().stream().map(t -> t.id()).toList(),
          "every acknowledged submission, and nothing else");
      CoordinationInvariants.check(after);
    }
  }

  /**
   * H2 2.5.252 does not report a {@code SHUTDOWN COMPACT} that cannot write: it logs the failure,
   * drops the database as after a crash and returns. The file keeps every acknowledged decision.
   */
  @ParameterizedTest
  @EnumSource(Fault.class)
  void closeDuringTheFault_leavesTheFileWhole_andReleasesIt(Fault fault) {
    Path file = dir.resolve("vigil.mv.db");
    H2Coordination h2 = H2Coordination.open(file, options());
    acknowledged(h2);
    Snapshot before = h2.store().snapshot();
    FaultyFileSystem.failWrites(dir, fault);
    assertDoesNotThrow(h2::close);
    assertTrue(FaultyFileSystem.failedWrites(dir) > 0, "the compaction at close met the fault");
    StoreUnavailableException e = assertThrows(StoreUnavailableException.class,
        () -> H2Coordination.open(file, options()), "the file is released, and the fault still holds");
    assertEquals(reason(fault), e.reason());
    FaultyFileSystem.heal(dir);
    assertTrue(H2Maintenance.check(file).healthy(), "the file is whole");
    try (H2Coordination again = H2Coordination.open(file, options())) {
      assertEquals(before, again.store().snapshot());
    }
  }

  @Test
  void aFileSystemThatIsNotRegistered_isRefusedAtOpen_creatingNothing() {
    Path file = dir.resolve("vigil.mv.db");
    CoordinationStoreException e = assertThrows(CoordinationStoreException.class,
        () -> H2Coordination.open(file, H2Options.defaults().withFileSystem("nosuchfs:")));
    assertEquals("cannot open " + file + ": the H2 file system 'nosuchfs:' is not registered in this process",
        e.getMessage());
    assertFalse(Files.exists(file));
  }

  @Test
  void faultsHoldOnlyUnderTheirOwnDirectory() throws IOException {
    Path mine = Files.createDirectory(dir.resolve("mine"));
    Path other = Files.createDirectory(dir.resolve("other"));
    try (H2Coordination a = H2Coordination.open(mine.resolve("vigil.mv.db"), options());
        H2Coordination b = H2Coordination.open(other.resolve("vigil.mv.db"), options())) {
      FaultyFileSystem.failWrites(mine, Fault.IO_ERROR);
      assertThrows(StoreUnavailableException.class, () -> submit(a));
      assertEquals(new TicketId(1), submit(b));
      assertEquals(0, FaultyFileSystem.failedWrites(other));
      FaultyFileSystem.heal(mine);
    }
  }

  /** The reasons for environment failures FaultyFileSystem does not inject, from what the JDK and H2 throw. */
  @Test
  void theReason_isTheOperatingSystemsFailure_inPlainWords_andDamageStaysDamage() {
    assertEquals("the file system is read-only", reasonOf(
        new SQLException("IO Exception", "90028", 90028, new FileSystemException("/x/vigil.mv.db", null,
            "Read-only file system"))));
    assertEquals("permission denied", reasonOf(
        new SQLException("IO Exception", "90028", 90028, new AccessDeniedException("/x/vigil.mv.db"))));
    assertEquals("the disk quota is exceeded", reasonOf(new IOException("Disk quota exceeded")));
    MVStoreException writing = DataUtils.newMVStoreException(DataUtils.ERROR_WRITING_FAILED, "Writing to {0} failed",
        "/x/vigil.mv.db");
    writing.initCause(new IOException("No space left on device"));
    assertEquals("the database closed itself after a failed write (no space left on device)", reasonOf(
        new SQLException("The database has been closed", "90098", 90098, writing)));
    assertEquals("the database closed itself", reasonOf(
        DataUtils.newMVStoreException(DataUtils.ERROR_CLOSED, "This store is closed")));
    assertEquals(new Damage.Diagnosis.Damaged("a page of its data fails the database's checks"), Damage.diagnose(
        new SQLException("General error", "HY000", 50000,
            DataUtils.newMVStoreException(DataUtils.ERROR_FILE_CORRUPT, "File corrupted in chunk {0}", 7))));
    assertEquals(new Damage.Diagnosis.Other(), Damage.diagnose(new SQLException("Timeout trying to lock table",
        "HYT00", 50200)));
    if (!(Damage.diagnose(new IOException("Connection reset")) instanceof Damage.Diagnosis.Other)) {
      fail("an I/O failure without an environment's words is neither");
    }
  }

  private static String chain(Throwable e) {
    StringBuilder b = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      b.append(" <- ").append(t.getClass().getSimpleName()).append(": ").append(Damage.h2Detail(t));
    }
    return b.toString();
  }

  private static String reasonOf(Throwable failure) {
    Damage.Diagnosis d = Damage.diagnose(failure);
    return assertInstanceOf(Damage.Diagnosis.Unavailable.class, d, String.valueOf(d)).reason();
  }

  /** Lock conflicts stay what they were: an infrastructure failure, not an outage. */
  @Test
  void aLockConflictIsNotAnOutage() throws Exception {
    Path file = dir.resolve("vigil.mv.db");
    try (H2Coordination h2 = H2Coordination.open(file, options().withLockTimeout(java.time.Duration.ofMillis(50)))) {
      TicketId t = submit(h2);
      try (java.sql.Connection other = DatabaseFile.connect(h2.url())) {
        other.setAutoCommit(false);
        try (java.sql.Statement s = other.createStatement()) {
          s.executeUpdate("UPDATE tickets SET priority = priority WHERE id = " + t.seq());
        }
        CoordinationStoreException e = assertThrows(CoordinationStoreException.class, () -> h2.park(t));
        assertFalse(e instanceof StoreUnavailableException, e.getMessage());
        assertFalse(e instanceof DamagedStoreException, e.getMessage());
        other.rollback();
      }
      assertInstanceOf(Control.Done.class, h2.park(t));
    }
  }
}
