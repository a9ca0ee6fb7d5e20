package dev.vigil.supervisor.engine;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.supervisor.HelloCheck;
import dev.vigil.supervisor.Step;
import dev.vigil.supervisor.StopKind;
import dev.vigil.supervisor.Stopping;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.engine.port.Launch;
import dev.vigil.supervisor.engine.port.LaunchRequest;
import dev.vigil.supervisor.engine.port.Prepared;
import dev.vigil.supervisor.engine.port.Signal;
import java.util.Optional;

/**
 * What the engine does to a worker the same way whether it serves a task run or a service: prepare
 * its directory and launch it (DESIGN.md §5), check its hello ({@link HelloCheck}: C9, Q3, S6) and
 * refuse it, and carry out its stop ({@link Stopping}: the frame, then identity-gated TERM and KILL).
 * The decisions are the pure rules'; this class only acts on them through the ports and records
 * what it did.
 */
final class Workers {
  private final Ctx ctx;

  Workers(Ctx ctx) {
    this.ctx = ctx;
  }

  // ---- launch ----

  /**
   * Prepares the directory of {@code request.key()} and launches its worker. A failure says which
   * step failed; nothing was started then.
   */
  Launch launch(LaunchRequest request) {
    WorkerKey key = request.key();
    Prepared prepared = ctx.directories.prepare(key);
    if (prepared instanceof Prepared.Failed f) {
      return new Launch.Failed("directory: " + f.why());
    } else if (!(prepared instanceof Prepared.Ready)) {
      throw new AssertionError(prepared);
    }
    Launch launch = ctx.processes.launch(request);
    if (launch instanceof Launch.Failed f) {
      ctx.record(new EngineEvent.LaunchFailed(key, f.why()));
      return new Launch.Failed("launch failed: " + f.why());
    } else if (launch instanceof Launch.Started s) {
      ctx.record(new EngineEvent.Launched(key, s.identity()));
      return s;
    } else {
      throw new AssertionError(launch);
    }
  }

  // ---- hello ----

  /** Checks {@code hello} against what this daemon knows of the worker it names. */
  HelloCheck.Result check(WorkerMessage.Hello hello, HelloCheck.Expected expected) {
    return HelloCheck.check(expected,
        new HelloCheck.Presented(hello.tokenHash(), hello.build(), ctx.processes.identity(hello.pid())));
  }

  /**
   * The refusal of a hello that failed its check, in words for the worker's log.
   *
   * @param subject what the worker claims to serve, e.g. {@code run t-3.1} or {@code service indexer}
   */
  ToWorker deny(WorkerMessage.Hello hello, HelloCheck.Expected expected, HelloCheck.Reason reason, String subject) {
    String why = switch (reason) {
      case NO_IDENTITY -> subject + " has no identity record to check the worker against";
      case WRONG_TOKEN -> "wrong token for " + subject;
      case OTHER_BUILD -> "build " + hello.build() + " is not the build " + expected.build() + " of " + subject;
      case NOT_THE_WORKER -> "pid " + hello.pid() + " is not the worker of " + subject;
    };
    return deny(hello, why);
  }

  /** Refuses a hello: the worker exits without starting work. */
  ToWorker deny(WorkerMessage.Hello hello, String reason) {
    ctx.record(new EngineEvent.HelloDenied(hello.key(), reason));
    return new ToWorker.AdoptDenied(reason);
  }

  // ---- stops ----

  /**
   * Begins a stop of {@code kind}, or replaces {@code current} by it when it is harder: the frame
   * goes to the worker's connection now unless it already has it ({@code delivered}, e.g. the hello
   * answer carries it). Empty when {@code current} is as hard already (nothing was sent).
   */
  Optional<Stopping> beginStop(WorkerKey key, Stopping current, StopKind kind, boolean beforeRelaunch,
                               boolean delivered, long nowMonoMs) {
    if (current != null && !current.yieldsTo(kind)) {
      return Optional.empty();
    }
    long graceMs = ctx.ms(Timeout.STOP_GRACE);
    boolean took = delivered || ctx.channel.send(key, new ToWorker.Stop(graceMs, kind));
    Stopping next = current == null ? Stopping.begin(kind, beforeRelaunch, graceMs, nowMonoMs, took)
        : current.replacedBy(kind, nowMonoMs, took);
    ctx.record(new EngineEvent.StopBegun(key, kind));
    return Optional.of(next);
  }

  /**
   * Moves a stop on: the frame again while a live worker's connection lacks it, then the signal
   * that is due, sent to the group of {@code identity} and identity-gated (none when the identity is
   * unknown). The caller keeps the next value and acts on {@code Done} and {@code Survivor}.
   *
   * @param alive whether the worker is alive by identity or reservation (C5)
   */
  Step<Stopping, Stopping.Action> advanceStop(WorkerKey key, ProcessIdentity identity, Stopping stop, boolean alive,
                                              long nowMonoMs) {
    boolean delivered = !stop.frameDue()
        || (alive && ctx.channel.send(key, new ToWorker.Stop(stop.graceMs(), stop.kind())));
    Step<Stopping, Stopping.Action> step = stop.advance(nowMonoMs, delivered, alive);
    Stopping.Action a = step.decision();
    if (a instanceof Stopping.Action.Term) {
      signal(key, identity, Signal.TERM);
    } else if (a instanceof Stopping.Action.Kill) {
      signal(key, identity, Signal.KILL);
    } else if (!(a instanceof Stopping.Action.Done || a instanceof Stopping.Action.Wait
        || a instanceof Stopping.Action.AwaitExit || a instanceof Stopping.Action.Survivor)) {
      throw new AssertionError(a);
    }
    return step;
  }

  /** Sends {@code signal} to the group of {@code identity}, identity-gated; records whether it was sent. */
  boolean signal(WorkerKey key, ProcessIdentity identity, Signal signal) {
    boolean sent = identity != null && ctx.processes.signalGroup(identity, signal);
    ctx.record(new EngineEvent.Signalled(key, signal, sent));
    return sent;
  }
}
