package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Owner;
import dev.vigil.coordination.RunId;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.engine.port.Ports;
import dev.vigil.supervisor.engine.port.ProcessExit;
import dev.vigil.supervisor.engine.port.StatusBoard;
import java.util.Map;
import java.util.Objects;

/**
 * The Vigil daemon as a step engine: no threads, no clock, no I/O of its own (DESIGN.md §7). The
 * shell boots it with {@link #boot}, delivers events ({@link #onExit}, {@link #onHello},
 * {@link #onMessage}, {@link #onClientCommand}) as they come and calls {@link #tick} at the latest
 * by {@link #nextDeadlineMonoMs} (which an event may bring forward to now), all on one scheduling
 * thread; the engine acts only through its {@link Ports}. A shell may also tick on a fixed period
 * (the simulation does): a tick before the deadline does only what is due.
 *
 * <p>What it keeps, and where:
 *
 * <ul>
 *   <li>{@link Scheduler}: per configured lane, claims ({@code claimNext}) as many due tickets as
 *       the lane has free slots; occupied slots are the lane's live runs in the store, so after any
 *       restart they equal its live workers (Q11). Paused, quiescing or draining, it claims nothing.
 *   <li>{@link Tasks}: each task run in one {@link RunPhase}. The reservation handoff (Q3,
 *       {@link Handoffs}): a run is started only once its worker holds its reservation and its
 *       identity is known (identity record or hello); then the worker is told go. A handoff that
 *       does not complete within {@code launchHandoff} is killed (identity-gated) and its claim
 *       rolled back once the worker is dead. The reconcile pass every {@code reconcile}
 *       ({@link Reconciler}): renewals (C4), death by identity and reservation only (C5, Q6), exits
 *       (C6) and settlement by the one verdict rule ({@link Settling}, Q1, Q2, Q5, Q7), recovery of
 *       live runs without a live owner ({@link Recovery}, Q4, Q10, Q11, S6).
 *   <li>{@link Services} under their restart budgets (S1), adopted by build (S6), revived by busy
 *       evidence (S3), each in one {@link ServicePhase}.
 *   <li>Both sides launch, check hellos and stop workers the same way ({@link Workers}: the pure
 *       {@code HelloCheck} and {@code Stopping} rules); park reaches workers at a safe point (Q9).
 *   <li>{@link Lifecycle}: the daemon's own {@link DaemonPhase}; idle shutdown through a quiesce
 *       round (S5); replacement never parks.
 *   <li>{@link QuestionDesk}: questions for a person (Q16): asks about held tickets and given-up services,
 *       and is the only place an answer is applied.
 *   <li>{@link StatusView}: status every {@code heartbeat} (D1) through the {@link StatusBoard}.
 *   <li>{@link Firing}: a look at the schedules at their next fire (Q15); the store decides and submits.
 * </ul>
 *
 * <p>A crash of the daemon at any point loses only this object: a new incarnation booted over the
 * same store, processes and directories recovers everything from them. Not thread-safe: every call
 * must come from the one scheduling thread, with a monotonic clock that never goes back.
 */
public final class Engine {
  private final Ctx ctx;
  private final Tasks tasks;
  private final Services services;
  private final Scheduler scheduler;
  private final StatusView status;
  private final Lifecycle lifecycle;
  private final Commands commands;
  private final Firing firing;
  private final QuestionDesk questions;
  /** Something happened that may have held a ticket or answered a question (Q16): the desk looks at the next tick. */
  private boolean questionsWanted = true;
  private long lastMonoMs;
  private long lastReconcileMonoMs;
  /** Something happened since the last dispatch that may have freed a slot or queued a ticket. */
  private boolean dispatchWanted = true;
  /** The earliest not-before (wall ms) of a ticket not yet due in a lane with a free slot, as of the last dispatch. */
  private long nextDueWallMs = Long.MAX_VALUE;

