package dev.vigil.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.vigil.supervisor.DaemonLiveness;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link DaemonWait}: when a client waits for a daemon, and how it finds the holder of the lock. */
class DaemonWaitTest {
  private static final DaemonLiveness LIVENESS = DaemonWait.liveness();
  private static final long NOW = 1_700_000_000_000L;

  @TempDir
  Path dir;

  private static DaemonWait.Decision decide(Optional<Long> holder, Optional<DaemonLiveness.Status> status, long waited,
                                            long limit) {
    return DaemonWait.decide(new DaemonWait.Signs(holder, status), LIVENESS, NOW, waited, limit);
  }

  @Test
  void clearlyNoDaemon_noLockHolderAndNoFreshStatus_failsAtOnce_howeverLongTheWait() {
    assertInstanceOf(DaemonWait.Decision.NoDaemon.class, decide(Optional.empty(), Optional.empty(), 0, 60_000));
    DaemonLiveness.Status stale = new DaemonLiveness.Status(42, NOW - 30_000);
    assertInstanceOf(DaemonWait.Decision.NoDaemon.class, decide(Optional.empty(), Optional.of(stale), 0, 60_000));
  }

  @Test
  void aLockHolderOrAFreshStatus_isWaitedFor_untilTheLimit() {
    DaemonLiveness.Status fresh = new DaemonLiveness.Status(42, NOW - 29_999);
    assertEquals(new DaemonWait.Decision.Retry(100, "daemon.json is fresh (pid 42) but no daemon answers"),
        decide(Optional.empty(), Optional.of(fresh), 0, 10_000));
    assertEquals(new DaemonWait.Decision.Retry(100, "pid 7 holds its lock but does not answer yet"),
        decide(Optional.of(7L), Optional.empty(), 9_000, 10_000));
    assertEquals(new DaemonWait.Decision.Retry(30, "pid 7 holds its lock but does not answer yet"),
        decide(Optional.of(7L), Optional.empty(), 9_970, 10_000), "the last pause ends at the limit");
    assertEquals(new DaemonWait.Decision.GaveUp("pid 7 holds its lock but does not answer yet"),
        decide(Optional.of(7L), Optional.of(fresh), 10_000, 10_000));
    assertInstanceOf(DaemonWait.Decision.GaveUp.class, decide(Optional.of(7L), Optional.empty(), 0, 0), "--wait-daemon 0");
  }

  @Test
  void theDaemonThatWroteTheStatusAndHoldsTheLock_leavingAConnectionUnanswered_isNotAnswering_afterTheWait() {
    DaemonLiveness.Status old = new DaemonLiveness.Status(7, NOW - 35_000); // stale by D1, yet its holder lives
    DaemonWait.Signs frozen = new DaemonWait.Signs(Optional.of(7L), Optional.of(old), true);
    assertEquals(new DaemonWait.Decision.NotAnswering(7, NOW - 35_000),
        DaemonWait.decide(frozen, LIVENESS, NOW, 10_000, 10_000, true));
    assertEquals(new DaemonWait.Decision.NotAnswering(7, NOW - 35_000),
        DaemonWait.decide(frozen, LIVENESS, NOW, 0, 0, true), "--wait-daemon 0");
    assertEquals(new DaemonWait.Decision.Retry(100, "pid 7 holds its lock but does not answer"),
        DaemonWait.decide(frozen, LIVENESS, NOW, 500, 10_000, true), "waited for like a starting one");
    assertEquals(new DaemonWait.Decision.GaveUp("pid 7 holds its lock but does not answer yet"),
        DaemonWait.decide(frozen, LIVENESS, NOW, 10_000, 10_000, false),
        "refused connections: between its boot and its socket, still starting");
    assertEquals(new DaemonWait.Decision.GaveUp("pid 7 holds its lock but does not answer yet"),
        DaemonWait.decide(new DaemonWait.Signs(Optional.of(7L), Optional.of(old)), LIVENESS, NOW, 10_000, 10_000, true),
        "a holder that is not the daemon of daemon.json is one starting");
    assertThrows(IllegalArgumentException.class,
        () -> new DaemonWait.Signs(Optional.of(8L), Optional.of(old), true), "the holder wrote it: the same pid");
  }

  @Test
  void theSentenceNamesThePidTheHomeAndWhenItLastAnswered() {
    Home home = Home.resolve(dir, java.util.Map.of(), "/nowhere");
    long last = java.time.LocalDate.now().atTime(14, 3, 12).atZone(java.time.ZoneId.systemDefault()).toInstant()
        .toEpochMilli();
    assertEquals("a daemon (pid 4242) holds " + dir + " but is not answering; it last answered at 14:03:12 (35s ago)",
        DaemonWait.notAnswering(home, new DaemonWait.Decision.NotAnswering(4242, last), last + 35_400));
    assertEquals("a daemon (pid 4242) holds " + dir + " but is not answering; it last answered at 14:03:12 (1h2m ago)",
        DaemonWait.notAnswering(home, new DaemonWait.Decision.NotAnswering(4242, last), last + 3_720_000));
  }

  @Test
  void theHolderOfTheDaemonLockIsReadFromProcLocks_withoutTakingIt() throws Exception {
    Path file = dir.resolve("daemon.lock");
    try (DaemonLock lock = DaemonLock.tryAcquire(file).orElseThrow()) {
      assertEquals(Optional.of(ProcessHandle.current().pid()), DaemonWait.lockHolder(file));
      assertEquals(Optional.of(ProcessHandle.current().pid()), DaemonWait.lockHolder(file), "reading it kept it");
    }
    assertEquals(Optional.empty(), DaemonWait.lockHolder(file), "released");
    assertEquals(Optional.empty(), DaemonWait.lockHolder(dir.resolve("missing.lock")));
  }

  @Test
  void procLocksLines_areMatchedOnDeviceAndInode_andWaitingLocksHoldNothing() {
    assertEquals(Optional.of(4242L), DaemonWait.holderIn("1: POSIX  ADVISORY  WRITE 4242 fe:00:2146607 0 EOF", 0xfe, 0,
        2146607));
    assertEquals(Optional.empty(), DaemonWait.holderIn("1: POSIX  ADVISORY  WRITE 4242 fe:01:2146607 0 EOF", 0xfe, 0,
        2146607));
    assertEquals(Optional.empty(), DaemonWait.holderIn("1: POSIX  ADVISORY  WRITE 4242 fe:00:2146608 0 EOF", 0xfe, 0,
        2146607));
    assertEquals(Optional.empty(), DaemonWait.holderIn("1: -> POSIX  ADVISORY  WRITE 99 fe:00:2146607 0 EOF", 0xfe, 0,
        2146607));
    assertEquals(Optional.empty(), DaemonWait.holderIn("garbage", 0xfe, 0, 2146607));
  }
}
