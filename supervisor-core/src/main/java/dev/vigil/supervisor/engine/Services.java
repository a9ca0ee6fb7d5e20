package dev.vigil.supervisor.engine;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.TranscriptEntry;
import dev.vigil.supervisor.Adoption;
import dev.vigil.supervisor.Durations;
import dev.vigil.supervisor.HelloCheck;
import dev.vigil.supervisor.RestartBudget;
import dev.vigil.supervisor.RevivalGate;
import dev.vigil.supervisor.StopKind;
import dev.vigil.supervisor.Stopping;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.engine.ServicePhase.Then;
import dev.vigil.supervisor.engine.ServiceTable.Svc;
import dev.vigil.supervisor.engine.port.IdentityRecord;
import dev.vigil.supervisor.engine.port.ProcessExit;
import dev.vigil.supervisor.engine.port.Signal;
import java.util.List;
import java.util.Optional;

/**
 * The service sessions of the configuration, one worker each (DESIGN.md §7), each in one
 * {@link ServicePhase} kept by the {@link ServiceTable}: launched through a handoff (reservation and
 * hello) and restarted under {@link RestartBudget} ({@link ServiceLaunches}: S1, and S6's survivor
 * rule: never launch beside a survivor), adopted at boot by build through {@link Adoption} (S6),
 * revived at boot through {@link RevivalGate} (S3), stopped by {@link Stopping}'s rule
 * ({@link ServiceStops}). Orphaned workers follow S4 on their own side. This class boots them,
 * moves them on each tick and answers their hellos.
 */
final class Services {
  private final Ctx ctx;
  private final Workers workers;
  private final ServiceTable table;
  private final ServiceLaunches launches;
  private final ServiceStops stops;

  Services(Ctx ctx, Workers workers) {
    this.ctx = ctx;
    this.workers = workers;
    this.table = new ServiceTable(ctx.config.services(), ctx.restartPolicy);
    this.launches = new ServiceLaunches(ctx, table, workers);
    this.stops = new ServiceStops(ctx, table, launches, workers);
  }

  /** Every service with a worker process: the members of an idle-shutdown round (S5). */
  List<WorkerKey> workers() {
    return table.workers();
  }

  /** Whether no service has a worker any more. */
  boolean allDown() {
    return table.workers().isEmpty();
  }

  /** What status shows of every service, in configuration order. */
  List<Status.ServiceStatus> statuses(long nowMonoMs) {
    return table.statuses(nowMonoMs);
  }

  // ---- boot: adoption (S6) or revival (S3) ----

  void boot(long nowMonoMs, long nowWallMs) {
    for (Svc s : table.all()) {
      WorkerKey key = s.key();
      IdentityRecord rec = ctx.directories.identity(key);
      ProcessIdentity recorded = rec instanceof IdentityRecord.Written w ? w.identity() : null;
      if (!Liveness.dead(ctx.processes, ctx.directories, key, recorded)) {
        String token = rec instanceof IdentityRecord.Written w ? w.tokenHash() : null;
        table.transition(s, new ServicePhase.Adopting(recorded, token), "found alive at start; waiting for it to report");
        continue;
      }
      RevivalGate.Revival r = ctx.revival.atBoot(ctx.directories.latestBusy(key), nowWallMs);
      if (r instanceof RevivalGate.Revival.Revive rv) {
        ctx.record(new EngineEvent.ServiceRevival(s.name(), true,
            "busy record " + Durations.format(Math.max(0, rv.ageMs())) + " old"));
        launches.launch(s, nowMonoMs, "revived: it had work when its daemon went away");
      } else if (r instanceof RevivalGate.Revival.Stay st) {
        ctx.record(new EngineEvent.ServiceRevival(s.name(), false, st.reason().toString()));
        if (s.spec.activation() == ServiceSpec.Activation.ALWAYS) {
          launches.launch(s, nowMonoMs, "started at boot");
        } else {
          table.transition(s, new ServicePhase.Down(), "on demand, not started at boot: " + st.reason().words());
        }
      } else {
        throw new AssertionError(r);
      }
    }
  }

  // ---- the tick ----

  /**
   * Moves every service on: restarts that are due, handoffs (a dead launch fails at once, a silent
   * one is KILLed after launchHandoff), adoption verdicts, stops; on a reconcile pass, finds dead
   * workers by identity and reservation (C5).
   */
  void tick(boolean reconcile, long nowMonoMs, long nowWallMs) {
    for (Svc s : table.all()) {
      advance(s, reconcile, nowMonoMs, nowWallMs);
    }
  }

