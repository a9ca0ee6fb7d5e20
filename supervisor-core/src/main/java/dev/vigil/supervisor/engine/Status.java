package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Lane;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunState;
import dev.vigil.coordination.TicketState;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What {@code daemon.json} and {@code vigil status} show (D1), published every {@code heartbeat}.
 * Nullable fields are documented as such; readers must ignore unknown fields (D3).
 *
 * @param schema            the status schema number ({@link #SCHEMA})
 * @param owner             this incarnation's owner id
 * @param pid               the daemon's pid
 * @param pidStartTicks     the daemon's start time in clock ticks since boot (with the pid, its identity)
 * @param build             the daemon's build
 * @param version           the daemon's version
 * @param protocol          the socket protocol number
 * @param startedAtWallMs   when this incarnation booted, wall clock
 * @param heartbeatAtWallMs when this status was made, wall clock (D1: stale after 6 beats)
 * @param state             what the daemon is doing
 * @param lanes             each configured lane with its occupancy
 * @param runs              every live run (CLAIMED, RUNNING, EXITED) in the store, by id
 * @param services          each configured service with its restart budget
 * @param parkedLanes       parked lanes (Q9), configured or not
 * @param tickets           how many tickets are in each state
 * @param recentSettlements the latest settlements this incarnation made, oldest first (at most
 *                          {@link #RECENT_SETTLEMENTS})
 */
public record Status(int schema, OwnerId owner, long pid, long pidStartTicks, String build, String version,
                     int protocol, long startedAtWallMs, long heartbeatAtWallMs, State state,
                     List<LaneStatus> lanes, List<RunStatus> runs, List<ServiceStatus> services,
                     SortedSet<Lane> parkedLanes, Map<TicketState, Integer> tickets,
                     List<EngineEvent.Settled> recentSettlements) {
  /** The schema number of this record's shape. */
  public static final int SCHEMA = 1;
  /** How many recent settlements a status carries. */
  public static final int RECENT_SETTLEMENTS = 10;

  public Status {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(build, "build");
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(state, "state");
    lanes = List.copyOf(lanes);
    runs = List.copyOf(runs);
    services = List.copyOf(services);
    parkedLanes = new TreeSet<>(parkedLanes);
    tickets = Map.copyOf(tickets);
    recentSettlements = List.copyOf(recentSettlements);
  }

  /** The daemon's mode. */
  public enum State {
    /** Dispatching. */
    RUNNING,
    /** Paused by {@link Command.Pause}: not dispatching; workers untouched. */
    PAUSED,
    /** An idle-shutdown quiesce round is collecting answers (S5); not dispatching. */
    QUIESCING,
    /** Stopping its workers before it exits; not dispatching. */
    DRAINING,
    /** Done: the shell may delete the status file and exit. */
    STOPPED
  }

  /**
   * One lane.
   *
   * @param lane        the lane
   * @param concurrency its limit
   * @param occupied    its live runs (Q11: after a restart, slots come from live runs)
   * @param ready         its READY tickets (due or not) that are not parked themselves
   * @param parkedTickets its READY tickets that are parked themselves (Q9), not counted in {@code ready}
   * @param parked        whether the lane is parked (Q9)
   */
  public record LaneStatus(Lane lane, int concurrency, int occupied, int ready, int parkedTickets, boolean parked) {}

  /** How this daemon relates to a live run. */
  public enum Supervision {
    /** Launched or adopted; waiting for reservation, identity and hello (Q3). */
    HANDOFF,
    /** Running under this daemon. */
    RUNNING,
    /** Being stopped (park, other build, operator, idle shutdown, a run settled elsewhere). */
    STOPPING,
    /** A handoff that failed: waiting for the worker to be gone before the claim is rolled back. */
    ABORTING,
    /** Not supervised by this daemon: another live owner's (a hand-started run), or waiting for recovery. */
    OTHER
  }

  /**
   * One live run.
   *
   * @param run             its id
   * @param lane            its ticket's lane
   * @param workerType      its ticket's worker type
   * @param attempt         the attempt it runs as
   * @param state           its stored state
   * @param supervision     how this daemon relates to it
   * @param owner           its owner
   * @param pid             its worker's pid, or {@code null} before its identity is known
   * @param build           its worker's build, or {@code null} before it started
   * @param claimedAtWallMs when it was claimed
   * @param startedAtWallMs when it started, or {@code null}
   * @param handStarted     whether a person started it (Q8)
   */
  public record RunStatus(RunId run, Lane lane, String workerType, int attempt, RunState state,
                          Supervision supervision, OwnerId owner, Long pid, String build, long claimedAtWallMs,
                          Long startedAtWallMs, boolean handStarted) {}

  /** A service's state. */
  public enum ServiceState {
    /** No worker: an on-demand session not running, or stopped by an operator. */
    DOWN,
    /** Launched; waiting for its reservation and hello. */
    LAUNCHING,
    /** Found alive at boot; waiting for its hello to decide adoption (S6). */
    ADOPTING,
    /** Its worker serves. */
    UP,
    /** Its worker is being stopped. */
    STOPPING,
    /** Waiting out a restart backoff (S1). */
    BACKOFF,
    /** The restart budget gave up (S1). */
    GIVEN_UP
  }

  /**
   * One service.
   *
   * @param name             its name
   * @param workerType       its worker type
   * @param activation       when it has a worker
   * @param state            its state
   * @param pid              its worker's pid, or {@code null}
   * @param build            its worker's build, or {@code null}
   * @param failuresInWindow failures within the restart window (S1)
   * @param restartInMs      how long until the next restart attempt, or {@code null}
   * @param note             why it is in its state (the give-up reason, the revival verdict…), or {@code null}
   */
  public record ServiceStatus(String name, String workerType, ServiceSpec.Activation activation, ServiceState state,
                              Long pid, String build, int failuresInWindow, Long restartInMs, String note) {}
}
