package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Claim;
import dev.vigil.coordination.Resumption;
import dev.vigil.coordination.Claims;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketQuery;
import dev.vigil.coordination.TicketState;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The scheduler: per configured lane, claims ({@code claimNext}) as many due tickets as the lane has
 * free slots, by priority then age; occupied slots are the lane's live runs in the store, so after
 * any restart they equal its live workers (Q11). A hand start (Q8) takes a free slot the same way.
 *
 * <p>At most {@link Workload#maxStarting} workers start at once (launched, not yet told to go): a
 * burst of due work on a small machine starts in waves instead of all at once, where every JVM would get a
 * sliver of the CPU and many would miss their handoff. Free slots left by it are claimed as soon as a start
 * ends. A hand start is not held back by it.
 */
final class Scheduler {
  private final Ctx ctx;
  private final Tasks tasks;
  /** The lane that claims first in the next dispatch held back by starts (round robin). */
  private int laneCursor;

  Scheduler(Ctx ctx, Tasks tasks) {
    this.ctx = ctx;
    this.tasks = tasks;
  }

  /**
   * Claims due tickets into the free slots of every configured, unparked lane (Q11: slots from live
   * runs). Returns when dispatch must look again though nothing else happens: the earliest not-before
   * time (wall ms) of a READY, unparked ticket not yet due in a lane that still has a free slot, or
   * {@link Long#MAX_VALUE} when there is none.
   */
  long dispatch(long nowMonoMs, long nowWallMs) {
    if (ctx.config.lanes().isEmpty()) {
      return Long.MAX_VALUE;
    }
    var parked = ctx.store.parkedLanes();
    Map<Lane, Integer> occupied = occupancy();
    long nextDueWallMs = Long.MAX_VALUE;
    int startRoom = ctx.config.workload().maxStarting() - tasks.starting();
    List<EngineConfig.LaneLimit> lanes = ctx.config.lanes();
    int first = Math.floorMod(laneCursor, lanes.size());
    boolean limited = false;
    for (int k = 0; k < lanes.size(); k++) {
      EngineConfig.LaneLimit l = lanes.get((first + k) % lanes.size());
      int slots = l.concurrency() - occupied.getOrDefault(l.lane(), 0);
      if (slots <= 0 || parked.contains(l.lane())) {
        continue;
      }
      int free = Math.min(slots, startRoom);
      if (free <= 0) { // the lane has room but maxStarting workers are starting: looked at again as one starts
        ctx.occupancy.startsFull();
        limited = true;
        continue;
      }
      Claims claims;
      try {
        claims = ctx.coordination.claimNext(l.lane(), ctx.me, nowWallMs, ctx.leaseTtlMs(), free);
      } catch (RuntimeException e) {
        ctx.occupancy.recount();
        throw e;
      }
      ctx.occupancy.claimed(l.lane(), claims.size());
      for (Claim.Granted g : claims.granted()) {
        tasks.launch(g, nowMonoMs, nowWallMs);
      }
      startRoom -= claims.size();
      if (claims.size() == free && free < slots) {
        ctx.occupancy.startsFull(); // more may be due than the starts allowed
        limited = true;
      }
      if (claims.size() < free) {
        nextDueWallMs = Math.min(nextDueWallMs, firstNotDue(l.lane(), nowWallMs));
      }
    }
    if (limited) {
      laneCursor++; // while starts hold dispatch back, each lane in turn claims first
    }
    return nextDueWallMs;
  }

  /** The earliest not-before time after now of a READY, unparked ticket of {@code lane}, or {@link Long#MAX_VALUE}. */
  private long firstNotDue(Lane lane, long nowWallMs) {
    long first = Long.MAX_VALUE;
    for (Ticket t : ctx.store.tickets(TicketQuery.all().inState(TicketState.READY).inLane(lane))) {
      if (!t.parked() && t.notBeforeMs() > nowWallMs) {
        first = Math.min(first, t.notBeforeMs());
      }
    }
    return first;
  }

  /** Live runs per lane: a LEASED ticket has exactly one unsettled run (C1), whoever owns it ({@link Occupancy}). */
  Map<Lane, Integer> occupancy() {
    return ctx.occupancy.perLane();
  }

  /**
   * Q8: a hand-started claim, launched at once like a scheduled one. It takes a free slot of its
   * lane (the lane's limit holds for hand-started work too) but ignores a pause and priorities;
   * everything the store checks (held, parked, not due) applies.
   */
  Reply runByHand(TicketId id, boolean resume, long nowMonoMs, long nowWallMs) {
    Optional<Ticket> ticket = ctx.store.ticket(id);
    if (ticket.isEmpty()) {
      return new Reply.NotFound("ticket " + id);
    }
    Ticket t = ticket.get();
    if (!ctx.config.workerTypes().contains(t.type())) {
      return new Reply.Invalid("ticket " + id + " needs worker type '" + t.type() + "', which is not configured (workerTypes: "
          + ctx.config.workerTypes() + ")");
    }
    Optional<EngineConfig.LaneLimit> lane = ctx.config.lanes().stream().filter(l -> l.lane().equals(t.lane())).findFirst();
    if (lane.isEmpty()) {
      return new Reply.Invalid("ticket " + id + " is in lane '" + t.lane() + "', which is not configured");
    }
    Resumption resumption = Resumption.decide(id, ctx.config.workerType(t.type()).resumable(), ctx.store.checkpoint(id));
    if (resume && resumption instanceof Resumption.Fresh f) { // Q17: resume or change nothing
      return new Reply.Denied("ticket " + id + " would start over, not resume: " + switch (f.reason()) {
        case NOT_RESUMABLE -> "its worker type '" + t.type() + "' is not resumable (\"resumable\": true in its"
            + " configuration)";
        case NO_CHECKPOINT -> "no earlier run of it saved a checkpoint";
      } + "; nothing was started (vigil run " + id + " starts it over)");
    }
    int occupied = ctx.occupancy.of(t.lane());
    if (t.claimableAt(nowWallMs) && occupied >= lane.get().concurrency()) {
      return new Reply.Denied("lane " + t.lane() + " is full (" + occupied + " of " + lane.get().concurrency()
          + " running): wait for a slot");
    }
    Claim c;
    try {
      c = ctx.coordination.claimByHand(id, ctx.me, nowWallMs, ctx.leaseTtlMs());
    } catch (RuntimeException e) {
      ctx.occupancy.recount();
      throw e;
    }
    if (c instanceof Claim.Granted g) {
      ctx.occupancy.claimed(t.lane(), 1);
      tasks.launch(g, nowMonoMs, nowWallMs);
      return new Reply.HandStarted(ctx.store.run(g.run().id()).orElse(g.run()),
          resumption instanceof Resumption.Resume r ? r.checkpoint() : null);
    } else if (c instanceof Claim.Denied d) {
      return switch (d.reason()) {
        case NOT_FOUND -> new Reply.NotFound("ticket " + id);
        case LEASED -> new Reply.Denied("ticket " + id + " has a live run already");
        case NOT_READY -> new Reply.Denied("ticket " + id + " is " + t.state()
            + (t.state() == TicketState.HELD ? ": release it first" : ": only a READY ticket can be started"));
        case PARKED -> new Reply.Denied("ticket " + id + " or its lane " + t.lane() + " is parked: unpark it first");
        case NOT_DUE -> new Reply.Denied("ticket " + id + " is not due yet (not before "
            + java.time.Instant.ofEpochMilli(t.notBeforeMs()) + ")");
        case WAITING -> new Reply.Denied("ticket " + id + " waits for " + t.after().stream().map(TicketId::toString)
            .collect(java.util.stream.Collectors.joining(", ")) + " to succeed first");
      };
    } else {
      throw new AssertionError(c);
    }
  }
}
