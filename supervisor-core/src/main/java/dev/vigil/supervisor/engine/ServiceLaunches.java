package dev.vigil.supervisor.engine;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.TranscriptEntry;
import dev.vigil.supervisor.Durations;
import dev.vigil.supervisor.Adoption;
import dev.vigil.supervisor.RevivalGate;
import dev.vigil.supervisor.Step;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.engine.ServiceTable.Svc;
import dev.vigil.supervisor.engine.port.Launch;
import dev.vigil.supervisor.engine.port.LaunchRequest;
import dev.vigil.supervisor.engine.port.Signal;
import java.util.Optional;

/**
 * A service's launches under its restart budget (S1, through {@link Adoption.Relaunch}): never
 * beside a survivor of an earlier stop (S6); each failure a pause or a give-up; a dead worker
 * restarted when it is always wanted or died with work (S3), else its session closed.
 */
final class ServiceLaunches {
  private final Ctx ctx;
  private final ServiceTable table;
  private final Workers workers;

  ServiceLaunches(Ctx ctx, ServiceTable table, Workers workers) {
    this.ctx = ctx;
    this.table = table;
    this.workers = workers;
  }

  /** Launches the service's worker, unless the daemon is stopping its workers or a survivor holds the reservation. */
  void launch(Svc s, long nowMonoMs, String why) {
    if (table.stoppingAll) {
      table.transition(s, new ServicePhase.Down(), "daemon shutting down: not launched (" + why + ")");
      return;
    }
    WorkerKey key = s.key();
    table.idleStopInFlight.remove(s.name());
    if (ctx.directories.isReserved(key)) {
      failure(s, "a previous worker still runs: no second one is started beside it", Optional.empty(),
          nowMonoMs);
      return;
    }
    Launch l = workers.launch(new LaunchRequest(key, ctx.config.workerType(s.spec.workerType()), s.spec.spec(), 0,
        ctx.config.build()));
    if (l instanceof Launch.Failed f) {
      failure(s, f.why(), Optional.empty(), nowMonoMs);
    } else if (l instanceof Launch.Started st) {
      table.transition(s, new ServicePhase.Launching(st.identity(), st.tokenHash(),
          nowMonoMs + ctx.ms(Timeout.LAUNCH_HANDOFF)), why);
      transcribe(s, TranscriptEntry.Kind.LAUNCHED, why + " (pid " + st.identity().pid() + ")");
    } else {
      throw new AssertionError(l);
    }
  }

  /**
   * One failure (S1): a pause before the next launch, or give up.
   *
   * @param survivor the failed worker when it may still live (it was stopped), else empty
   */
  void failure(Svc s, String why, Optional<ProcessIdentity> survivor, long nowMonoMs) {
    if (table.stoppingAll && survivor.isEmpty()) {
      table.transition(s, new ServicePhase.Down(), "daemon shutting down: not restarted (" + why + ")");
      return;
    }
    Step<Adoption.Relaunch, Adoption.Relaunch.Retry> st = s.relaunch.onLaunchFailed(survivor, nowMonoMs);
    s.relaunch = st.next();
    Adoption.Relaunch.Retry r = st.decision();
    if (r instanceof Adoption.Relaunch.Retry.RetryAfter ra) {
      ctx.record(new EngineEvent.ServiceRestartScheduled(s.name(), ra.delayMs(), why));
      table.transition(s, new ServicePhase.Backoff(nowMonoMs + ra.delayMs()), why);
      transcribe(s, TranscriptEntry.Kind.RESTARTING, "in " + Durations.format(ra.delayMs()) + ": " + why);
    } else if (r instanceof Adoption.Relaunch.Retry.GiveUp g) {
      giveUp(s, g, why);
    } else {
      throw new AssertionError(r);
    }
  }

  private void giveUp(Svc s, Adoption.Relaunch.Retry.GiveUp g, String why) {
    String note = g.why().why() + "; last: " + why;
    ctx.record(new EngineEvent.ServiceGivenUp(s.name(), note));
    dev.vigil.coordination.Event reported = ctx.coordination.serviceGivenUp(s.name(), note, ctx.nowWallMs); // S1
    QuestionDesk.ask(ctx, DaemonQuestions.givenUp(s.name(), reported.id(), note), ctx.nowWallMs); // Q16
    table.transition(s, new ServicePhase.GivenUp(), note);
    g.survivor().ifPresent(id -> workers.signal(s.key(), id, Signal.TERM));
  }

