package dev.vigil.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RunId;
import dev.vigil.supervisor.TimeoutLattice;
import dev.vigil.supervisor.engine.IdentityRecord;
import dev.vigil.supervisor.engine.OutcomeRecord;
import dev.vigil.supervisor.engine.Prepared;
import dev.vigil.supervisor.engine.Signal;
import dev.vigil.supervisor.engine.WorkerKey;
import dev.vigil.worker.rundir.RunDirectory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The real ProcessTable and RunDirectories adapters on real files and real processes. */
class RealWorkersTest {
  @TempDir
  Path home;

  private RealWorkers workers() {
    return new RealWorkers(home, System.getProperty("java.class.path"), TimeoutLattice.defaults(), exit -> {});
  }

  @Test
  void aPreparedDirectoryReadsAsUnreservedWithoutIdentityOrOutcome() {
    RealWorkers w = workers();
    WorkerKey key = new WorkerKey.Task(RunId.parse("t-3.1"));
    assertFalse(w.isReserved(key), "no directory: not reserved");
    assertInstanceOf(Prepared.Ready.class, w.prepare(key));
    assertFalse(w.isReserved(key), "a free reservation lock means no live worker (C5)");
    assertInstanceOf(IdentityRecord.Absent.class, w.identity(key));
    assertInstanceOf(OutcomeRecord.Absent.class, w.outcome(RunId.parse("t-3.1")));
    assertTrue(w.latestBusy(key).isEmpty());
  }

  @Test
  void aCorruptOutcomeReadsAsCorrupt_andAnIdentityCarriesTheWorkersBuildAndTokenHash() throws Exception {
    RealWorkers w = workers();
    WorkerKey key = new WorkerKey.Task(RunId.parse("t-4.2"));
    w.prepare(key);
    RunDirectory dir = RunDirectory.of(home, "t-4.2");
    Files.writeString(dir.file(RunDirectory.OUTCOME), "{\"verdict\": \"SUCC");
    assertInstanceOf(OutcomeRecord.Corrupt.class, w.outcome(RunId.parse("t-4.2")));
    ProcessIdentity self = w.self();
    String hash = "a".repeat(64);
    dir.writeIdentity(new IdentityRecord.Written(self, "1.0.0+b1", hash));
    IdentityRecord.Written id = assertInstanceOf(IdentityRecord.Written.class, w.identity(key));
    assertEquals(self, id.identity());
    assertEquals("1.0.0+b1", id.build());
    assertEquals(hash, id.tokenHash());
    assertEquals(hash, w.tokenHashOf("t-4.2").orElseThrow());
  }

  @Test
  void identitiesAreCheckedField_byField_andAReusedPidIsNeverSignalled() {
    RealWorkers w = workers();
    ProcessIdentity self = w.self();
    assertTrue(w.alive(self));
    assertEquals(self.pid(), w.identity(self.pid()).orElseThrow().pid());
    ProcessIdentity reused = new ProcessIdentity(self.bootId(), self.pid(), self.startTicks() + 1, self.pgid());
    assertFalse(w.alive(reused), "another start time is another process (C5)");
    assertFalse(w.signalGroup(reused, Signal.TERM), "identity-gated: nothing is sent to a reused pid");
  }

  @Test
  void serviceDirectoriesAreNamedAfterTheService() {
    assertEquals("s-indexer", RealWorkers.dirName(new WorkerKey.Service("indexer")));
    assertEquals("t-7.3", RealWorkers.dirName(new WorkerKey.Task(RunId.parse("t-7.3"))));
  }
}
