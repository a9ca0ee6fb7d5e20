package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Coordination;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.schedule.Schedules;
import dev.vigil.supervisor.RevivalGate;
import dev.vigil.supervisor.TimeoutLattice;
import dev.vigil.supervisor.engine.port.IdentityRecord;
import dev.vigil.supervisor.engine.port.Launch;
import dev.vigil.supervisor.engine.port.LaunchRequest;
import dev.vigil.supervisor.engine.port.OutcomeRecord;
import dev.vigil.supervisor.engine.port.Ports;
import dev.vigil.supervisor.engine.port.Prepared;
import dev.vigil.supervisor.engine.port.ProcessTable;
import dev.vigil.supervisor.engine.port.RunDirectories;
import dev.vigil.supervisor.engine.port.Signal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The daemons of another host on the same store (H1), as real engines: each {@link #boot} starts a new
 * incarnation with a new owner of that host (its own boot id, so no process of the host under test is
 * ever alive to it), configured with no lane and no service, which recovers the store as any daemon does
 * at its start and then answers commands, such as an operator's {@code release-host}. It is never ticked:
 * the examples and the simulation drive it one boot and one command at a time.
 *
 * <p>It has no process and no run directory of the host under test: it never launches, and a signal it
 * sends fails the test (H1: a daemon signals only its own host's processes). Its own host's processes
 * are alive when {@link #alive} says so; its own runs' reservations are held when {@link #reserved} says so.
 */
final class OtherHostDaemon {
  static final String BOOT = "boot-b";

  final String hostId;
  private final Coordination coordination;
  private final Schedules schedules;
  private final TimeoutLattice timeouts;
  /** Every event of every incarnation, in order. */
  final List<EngineEvent> events = new ArrayList<>();
  /** Processes of that host other than its current daemon that are alive (its other daemons, its workers). */
  Predicate<ProcessIdentity> alive = id -> false;
  /** Runs whose workers hold their reservations on that host. */
  Predicate<RunId> reserved = run -> false;
  private int incarnations;
  private ProcessIdentity self;
  Engine engine;

  OtherHostDaemon(String hostId, Coordination coordination, Schedules schedules, TimeoutLattice timeouts) {
    this.hostId = hostId;
    this.coordination = coordination;
    this.schedules = schedules;
    this.timeouts = timeouts;
  }

  /** The owner of its latest incarnation. */
  OwnerId owner() {
    return new OwnerId(hostId + "-d" + incarnations);
  }

  /** Boots a new incarnation (the one before it is gone); a crash at one of its verbs propagates. */
  Engine boot(long nowMonoMs, long nowWallMs) {
    incarnations++;
    engine = null;
    self = new ProcessIdentity(BOOT, 6_000 + incarnations, 11, 6_000 + incarnations);
    EngineConfig config = new EngineConfig(owner(), hostId, "b1", "1.0.0", 1,
        new Workload(List.of(), Simulation.TYPES, List.of()), timeouts, hostId);
    engine = Engine.boot(config, new Ports(coordination, processes, directories, (key, message) -> false, s -> { },
        events::add, schedules), nowMonoMs, nowWallMs);
    return engine;
  }

  /** Sends a command to its current incarnation; returns the answer, or null when none came (a crash at a verb). */
  Reply command(Command c, long nowMonoMs, long nowWallMs) {
    Reply[] out = new Reply[1];
    engine.onClientCommand(c, r -> out[0] = r, nowMonoMs, nowWallMs);
    return out[0];
  }

  /** Its events of {@code type}, in order. */
  <T extends EngineEvent> List<T> events(Class<T> type) {
    return events.stream().filter(type::isInstance).map(type::cast).toList();
  }

  private final ProcessTable processes = new ProcessTable() {
    @Override
    public ProcessIdentity self() {
      return self;
    }

    @Override
    public Launch launch(LaunchRequest request) {
      throw new AssertionError("the other host's daemon has no lane and launches nothing: " + request.key());
    }

    @Override
    public Optional<ProcessIdentity> identity(long pid) {
      return Optional.empty();
    }

    @Override
    public boolean alive(ProcessIdentity identity) {
      return identity.equals(self) || (identity.bootId().equals(BOOT) && alive.test(identity));
    }

    @Override
    public boolean signalGroup(ProcessIdentity identity, Signal signal) {
      throw new AssertionError("H1: host " + hostId + "'s daemon sent " + signal + " to " + identity
          + ", a process it does not run");
    }
  };

  private final RunDirectories directories = new RunDirectories() {
    @Override
    public Prepared prepare(WorkerKey key) {
      throw new AssertionError("the other host's daemon prepares no directory: " + key);
    }

    @Override
    public boolean isReserved(WorkerKey key) {
      return key instanceof WorkerKey.Task t && reserved.test(t.run());
    }

    @Override
    public IdentityRecord identity(WorkerKey key) {
      return new IdentityRecord.Absent();
    }

    @Override
    public OutcomeRecord outcome(RunId run) {
      return new OutcomeRecord.Absent("no run directory of " + run + " on host " + hostId);
    }

    @Override
    public Optional<SavedCheckpoint> checkpoint(RunId run) {
      return Optional.empty();
    }

    @Override
    public Optional<RevivalGate.BusyRecord> latestBusy(WorkerKey key) {
      return Optional.empty();
    }

    @Override
    public Optional<String> lastWords(WorkerKey key) {
      return Optional.empty();
    }

    @Override
    public long outputMark(WorkerKey key) {
      return 0;
    }
  };
}
