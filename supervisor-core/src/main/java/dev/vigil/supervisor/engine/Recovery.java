package dev.vigil.supervisor.engine;

import dev.vigil.coordination.AdoptClaim;
import dev.vigil.coordination.Exit;
import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.Readopt;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunState;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketQuery;
import dev.vigil.coordination.TicketState;
import dev.vigil.supervisor.Adoption;
import dev.vigil.supervisor.Durations;
import dev.vigil.supervisor.StopKind;
import dev.vigil.supervisor.TimeLimit;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.engine.EngineEvent.RecoveryAction;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Recovery of live runs this daemon does not supervise (DESIGN.md §7, Q4, Q10, Q11, S6): at boot
 * every live run in the store, later every one that no live owner holds.
 */
final class Recovery {
  private final Ctx ctx;
  private final TaskTable table;
  private final Handoffs handoffs;
  private final Settling settling;
  private final TaskStops stops;
  /** Live runs already journalled as left to their live owner, so that each is journalled once. */
  private final Set<RunId> leftAlone = new HashSet<>();

  Recovery(Ctx ctx, TaskTable table, Handoffs handoffs, Settling settling, TaskStops stops) {
    this.ctx = ctx;
    this.table = table;
    this.handoffs = handoffs;
    this.settling = settling;
    this.stops = stops;
  }

  /** Recovers every live run in the store that this daemon does not supervise. */
  void recoverUnsupervised(boolean atBoot, long nowMonoMs, long nowWallMs) {
    Map<OwnerId, Boolean> ownerMayLive = new HashMap<>();
    List<Run> live = ctx.store.liveRuns();
    Set<RunId> liveIds = new HashSet<>();
    for (Run r : live) {
      liveIds.add(r.id());
    }
    leftAlone.retainAll(liveIds);
    Map<TicketId, Ticket> tickets = new HashMap<>(); // a live run's ticket is LEASED (C1): one read for all of them
    if (live.stream().anyMatch(r -> !table.contains(r.id()))) {
      for (Ticket t : ctx.store.tickets(TicketQuery.all().inState(TicketState.LEASED))) {
        tickets.put(t.id(), t);
      }
    }
    Pass pass = new Pass(ownerMayLive, tickets, readoptAlive(live, ownerMayLive, nowMonoMs, nowWallMs));
    for (Run r : live) {
      if (!table.contains(r.id())) {
        recover(r, atBoot, pass, nowMonoMs, nowWallMs);
      }
    }
  }

  /**
   * What one recovery pass read once for all its runs: the owners judged, the live runs' tickets (their lanes,
   * and whether each is parked), the workers judged and readopted beforehand, and the parked lanes when first
   * asked. Nothing in the pass parks or unparks (a park is a command, handled between passes on the same thread).
   */
  private final class Pass {
    final Map<OwnerId, Boolean> ownerMayLive;
    final Map<TicketId, Ticket> tickets;
    final Map<RunId, Probed> probed;
    private Set<Lane> parkedLanes;

    Pass(Map<OwnerId, Boolean> ownerMayLive, Map<TicketId, Ticket> tickets, Map<RunId, Probed> probed) {
      this.ownerMayLive = ownerMayLive;
      this.tickets = tickets;
      this.probed = probed;
    }

    Lane lane(Run r) {
      Ticket known = tickets.get(r.ticket());
      return known != null ? known.lane() : ctx.store.ticket(r.ticket()).map(Ticket::lane).orElse(Lane.DEFAULT);
    }

    /** Whether the run's ticket or lane is parked (Q9), as {@link TaskTable#parked} reads it. */
    boolean parked(TaskTable.Tracked t) {
      Ticket known = tickets.get(t.run.ticket());
      if (known == null) {
        return table.parked(t);
      }
      if (parkedLanes == null) {
        parkedLanes = ctx.store.parkedLanes();
      }
      return parkedLanes.contains(t.lane) || known.parked();
    }
  }

  /**
   * A RUNNING run's worker as recovery judged it: its adoption verdict and, when the verdict keeps the
   * worker (adopt, or stop as lost), the decision of its readoption ({@code null} otherwise).
   */
  private record Probed(Adoption.Verdict verdict, Readopt readopt) {}