  /**
   * The step while something moves on only by being looked at (a handoff waiting for its worker's
   * identity record, a death to confirm by identity, a stop to escalate, a quiesce round): the
   * deadline is then at most this far ahead, ms.
   */
  public static final long BUSY_STEP_MS = 100;

  private Engine(Ctx ctx, long nowMonoMs) {
    this.ctx = ctx;
    Workers workers = new Workers(ctx);
    this.tasks = new Tasks(ctx, workers);
    this.services = new Services(ctx, workers);
    this.scheduler = new Scheduler(ctx, tasks);
    this.status = new StatusView(ctx, tasks, services, scheduler);
    this.lifecycle = new Lifecycle(ctx, tasks, services, status);
    this.firing = new Firing(ctx, ctx.schedules);
    this.commands = new Commands(ctx, tasks, services, scheduler, lifecycle, status, firing);
    this.questions = new QuestionDesk(ctx, services);
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
    ctx.coordination.registerOwner(new Owner(ctx.me, config.host(), ctx.self, config.build(), nowWallMs, config.hostId()));
    Engine e = new Engine(ctx, nowMonoMs);
    int live = ctx.store.liveRuns().size();
    e.tasks.reconcile(true, nowMonoMs, nowWallMs);
    e.services.boot(nowMonoMs, nowWallMs);
    ctx.record(new EngineEvent.Booted(ctx.me, config.build(), live));
    e.status.publish(nowMonoMs, nowWallMs, e.lifecycle.state());
    return e;
  }

  // ---- the tick ----

  /**
   * One step: the reconcile pass when {@code reconcile} has passed since the last one; handoffs,
   * exits, stops and service restarts that are due; the shutdown in progress; dispatch; status
   * when {@code heartbeat} has passed since the last one.
   */
  public void tick(long nowMonoMs, long nowWallMs) {
    advanceClock(nowMonoMs, nowWallMs);
    if (!lifecycle.stopped()) {
      boolean reconcile = nowMonoMs - lastReconcileMonoMs >= ctx.ms(Timeout.RECONCILE);
      if (reconcile) {
        lastReconcileMonoMs = nowMonoMs;
        if (tasks.reconcile(false, nowMonoMs, nowWallMs)) {
          status.storeMayHaveChanged();
          questionsWanted = true;
        }
      }
      boolean busy = busy(nowMonoMs);
      if (!tasks.isEmpty() || !lifecycle.steady()) {
        status.storeMayHaveChanged(); // a run moves on, or the daemon's own shutdown does
      }
      tasks.tick(nowMonoMs, nowWallMs);
      services.tick(reconcile, nowMonoMs, nowWallMs);
      lifecycle.advance(nowMonoMs, nowWallMs);
      // a slot freed by this tick (a settlement, a rollback, a recovery) is refilled at once; while
      // anything is busy every tick dispatches, as a look may have freed a slot
      boolean freed = ctx.occupancy.takeFreed();
      if (freed || reconcile) {
        firing.ticketMayHaveEnded(); // a fire waiting for its previous ticket (overlap queue) may go
      }
      if (!lifecycle.shuttingDown() && firing.tick(nowWallMs)) { // Q15: due fires submit their tickets
        dispatchWanted = true;
        status.storeMayHaveChanged();
      }
      if (questionsWanted || freed) {
        questionsWanted = false;
        if (questions.step(nowMonoMs, nowWallMs)) { // Q16: asks about holds, applies answers
          status.storeMayHaveChanged();
          dispatchWanted = true;
        }
      }
      // on a store that several hosts share (H1), work submitted through another host's daemon comes with
      // no event here: each reconcile pass looks at the queue
      boolean shared = reconcile && ctx.config.hostId() != null;
      if (lifecycle.dispatches() && (dispatchWanted || busy || freed || shared || nowWallMs >= nextDueWallMs)) {
        dispatchWanted = false;
        status.storeMayHaveChanged();
        nextDueWallMs = scheduler.dispatch(nowMonoMs, nowWallMs);
      }
    }
    status.publishIfDue(nowMonoMs, nowWallMs, lifecycle.state());
  }

