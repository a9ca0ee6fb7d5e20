package dev.vigil.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

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