  /**
   * Judges, ahead of the recovery of each run in turn, the worker of every live RUNNING run that
   * {@link #recover} would judge (a run of this host whose owner is this incarnation or gone), and re-arms
   * the leases of all those found alive with one {@code readoptAll}: each decision is the one {@code readopt}
   * would have made for its run, and the recovery of each run then records its events in the order it always
   * did. Readopting changes nothing another run's recovery looks at.
   */
  private Map<RunId, Probed> readoptAlive(List<Run> live, Map<OwnerId, Boolean> ownerMayLive, long nowMonoMs,
      long nowWallMs) {
    Map<RunId, Adoption.Verdict> verdicts = new HashMap<>();
    List<RunId> alive = new ArrayList<>();
    for (Run r : live) {
      if (r.state() != RunState.RUNNING || table.contains(r.id()) || ctx.otherHost(r.owner()).isPresent()
          || foreignLive(r, ownerMayLive)) {
        continue;
      }
      Adoption.Verdict v = verdict(r, nowMonoMs);
      verdicts.put(r.id(), v);
      if (keeps(v)) {
        alive.add(r.id());
      }
    }
    List<Readopt> readopts = alive.isEmpty() ? List.of()
        : ctx.coordination.readoptAll(alive, ctx.me, nowWallMs, ctx.leaseTtlMs());
    Map<RunId, Readopt> byRun = new HashMap<>();
    for (int i = 0; i < alive.size(); i++) {
      byRun.put(alive.get(i), readopts.get(i));
    }
    Map<RunId, Probed> out = new HashMap<>();
    verdicts.forEach((run, v) -> out.put(run, new Probed(v, byRun.get(run))));
    return out;
  }

  /** Whether the run's owner is another incarnation that may still live (Q10): its run is left to it. */
  private boolean foreignLive(Run r, Map<OwnerId, Boolean> ownerMayLive) {
    return !r.owner().equals(ctx.me) && ownerMayLive.computeIfAbsent(r.owner(), ctx::ownerMayLive);
  }

  /** A RUNNING run's worker judged by identity and reservation, and its build (Q11, D4, S6). */
  private Adoption.Verdict verdict(Run r, long nowMonoMs) {
    boolean alive = !Liveness.dead(ctx.processes, ctx.directories, new WorkerKey.Task(r.id()), r.start().identity());
    return ctx.adoption.verdict(alive, Optional.of(r.start().build()), ctx.bootMonoMs, nowMonoMs);
  }

  /** Whether the verdict keeps the worker, readopted: adopted, or stopped as lost under this daemon. */
  private static boolean keeps(Adoption.Verdict v) {
    return v instanceof Adoption.Verdict.Adopt || v instanceof Adoption.Verdict.StopAsLost;
  }

  /** The store has no live run: nothing to recover, and none is left to a live owner. */
  void noneLive() {
    leftAlone.clear();
  }

  /** Recovers one live run this daemon does not supervise (a worker of it said hello). */
  void recover(Run r, long nowMonoMs, long nowWallMs) {
    recover(r, false, new Pass(new HashMap<>(), Map.of(), Map.of()), nowMonoMs, nowWallMs);
  }

