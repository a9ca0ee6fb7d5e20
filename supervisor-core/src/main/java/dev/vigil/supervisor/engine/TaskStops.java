package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Run;
import dev.vigil.coordination.StopIntent;
import dev.vigil.supervisor.Step;
import dev.vigil.supervisor.StopKind;
import dev.vigil.supervisor.Stopping;
import java.util.Optional;

/**
 * Stops of running task workers: a park reaches them at a safe point (Q9), another build's worker
 * stops as a lost one (S6), an operator's shutdown stops them all, an idle shutdown stops quiesced
 * ones (S5), a run past its time limit (Q12) and a killed run (Q13) are stopped once their intent is
 * on record. How a stop escalates is {@link Stopping}'s rule; {@link Workers} carries it out.
 */
final class TaskStops {
  private final Ctx ctx;
  private final TaskTable table;
  private final Workers workers;
  /** Set while a STOP_WORKERS shutdown drains: every run that starts is stopped at once. */
  private boolean stopEveryStart;

  TaskStops(Ctx ctx, TaskTable table, Workers workers) {
    this.ctx = ctx;
    this.table = table;
    this.workers = workers;
  }

  /**
   * Begins a stop of a running worker, or makes the stop in progress harder; false when the run is
   * not running or its stop is as hard already.
   */
  boolean begin(TaskTable.Tracked t, StopKind kind, long nowMonoMs) {
    if (!(t.phase() instanceof RunPhase.Running r)) {
      return false;
    }
    Optional<Stopping> s = workers.beginStop(t.key(), r.stop(), kind, false, false, nowMonoMs);
    s.ifPresent(stop -> table.transition(t, r.with(stop)));
    return s.isPresent();
  }

  /**
   * Moves the stop of a live worker on: the frame again if undelivered, the signal that is due. The
   * tick settles a worker that is dead by identity and reservation before it gets here (C5), and a
   * task stop has no relaunch after it, so only signals and waits come of it.
   */
  void advance(TaskTable.Tracked t, long nowMonoMs) {
    if (!(t.phase() instanceof RunPhase.Running r) || r.stop() == null) {
      return;
    }
    Step<Stopping, Stopping.Action> step = workers.advanceStop(t.key(), r.start().identity(), r.stop(), true, nowMonoMs);
    if (!step.next().equals(r.stop())) {
      table.transition(t, r.with(step.next()));
    }
  }

  /**
   * The stop a run that just started gets instead of go: a kill on record while it was claimed (Q13),
   * another build (S6), a draining daemon, a park (Q9); or null.
   */
  StopKind dueAtStart(TaskTable.Tracked t, Run started) {
    StopKind intended = ofIntent(started.stopIntent());
    if (intended != null) {
      return intended;
    }
    if (!started.start().build().equals(ctx.config.build())) {
      return StopKind.LOST;
    }
    return dueAtReadopt(t, null);
  }

  /**
   * The stop a readopted run of this build gets: the one its intent on record calls for (a kill, a
   * time-out: the stop a daemon that died had begun, Q12, Q13), a draining daemon's, a park's (Q9); or null.
   */
  StopKind dueAtReadopt(TaskTable.Tracked t, StopIntent intent) {
    return dueAtReadopt(t, intent, () -> table.parked(t));
  }

  /** As {@link #dueAtReadopt(TaskTable.Tracked, StopIntent)}, asking {@code parked} (only when it matters) for Q9. */
  StopKind dueAtReadopt(TaskTable.Tracked t, StopIntent intent, java.util.function.BooleanSupplier parked) {
    StopKind intended = ofIntent(intent);
    if (intended != null) {
      return intended;
    }
    if (stopEveryStart) {
      return StopKind.OPERATOR;
    }
    return parked.getAsBoolean() ? StopKind.PARK : null;
  }

  /** The stop a stop intent on record calls for, or null for none. */
  static StopKind ofIntent(StopIntent intent) {
    return intent == null ? null : intent.kill() ? StopKind.KILL : StopKind.TIMEOUT;
  }

  /**
   * The stop of a run whose intent was just recorded (or found on record): the run remembers the
   * intent and its stop becomes the one the intent calls for, unless one as hard is in progress.
   */
  void intended(TaskTable.Tracked t, StopIntent intent, long nowMonoMs) {
    if (t.phase() instanceof RunPhase.Running r) {
      table.transition(t, r.with(intent));
      begin(t, ofIntent(intent), nowMonoMs);
    }
  }

  /** Stops every running worker of parked tickets and lanes at a safe point (Q9); returns how many were told. */
  int stopParked(long nowMonoMs) {
    int n = 0;
    for (TaskTable.Tracked t : table.all()) {
      if (t.phase() instanceof RunPhase.Running r && r.stop() == null && table.parked(t)
          && begin(t, StopKind.PARK, nowMonoMs)) {
        n++;
      }
    }
    return n;
  }

  /** A STOP_WORKERS shutdown: stops every running worker now and every worker that starts later. */
  void stopAll(long nowMonoMs) {
    stopEveryStart = true;
    for (TaskTable.Tracked t : table.all()) {
      begin(t, StopKind.OPERATOR, nowMonoMs);
    }
  }
}