  /**
   * When the shell must call {@link #tick} next if no event comes before: the earliest of the next
   * reconcile pass (lease renewals, C4), the next status publication (D1), a time limit (Q12), a
   * ticket's not-before time in a lane with a free slot, a service's restart after its backoff, the
   * next fire of a schedule (Q15, {@link Firing});
   * {@code nowMonoMs} when an event asked for a dispatch (a submit, an exit, any command: dispatch
   * and a freed slot's refill happen at once); at most {@link #BUSY_STEP_MS} ahead while a run, a
   * service or the daemon's own shutdown moves on only by being looked at. Reads no clock: the
   * times are those the caller passes.
   */
  public long nextDeadlineMonoMs(long nowMonoMs, long nowWallMs) {
    long next = status.nextBeatMonoMs();
    if (lifecycle.stopped()) {
      return next;
    }
    next = Math.min(next, lastReconcileMonoMs + ctx.ms(Timeout.RECONCILE));
    if (questionsWanted) {
      return nowMonoMs;
    }
    if (!lifecycle.shuttingDown()) {
      next = Math.min(next, firing.nextDeadlineMonoMs(nowMonoMs, nowWallMs)); // Q15: the next fire of a schedule
    }
    if (lifecycle.dispatches()) {
      if (dispatchWanted || ctx.occupancy.freedPending()) {
        return nowMonoMs;
      }
      if (nextDueWallMs != Long.MAX_VALUE) {
        next = Math.min(next, nowMonoMs + Math.max(0, nextDueWallMs - nowWallMs));
      }
    }
    if (!lifecycle.steady()) {
      next = Math.min(next, nowMonoMs + BUSY_STEP_MS);
    }
    next = Math.min(next, tasks.nextDeadlineMonoMs(nowMonoMs, BUSY_STEP_MS));
    return Math.min(next, services.nextDeadlineMonoMs(nowMonoMs, BUSY_STEP_MS));
  }

  /** Whether a run, a service or the daemon's own phase moves on only by being looked at. */
  private boolean busy(long nowMonoMs) {
    return !lifecycle.steady() || tasks.nextDeadlineMonoMs(nowMonoMs, BUSY_STEP_MS) <= nowMonoMs + BUSY_STEP_MS
        || services.nextDeadlineMonoMs(nowMonoMs, BUSY_STEP_MS) <= nowMonoMs + BUSY_STEP_MS;
  }

  private void advanceClock(long nowMonoMs, long nowWallMs) {
    ctx.nowWallMs = nowWallMs;
    if (nowMonoMs < lastMonoMs) {
      throw new IllegalArgumentException("nowMonoMs (" + nowMonoMs + ") is before an earlier call (" + lastMonoMs
          + "): the monotonic clock never goes back");
    }
    lastMonoMs = nowMonoMs;
  }

  // ---- events ----

  /**
   * The store says a ticket became claimable through another client (on a shared store, another
   * host's daemon: H1): the next tick dispatches at once. A hint only; the dispatch decides.
   */
  public void onQueueChanged(long nowMonoMs, long nowWallMs) {
    advanceClock(nowMonoMs, nowWallMs);
    if (!lifecycle.stopped()) {
      dispatchWanted = true;
      status.storeMayHaveChanged();
    }
  }