  /**
   * Recovers one live run this daemon does not supervise, exactly as DESIGN.md §7:
   *
   * <ol>
   *   <li>A run whose owner may live (this incarnation's runs are always recovered) is left alone,
   *       except a claim older than {@code staleClaim} at boot with its reservation free (Q10).
   *   <li>CLAIMED: reservation held → the claim is taken over from its dead owner
   *       ({@code adoptClaim}, C3) and the handoff adopted: started as this owner once the worker's
   *       identity record names a live process holding the reservation (its build and token from the
   *       record, or from that process's hello when the record has none), rolled back after
   *       launchHandoff once the worker is gone; free → {@code abortClaim} for the claim's owner.
   *   <li>RUNNING: alive by identity or reservation and same build → {@code readopt} (Q11, D4);
   *       alive, another build → readopt and stop as a lost worker (S6); dead → {@code takeExit} as
   *       RECOVERY, outcome read, {@code finish} (Q4, Q5). The runs of one pass are judged and readopted
   *       together beforehand ({@code probed}, {@link #readoptAlive}).
   *   <li>EXITED whose exit owner is dead → {@code finish} for the dead exit owner with the recorded
   *       facts; EXITED by this owner → finish (a settlement that had not happened).
   * </ol>
   *
   * H1 comes first, before any look at a process or a directory: a run of another host is left to that
   * host, and so is a run of this host whose exit a daemon of another host took (a release of this host
   * that that host's daemons finish); a run of another host whose exit a daemon of this host took, which
   * is gone, is a release cut short: it is settled LOST as the release would have.
   */
  private void recover(Run r, boolean atBoot, Pass pass, long nowMonoMs, long nowWallMs) {
    Map<OwnerId, Boolean> ownerMayLive = pass.ownerMayLive;
    Optional<String> host = ctx.otherHost(r.owner());
    if (r.state() == RunState.EXITED) {
      Optional<String> exitHost = ctx.otherHost(r.exitOwner().owner());
      if (host.isPresent() && exitHost.isEmpty()) {
        finishRelease(r, host.get(), ownerMayLive, nowWallMs);
        return;
      } else if (exitHost.isPresent()) { // a release by another host, or that host's own exit: that host settles it
        leaveToItsHost(r, "exit taken by " + r.exitOwner().owner() + " of host " + exitHost.get());
        return;
      }
    }
    if (host.isPresent()) { // its worker, directory and identity are another host's, never judged here
      leaveToItsHost(r, "run of host " + host.get());
      return;
    }
    boolean foreignLive = foreignLive(r, ownerMayLive);
    Lane lane = pass.lane(r);
    if (r.state() == RunState.CLAIMED) {
      recoverClaim(r, lane, atBoot, foreignLive, nowMonoMs, nowWallMs);
    } else if (r.state() == RunState.RUNNING) {
      if (foreignLive) {
        leave(r, "run of live owner " + r.owner());
      } else {
        recoverRunning(r, lane, pass, nowMonoMs, nowWallMs);
      }
    } else if (r.state() == RunState.EXITED) {
      ExitOwner exitOwner = r.exitOwner();
      if (exitOwner.owner().equals(ctx.me)) {
        ctx.record(new EngineEvent.Recovered(r.id(), RecoveryAction.SETTLE_OWN_EXIT, "exit taken, not settled"));
        settling.settle(r.id(), exitOwner, null, false, r.exit(), false, nowWallMs);
      } else if (ownerMayLive.computeIfAbsent(exitOwner.owner(), ctx::ownerMayLive)) {
        leave(r, "exit taken by live owner " + exitOwner);
      } else {
        ctx.record(new EngineEvent.Recovered(r.id(), RecoveryAction.FINISH_FOR_DEAD_EXIT_OWNER,
            "exit owner " + exitOwner + " is gone; exit " + r.exit()));
        settling.settle(r.id(), ExitOwner.recovery(ctx.me), null, false, r.exit(), true, nowWallMs);
      }
    } else {
      throw new AssertionError("liveRuns returned a " + r.state() + " run: " + r.id());
    }
  }

