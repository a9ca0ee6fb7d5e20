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
import java.util.TreeSet;

/**
 * The daemon's status (D1): what {@code daemon.json} and {@code vigil status} show, made from the
 * store and from what the task and service sides expose of their own phases, and published every
 * {@code heartbeat} through the {@link dev.vigil.supervisor.engine.port.StatusBoard}.
 */
final class StatusView {
  private final Ctx ctx;
  private final Tasks tasks;
  private final Services services;
  private final Scheduler scheduler;
  private final DaemonLiveness liveness;
  private long lastBeatMonoMs;

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

  void publish(long nowMonoMs, long nowWallMs, Status.State state) {
    lastBeatMonoMs = nowMonoMs;
    ctx.statusBoard().publish(status(nowMonoMs, nowWallMs, state));
  }

  /** The status as of now, the daemon being in {@code state}. */
  Status status(long nowMonoMs, long nowWallMs, Status.State state) {
    Map<Lane, Integer> occupied = scheduler.occupancy();
    Map<Lane, Integer> ready = new HashMap<>();
    Map<Lane, Integer> parkedTickets = new HashMap<>();
    for (Ticket t : ctx.store.tickets(TicketQuery.all().inState(TicketState.READY))) {
      (t.parked() ? parkedTickets : ready).merge(t.lane(), 1, Integer::sum);
    }
    var parked = ctx.store.parkedLanes();
    List<Status.LaneStatus> lanes = new ArrayList<>();
    for (EngineConfig.LaneLimit l : ctx.config.lanes()) {
      lanes.add(new Status.LaneStatus(l.lane(), l.concurrency(), occupied.getOrDefault(l.lane(), 0),
          ready.getOrDefault(l.lane(), 0), parkedTickets.getOrDefault(l.lane(), 0), parked.contains(l.lane())));
    }
    List<Status.RunStatus> runs = new ArrayList<>();
    for (Run r : ctx.store.liveRuns()) {
      runs.add(runStatus(r));
    }
    return new Status(Status.SCHEMA, ctx.me, ctx.self.pid(), ctx.self.startTicks(), ctx.config.build(),
        ctx.config.version(), ctx.config.protocol(), ctx.bootWallMs, nowWallMs, state, lanes, runs,
        services.statuses(nowMonoMs), new TreeSet<>(parked), ctx.store.countsByState(), ctx.recentSettlements());
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
