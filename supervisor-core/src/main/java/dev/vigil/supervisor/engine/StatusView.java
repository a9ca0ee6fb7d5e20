package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Lane;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketQuery;
import dev.vigil.coordination.TicketState;
import dev.vigil.supervisor.DaemonLiveness;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The daemon's status (D1): what {@code daemon.json} and {@code vigil status} show, made from the
 * store and from what the task and service sides expose of their own phases, and published every
 * {@code heartbeat} through the {@link dev.vigil.supervisor.engine.port.StatusBoard}.
 *
 * <p>An idle daemon publishes without reading the store again: while it supervises no run and the
 * store has no live run (the occupied slots, counted at each reconcile pass, are all free: no run
 * to show, C1), and nothing has happened since the last status read the store (no event, no
 * command, no dispatch, no run to move on, no reconcile pass that found a run: the engine is the
 * store's only writer while it runs, D2), the store's part of the status (waiting and parked
 * tickets, parked lanes, ticket counts) is the one read then. The heartbeat itself is published
 * every {@code heartbeat} as before, with its own time, state and services. {@code vigil status}
 * ({@link #status}) always reads the store.
 */
final class StatusView {
  private final Ctx ctx;
  private final Tasks tasks;
  private final Services services;
  private final Scheduler scheduler;
  private final DaemonLiveness liveness;
  private long lastBeatMonoMs;
  /** The store's part of the last status made while idle, or null. */
  private StorePart idlePart;
  /** Whether the engine may have written to the store since {@link #idlePart} was read. */
  private boolean storeMayHaveChanged = true;

  /**
   * What an idle status takes from the store: READY tickets per lane (not parked, parked), parked
   * lanes and the ticket counts.
   */
  private record StorePart(Map<Lane, Integer> ready, Map<Lane, Integer> parkedTickets, Set<Lane> parked,
                           Map<TicketState, Integer> counts) {}

  StatusView(Ctx ctx, Tasks tasks, Services services, Scheduler scheduler) {
    this.ctx = ctx;
    this.tasks = tasks;
    this.services = services;
    this.scheduler = scheduler;
    this.liveness = DaemonLiveness.from(ctx.config.timeouts());
  }

  /** Publishes when {@code heartbeat} has passed since the last publication (D1). */
  void publishIfDue(long nowMonoMs, long nowWallMs, Status.State state) {
    if (liveness.heartbeatDue(lastBeatMonoMs, nowMonoMs)) {
      publish(nowMonoMs, nowWallMs, state);
    }
  }

  /** When the next publication is due (D1). */
  long nextBeatMonoMs() {
    return liveness.nextBeatMonoMs(lastBeatMonoMs);
  }

  /**
   * The engine may have written to the store (an event, a command, a dispatch, a run that moved on,
   * a reconcile pass that looked at runs): the next status reads it again.
   */
  void storeMayHaveChanged() {
    storeMayHaveChanged = true;
  }

  void publish(long nowMonoMs, long nowWallMs, Status.State state) {
    lastBeatMonoMs = nowMonoMs;
    Map<Lane, Integer> occupied = scheduler.occupancy();
    boolean idle = tasks.isEmpty() && occupied.isEmpty();
    if (!idle) {
      idlePart = null;
      ctx.statusBoard().publish(make(occupied, readPart(), ctx.store.liveRuns(), nowMonoMs, nowWallMs, state));
      return;
    }
    if (idlePart == null || storeMayHaveChanged) {
      idlePart = readPart();
      storeMayHaveChanged = false;
    }
    ctx.statusBoard().publish(make(occupied, idlePart, List.of(), nowMonoMs, nowWallMs, state));
  }

  /** The status as of now, the daemon being in {@code state}, read from the store. */
  Status status(long nowMonoMs, long nowWallMs, Status.State state) {
    return make(scheduler.occupancy(), readPart(), ctx.store.liveRuns(), nowMonoMs, nowWallMs, state);
  }

  private StorePart readPart() {
    Map<Lane, Integer> ready = new HashMap<>();
    Map<Lane, Integer> parkedTickets = new HashMap<>();
    for (Ticket t : ctx.store.tickets(TicketQuery.all().inState(TicketState.READY))) {
      (t.parked() ? parkedTickets : ready).merge(t.lane(), 1, Integer::sum);
    }
    return new StorePart(ready, parkedTickets, ctx.store.parkedLanes(), ctx.store.countsByState());
  }

  private Status make(Map<Lane, Integer> occupied, StorePart part, List<Run> live, long nowMonoMs, long nowWallMs,
      Status.State state) {
    List<Status.LaneStatus> lanes = new ArrayList<>();
    for (EngineConfig.LaneLimit l : ctx.config.lanes()) {
      lanes.add(new Status.LaneStatus(l.lane(), l.concurrency(), occupied.getOrDefault(l.lane(), 0),
          part.ready().getOrDefault(l.lane(), 0), part.parkedTickets().getOrDefault(l.lane(), 0),
          part.parked().contains(l.lane())));
    }
    List<Status.RunStatus> runs = new ArrayList<>();
    for (Run r : live) {
      runs.add(runStatus(r));
    }
    return new Status(Status.SCHEMA, ctx.me, ctx.self.pid(), ctx.self.startTicks(), ctx.config.build(),
        ctx.config.version(), ctx.config.protocol(), ctx.bootWallMs, nowWallMs, state, lanes, runs,
        services.statuses(nowMonoMs), new TreeSet<>(part.parked()), part.counts(), ctx.recentSettlements());
  }

  private Status.RunStatus runStatus(Run r) {
    Ticket t = ctx.store.ticket(r.ticket()).orElseThrow();
    Optional<TaskTable.Supervised> supervised = tasks.statusOf(r.id());
    Status.Supervision sup = supervised.map(TaskTable.Supervised::supervision).orElse(Status.Supervision.OTHER);
    ProcessIdentity id = supervised.isPresent() ? supervised.get().identity()
        : r.start() == null ? null : r.start().identity();
    return new Status.RunStatus(r.id(), t.lane(), t.type(), r.attempt(), r.state(), sup, r.owner(),
        id == null ? null : id.pid(), r.start() == null ? null : r.start().build(), r.claimedAtMs(),
        r.start() == null ? null : r.start().startedAtMs(), r.handStarted());
  }
}
