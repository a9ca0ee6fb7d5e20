package dev.vigil.worker.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RunId;
import dev.vigil.supervisor.StopKind;
import dev.vigil.supervisor.engine.ToWorker;
import dev.vigil.supervisor.engine.WorkerKey;
import dev.vigil.supervisor.engine.WorkerTypeSpec;
import dev.vigil.supervisor.engine.port.IdentityRecord;
import dev.vigil.supervisor.engine.port.Launch;
import dev.vigil.supervisor.engine.port.LaunchRequest;
import dev.vigil.worker.protocol.Message;
import dev.vigil.worker.protocol.ProtocolServer;
import dev.vigil.worker.protocol.RunToken;
import dev.vigil.worker.protocol.Subject;
import dev.vigil.worker.rundir.RunDirectory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What worker-runtime's adapters do beyond the port contracts: directory names, the identity record
 * a real worker host writes, the token check at the socket, and how the socket carries each stop.
 */
class RealWorkersTest {
  private static final String BUILD = "1.0.0+b1";
  private static final WorkerKey RUN = new WorkerKey.Task(RunId.parse("t-3.1"));
  private static final WorkerKey SERVICE = new WorkerKey.Service("indexer");

  @TempDir
  Path home;

  @Test
  void directoriesAreNamedAfterTheRun_orAfterTheServicePrefixedWithS() {
    assertEquals("t-3.1", DiskRunDirectories.nameOf(RUN));
    assertEquals("s-indexer", DiskRunDirectories.nameOf(SERVICE));
    assertEquals(RunDirectory.runsOf(home).resolve("s-indexer"), DiskRunDirectories.directoryOf(home, SERVICE).path());
  }

  @Test
  void C9_aWorkerHostRecordsItsBuildAndTokenHash_andTheDaemonWritesOnlyThePayload() throws Exception {
    try (RealPorts real = new RealPorts(home)) {
      real.directories.prepare(SERVICE);
      Launch.Started started = real.started(new LaunchRequest(SERVICE, WorkerTypeSpec.command(), "{\"argv\":[\"true\"]}", 0, BUILD));
      assertEquals(new IdentityRecord.Written(started.identity(), BUILD, started.tokenHash()),
          real.directories.identity(SERVICE), "S6, C9: the record carries the launch's build and token hash");
      List<String> files;
      try (Stream<Path> list = Files.list(DiskRunDirectories.directoryOf(home, SERVICE).path())) {
        files = list.map(p -> p.getFileName().toString()).sorted().toList();
      }
      assertEquals(List.of("identity.json", "payload.json", "reservation.lock", "stderr.log", "stdout.log"), files,
          "no token or build file beside the worker's own record");
    }
  }

  @Test
  void C9_theSocketChecksAHelloAgainstTheTokenHashOfTheIdentityRecord() throws Exception {
    DiskRunDirectories dirs = new DiskRunDirectories(home);
    ProtocolServer.TokenHashes hashes = SocketWorkerChannel.tokenHashes(dirs);
    Subject.Run run = new Subject.Run("t-3.1");
    assertEquals(Optional.empty(), hashes.hashOf(run), "no directory: no hash");
    dirs.prepare(RUN);
    assertEquals(Optional.empty(), hashes.hashOf(run), "no identity record: no hash");
    RunDirectory dir = DiskRunDirectories.directoryOf(home, RUN);
    ProcessIdentity someone = new ProcessIdentity("boot-1", 42, 7, 42);
    dir.writeIdentity(IdentityRecord.Written.bare(someone));
    assertEquals(Optional.empty(), hashes.hashOf(run), "a record without a hash admits no hello");
    dir.writeIdentity(new IdentityRecord.Written(someone, BUILD, "ab".repeat(32)));
    assertEquals(Optional.of("ab".repeat(32)), hashes.hashOf(run));
    assertEquals(Optional.empty(), hashes.hashOf(new Subject.Session("t-3.1")), "a token is valid for its own subject only");
    assertEquals(Optional.empty(), hashes.hashOf(new Subject.Run("../t-3.1")), "a subject that names no key has no hash");

    try (WorkerSocket socket = new WorkerSocket(home, BUILD)) {
      socket.tokenOf(SERVICE);
      WorkerSocket.Worker forger = socket.hello(SERVICE, RunToken.generate());
      RealPorts.await("a hello with a wrong token is refused and its connection closed", () -> !forger.open());
      assertInstanceOf(Message.Error.class, forger.messages().get(0));
      assertFalse(socket.channel.send(SERVICE, new ToWorker.Quiesce()), "a refused connection is bound to nothing");
    }
  }

  @Test
  void S6_aLostStopIsAnAdoptDenied_thatClosesTheConnection() throws Exception {
    try (WorkerSocket socket = new WorkerSocket(home, BUILD)) {
      WorkerSocket.Worker w = welcomed(socket, SERVICE);
      assertTrue(socket.channel.send(SERVICE, new ToWorker.Stop(1_000, StopKind.LOST)));
      RealPorts.await("the lost worker's connection is closed", () -> !w.open());
      assertEquals(List.of(new ToWorker.Welcome(BUILD, false), new ToWorker.AdoptDenied("lost: this daemon runs another build")),
          w.frames());
      assertFalse(socket.channel.send(SERVICE, new ToWorker.Quiesce()));
    }
  }

  @Test
  void parkAndOperatorStopsHaveNoFrame_andAreReportedUndelivered() throws Exception {
    try (WorkerSocket socket = new WorkerSocket(home, BUILD)) {
      WorkerSocket.Worker w = welcomed(socket, RUN);
      assertFalse(socket.channel.send(RUN, new ToWorker.Stop(1_000, StopKind.PARK)), "TERM follows after the grace");
      assertFalse(socket.channel.send(RUN, new ToWorker.Stop(1_000, StopKind.OPERATOR)), "TERM follows after the grace");
      assertTrue(socket.channel.send(RUN, new ToWorker.Release()));
      RealPorts.await("the release arrives", () -> w.frames().size() == 2);
      assertEquals(List.of(new ToWorker.Welcome(BUILD, false), new ToWorker.Release()), w.frames(),
          "nothing was written for either stop");
      assertTrue(w.open());
    }
  }

  @Test
  void anAdoptDenied_asTheAnswerToAHelloOrAsAFrame_closesTheConnection() throws Exception {
    try (WorkerSocket socket = new WorkerSocket(home, BUILD)) {
      WorkerSocket.Worker welcomed = welcomed(socket, RUN);
      assertTrue(socket.channel.send(RUN, new ToWorker.AdoptDenied("run t-3.1 is settled")));
      RealPorts.await("the denied connection is closed", () -> !welcomed.open());
      assertEquals(new ToWorker.AdoptDenied("run t-3.1 is settled"), welcomed.frames().get(1));
      socket.deny(SERVICE);
      WorkerSocket.Worker denied = socket.hello(SERVICE);
      RealPorts.await("a hello answered with adopt-denied closes its connection", () -> !denied.open());
      assertEquals(List.of(new ToWorker.AdoptDenied("denied by the test")), denied.frames());
      assertFalse(socket.channel.send(SERVICE, new ToWorker.Quiesce()), "a denied connection is bound to nothing");
    }
  }

  private static WorkerSocket.Worker welcomed(WorkerSocket socket, WorkerKey key) throws Exception {
    WorkerSocket.Worker w = socket.hello(key);
    RealPorts.await("the worker of " + key + " is welcomed", () -> !w.frames().isEmpty());
    return w;
  }
}
