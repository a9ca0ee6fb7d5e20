package dev.vigil.supervisor.engine;

import dev.vigil.coordination.TranscriptEntry;
import dev.vigil.supervisor.Step;
import dev.vigil.supervisor.StopKind;
import dev.vigil.supervisor.Stopping;
import dev.vigil.supervisor.engine.ServicePhase.Then;
import dev.vigil.supervisor.engine.ServiceTable.Svc;
import java.util.Optional;

/**
 * Stops of service workers: another build's or an unreachable worker stops as lost and its session
 * starts again on this build (S6), an operator stops a service or every worker, an idle shutdown
 * stops quiesced ones (S5) and, when it is abandoned, lets them serve again. How a stop escalates
 * is {@link Stopping}'s rule; {@link Workers} carries it out.
 */
final class ServiceStops {
  private final Ctx ctx;
  private final ServiceTable table;
  private final ServiceLaunches launches;
  private final Workers workers;

  ServiceStops(Ctx ctx, ServiceTable table, ServiceLaunches launches, Workers workers) {
    this.ctx = ctx;
    this.table = table;
    this.launches = launches;
    this.workers = workers;
  }

  /**
   * Begins a stop of the service's worker, or makes the stop in progress harder: a relaunch on this
   * build follows a stop as lost (S6); the session stays down after the others.
   *
   * @param delivered whether the worker already has the stop (the answer to its hello carries it)
   */
  void begin(Svc s, StopKind kind, boolean delivered, Then then, long nowMonoMs) {
    if (!(s.phase() instanceof ServicePhase.WithWorker w)) {
      throw new IllegalStateException("service " + s.name() + " has no worker to stop: " + s.phase());
    }
    Stopping current = s.phase() instanceof ServicePhase.Stopping st ? st.stop() : null;
    Optional<Stopping> stop = workers.beginStop(s.key(), current, kind, then == Then.RELAUNCH, delivered, nowMonoMs);
    if (stop.isPresent()) {
      ServicePhase.Up was = s.phase() instanceof ServicePhase.Up u ? u : null;
      table.transition(s, new ServicePhase.Stopping(w.identity(), w.tokenHash(), stop.get(), then, was), kind + " stop");
      advance(s, (ServicePhase.Stopping) s.phase(), nowMonoMs);
    }
  }

  /**
   * Moves a stop on: done when the worker is dead by identity and reservation (then a relaunch, or
   * the session down); else the frame again and the signal that is due. A survivor of a stop before
   * a relaunch counts as one more failure and is stopped again before each retry (S6).
   */
  void advance(Svc s, ServicePhase.Stopping st, long nowMonoMs) {
    boolean alive = !Liveness.dead(ctx.processes, ctx.directories, s.key(), st.identity());
    Step<Stopping, Stopping.Action> step = workers.advanceStop(s.key(), st.identity(), st.stop(), alive, nowMonoMs);
    StopKind kind = st.stop().kind();
    if (step.decision() instanceof Stopping.Action.Done) {
      ctx.record(new EngineEvent.ServiceExited(s.name(), "stopped (" + kind + ")" + s.how()));
      launches.transcribe(s, st.then() == Then.RELAUNCH ? TranscriptEntry.Kind.EXITED : TranscriptEntry.Kind.DOWN,
          "worker stopped " + stopWords(kind) + (st.then() == Then.RELAUNCH ? "; it is started again" : "; left down"));
      if (st.then() == Then.RELAUNCH) {
        launches.launch(s, nowMonoMs, "relaunched on build " + ctx.config.build());
      } else {
        if (kind == StopKind.IDLE_SHUTDOWN) {
          table.idleStopped.add(s.name());
        }
        ctx.record(new EngineEvent.ServiceDown(s.name(), kind + " stop"));
        table.transition(s, new ServicePhase.Down(), "stopped (" + kind + ")");
      }
    } else if (step.decision() instanceof Stopping.Action.Survivor) {
      launches.failure(s, "worker " + st.identity() + " survived its stop", Optional.ofNullable(st.identity()),
          nowMonoMs);
    } else if (!step.next().equals(st.stop())) {
      table.transition(s, st.with(step.next()), s.note());
    }
  }

  /** S7: why a worker was stopped, in the transcript's words. */
  private static String stopWords(StopKind kind) {
    return switch (kind) {
      case IDLE_SHUTDOWN -> "idle, as the daemon shut down";
      case LOST -> "as lost: it was not this daemon's build or did not report";
      case OPERATOR -> "by an operator (or with every worker at the daemon's shutdown)";
      default -> "(" + kind.name().toLowerCase(java.util.Locale.ROOT) + ")";
    };
  }

  /** The idle-shutdown stop of one service whose worker quiesced (S5): no signal follows; a stop in progress stays. */
  void stopIdle(String name, long nowMonoMs) {
    table.get(name).filter(Svc::hasWorker)
        .ifPresent(s -> begin(s, StopKind.IDLE_SHUTDOWN, false, Then.DOWN, nowMonoMs));
  }

  /**
   * An idle shutdown was abandoned (a worker refused the stop, S5): workers still stopping are
   * released and serve again; ALWAYS services whose worker already stopped start again (not a
   * failure).
   */
  void resumeAfterIdleStop(long nowMonoMs) {
    for (Svc s : table.all()) {
      if (s.phase() instanceof ServicePhase.Stopping st && st.stop().kind() == StopKind.IDLE_SHUTDOWN
          && st.was() != null) {
        ctx.channel.send(s.key(), new ToWorker.Release());
        table.transition(s, st.was(), "idle shutdown abandoned");
        table.idleStopInFlight.add(s.name()); // the stop may still reach it; an idle worker then complies
      } else if (s.phase() instanceof ServicePhase.Down && table.idleStopped.contains(s.name())
          && s.spec.activation() == ServiceSpec.Activation.ALWAYS) {
        launches.launch(s, nowMonoMs, "idle shutdown abandoned");
      }
    }
    table.idleStopped.clear();
  }

  /** A STOP_WORKERS shutdown: every worker stops (TERM, then KILL) and its session stays down. */
  void stopAll(long nowMonoMs) {
    table.stoppingAll = true;
    for (Svc s : table.all()) {
      if (s.hasWorker()) {
        begin(s, StopKind.OPERATOR, false, Then.DOWN, nowMonoMs); // a stop as hard already goes on
      } else {
        table.transition(s, new ServicePhase.Down(), "daemon shutting down");
      }
    }
  }
}