  /**
   * When {@link #tick} must next look at the services though no event comes: {@code nowMonoMs +
   * stepMs} while one is launching, being adopted, stopping or has an exit to look at; else the
   * earliest restart due after a backoff ({@link Long#MAX_VALUE} when none).
   */
  long nextDeadlineMonoMs(long nowMonoMs, long stepMs) {
    long next = Long.MAX_VALUE;
    for (Svc s : table.all()) {
      ServicePhase p = s.phase();
      if (p instanceof ServicePhase.Backoff b) {
        next = Math.min(next, b.dueMonoMs());
      } else if (p instanceof ServicePhase.Up) {
        if (s.exitSeen != null) {
          return nowMonoMs + stepMs;
        }
      } else if (!(p instanceof ServicePhase.Down || p instanceof ServicePhase.GivenUp)) {
        return nowMonoMs + stepMs;
      }
    }
    return next;
  }

  private void advance(Svc s, boolean reconcile, long nowMonoMs, long nowWallMs) {
    ServicePhase p = s.phase();
    if (p instanceof ServicePhase.Backoff b) {
      if (nowMonoMs >= b.dueMonoMs()) {
        launches.retryDue(s, nowMonoMs);
      }
    } else if (p instanceof ServicePhase.Launching l) {
      if (deadNow(s, l.identity())) {
        launches.failure(s, "worker died while it was starting" + s.how()
            + ctx.directories.lastWords(s.key()).map(w -> "; its stderr ends: " + w).orElse(""), Optional.empty(), nowMonoMs);
      } else if (nowMonoMs >= l.deadlineMonoMs()) {
        ctx.record(new EngineEvent.HandoffTimedOut(s.key(), "no run lock and no hello within launchHandoff"));
        workers.signal(s.key(), l.identity(), Signal.KILL);
        launches.failure(s, "the worker took no run lock and said no hello within launchHandoff ("
            + Durations.format(ctx.ms(Timeout.LAUNCH_HANDOFF)) + ")", Optional.of(l.identity()), nowMonoMs);
      }
    } else if (p instanceof ServicePhase.Adopting a) {
      if (a.identity() == null && ctx.directories.identity(s.key()) instanceof IdentityRecord.Written w) {
        table.transition(s, new ServicePhase.Adopting(w.identity(), w.tokenHash()), s.note());
        a = (ServicePhase.Adopting) s.phase();
      }
      boolean alive = !Liveness.dead(ctx.processes, ctx.directories, s.key(), a.identity());
      Adoption.Verdict v = ctx.adoption.verdict(alive, Optional.empty(), ctx.bootMonoMs, nowMonoMs);
      if (v instanceof Adoption.Verdict.NotAlive) {
        launches.died(s, nowMonoMs, nowWallMs);
      } else if (v instanceof Adoption.Verdict.StopAsLost lost) {
        ctx.record(new EngineEvent.ServiceExited(s.name(), "not adopted: " + lost.reason()));
        stops.begin(s, StopKind.LOST, false, Then.RELAUNCH, nowMonoMs);
      } else if (!(v instanceof Adoption.Verdict.AwaitHello)) {
        throw new AssertionError(v);
      }
    } else if (p instanceof ServicePhase.Up u) {
      if ((reconcile || s.exitSeen != null) && deadNow(s, u.identity())) {
        launches.died(s, nowMonoMs, nowWallMs);
      }
    } else if (p instanceof ServicePhase.Stopping st) {
      stops.advance(s, st, nowMonoMs);
    } else if (!(p instanceof ServicePhase.Down || p instanceof ServicePhase.GivenUp)) {
      throw new AssertionError(p);
    }
  }

  private boolean deadNow(Svc s, ProcessIdentity identity) {
    return Liveness.dead(ctx.processes, ctx.directories, s.key(), identity);
  }

  // ---- events ----

  /** The shell's exit report for a worker it launched; false when it is no service's worker. */
  boolean onExit(ProcessExit exit, long nowMonoMs, long nowWallMs) {
    for (Svc s : table.all()) {
      if (exit.identity().equals(s.identity())) {
        s.exitSeen = exit;
        advance(s, false, nowMonoMs, nowWallMs);
        return true;
      }
    }
    return false;
  }

