package dev.vigil.supervisor.engine;

import dev.vigil.supervisor.QuiesceRound;
import dev.vigil.supervisor.Step;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.WorkGate;
import dev.vigil.supervisor.WorkSet;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The daemon's own life, one {@link DaemonPhase} at a time, and the shutdown protocol (S5):
 *
 * <ol>
 *   <li>{@code shutdown{ifIdle}}: every worker (task runs and services) is asked to quiesce; the
 *       {@link QuiesceRound} decides. Only when every worker quiesced within {@code quiesceAnswer}
 *       is each sent the idle stop (never followed by a signal); otherwise every gate reopens and
 *       the client is told busy. The client never decides.
 *   <li>After the idle stops, the daemon waits at most {@code stopGrace} for every worker to be
 *       gone; a worker that refuses the stop (it has work) or outlives the wait abandons the
 *       shutdown: gates reopen, idle-stopped services start again, the client is told busy.
 *   <li>{@code shutdown} stopping workers: every worker stops (TERM, then KILL) and none starts;
 *       the daemon waits until all are gone.
 *   <li>Once none is left the daemon is stopped; the shell deletes the status file and exits.
 *   <li>{@code shutdown} leaving workers (a restart): the daemon is stopped at once and no worker is
 *       sent anything; each runs on and says hello to the next daemon, which adopts it (D4, S6).
 * </ol>
 *
 * Only {@link #transitionTo} changes the phase.
 */
final class Lifecycle {
  private final Ctx ctx;
  private final Tasks tasks;
  private final Services services;
  private final StatusView status;
  private DaemonPhase phase = new DaemonPhase.Running();

  Lifecycle(Ctx ctx, Tasks tasks, Services services, StatusView status) {
    this.ctx = ctx;
    this.tasks = tasks;
    this.services = services;
    this.status = status;
  }

  // ---- the one place where the daemon's phase changes ----

  private void transitionTo(DaemonPhase next) {
    phase = next;
  }

  /** Whether the scheduler claims new work: running, not paused, no shutdown under way. */
  boolean dispatches() {
    return phase instanceof DaemonPhase.Running;
  }

  /** Whether a shutdown is under way or done: nothing new starts. */
  boolean shuttingDown() {
    return !(phase instanceof DaemonPhase.Running || phase instanceof DaemonPhase.Paused);
  }

  /** Whether the daemon's own phase moves on only by an event (running or paused), not by a look at every step. */
  boolean steady() {
    return phase instanceof DaemonPhase.Running || phase instanceof DaemonPhase.Paused;
  }

  /** Whether dispatch is paused, also during a shutdown that began paused. */
  boolean paused() {
    return phase.paused();
  }

  boolean stopped() {
    return phase instanceof DaemonPhase.Stopped;
  }

  /** What status calls the phase (D1). */
  Status.State state() {
    DaemonPhase p = phase;
    if (p instanceof DaemonPhase.Running) {
      return Status.State.RUNNING;
    } else if (p instanceof DaemonPhase.Paused) {
      return Status.State.PAUSED;
    } else if (p instanceof DaemonPhase.Quiescing) {
      return Status.State.QUIESCING;
    } else if (p instanceof DaemonPhase.DrainingIdle || p instanceof DaemonPhase.DrainingStop) {
      return Status.State.DRAINING;
    } else if (p instanceof DaemonPhase.Stopped) {
      return Status.State.STOPPED;
    } else {
      throw new AssertionError(p);
    }
  }

  /** Pauses or resumes dispatch (not durable); true when that changed anything. A stopped daemon stays stopped. */
  boolean pause(boolean pause) {
    DaemonPhase p = phase;
    if (p.paused() == pause || p instanceof DaemonPhase.Stopped) {
      return false;
    } else if (p instanceof DaemonPhase.Running || p instanceof DaemonPhase.Paused) {
      transitionTo(pause ? new DaemonPhase.Paused() : new DaemonPhase.Running());
    } else if (p instanceof DaemonPhase.Quiescing q) {
      transitionTo(new DaemonPhase.Quiescing(q.round(), q.members(), q.reply(), pause));
    } else if (p instanceof DaemonPhase.DrainingIdle d) {
      transitionTo(new DaemonPhase.DrainingIdle(d.members(), d.reply(), d.deadlineMonoMs(), pause));
    } else if (p instanceof DaemonPhase.DrainingStop d) {
      transitionTo(new DaemonPhase.DrainingStop(d.reply(), pause));
    } else {
      throw new AssertionError(p);
    }
    return true;
  }

  // ---- shutdown (S5) ----

  void shutdown(Command.Shutdown.Mode how, ReplyTo replyTo, long nowMonoMs, long nowWallMs) {
    if (shuttingDown()) {
      replyTo.reply(new Reply.Denied(stopped() ? "the daemon is shutting down" : "a shutdown is already in progress"));
      return;
    }
    if (how == Command.Shutdown.Mode.STOP_WORKERS) {
      transitionTo(new DaemonPhase.DrainingStop(replyTo, phase.paused()));
      tasks.stopAll(nowMonoMs);
      services.stopAll(nowMonoMs);
    } else if (how == Command.Shutdown.Mode.IF_IDLE) {
      SortedMap<String, WorkerKey> members = new TreeMap<>();
      for (WorkerKey k : tasks.workers()) {
        members.put(k.name(), k);
      }
      for (WorkerKey k : services.workers()) {
        members.put(k.name(), k);
      }
      QuiesceRound round = QuiesceRound.start(members.keySet(), ctx.ms(Timeout.QUIESCE_ANSWER), nowMonoMs);
      transitionTo(new DaemonPhase.Quiescing(round, members, replyTo, phase.paused()));
      ctx.record(new EngineEvent.QuiesceStarted(members.keySet()));
      for (WorkerKey k : members.values()) {
        ctx.channel.send(k, new ToWorker.Quiesce());
      }
    } else if (how == Command.Shutdown.Mode.LEAVE_WORKERS) {
      complete(replyTo, "every worker left running for the next daemon", nowMonoMs, nowWallMs);
      return;
    } else {
      throw new AssertionError(how);
    }
    advance(nowMonoMs, nowWallMs);
  }

  /** A worker answered quiesced (S5). */
  void onQuiesced(WorkerKey from, long nowMonoMs, long nowWallMs) {
    if (phase instanceof DaemonPhase.Quiescing q) {
      decide(q, q.round().onAnswer(from.name(), new WorkGate.Answer.Quiesced(), nowMonoMs), nowMonoMs, nowWallMs);
    }
  }

  /**
   * A worker says it has work: its answer to quiesce, or its refusal of the idle stop, which
   * abandons the shutdown (S5). Otherwise it is busy evidence and decides nothing here.
   */
  void onBusy(WorkerKey from, WorkSet work, long nowMonoMs, long nowWallMs) {
    if (phase instanceof DaemonPhase.DrainingIdle d && d.members().containsKey(from.name())) {
      abandon(d, "1 worker has work: " + from.name() + " (" + work.describe() + ", refused the idle stop)", nowMonoMs);
    } else if (phase instanceof DaemonPhase.Quiescing q) {
      decide(q, q.round().onAnswer(from.name(), new WorkGate.Answer.Busy(work), nowMonoMs), nowMonoMs, nowWallMs);
    }
  }

  /** Moves the shutdown in progress on: the round's window, the drain's end or its deadline. */
  void advance(long nowMonoMs, long nowWallMs) {
    DaemonPhase p = phase;
    if (p instanceof DaemonPhase.Quiescing q) {
      decide(q, q.round().onTick(nowMonoMs), nowMonoMs, nowWallMs);
    } else if (p instanceof DaemonPhase.DrainingIdle d) {
      if (tasks.isEmpty() && services.allDown()) {
        complete(d.reply(), "every worker was idle and has stopped", nowMonoMs, nowWallMs);
      } else if (nowMonoMs >= d.deadlineMonoMs()) {
        abandon(d, "not every worker stopped within stopGrace after it agreed to stop", nowMonoMs);
      }
    } else if (p instanceof DaemonPhase.DrainingStop d) {
      if (tasks.isEmpty() && services.allDown()) {
        complete(d.reply(), "every worker stopped", nowMonoMs, nowWallMs);
      }
    }
  }

  private void decide(DaemonPhase.Quiescing q, Step<QuiesceRound, QuiesceRound.Round> step, long nowMonoMs,
                      long nowWallMs) {
    QuiesceRound.Round r = step.decision();
    if (r instanceof QuiesceRound.Round.StopAll all) {
      ctx.record(new EngineEvent.QuiesceDecided(true, "every worker quiesced: " + all.workers()));
      transitionTo(new DaemonPhase.DrainingIdle(q.members(), q.reply(), nowMonoMs + ctx.ms(Timeout.STOP_GRACE),
          q.paused()));
      for (WorkerKey k : q.members().values()) {
        if (k instanceof WorkerKey.Task t) {
          tasks.stopIdle(t.run(), nowMonoMs);
        } else if (k instanceof WorkerKey.Service s) {
          services.stopIdle(s.service(), nowMonoMs);
        } else {
          throw new AssertionError(k);
        }
      }
      advance(nowMonoMs, nowWallMs);
    } else if (r instanceof QuiesceRound.Round.ReleaseAll release) {
      ctx.record(new EngineEvent.QuiesceDecided(false, release.message()));
      for (WorkerKey k : q.members().values()) {
        ctx.channel.send(k, new ToWorker.Release());
      }
      end(q.reply(), q.paused(), new Reply.Busy(release.message()));
    } else if (r instanceof QuiesceRound.Round.Waiting || r instanceof QuiesceRound.Round.Done) {
      transitionTo(new DaemonPhase.Quiescing(step.next(), q.members(), q.reply(), q.paused()));
    } else {
      throw new AssertionError(r);
    }
  }

  private void abandon(DaemonPhase.DrainingIdle d, String why, long nowMonoMs) {
    ctx.record(new EngineEvent.ShutdownAborted(why));
    services.resumeAfterIdleStop(nowMonoMs);
    end(d.reply(), d.paused(), new Reply.Busy("busy: " + why));
  }

  /** The shutdown is abandoned: back to running (or paused, as before it), and the client is told. */
  private void end(ReplyTo reply, boolean paused, Reply answer) {
    transitionTo(paused ? new DaemonPhase.Paused() : new DaemonPhase.Running());
    reply.reply(answer);
  }

  private void complete(ReplyTo reply, String how, long nowMonoMs, long nowWallMs) {
    transitionTo(new DaemonPhase.Stopped());
    ctx.record(new EngineEvent.ShutdownComplete(how));
    status.publish(nowMonoMs, nowWallMs, state());
    reply.reply(new Reply.ShuttingDown(how));
  }
}
