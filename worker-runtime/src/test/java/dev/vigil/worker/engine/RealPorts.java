package dev.vigil.worker.engine;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.supervisor.TimeoutLattice;
import dev.vigil.supervisor.engine.WorkerKey;
import dev.vigil.supervisor.engine.port.IdentityRecord;
import dev.vigil.supervisor.engine.port.Launch;
import dev.vigil.supervisor.engine.port.LaunchRequest;
import dev.vigil.supervisor.engine.port.ProcessExit;
import dev.vigil.supervisor.engine.port.Signal;
import dev.vigil.worker.process.Processes;
import dev.vigil.worker.testkit.Poll;
import dev.vigil.worker.testkit.Workers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

/**
 * worker-runtime's process table and run directories on a temporary home, launching real worker
 * hosts from this JVM's classpath. No daemon listens, so a worker waits for a welcome until its
 * handoff window ends. Closing kills every worker this JVM launched that is still alive.
 */
final class RealPorts implements AutoCloseable {
  /** The defaults, with a handoff window no test outlasts: a worker gives up only after it. */
  static final TimeoutLattice TIMEOUTS = TimeoutLattice.defaults().with(TimeoutLattice.Timeout.LAUNCH_HANDOFF, 30_000);

  final Path home;
  final List<ProcessExit> exits = new CopyOnWriteArrayList<>();
  final OsProcessTable processes;
  final DiskRunDirectories directories;

  RealPorts(Path home) {
    this.home = home;
    this.processes = new OsProcessTable(home, Workers.classpath(), TIMEOUTS, exits::add);
    this.directories = new DiskRunDirectories(home);
  }

  /** A table on the same home whose workers cannot start: their classpath holds no worker host. */
  OsProcessTable broken() {
    try {
      return new OsProcessTable(home, Files.createDirectories(home.resolve("no-classes")).toString(), TIMEOUTS,
          exits::add);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  /** Launches a worker of {@code request}'s key and returns once it holds its reservation and wrote its identity. */
  Launch.Started started(LaunchRequest request) {
    WorkerKey key = request.key();
    Launch.Started s = assertInstanceOf(Launch.Started.class, processes.launch(request));
    await("the worker of " + key + " holds its reservation and wrote its identity", () -> directories.isReserved(key)
        && directories.identity(key) instanceof IdentityRecord.Written w && w.identity().equals(s.identity()));
    return s;
  }

  /** SIGKILL to the live process {@code identity} alone. */
  static void kill9(ProcessIdentity identity) {
    assertTrue(Processes.alive(identity), "a live process " + identity);
    assertTrue(ProcessHandle.of(identity.pid()).orElseThrow().destroyForcibly(), "SIGKILL sent to " + identity);
  }

  static void await(String what, BooleanSupplier condition) {
    Poll.until(what, condition);
  }

  /** Kills what is left of every worker this JVM launched (each leads its own group) and waits until it is gone. */
  @Override
  public void close() {
    List<ProcessIdentity> workers = ProcessHandle.current().children()
        .map(h -> Processes.identityOf(h.pid()))
        .flatMap(Optional::stream)
        .filter(id -> id.pgid() == id.pid())
        .toList();
    for (ProcessIdentity w : workers) {
      processes.signalGroup(w, Signal.KILL);
    }
    for (ProcessIdentity w : workers) {
      await("worker " + w + " is gone", () -> !processes.alive(w));
    }
  }
}