  private void recoverClaim(Run r, Lane lane, boolean atBoot, boolean foreignLive, long nowMonoMs, long nowWallMs) {
    boolean stale = atBoot && nowWallMs - r.claimedAtMs() >= ctx.ms(Timeout.STALE_CLAIM);
    boolean reserved = ctx.directories.isReserved(new WorkerKey.Task(r.id()));
    if (foreignLive && (!stale || reserved)) {
      leave(r, "claim of live owner " + r.owner());
    } else if (reserved) {
      AdoptClaim a = ctx.coordination.adoptClaim(r.id(), ctx.me, r.owner(), nowWallMs, ctx.leaseTtlMs());
      if (a instanceof AdoptClaim.Denied d) {
        ctx.record(new EngineEvent.VerbDenied(r.id(), "adoptClaim", d.reason().toString()));
        return;
      } else if (!(a instanceof AdoptClaim.Adopted)) {
        throw new AssertionError(a);
      }
      ctx.record(new EngineEvent.Recovered(r.id(), RecoveryAction.ADOPT_CLAIM, "reservation held"));
      handoffs.adopt(r.id(), lane, nowMonoMs, nowWallMs);
    } else {
      String why = foreignLive
          ? "stale claim: claimed " + Durations.format(nowWallMs - r.claimedAtMs()) + " ago by " + r.owner()
              + ", no worker holds its run lock"
          : "recovery: owner " + r.owner() + " is gone and no worker holds the run lock";
      ctx.record(new EngineEvent.Recovered(r.id(), RecoveryAction.ABORT_CLAIM, why));
      handoffs.abort(r.id(), r.owner(), why, nowWallMs);
    }
  }

  /** A RUNNING run's recovery, with its verdict and readoption when the pass made them beforehand. */
  private void recoverRunning(Run r, Lane lane, Pass pass, long nowMonoMs, long nowWallMs) {
    Probed probed = pass.probed.get(r.id());
    Adoption.Verdict v = probed != null ? probed.verdict() : verdict(r, nowMonoMs);
    if (v instanceof Adoption.Verdict.NotAlive) {
      RunExit facts = settling.facts(r.id(), RunExit.unknown(nowWallMs), nowWallMs);
      ExitOwner claimant = ExitOwner.recovery(ctx.me);
      Exit e = ctx.coordination.takeExit(r.id(), claimant, facts);
      if (e instanceof Exit.Taken) {
        ctx.record(new EngineEvent.Recovered(r.id(), RecoveryAction.SETTLE_DEAD, "dead by identity and reservation"));
        ctx.record(new EngineEvent.ExitTaken(r.id(), claimant.role(), facts));
        settling.settle(r.id(), claimant, null, false, facts, false, nowWallMs);
      } else if (e instanceof Exit.Denied d) {
        ctx.record(new EngineEvent.ExitLost(r.id(), d.reason() + (d.winner() == null ? "" : " by " + d.winner())));
      } else {
        throw new AssertionError(e);
      }
    } else if (keeps(v)) {
      Readopt ro = probed != null ? probed.readopt() : ctx.coordination.readopt(r.id(), ctx.me, nowWallMs,
          ctx.leaseTtlMs());
      if (ro instanceof Readopt.Denied d) {
        ctx.record(new EngineEvent.VerbDenied(r.id(), "readopt", d.reason().toString()));
        return;
      } else if (!(ro instanceof Readopt.Readopted)) {
        throw new AssertionError(ro);
      }
      TaskTable.Tracked t = new TaskTable.Tracked(r.id(), lane);
      // Q12: the same deadline as the daemon that started it, taken from the wall clock once
      table.transition(t, RunPhase.Running.begun(r.start(), RunPhase.Go.UNKNOWN, TimeLimit.resumed(r.start().timeoutMs(),
          r.start().startedAtMs(), nowMonoMs, nowWallMs), false, r.stopIntent()));
      if (v instanceof Adoption.Verdict.StopAsLost) {
        ctx.record(new EngineEvent.Recovered(r.id(), RecoveryAction.STOP_OTHER_BUILD,
            "worker build " + r.start().build() + ", daemon build " + ctx.config.build()));
        stops.begin(t, StopKind.LOST, nowMonoMs);
      } else {
        ctx.record(new EngineEvent.Recovered(r.id(), RecoveryAction.READOPT, "alive by identity or reservation"));
        // Q12, Q13: the stop a daemon that died had begun; Q9: a park
        StopKind due = stops.dueAtReadopt(t, r.stopIntent(), () -> pass.parked(t));
        if (due != null) {
          stops.begin(t, due, nowMonoMs);
        }
      }
    } else if (v instanceof Adoption.Verdict.AwaitHello) {
      throw new AssertionError("a task run's build is recorded, so adoption never waits for its hello: " + v);
    } else {
      throw new AssertionError(v);
    }
  }