  /** The shell saw a worker it launched exit (its own child). Exits of unknown processes are ignored. */
  public void onExit(ProcessExit exit, long nowMonoMs, long nowWallMs) {
    Objects.requireNonNull(exit, "exit");
    advanceClock(nowMonoMs, nowWallMs);
    status.storeMayHaveChanged();
    if (lifecycle.stopped()) {
      return;
    }
    if (!tasks.onExit(exit, nowMonoMs, nowWallMs)) {
      services.onExit(exit, nowMonoMs, nowWallMs);
    }
    lifecycle.advance(nowMonoMs, nowWallMs);
    dispatchWanted = true; // the slot of a settled run is refilled at once
    firing.ticketMayHaveEnded();
    questionsWanted = true;
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
    advanceClock(nowMonoMs, nowWallMs);
    status.storeMayHaveChanged();
    dispatchWanted = true; // a hello may recover a run nobody supervised, and settle it
    questionsWanted = true;
    if (lifecycle.stopped()) {
      return new ToWorker.AdoptDenied("the daemon is shutting down");
    }
    WorkerKey key = hello.key();
    if (key instanceof WorkerKey.Task t) {
      return tasks.onHello(hello, t.run(), nowMonoMs, nowWallMs);
    } else if (key instanceof WorkerKey.Service s) {
      return services.onHello(hello, s.service(), nowMonoMs);
    } else {
      throw new AssertionError(key);
    }
  }

  /** A frame from a welcomed worker connection of {@code from}. */
  public void onMessage(WorkerKey from, WorkerMessage message, long nowMonoMs, long nowWallMs) {
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(message, "message");
    advanceClock(nowMonoMs, nowWallMs);
    status.storeMayHaveChanged();
    if (message instanceof WorkerMessage.Quiesced) {
      lifecycle.onQuiesced(from, nowMonoMs, nowWallMs);
    } else if (message instanceof WorkerMessage.Busy b) {
      lifecycle.onBusy(from, b.work(), nowMonoMs, nowWallMs);
    } else if (message instanceof WorkerMessage.OutcomeReported) {
      if (from instanceof WorkerKey.Task t) {
        tasks.onOutcomeReported(t.run());
      }
    } else if (message instanceof WorkerMessage.Ask a) {
      if (from instanceof WorkerKey.Task t && !lifecycle.stopped()) {
        questions.onAsk(t.run(), a, nowWallMs); // Q16
      }
    } else if (message instanceof WorkerMessage.Restored r) {
      if (from instanceof WorkerKey.Service s && !lifecycle.stopped()) {
        services.onRestored(s.service(), r); // S7
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
    advanceClock(nowMonoMs, nowWallMs);
    status.storeMayHaveChanged();
    dispatchWanted = true; // a submit, a release, an unpark, a resume...: dispatch at once
    firing.ticketMayHaveEnded(); // a cancel or a kill may let a waiting fire go
    questionsWanted |= !(command instanceof Command.StatusQuery || command instanceof Command.ListTickets
        || command instanceof Command.Show || command instanceof Command.ListRuns || command instanceof Command.Events
        || command instanceof Command.Questions || command instanceof Command.ScheduleList
        || command instanceof Command.Transcript || command instanceof Command.Maintenance); // an answer, a hold...: not a read
    if (command instanceof Command.Shutdown s) {
      lifecycle.shutdown(s.mode(), replyTo, nowMonoMs, nowWallMs);
    } else {
      replyTo.reply(commands.answer(command, nowMonoMs, nowWallMs));
    }
  }

  /**
   * True once a shutdown completed: every worker it had to stop is gone. The shell then deletes the
   * status file and exits; further ticks only publish status.
   */
  public boolean stopped() {
    return lifecycle.stopped();
  }

  /** Whether dispatch is paused ({@code vigil pause}); read from memory only. */
  public boolean paused() {
    return lifecycle.paused();
  }

  /** The status as of now: what {@code daemon.json} and {@code vigil status} show (D1). */
  public Status status(long nowMonoMs, long nowWallMs) {
    return status.status(nowMonoMs, nowWallMs, lifecycle.state());
  }

  // ---- for tests in this package ----

  /** The liveness verdict of every supervised run (C5, Q6: a function of identity and reservation only). */
  Map<RunId, Liveness.Life> livenessVerdicts() {
    return tasks.liveness();
  }

  /** Whether this incarnation supervises {@code run}. */
  boolean supervises(RunId run) {
    return tasks.supervises(run);
  }
}