  /**
   * A hello for a service: the reply for the worker's connection. It is checked by
   * {@link HelloCheck} against what the service's phase knows of its worker (C9); an adopted
   * worker's build then decides adoption (S6).
   */
  ToWorker onHello(WorkerMessage.Hello hello, String name, long nowMonoMs) {
    Svc s = table.get(name).orElse(null);
    if (s == null) {
      return workers.deny(hello, "no service '" + name + "' is configured");
    }
    if (!(s.phase() instanceof ServicePhase.WithWorker w)) {
      return workers.deny(hello, "service " + name + " has no worker starting or running");
    }
    String build = ctx.config.build();
    // the build is checked where this daemon launched the worker or adopted it; adoption decides it otherwise
    String expectedBuild = w instanceof ServicePhase.Launching ? build : w instanceof ServicePhase.Up u ? u.build() : null;
    HelloCheck.Expected expected = new HelloCheck.Expected(w.identity(), w.tokenHash(), expectedBuild);
    HelloCheck.Result result = workers.check(hello, expected);
    if (result instanceof HelloCheck.Result.Denied d) {
      return workers.deny(hello, expected, d.reason(), "service " + name);
    } else if (!(result instanceof HelloCheck.Result.Accepted)) {
      throw new AssertionError(result);
    }
    if (w instanceof ServicePhase.Launching l) {
      if (!ctx.directories.isReserved(s.key())) {
        return workers.deny(hello, "service " + name + ": the worker does not hold its run lock");
      }
      table.transition(s, new ServicePhase.Up(l.identity(), l.tokenHash(), build), "up");
      ctx.record(new EngineEvent.ServiceUp(name, false));
    } else if (w instanceof ServicePhase.Adopting a) {
      return adopt(s, a, hello, nowMonoMs);
    } else if (w instanceof ServicePhase.Stopping st) {
      table.transition(s, st.with(st.stop().redeliver()), s.note());
      ctx.record(new EngineEvent.Welcomed(s.key(), false));
      return new ToWorker.Welcome(build, false);
    }
    ctx.record(new EngineEvent.Welcomed(s.key(), true));
    return new ToWorker.Welcome(build, true);
  }

  /** The hello of a worker found alive at boot: adopted when it runs this build, else stopped as lost (S6). */
  private ToWorker adopt(Svc s, ServicePhase.Adopting a, WorkerMessage.Hello hello, long nowMonoMs) {
    String build = ctx.config.build();
    // the record's token hash when it carries one; else the recorded identity proved the worker
    String token = a.tokenHash() != null ? a.tokenHash() : hello.tokenHash();
    Adoption.Verdict v = ctx.adoption.verdict(true, Optional.of(hello.build()), ctx.bootMonoMs, nowMonoMs);
    if (v instanceof Adoption.Verdict.Adopt) {
      table.transition(s, new ServicePhase.Up(a.identity(), token, hello.build()), "taken over: the same build");
      ctx.record(new EngineEvent.ServiceUp(s.name(), true));
      launches.transcribe(s, TranscriptEntry.Kind.ADOPTED, "taken over by a new daemon (pid " + a.identity().pid() + ")");
      ctx.record(new EngineEvent.Welcomed(s.key(), true));
      return new ToWorker.Welcome(build, true);
    } else if (v instanceof Adoption.Verdict.StopAsLost lost) {
      String reason = "build " + hello.build() + " is not this daemon's build " + build + ": stopped; it is started again on this build";
      ctx.record(new EngineEvent.ServiceExited(s.name(), "not adopted: " + lost.reason()));
      ctx.record(new EngineEvent.HelloDenied(s.key(), reason));
      stops.begin(s, StopKind.LOST, true, Then.RELAUNCH, nowMonoMs);
      return new ToWorker.AdoptDenied(reason);
    } else {
      throw new AssertionError("a worker that said hello is alive and reported a build: " + v);
    }
  }

