package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Coordination;
import dev.vigil.coordination.Owner;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.Store;
import dev.vigil.supervisor.Adoption;
import dev.vigil.supervisor.RestartBudget;
import dev.vigil.supervisor.RevivalGate;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.engine.port.Journal;
import dev.vigil.supervisor.engine.port.Ports;
import dev.vigil.supervisor.engine.port.ProcessTable;
import dev.vigil.supervisor.engine.port.RunDirectories;
import dev.vigil.supervisor.engine.port.StatusBoard;
import dev.vigil.supervisor.engine.port.WorkerChannel;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** What every part of the engine shares: configuration, ports, this incarnation, the laws it applies. */
final class Ctx {
  final EngineConfig config;
  final Coordination coordination;
  final Store store;
  final ProcessTable processes;
  final RunDirectories directories;
  final WorkerChannel channel;
  final Journal journal;
  /** The store's recurring schedules (Q15). */
  final dev.vigil.coordination.schedule.Schedules schedules;
  private final StatusBoard statusBoard;
  final OwnerId me;
  final ProcessIdentity self;
  final long bootMonoMs;
  final long bootWallMs;
  /** S6: adoption by build (and, for services, reachability within launchHandoff of boot). */
  final Adoption adoption;
  /** S3: the boot-time revival verdict for dead service workers. */
  final RevivalGate revival;
  /** S1: every service's restart budget. */
  final RestartBudget.Policy restartPolicy;
  private final ArrayDeque<EngineEvent.Settled> recentSettlements = new ArrayDeque<>();
  /** Q11: the occupied slots of every lane, kept in memory. */
  final Occupancy occupancy;
  /** The owners {@link #otherHost} has read, by id (an owner's row never changes once registered). */
  private final Map<OwnerId, Owner> owners = new HashMap<>();
  /** The wall clock as of the event being handled (for records of decisions made deep in a step). */
  long nowWallMs;

  Ctx(EngineConfig config, Ports ports, long bootMonoMs, long bootWallMs) {
    this.config = config;
    this.coordination = ports.coordination();
    this.store = ports.coordination().store();
    this.occupancy = new Occupancy(store, this::ofThisHost);
    this.processes = ports.processes();
    this.directories = ports.directories();
    this.channel = ports.channel();
    this.journal = ports.journal();
    this.schedules = ports.schedules();
    this.statusBoard = ports.statusBoard();
    this.me = config.owner();
    this.self = ports.processes().self();
    this.bootMonoMs = bootMonoMs;
    this.bootWallMs = bootWallMs;
    this.nowWallMs = bootWallMs;
    this.adoption = Adoption.of(config.build(), config.timeouts());
    this.revival = RevivalGate.from(config.timeouts());
    this.restartPolicy = RestartBudget.Policy.from(config.timeouts());
  }

  StatusBoard statusBoard() {
    return statusBoard;
  }

  long ms(Timeout t) {
    return config.ms(t);
  }

  long leaseTtlMs() {
    return ms(Timeout.LEASE_TTL);
  }

  void record(EngineEvent e) {
    journal.record(e);
    if (e instanceof EngineEvent.Settled s) {
      recentSettlements.addLast(s);
      if (recentSettlements.size() > Status.RECENT_SETTLEMENTS) {
        recentSettlements.removeFirst();
      }
    }
  }

  /** The latest settlements this incarnation made, oldest first (at most {@link Status#RECENT_SETTLEMENTS}). */
  List<EngineEvent.Settled> recentSettlements() {
    return List.copyOf(recentSettlements);
  }

  /**
   * The host of {@code owner} when it is another host's (H1): empty for this host's owners, for one
   * registered without a host id, and for one never registered (whose runs are left alone as its own).
   * An owner's row never changes once registered, so each is read from the store once.
   */
  Optional<String> otherHost(OwnerId owner) {
    if (owner.equals(me)) {
      return Optional.empty();
    }
    Owner o = owners.get(owner);
    if (o == null) {
      Optional<Owner> stored = store.owner(owner);
      if (stored.isEmpty()) {
        return Optional.empty();
      }
      o = stored.get();
      owners.put(owner, o);
    }
    return o.ofHost(config.hostId()) ? Optional.empty() : Optional.of(o.hostId());
  }

  /** Whether {@code owner} is of this daemon's host (H1): not {@linkplain #otherHost another host's}. */
  boolean ofThisHost(OwnerId owner) {
    return otherHost(owner).isEmpty();
  }

  /**
   * Whether {@code owner} may still be alive (Q10): this incarnation is; another is provably dead
   * only when its registered identity matches no live process (C5: by identity, never by a clock).
   * An owner that never registered cannot be proven dead, so its runs are left alone. Asked only of
   * owners of this host (H1): another host's processes are not in this host's process table.
   */
  boolean ownerMayLive(OwnerId owner) {
    if (owner.equals(me)) {
      return true;
    }
    Optional<Owner> o = store.owner(owner);
    return o.isEmpty() || processes.alive(o.get().identity());
  }
}
