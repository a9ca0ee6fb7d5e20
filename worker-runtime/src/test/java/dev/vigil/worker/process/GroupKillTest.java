package dev.vigil.worker.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.worker.rundir.RunDirectory;
import dev.vigil.worker.testkit.Poll;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GroupKillTest {
  @TempDir Path tmp;

  private LaunchedWorker launch(String script) throws Exception {
    RunDirectory dir = RunDirectory.create(tmp, "r-" + System.nanoTime());
    return Processes.launch(new LaunchSpec(List.of("sh", "-c", script), Map.of("PATH", System.getenv("PATH")), dir.path(),
        dir.stdoutLog(), dir.stderrLog()));
  }

  private static void awaitMembers(LaunchedWorker w, int n) {
    Poll.until(n + " processes in group " + w.identity().orElseThrow().pgid(),
        () -> ProcessTable.SYSTEM.groupMembers(w.identity().orElseThrow().pgid()).size() >= n);
  }

  @Test
  void aStopEndsTheWholeGroup_grandchildrenIncluded() throws Exception {
    LaunchedWorker w = launch("sleep 300 & sleep 300 & wait");
    awaitMembers(w, 3);
    Stopped s = Processes.stop(w.identity().orElseThrow(), 10_000).get(30, TimeUnit.SECONDS);
    assertEquals(new Stopped.Ended(false), s, "TERM was enough");
    assertEquals(List.of(), ProcessTable.SYSTEM.groupMembers(w.identity().orElseThrow().pgid()));
  }

  @Test
  void aGroupThatIgnoresTermIsKilledAfterTheGrace() throws Exception {
    LaunchedWorker w = launch("trap '' TERM; sleep 300 & sleep 300 & wait");
    awaitMembers(w, 3);
    List<ProcessIdentity> members = ProcessTable.SYSTEM.groupMembers(w.identity().orElseThrow().pgid());
    Stopped s = Processes.stop(w.identity().orElseThrow(), 300).get(30, TimeUnit.SECONDS);
    assertEquals(new Stopped.Ended(true), s);
    for (ProcessIdentity m : members) {
      assertFalse(Processes.alive(m), "member " + m + " survived");
    }
  }

  @Test
  void C5_aReusedPidIsNeverSignalled() throws Exception {
    LaunchedWorker victim = launch("exec sleep 300");
    try {
      ProcessIdentity real = victim.identity().orElseThrow();
      ProcessIdentity reused = new ProcessIdentity(real.bootId(), real.pid(), real.startTicks() + 1, real.pgid());
      assertEquals(new Signalled.Refused(Signalled.Mismatch.REUSED), Processes.signal(reused, GroupSignal.TERM));
      assertEquals(new Signalled.Refused(Signalled.Mismatch.REUSED), Processes.signal(reused, GroupSignal.KILL));
      assertEquals(new Stopped.Refused(Signalled.Mismatch.REUSED), Processes.stop(reused, 0).get(30, TimeUnit.SECONDS));
      assertFalse(victim.process().waitFor(200, TimeUnit.MILLISECONDS), "no signal reached the process behind the pid");
      assertTrue(Processes.alive(real));
    } finally {
      victim.process().destroyForcibly().waitFor();
    }
  }

  @Test
  void C5_anExitedOrForeignIdentityIsRefused() throws Exception {
    LaunchedWorker done = launch("exec sleep 300");
    ProcessIdentity id = done.identity().orElseThrow();
    done.process().destroyForcibly().waitFor();
    assertEquals(new Signalled.Refused(Signalled.Mismatch.GONE), Processes.signal(id, GroupSignal.TERM));
    assertEquals(new Stopped.Refused(Signalled.Mismatch.GONE), Processes.stop(id, 0).get(30, TimeUnit.SECONDS));
    ProcessIdentity self = Processes.self();
    assertEquals(new Signalled.Refused(Signalled.Mismatch.OTHER_BOOT),
        Processes.signal(new ProcessIdentity("not-this-boot", self.pid(), self.startTicks(), self.pgid()), GroupSignal.TERM));
  }

  @Test
  void C5_aGroupWhoseLeaderWasKilledStaysAlive_untilItsLastMemberEnds_andCanStillBeStopped() throws Exception {
    LaunchedWorker w = launch("sleep 300 & sleep 300 & wait");
    ProcessIdentity leader = w.identity().orElseThrow();
    awaitMembers(w, 3);
    new ProcessBuilder("kill", "-9", Long.toString(leader.pid())).start().waitFor();
    w.process().waitFor(10, TimeUnit.SECONDS);
    Poll.until("leader gone", () -> !Processes.alive(leader));
    assertEquals(2, Processes.orphanedMembers(leader).size(), "the leader's children still run in its group");
    assertTrue(Processes.groupAlive(leader), "C5: a run whose command still runs is not dead");
    assertTrue(Processes.signalWhatIsLeft(leader, GroupSignal.KILL));
    Poll.until("orphans gone", () -> Processes.orphanedMembers(leader).isEmpty());
    assertFalse(Processes.groupAlive(leader));
    assertFalse(Processes.signalWhatIsLeft(leader, GroupSignal.KILL), "nothing left to signal");
  }

  @Test
  void C5_aReusedLeaderPidHasNoOrphans() throws Exception {
    LaunchedWorker w = launch("exec sleep 300");
    try {
      ProcessIdentity real = w.identity().orElseThrow();
      ProcessIdentity older = new ProcessIdentity(real.bootId(), real.pid(), real.startTicks() - 1, real.pgid());
      assertEquals(List.of(), Processes.orphanedMembers(older), "a live process behind the pid is not our group");
      assertFalse(Processes.groupAlive(older));
      ProcessIdentity self = Processes.self();
      ProcessIdentity memberOfAShellGroup = new ProcessIdentity(self.bootId(), self.pid() + 1_000_000, 1, self.pgid());
      assertEquals(List.of(), Processes.orphanedMembers(memberOfAShellGroup),
          "a process that did not lead its group leaves no orphans: its group is someone else's");
    } finally {
      w.process().destroyForcibly().waitFor();
    }
  }
}
