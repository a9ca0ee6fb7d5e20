package dev.vigil.worker.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.ProcessIdentity;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcessIdentityTest {
  @TempDir Path tmp;

  @Test
  void C5_aLiveChildMatchesItsIdentity() throws Exception {
    Process p = new ProcessBuilder("sleep", "30").start();
    try {
      ProcessIdentity id = Processes.identityOf(p.pid()).orElseThrow();
      assertEquals(Files.readString(Path.of("/proc/sys/kernel/random/boot_id"), StandardCharsets.US_ASCII).trim(), id.bootId());
      assertEquals(p.pid(), id.pid());
      assertEquals(ProcessTable.SYSTEM.stat(ProcessHandle.current().pid()).orElseThrow().pgrp(), id.pgid(),
          "a plain child stays in the JVM's process group");
      assertTrue(Processes.alive(id));
      assertEquals(Optional.empty(), Processes.mismatch(id));
    } finally {
      p.destroyForcibly().waitFor();
    }
  }

  @Test
  void C5_anIdentityWithTheSamePidButAnotherStartTimeIsNotAlive_beforeAndAfterTheExit() throws Exception {
    Process p = new ProcessBuilder("sleep", "30").start();
    ProcessIdentity id = Processes.identityOf(p.pid()).orElseThrow();
    ProcessIdentity reused = new ProcessIdentity(id.bootId(), id.pid(), id.startTicks() + 1, id.pgid());
    assertFalse(Processes.alive(reused));
    assertEquals(Optional.of(Signalled.Mismatch.REUSED), Processes.mismatch(reused));
    p.destroyForcibly().waitFor();
    assertFalse(Processes.alive(id), "an exited process is not alive");
    assertFalse(Processes.alive(reused));
    assertEquals(Optional.of(Signalled.Mismatch.GONE), Processes.mismatch(reused));
  }

  @Test
  void aProcessThatExitedButIsNotReapedDoesNotRun_unlikeWhatTheJdkSays() throws Exception {
    // the short sleep exits first; its parent became the long one (exec), which never reaps it
    Process parent = new ProcessBuilder("sh", "-c", "sleep 0.2 & echo $!; exec sleep 30").start();
    try {
      long zombie = Long.parseLong(new java.io.BufferedReader(new java.io.InputStreamReader(parent.getInputStream(),
          StandardCharsets.US_ASCII)).readLine().trim());
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (Processes.running(zombie) && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertFalse(Processes.running(zombie), "an exited child counts as gone");
      assertTrue(Files.readString(Path.of("/proc", Long.toString(zombie), "stat")).contains(") Z "),
          "it is a zombie still in the process table");
      assertTrue(ProcessHandle.of(zombie).map(ProcessHandle::isAlive).orElse(false),
          "the JDK counts it alive, which is why Vigil does not ask the JDK");
      assertTrue(Processes.running(parent.pid()));
      assertTrue(Processes.running(ProcessHandle.current().pid()));
      assertFalse(Processes.running(0));
      assertTrue(new ProcessTable.Fallback().running(parent.pid()), "the non-Linux table asks the JDK");
    } finally {
      parent.destroyForcibly().waitFor();
    }
  }

  @Test
  void C5_anotherBootOrAnotherGroupDoesNotMatch() {
    ProcessIdentity self = Processes.self();
    assertEquals(Optional.of(Signalled.Mismatch.OTHER_BOOT),
        Processes.mismatch(new ProcessIdentity("another-boot", self.pid(), self.startTicks(), self.pgid())));
    assertEquals(Optional.of(Signalled.Mismatch.REGROUPED),
        Processes.mismatch(new ProcessIdentity(self.bootId(), self.pid(), self.startTicks(), self.pgid() + 1)));
  }

  @Test
  void aRealProcessWhoseCommandNameHasParenthesesAndSpacesIsRead() throws Exception {
    Path sleep = Files.isExecutable(Path.of("/usr/bin/sleep")) ? Path.of("/usr/bin/sleep") : Path.of("/bin/sleep");
    Path odd = tmp.resolve("a) b (c");
    Files.copy(sleep, odd);
    assertTrue(odd.toFile().setExecutable(true));
    Process p = new ProcessBuilder(odd.toString(), "30").start();
    try {
      Poll_untilExecd(p.pid(), "a) b (c");
      ProcStat s = ProcessTable.SYSTEM.stat(p.pid()).orElseThrow();
      assertEquals("a) b (c", s.comm());
      ProcessIdentity id = Processes.identityOf(p.pid()).orElseThrow();
      assertNotEquals(0, id.startTicks());
      assertTrue(Processes.alive(id));
    } finally {
      p.destroyForcibly().waitFor();
    }
  }

  @Test
  void withoutProcTheStartInstantStandsForTheStartTime() throws Exception {
    ProcessTable fallback = new ProcessTable.Fallback();
    Process p = new ProcessBuilder("sleep", "30").start();
    ProcessIdentity id = fallback.identityOf(p.pid()).orElseThrow();
    assertEquals(p.toHandle().info().startInstant().orElseThrow().toEpochMilli(), id.startTicks());
    assertEquals(p.pid(), id.pgid(), "without /proc a worker is taken to lead its own group");
    assertEquals(fallback.bootId(), id.bootId());
    p.destroyForcibly().waitFor();
    assertEquals(Optional.empty(), fallback.identityOf(p.pid()));
  }

  private static void Poll_untilExecd(long pid, String comm) {
    dev.vigil.worker.testkit.Poll.until("pid " + pid + " runs " + comm,
        () -> ProcessTable.SYSTEM.stat(pid).map(s -> s.comm().equals(comm)).orElse(false));
  }
}
