package dev.vigil.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * B3, B4/B5 and the daemon's standing costs at their smallest sizes, through the real jar: each
 * produces sane figures (smoke tests: no speed is asserted). task-spooler is used when installed.
 */
@Tag("slow")
class EndToEndSmokeTest {
  @TempDir
  Path tmp;

  @Test
  void b3_runsTrueTasksFedOverTheSocketAndByTheCli_besideTheBareJvmStart() throws Exception {
    Options o = Options.smoke(tmp);
    B3EndToEnd.Result r = B3EndToEnd.measure(o);
    B3EndToEnd.Rep rep = r.reps().get(0);
    for (B3EndToEnd.Fed f : new B3EndToEnd.Fed[] {rep.socket(), rep.cli()}) {
      assertEquals(0, f.failed(), "every task succeeded");
      assertTrue(f.perSecond() > 0 && Double.isFinite(f.perSecond()), "tasks/s: " + f.perSecond());
      assertTrue(f.p50SettleMs() > 0, "submit→settled: " + f.p50SettleMs());
      assertTrue(f.p50ClaimToStartMs() >= 0, "claim→start: " + f.p50ClaimToStartMs());
    }
    assertTrue(rep.socket().hostCpuPerTask() > 0, "the worker hosts used CPU: " + rep.socket().hostCpuPerTask());
    assertTrue(rep.bareJvm().cpuPerTask() > 0 && rep.bareJvm().perSecond() > 0, "bare JVM: " + rep.bareJvm());
    assertEquals(r.tspPresent(), rep.tsp() != null);
    if (rep.tsp() != null) {
      assertTrue(rep.tsp().perSecond() > 0);
    }
    assertFalse(B3EndToEnd.report(r, o).get(0).rows().isEmpty());
  }

  @Test
  void b4b5_readoptsLiveWorkersAfterKill9_andReadsTheirMemory() throws Exception {
    Options o = Options.smoke(tmp);
    B4Readoption.Result r = B4Readoption.measure(o);
    B4Readoption.Size s = r.reps().get(0).get(0);
    assertEquals(3, s.live());
    assertEquals(0, s.abandoned(), "no handoff timeout");
    assertEquals(0, s.ranTwice(), "no ticket launched twice");
    assertTrue(s.readoptMs() > 0 && s.readoptMs() >= s.bootToSocketMs(), "readoption: " + s);
    assertTrue(s.journalReadoptMs() > 0 && s.journalReadoptMs() <= s.readoptMs() + 20,
        "re-adopted (journal) before it was seen through the socket: " + s);
    assertTrue(s.idleRssMb() > 0 && s.liveRssMb() > 0 && s.hostRssMb() > 0 && s.hostPssMb() > 0, "memory: " + s);
    assertTrue(s.hostPssMb() <= s.hostRssMb(), "PSS never exceeds RSS: " + s);
    assertEquals(2, B4Readoption.report(r, o).size());
  }

  @Test
  void hostStartup_measuresOneHostAtATime_besideABareJvm_andCountsItsClasses() throws Exception {
    Options o = Options.smoke(tmp);
    HostStartup.Result r = HostStartup.measure(o);
    assertEquals(1, r.wallMs().size());
    assertEquals(1, r.archivedWallMs().size());
    assertTrue(r.cpuS().get(0) > 0 && r.archivedCpuS().get(0) > 0 && r.bareCpuS().get(0) > 0,
        "CPU of host, host with its archive and bare JVM: " + r);
    assertTrue(r.archiveMb() > 0 && r.archivedClassesBySource().getOrDefault("host archive", 0) > 100,
        "the archived host maps its classes from the archive: " + r);
    assertTrue(r.classes() > 100 && r.classesByPackage().containsKey("dev.vigil.worker.host"), "classes: " + r);
    assertFalse(HostStartup.report(r, o).get(0).rows().isEmpty());
  }

  @Test
  void daemonCosts_idleCpuCliCallsAndClaimToStart() throws Exception {
    Options o = Options.smoke(tmp);
    DaemonCosts.Result r = DaemonCosts.measure(o);
    DaemonCosts.Rep rep = r.reps().get(0);
    assertTrue(rep.idleCorePercent() >= 0 && rep.idleCorePercent() <= 200, "idle CPU: " + rep.idleCorePercent());
    // an idle daemon may not run at all in the smoke's short window: each figure is sane, and the
    // reading of run time saw something of one of the three
    assertTrue(rep.idleRunPercent() >= 0 && rep.bareRunPercent() >= 0 && rep.plainRunPercent() >= 0
        && Double.isFinite(rep.idleRunPercent() + rep.bareRunPercent() + rep.plainRunPercent())
        && rep.idleRunPercent() + rep.bareRunPercent() + rep.plainRunPercent() > 0,
        "idle CPU from run time, of the daemon and of the JVMs doing nothing beside it: " + rep);
    assertTrue(rep.status().get(0).wallMs() > 0 && rep.submit().get(0).wallMs() > 0);
    assertEquals(1, rep.singleClaimToStart().size());
    assertEquals(2, rep.burstClaimToStart().size());
    assertTrue(rep.singleClaimToStart().get(0) >= 0);
    assertEquals(1, rep.singleSubmitToSettled().size());
    assertTrue(rep.singleSubmitToSettled().get(0) > rep.singleClaimToStart().get(0), "settled after it started: " + rep);
    assertFalse(DaemonCosts.report(r, o).get(0).rows().isEmpty());
  }
}