  /**
   * S7: appends a lifecycle entry to the service's transcript, marked with the length of its output now. The
   * store writes it in its own transaction: the decision it tells of is the engine's, made in memory just before.
   */
  void transcribe(Svc s, TranscriptEntry.Kind kind, String text) {
    ctx.coordination.transcribe(s.name(), kind, text, ctx.directories.outputMark(s.key()), ctx.nowWallMs);
  }

  /** A restart pause is over: stop a survivor again (S6), or launch. */
  void retryDue(Svc s, long nowMonoMs) {
    boolean survivorAlive = s.relaunch.survivor()
        .map(id -> !Liveness.dead(ctx.processes, ctx.directories, s.key(), id)).orElse(false);
    Step<Adoption.Relaunch, Adoption.Relaunch.Retry> st = s.relaunch.onRetryDue(survivorAlive, nowMonoMs);
    s.relaunch = st.next();
    Adoption.Relaunch.Retry r = st.decision();
    if (r instanceof Adoption.Relaunch.Retry.Launch) {
      launch(s, nowMonoMs, "restarted");
    } else if (r instanceof Adoption.Relaunch.Retry.StopAgain again) {
      ctx.record(new EngineEvent.ServiceRestartScheduled(s.name(), again.retryAfterMs(),
          "survivor " + again.survivor() + " lives on: stopped again, counted as a failure"));
      table.transition(s, new ServicePhase.Backoff(nowMonoMs + again.retryAfterMs()), "survivor lives on");
      transcribe(s, TranscriptEntry.Kind.RESTARTING, "in " + Durations.format(again.retryAfterMs())
          + ": an earlier worker still lives; it is stopped again");
      workers.signal(s.key(), again.survivor(), Signal.TERM);
    } else if (r instanceof Adoption.Relaunch.Retry.GiveUp g) {
      giveUp(s, g, "survivor lives on");
    } else {
      throw new AssertionError(r);
    }
  }

  /**
   * The worker is dead by identity and reservation. An ALWAYS service restarts under its budget; an
   * ON_DEMAND one restarts only when its busy evidence says it died with work (S3), else its session
   * is left down.
   */
  void died(Svc s, long nowMonoMs, long nowWallMs) {
    String how = s.exitSeen == null ? "found dead: its process is gone and its run lock is free" : "exited (" + s.exitSeen + ")";
    ctx.record(new EngineEvent.ServiceExited(s.name(), how));
    transcribe(s, TranscriptEntry.Kind.EXITED, "worker " + how);
    if (table.idleStopInFlight.remove(s.name()) && s.exitSeen != null && s.exitSeen.clean()) {
      // it complied with the late idle stop of an abandoned shutdown: idle, not a failure (S1)
      if (s.spec.activation() == ServiceSpec.Activation.ALWAYS) {
        launch(s, nowMonoMs, "restarted after a late idle stop");
      } else {
        table.transition(s, new ServicePhase.Down(), "stopped idle");
      }
      return;
    }
    if (s.spec.activation() == ServiceSpec.Activation.ALWAYS) {
      failure(s, "worker " + how, Optional.empty(), nowMonoMs);
      return;
    }
    RevivalGate.Revival r = ctx.revival.atBoot(ctx.directories.latestBusy(s.key()), nowWallMs);
    if (r instanceof RevivalGate.Revival.Revive) {
      failure(s, "worker " + how + " with work in flight", Optional.empty(), nowMonoMs);
    } else if (r instanceof RevivalGate.Revival.Stay st) {
      ctx.record(new EngineEvent.ServiceDown(s.name(), "worker " + how + " without work (" + st.reason() + ")"));
      table.transition(s, new ServicePhase.Down(), "closed: " + how);
      transcribe(s, TranscriptEntry.Kind.DOWN, "on demand and without work: left down until it is wanted");
    } else {
      throw new AssertionError(r);
    }
  }
}
