package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Claim;
import dev.vigil.coordination.Control;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.Owner;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketQuery;
import dev.vigil.coordination.TicketState;
import dev.vigil.supervisor.DaemonLiveness;
import dev.vigil.supervisor.QuiesceRound;
import dev.vigil.supervisor.Step;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.WorkGate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The Vigil daemon as a step engine: no threads, no clock, no I/O of its own (DESIGN.md §7). The
 * shell boots it with {@link #boot}, then calls {@link #tick} every 100-250 ms and delivers events
 * ({@link #onExit}, {@link #onHello}, {@link #onMessage}, {@link #onClientCommand}) as they come,
 * all on one scheduling thread; the engine acts only through its {@link Ports}.
 *
 * <p>What it keeps, and where:
 *
 * <ul>
 *   <li>Scheduler: per configured lane, claims ({@code claimNext}) as many due tickets as the lane
 *       has free slots; occupied slots are the lane's live runs in the store, so after any restart
 *       they equal its live workers (Q11). Paused, quiescing or draining, it claims nothing.
 *   <li>Reservation handoff (Q3): a run is started only once its worker holds its reservation and
 *       its identity is known (identity record or hello); then the worker is told go. A handoff
 *       that does not complete within {@code launchHandoff} is killed (identity-gated) and its claim
 *       rolled back once the worker is dead.
 *   <li>Reconcile every {@code reconcile}: renewals (C4), death by identity and reservation only
 *       (C5, Q6), exits (C6), settlement through the retry policy (Q1, Q2, Q5, Q7), recovery of live
 *       runs without a live owner (Q4, Q10, Q11, S6).
 *   <li>Services under their restart budgets (S1), adopted by build (S6), revived by busy evidence (S3).
 *   <li>Idle shutdown through a quiesce round (S5); park reaches workers at a safe point (Q9);
 *       replacement never parks.
 *   <li>Status every {@code heartbeat} (D1) through the {@link StatusBoard}.
 * </ul>
 *
 * <p>A crash of the daemon at any point loses only this object: a new incarnation booted over the
 * same store, processes and directories recovers everything from them. Not thread-safe: every call
 * must come from the one scheduling thread, with a monotonic clock that never goes back.
 */
public final class Engine {
  private enum Mode { RUNNING, QUIESCING, DRAINING_IDLE, DRAINING_STOP, STOPPED }

  private final Ctx ctx;
  private final Tasks tasks;
  private final Services services;
  private final DaemonLiveness liveness;
  private boolean paused;
  private Mode mode = Mode.RUNNING;
  private QuiesceRound round;
  private Map<String, WorkerKey> roundMembers = Map.of();
  private ReplyTo shutdownReply;
  private long drainDeadlineMonoMs;
  private long lastMonoMs;
  private long lastReconcileMonoMs;
  private long lastBeatMonoMs;

  private Engine(Ctx ctx, long nowMonoMs) {
    this.ctx = ctx;
    this.tasks = new Tasks(ctx);
    this.services = new Services(ctx);
    this.liveness = DaemonLiveness.from(ctx.config.timeouts());
    this.lastMonoMs = nowMonoMs;
    this.lastReconcileMonoMs = nowMonoMs;
  }

  /**
   * Boots a daemon incarnation:
   *
   * <ol>
   *   <li>registers the owner ({@code config.owner()}, which must be new) with this process's identity;
   *   <li>recovers every live run in the store (DESIGN.md §7);
   *   <li>adopts or revives each configured service (S6, S3);
   *   <li>publishes the first status (D1).
   * </ol>
   *
   * The engine dispatches from its first {@link #tick}.
   *
   * @throws IllegalArgumentException when the owner id was registered before
   */
  public static Engine boot(EngineConfig config, Ports ports, long nowMonoMs, long nowWallMs) {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(ports, "ports");
    if (ports.coordination().store().owner(config.owner()).isPresent()) {
      throw new IllegalArgumentException("owner id " + config.owner()
          + " is already registered: every daemon start needs a new owner id");
    }
    Ctx ctx = new Ctx(config, ports, nowMonoMs, nowWallMs);
    ctx.coordination.registerOwner(new Owner(ctx.me, config.host(), ctx.self, config.build(), nowWallMs));
    Engine e = new Engine(ctx, nowMonoMs);
    int live = ctx.store.liveRuns().size();
    e.tasks.reconcile(true, nowMonoMs, nowWallMs);
    e.services.boot(nowMonoMs, nowWallMs);
    ctx.record(new EngineEvent.Booted(ctx.me, config.build(), live));
    e.publish(nowMonoMs, nowWallMs);
    return e;
  }

  // ---- the tick ----

  /**
   * One step: the reconcile pass when {@code reconcile} has passed since the last one; handoffs,
   * exits, stops and service restarts that are due; the shutdown in progress; dispatch; status
   * when {@code heartbeat} has passed since the last one.
   */
  public void tick(long nowMonoMs, long nowWallMs) {
    advanceClock(nowMonoMs);
    if (mode != Mode.STOPPED) {
      boolean reconcile = nowMonoMs - lastReconcileMonoMs >= ctx.ms(Timeout.RECONCILE);
      if (reconcile) {
        lastReconcileMonoMs = nowMonoMs;
        tasks.reconcile(false, nowMonoMs, nowWallMs);
      }
      tasks.tick(nowMonoMs, nowWallMs);
      services.tick(reconcile, nowMonoMs, nowWallMs);
      advanceShutdown(nowMonoMs, nowWallMs);
      dispatch(nowMonoMs, nowWallMs);
    }
    if (liveness.heartbeatDue(lastBeatMonoMs, nowMonoMs)) {
      publish(nowMonoMs, nowWallMs);
    }
  }

  private void advanceClock(long nowMonoMs) {
    if (nowMonoMs < lastMonoMs) {
      throw new IllegalArgumentException("nowMonoMs (" + nowMonoMs + ") is before an earlier call (" + lastMonoMs
          + "): the monotonic clock never goes back");
    }
    lastMonoMs = nowMonoMs;
  }

  /** Claims due tickets into the free slots of every configured, unparked lane (Q11: slots from live runs). */
  private void dispatch(long nowMonoMs, long nowWallMs) {
    if (paused || mode != Mode.RUNNING || ctx.config.lanes().isEmpty()) {
      return;
    }
    var parked = ctx.store.parkedLanes();
    Map<Lane, Integer> occupied = occupancy();
    for (EngineConfig.LaneLimit l : ctx.config.lanes()) {
      int free = l.concurrency() - occupied.getOrDefault(l.lane(), 0);
      if (free <= 0 || parked.contains(l.lane())) {
        continue;
      }
      for (Claim.Granted g : ctx.coordination.claimNext(l.lane(), ctx.me, nowWallMs, ctx.leaseTtlMs(), free).granted()) {
        tasks.launch(g, nowMonoMs, nowWallMs);
      }
    }
  }

  /** Live runs per lane: a LEASED ticket has exactly one unsettled run (C1), whoever owns it. */
  private Map<Lane, Integer> occupancy() {
    Map<Lane, Integer> out = new HashMap<>();
    for (Ticket t : ctx.store.tickets(TicketQuery.all().inState(TicketState.LEASED))) {
      out.merge(t.lane(), 1, Integer::sum);
    }
    return out;
  }

  // ---- events ----

  /** The shell saw a worker it launched exit (its own child). Exits of unknown processes are ignored. */
  public void onExit(ProcessExit exit, long nowMonoMs, long nowWallMs) {
    Objects.requireNonNull(exit, "exit");
    advanceClock(nowMonoMs);
    if (mode == Mode.STOPPED) {
      return;
    }
    if (!tasks.onExit(exit, nowMonoMs, nowWallMs)) {
      services.onExit(exit, nowMonoMs, nowWallMs);
    }
    advanceShutdown(nowMonoMs, nowWallMs);
  }

  /**
   * A worker's hello; returns the frame the shell writes back on that connection:
   * {@link ToWorker.Welcome} (bind the connection to {@code hello.key()}) or
   * {@link ToWorker.AdoptDenied} (close it). The token is checked in constant time against the
   * run's or service's token hash (C9); a run whose handoff completes with this hello is started and
   * welcomed with go (Q3).
   */
  public ToWorker onHello(WorkerMessage.Hello hello, long nowMonoMs, long nowWallMs) {
    Objects.requireNonNull(hello, "hello");
    advanceClock(nowMonoMs);
    if (mode == Mode.STOPPED) {
      return new ToWorker.AdoptDenied("the daemon is shutting down");
    }
    WorkerKey key = hello.key();
    if (key instanceof WorkerKey.Task t) {
      return tasks.onHello(hello, t.run(), nowMonoMs, nowWallMs);
    } else if (key instanceof WorkerKey.Service s) {
      return services.onHello(hello, s.service(), nowMonoMs, nowWallMs);
    } else {
      throw new AssertionError(key);
    }
  }

  /** A frame from a welcomed worker connection of {@code from}. */
  public void onMessage(WorkerKey from, WorkerMessage message, long nowMonoMs, long nowWallMs) {
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(message, "message");
    advanceClock(nowMonoMs);
    if (message instanceof WorkerMessage.Quiesced) {
      answer(from, new WorkGate.Answer.Quiesced(), nowMonoMs, nowWallMs);
    } else if (message instanceof WorkerMessage.Busy b) {
      if (mode == Mode.DRAINING_IDLE && roundMembers.containsKey(from.name())) {
        abandonIdleShutdown("1 worker has work: " + from.name() + " (" + b.work().describe() + ", refused the idle stop)",
            nowMonoMs);
      } else {
        answer(from, new WorkGate.Answer.Busy(b.work()), nowMonoMs, nowWallMs);
      }
    } else if (message instanceof WorkerMessage.OutcomeReported) {
      if (from instanceof WorkerKey.Task t) {
        tasks.onOutcomeReported(t.run());
      }
    } else if (message instanceof WorkerMessage.Hello h) {
      throw new IllegalArgumentException("a hello goes to onHello, not onMessage: " + h);
    } else if (!(message instanceof WorkerMessage.Idle || message instanceof WorkerMessage.Progress)) {
      throw new AssertionError(message);
    }
  }

  // ---- client commands ----

  /**
   * Answers a client command through {@code replyTo}, exactly once: at once for every command but
   * {@link Command.Shutdown}, whose answer comes when the shutdown is decided (after the quiesce
   * round and the idle stops, S5; or once every worker stopped).
   */
  public void onClientCommand(Command command, ReplyTo replyTo, long nowMonoMs, long nowWallMs) {
    Objects.requireNonNull(command, "command");
    Objects.requireNonNull(replyTo, "replyTo");
    advanceClock(nowMonoMs);
    if (command instanceof Command.Shutdown s) {
      shutdown(s.mode(), replyTo, nowMonoMs, nowWallMs);
    } else {
      replyTo.reply(answer(command, nowMonoMs, nowWallMs));
    }
  }

  private Reply answer(Command command, long nowMonoMs, long nowWallMs) {
    if (command instanceof Command.StatusQuery) {
      return new Reply.StatusReport(status(nowMonoMs, nowWallMs));
    } else if (command instanceof Command.ListTickets l) {
      return new Reply.TicketList(ctx.store.tickets(l.query()));
    } else if (command instanceof Command.Show s) {
      return ctx.store.ticket(s.ticket()).<Reply>map(t -> new Reply.TicketDetail(t, ctx.store.runsOf(t.id())))
          .orElseGet(() -> new Reply.NotFound("ticket " + s.ticket()));
    } else if (command instanceof Command.ListRuns l) {
      return new Reply.RunList(ctx.store.runs(l.query()));
    }
    if (mode == Mode.STOPPED) {
      return new Reply.Denied("the daemon is shutting down");
    }
    if (command instanceof Command.Submit s) {
      return submit(s.ticket(), nowMonoMs, nowWallMs);
    } else if (command instanceof Command.Park p) {
      return control(ctx.coordination.park(p.ticket()), p.ticket().toString(), nowMonoMs);
    } else if (command instanceof Command.Unpark u) {
      return control(ctx.coordination.unpark(u.ticket()), u.ticket().toString(), nowMonoMs);
    } else if (command instanceof Command.Hold h) {
      return control(ctx.coordination.hold(h.ticket(), h.reason()), h.ticket().toString(), nowMonoMs);
    } else if (command instanceof Command.Release r) {
      return control(ctx.coordination.release(r.ticket()), r.ticket().toString(), nowMonoMs);
    } else if (command instanceof Command.Cancel c) {
      return control(ctx.coordination.cancel(c.ticket()), c.ticket().toString(), nowMonoMs);
    } else if (command instanceof Command.ParkLane p) {
      boolean changed = ctx.coordination.parkLane(p.lane());
      return new Reply.LaneChanged(p.lane(), true, changed, tasks.stopParked(nowMonoMs));
    } else if (command instanceof Command.UnparkLane u) {
      return new Reply.LaneChanged(u.lane(), false, ctx.coordination.unparkLane(u.lane()), 0);
    } else if (command instanceof Command.RunByHand h) {
      return runByHand(h.ticket(), nowMonoMs, nowWallMs);
    } else if (command instanceof Command.Pause) {
      boolean changed = !paused;
      paused = true;
      return new Reply.Acknowledged((changed ? "paused" : "already paused")
          + ": no new work is dispatched until resume or restart; running workers are untouched");
    } else if (command instanceof Command.Resume) {
      boolean changed = paused;
      paused = false;
      return new Reply.Acknowledged(changed ? "resumed" : "not paused");
    } else if (command instanceof Command.StartService s) {
      if (mode != Mode.RUNNING) {
        return new Reply.Denied("the daemon is shutting down: service " + s.service() + " is not started");
      }
      return services.start(s.service(), nowMonoMs);
    } else if (command instanceof Command.StopService s) {
      return services.stop(s.service(), nowMonoMs);
    } else {
      throw new AssertionError(command);
    }
  }

  /**
   * Q8: a hand-started claim, launched at once like a scheduled one. It takes a free slot of its
   * lane (the lane's limit holds for hand-started work too) but ignores a pause and priorities;
   * everything the store checks (held, parked, not due) applies.
   */
  private Reply runByHand(TicketId id, long nowMonoMs, long nowWallMs) {
    if (mode != Mode.RUNNING) {
      return new Reply.Denied("the daemon is shutting down: ticket " + id + " is not started");
    }
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
    int occupied = occupancy().getOrDefault(t.lane(), 0);
    if (t.claimableAt(nowWallMs) && occupied >= lane.get().concurrency()) {
      return new Reply.Denied("lane " + t.lane() + " is full (" + occupied + " of " + lane.get().concurrency()
          + " running): wait for a slot");
    }
    Claim c = ctx.coordination.claimByHand(id, ctx.me, nowWallMs, ctx.leaseTtlMs());
    if (c instanceof Claim.Granted g) {
      tasks.launch(g, nowMonoMs, nowWallMs);
      return new Reply.HandStarted(ctx.store.run(g.run().id()).orElse(g.run()));
    } else if (c instanceof Claim.Denied d) {
      return switch (d.reason()) {
        case NOT_FOUND -> new Reply.NotFound("ticket " + id);
        case LEASED -> new Reply.Denied("ticket " + id + " has a live run already");
        case NOT_READY -> new Reply.Denied("ticket " + id + " is " + t.state()
            + (t.state() == TicketState.HELD ? ": release it first" : ": only a READY ticket can be started"));
        case PARKED -> new Reply.Denied("ticket " + id + " or its lane " + t.lane() + " is parked: unpark it first");
        case NOT_DUE -> new Reply.Denied("ticket " + id + " is not due yet (not before "
            + java.time.Instant.ofEpochMilli(t.notBeforeMs()) + ")");
      };
    } else {
      throw new AssertionError(c);
    }
  }

  private Reply submit(NewTicket n, long nowMonoMs, long nowWallMs) {
    if (ctx.config.concurrency(n.lane()) == 0) {
      List<Lane> lanes = ctx.config.lanes().stream().map(EngineConfig.LaneLimit::lane).toList();
      return new Reply.Invalid("lane '" + n.lane() + "' is not configured (lanes: " + lanes + ")");
    }
    if (!ctx.config.workerTypes().contains(n.type())) {
      return new Reply.Invalid("worker type '" + n.type() + "' is not configured (workerTypes: "
          + ctx.config.workerTypes() + ")");
    }
    Submission s = ctx.coordination.submit(n, nowWallMs);
    Reply r;
    if (s instanceof Submission.Accepted a) {
      r = new Reply.Submitted(a.ticket(), false);
    } else if (s instanceof Submission.Duplicate d) {
      r = new Reply.Submitted(d.existing(), true);
    } else {
      throw new AssertionError(s);
    }
    dispatch(nowMonoMs, nowWallMs);
    return r;
  }

  private Reply control(Control c, String ticket, long nowMonoMs) {
    if (c instanceof Control.Done d) {
      String note = "";
      if (d.ticket().parked() && d.ticket().state() == TicketState.LEASED && tasks.stopParked(nowMonoMs) > 0) {
        note = "its worker was told to stop at its next safe point (Q9)";
      }
      return new Reply.TicketChanged(d.ticket(), note);
    } else if (c instanceof Control.Denied d) {
      return switch (d.reason()) {
        case NOT_FOUND -> new Reply.NotFound("ticket " + ticket);
        case TERMINAL -> new Reply.Denied("ticket " + ticket + " is finished (succeeded, failed or cancelled)");
        case LEASED -> new Reply.Denied("ticket " + ticket + " has a live run: wait for it to settle, or park it");
        case NOT_HELD -> new Reply.Denied("ticket " + ticket + " is not held");
      };
    } else {
      throw new AssertionError(c);
    }
  }

  // ---- shutdown (S5) ----

  private void shutdown(Command.Shutdown.Mode how, ReplyTo replyTo, long nowMonoMs, long nowWallMs) {
    if (mode != Mode.RUNNING) {
      replyTo.reply(new Reply.Denied(mode == Mode.STOPPED ? "the daemon is shutting down"
          : "a shutdown is already in progress"));
      return;
    }
    shutdownReply = replyTo;
    if (how == Command.Shutdown.Mode.STOP_WORKERS) {
      mode = Mode.DRAINING_STOP;
      tasks.stopAll(nowMonoMs);
      services.stopAll(nowMonoMs);
    } else if (how == Command.Shutdown.Mode.IF_IDLE) {
      Map<String, WorkerKey> members = new TreeMap<>();
      for (WorkerKey k : tasks.workers()) {
        members.put(k.name(), k);
      }
      for (WorkerKey k : services.workers()) {
        members.put(k.name(), k);
      }
      roundMembers = members;
      round = QuiesceRound.start(members.keySet(), ctx.ms(Timeout.QUIESCE_ANSWER), nowMonoMs);
      mode = Mode.QUIESCING;
      ctx.record(new EngineEvent.QuiesceStarted(members.keySet()));
      for (WorkerKey k : members.values()) {
        ctx.channel.send(k, new ToWorker.Quiesce());
      }
    } else {
      throw new AssertionError(how);
    }
    advanceShutdown(nowMonoMs, nowWallMs);
  }

  private void answer(WorkerKey from, WorkGate.Answer a, long nowMonoMs, long nowWallMs) {
    if (mode == Mode.QUIESCING) {
      decide(round.onAnswer(from.name(), a, nowMonoMs), nowMonoMs, nowWallMs);
    }
  }

  private void advanceShutdown(long nowMonoMs, long nowWallMs) {
    if (mode == Mode.QUIESCING) {
      decide(round.onTick(nowMonoMs), nowMonoMs, nowWallMs);
    } else if (mode == Mode.DRAINING_IDLE) {
      if (tasks.isEmpty() && services.allDown()) {
        complete("every worker quiesced and stopped (S5)", nowMonoMs, nowWallMs);
      } else if (nowMonoMs >= drainDeadlineMonoMs) {
        abandonIdleShutdown("not every worker stopped within stopGrace after it quiesced", nowMonoMs);
      }
    } else if (mode == Mode.DRAINING_STOP) {
      if (tasks.isEmpty() && services.allDown()) {
        complete("every worker stopped", nowMonoMs, nowWallMs);
      }
    }
  }

  private void decide(Step<QuiesceRound, QuiesceRound.Round> step, long nowMonoMs, long nowWallMs) {
    round = step.next();
    QuiesceRound.Round r = step.decision();
    if (r instanceof QuiesceRound.Round.StopAll all) {
      ctx.record(new EngineEvent.QuiesceDecided(true, "every worker quiesced: " + all.workers()));
      mode = Mode.DRAINING_IDLE;
      drainDeadlineMonoMs = nowMonoMs + ctx.ms(Timeout.STOP_GRACE);
      for (WorkerKey k : roundMembers.values()) {
        if (k instanceof WorkerKey.Task t) {
          tasks.get(t.run()).ifPresent(tr -> tasks.beginStop(tr, StopKind.IDLE_SHUTDOWN, nowMonoMs));
        } else if (k instanceof WorkerKey.Service s) {
          services.stopIdle(s.service(), nowMonoMs);
        } else {
          throw new AssertionError(k);
        }
      }
      advanceShutdown(nowMonoMs, nowWallMs);
    } else if (r instanceof QuiesceRound.Round.ReleaseAll release) {
      ctx.record(new EngineEvent.QuiesceDecided(false, release.message()));
      for (WorkerKey k : roundMembers.values()) {
        ctx.channel.send(k, new ToWorker.Release());
      }
      endShutdown(new Reply.Busy(release.message()));
    } else if (!(r instanceof QuiesceRound.Round.Waiting || r instanceof QuiesceRound.Round.Done)) {
      throw new AssertionError(r);
    }
  }

  private void abandonIdleShutdown(String why, long nowMonoMs) {
    ctx.record(new EngineEvent.ShutdownAborted(why));
    services.resumeAfterIdleStop(nowMonoMs);
    endShutdown(new Reply.Busy("busy: " + why));
  }

  private void endShutdown(Reply reply) {
    mode = Mode.RUNNING;
    round = null;
    roundMembers = Map.of();
    ReplyTo r = shutdownReply;
    shutdownReply = null;
    r.reply(reply);
  }

  private void complete(String how, long nowMonoMs, long nowWallMs) {
    mode = Mode.STOPPED;
    ctx.record(new EngineEvent.ShutdownComplete(how));
    publish(nowMonoMs, nowWallMs);
    ReplyTo r = shutdownReply;
    shutdownReply = null;
    r.reply(new Reply.ShuttingDown(how));
  }

  /**
   * True once a shutdown completed: every worker it had to stop is gone. The shell then deletes the
   * status file and exits; further ticks only publish status.
   */
  public boolean stopped() {
    return mode == Mode.STOPPED;
  }

  // ---- status (D1) ----

  private void publish(long nowMonoMs, long nowWallMs) {
    lastBeatMonoMs = nowMonoMs;
    ctx.statusBoard().publish(status(nowMonoMs, nowWallMs));
  }

  /** The status as of now: what {@code daemon.json} and {@code vigil status} show (D1). */
  public Status status(long nowMonoMs, long nowWallMs) {
    Map<Lane, Integer> occupied = occupancy();
    Map<Lane, Integer> ready = new HashMap<>();
    for (Ticket t : ctx.store.tickets(TicketQuery.all().inState(TicketState.READY))) {
      ready.merge(t.lane(), 1, Integer::sum);
    }
    var parked = ctx.store.parkedLanes();
    List<Status.LaneStatus> lanes = new ArrayList<>();
    for (EngineConfig.LaneLimit l : ctx.config.lanes()) {
      lanes.add(new Status.LaneStatus(l.lane(), l.concurrency(), occupied.getOrDefault(l.lane(), 0),
          ready.getOrDefault(l.lane(), 0), parked.contains(l.lane())));
    }
    List<Status.RunStatus> runs = new ArrayList<>();
    for (Run r : ctx.store.liveRuns()) {
      runs.add(runStatus(r));
    }
    List<Status.ServiceStatus> svcs = new ArrayList<>();
    for (Services.Svc s : services.all()) {
      svcs.add(serviceStatus(s, nowMonoMs));
    }
    Status.State state = switch (mode) {
      case STOPPED -> Status.State.STOPPED;
      case DRAINING_IDLE, DRAINING_STOP -> Status.State.DRAINING;
      case QUIESCING -> Status.State.QUIESCING;
      case RUNNING -> paused ? Status.State.PAUSED : Status.State.RUNNING;
    };
    return new Status(Status.SCHEMA, ctx.me, ctx.self.pid(), ctx.self.startTicks(), ctx.config.build(),
        ctx.config.version(), ctx.config.protocol(), ctx.bootWallMs, nowWallMs, state, lanes, runs, svcs,
        new java.util.TreeSet<>(parked), ctx.store.countsByState(), ctx.recentSettlements());
  }

  private Status.RunStatus runStatus(Run r) {
    Ticket t = ctx.store.ticket(r.ticket()).orElseThrow();
    Status.Supervision sup = Status.Supervision.OTHER;
    ProcessIdentity id = r.start() == null ? null : r.start().identity();
    var tracked = tasks.get(r.id());
    if (tracked.isPresent()) {
      Tasks.Phase p = tracked.get().phase();
      if (p instanceof Tasks.Phase.Handoff h) {
        sup = Status.Supervision.HANDOFF;
        id = h.launched();
      } else if (p instanceof Tasks.Phase.Aborting a) {
        sup = Status.Supervision.ABORTING;
        id = a.identity();
      } else if (p instanceof Tasks.Phase.Running run) {
        sup = run.stop() == null ? Status.Supervision.RUNNING : Status.Supervision.STOPPING;
      } else {
        throw new AssertionError(p);
      }
    }
    return new Status.RunStatus(r.id(), t.lane(), t.type(), r.attempt(), r.state(), sup, r.owner(),
        id == null ? null : id.pid(), r.start() == null ? null : r.start().build(), r.claimedAtMs(),
        r.start() == null ? null : r.start().startedAtMs(), r.handStarted());
  }

  private Status.ServiceStatus serviceStatus(Services.Svc s, long nowMonoMs) {
    Services.Phase p = s.phase();
    Status.ServiceState state;
    ProcessIdentity id = null;
    String build = null;
    Long restartIn = null;
    if (p instanceof Services.Phase.Down) {
      state = Status.ServiceState.DOWN;
    } else if (p instanceof Services.Phase.Launching l) {
      state = Status.ServiceState.LAUNCHING;
      id = l.identity();
    } else if (p instanceof Services.Phase.Adopting a) {
      state = Status.ServiceState.ADOPTING;
      id = a.identity();
    } else if (p instanceof Services.Phase.Up u) {
      state = Status.ServiceState.UP;
      id = u.identity();
      build = u.build();
    } else if (p instanceof Services.Phase.Stopping st) {
      state = Status.ServiceState.STOPPING;
      id = st.identity();
    } else if (p instanceof Services.Phase.Backoff b) {
      state = Status.ServiceState.BACKOFF;
      restartIn = Math.max(0, b.dueMonoMs() - nowMonoMs);
    } else if (p instanceof Services.Phase.GivenUp) {
      state = Status.ServiceState.GIVEN_UP;
    } else {
      throw new AssertionError(p);
    }
    return new Status.ServiceStatus(s.spec.name(), s.spec.workerType(), s.spec.activation(), state,
        id == null ? null : id.pid(), build, s.relaunch().budget().failuresInWindow(nowMonoMs), restartIn, s.note());
  }

  // ---- for tests in this package ----

  /** The liveness verdict of every supervised run (C5, Q6: a function of identity and reservation only). */
  Map<RunId, Liveness.Life> livenessVerdicts() {
    return tasks.liveness();
  }

  /** Whether this incarnation supervises {@code run}. */
  boolean supervises(RunId run) {
    return tasks.get(run).isPresent();
  }
}