  /**
   * H1: a run of host {@code hostId}, whose exit a daemon of this host took for a release of that host and did
   * not settle: settled LOST now (KILLED when a kill was on record) as the release would have, reading nothing of
   * its directory, once the daemon that took the exit is gone (this daemon when it is the one).
   */
  private void finishRelease(Run r, String hostId, Map<OwnerId, Boolean> ownerMayLive, long nowWallMs) {
    ExitOwner exitOwner = r.exitOwner();
    boolean mine = exitOwner.owner().equals(ctx.me);
    if (!mine && ownerMayLive.computeIfAbsent(exitOwner.owner(), ctx::ownerMayLive)) {
      leave(r, "release of host " + hostId + " in progress by live owner " + exitOwner.owner());
      return;
    }
    ctx.record(new EngineEvent.Recovered(r.id(), RecoveryAction.FINISH_RELEASE, "the release of host " + hostId
        + " took its exit" + (mine ? "" : " by " + exitOwner + ", which is gone,") + " and did not settle it"));
    settling.settleLost(r.id(), mine ? exitOwner : ExitOwner.recovery(ctx.me), !mine, r.exit(), releasedWhy(hostId),
        nowWallMs);
  }

  /** The diagnosis of a run settled or rolled back because its host was released. */
  static String releasedWhy(String hostId) {
    return "host " + hostId + " was released by an operator";
  }

  /**
   * H1: an operator released host {@code hostId}, which never came back: each of its live runs is rolled back
   * (CLAIMED, nothing spent) or settled as a run without an outcome, LOST through the retry policy (RUNNING, or
   * EXITED and not settled; KILLED when an operator's kill was on record), without a look at any process or
   * directory, which are that host's. So is a run of any host whose exit a daemon of the released host took and
   * did not settle (a release of this host it began). Returns the runs it rolled back or settled.
   */
  List<RunId> releaseHost(String hostId, long nowWallMs) {
    String why = releasedWhy(hostId);
    List<RunId> released = new java.util.ArrayList<>();
    for (Run r : ctx.store.liveRuns()) {
      boolean ofHost = ctx.otherHost(r.owner()).map(hostId::equals).orElse(false);
      boolean exitOfHost = r.state() == RunState.EXITED
          && ctx.otherHost(r.exitOwner().owner()).map(hostId::equals).orElse(false);
      if (!ofHost && !exitOfHost) {
        continue;
      }
      ctx.record(new EngineEvent.Recovered(r.id(), RecoveryAction.RELEASED_WITH_ITS_HOST, why));
      if (r.state() == RunState.CLAIMED) {
        if (handoffs.abort(r.id(), r.owner(), why, nowWallMs)) {
          released.add(r.id());
        }
        continue;
      }
      ExitOwner claimant = ExitOwner.recovery(ctx.me);
      boolean forDead = r.state() == RunState.EXITED;
      RunExit facts = forDead ? r.exit() : RunExit.unknown(nowWallMs);
      if (r.state() == RunState.RUNNING) {
        Exit e = ctx.coordination.takeExit(r.id(), claimant, facts);
        if (e instanceof Exit.Denied d) {
          ctx.record(new EngineEvent.ExitLost(r.id(), d.reason() + (d.winner() == null ? "" : " by " + d.winner())));
          continue;
        }
        ctx.record(new EngineEvent.ExitTaken(r.id(), claimant.role(), facts));
      }
      if (settling.settleLost(r.id(), claimant, forDead, facts, why, nowWallMs)) {
        released.add(r.id());
      }
    }
    return released;
  }

  private void leaveToItsHost(Run r, String why) {
    if (leftAlone.add(r.id())) {
      ctx.record(new EngineEvent.Recovered(r.id(), RecoveryAction.LEAVE_TO_ITS_HOST, why));
    }
  }

  private void leave(Run r, String why) {
    if (leftAlone.add(r.id())) {
      ctx.record(new EngineEvent.Recovered(r.id(), RecoveryAction.LEAVE_TO_LIVE_OWNER, why));
    }
  }
}