  /**
   * S7: a welcomed worker of service {@code name} started over a restored snapshot: the store keeps one notice
   * per restore, so a worker that says it again to this daemon or the next one stores nothing more.
   */
  void onRestored(String name, WorkerMessage.Restored r) {
    Svc s = table.get(name).orElse(null);
    if (s == null || !(s.phase() instanceof ServicePhase.WithWorker)) {
      return;
    }
    dev.vigil.coordination.Restore stored = ctx.coordination.restored(name, r.restoreId(), r.snapshot(),
        ctx.directories.outputMark(s.key()), ctx.nowWallMs);
    ctx.record(new EngineEvent.ServiceRestored(name, r.restoreId(), r.snapshot(),
        stored instanceof dev.vigil.coordination.Restore.Added));
  }

  // ---- commands and shutdown ----

  Reply start(String name, long nowMonoMs) {
    Svc s = table.get(name).orElse(null);
    if (s == null) {
      return new Reply.NotFound("service " + name);
    }
    if (s.phase() instanceof ServicePhase.GivenUp) {
      s.relaunch = Adoption.Relaunch.start(RestartBudget.fresh(ctx.restartPolicy));
    } else if (!(s.phase() instanceof ServicePhase.Down || s.phase() instanceof ServicePhase.Backoff)) {
      return new Reply.Acknowledged("service " + name + " already has a worker");
    }
    launches.launch(s, nowMonoMs, "started by an operator");
    return new Reply.Acknowledged("service " + name + " starting");
  }

  Reply stop(String name, long nowMonoMs) {
    Svc s = table.get(name).orElse(null);
    if (s == null) {
      return new Reply.NotFound("service " + name);
    }
    if (s.phase() instanceof ServicePhase.WithWorker) {
      if (!(s.phase() instanceof ServicePhase.Stopping)) {
        stops.begin(s, StopKind.OPERATOR, false, Then.DOWN, nowMonoMs);
      }
      return new Reply.Acknowledged("service " + name + " stopping");
    }
    if (!(s.phase() instanceof ServicePhase.Down)) {
      launches.transcribe(s, TranscriptEntry.Kind.DOWN, "stopped by an operator while it had no worker");
    }
    table.transition(s, new ServicePhase.Down(), "stopped by an operator");
    return new Reply.Acknowledged("service " + name + " is down");
  }

  /**
   * Q16's restart of a service: one with a worker is stopped as an operator's stop and launched again on this
   * build; one without (down, waiting to restart, given up) starts as {@link #start} starts it.
   */
  Reply restart(String name, long nowMonoMs) {
    Svc s = table.get(name).orElse(null);
    if (s == null) {
      return new Reply.NotFound("service " + name);
    }
    if (s.phase() instanceof ServicePhase.WithWorker) {
      if (!(s.phase() instanceof ServicePhase.Stopping)) {
        stops.begin(s, StopKind.OPERATOR, false, Then.RELAUNCH, nowMonoMs);
      }
      return new Reply.Acknowledged("service " + name + " restarting");
    }
    return start(name, nowMonoMs);
  }

  /**
   * Q16's reset of a restart budget (S1): the service's failures are forgotten, while it is up or down and no
   * earlier worker survives its stop; a given-up service stays given up (restart starts it).
   */
  Reply resetBudget(String name) {
    Svc s = table.get(name).orElse(null);
    if (s == null) {
      return new Reply.NotFound("service " + name);
    }
    boolean settled = s.phase() instanceof ServicePhase.Up || s.phase() instanceof ServicePhase.Down;
    if (!settled || s.relaunch.survivor().isPresent()) {
      return new Reply.Denied("service " + name + " is " + s.phase().getClass().getSimpleName().toLowerCase(
          java.util.Locale.ROOT) + ": its restart budget is left as it is");
    }
    s.relaunch = Adoption.Relaunch.start(RestartBudget.fresh(ctx.restartPolicy));
    return new Reply.Acknowledged("service " + name + ": restart budget reset");
  }

  /** The idle-shutdown stop of one service whose worker quiesced (S5): no signal follows; a stop in progress stays. */
  void stopIdle(String name, long nowMonoMs) {
    stops.stopIdle(name, nowMonoMs);
  }

  /** An idle shutdown was abandoned (S5): stopping workers serve again; idle-stopped ALWAYS services start again. */
  void resumeAfterIdleStop(long nowMonoMs) {
    stops.resumeAfterIdleStop(nowMonoMs);
  }

  /** A STOP_WORKERS shutdown: every worker stops (TERM, then KILL) and its session stays down. */
  void stopAll(long nowMonoMs) {
    stops.stopAll(nowMonoMs);
  }
}
