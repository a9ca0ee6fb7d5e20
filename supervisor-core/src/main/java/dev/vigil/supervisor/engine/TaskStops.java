package dev.vigil.supervisor.engine;

import dev.vigil.coordination.RunStart;
import dev.vigil.supervisor.Step;
import dev.vigil.supervisor.StopKind;
import dev.vigil.supervisor.Stopping;
import java.util.Optional;

/**
 * Stops of running task workers: a park reaches them at a safe point (Q9), another build's worker
 * stops as a lost one (S6), an operator's shutdown stops them all, an idle shutdown stops quiesced
 * ones (S5). How a stop escalates is {@link Stopping}'s rule; {@link Workers} carries it out.
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

  /** The stop a run that just started gets instead of go: another build (S6), a draining daemon, a park (Q9); or null. */
  StopKind dueAtStart(TaskTable.Tracked t, RunStart start) {
    if (!start.build().equals(ctx.config.build())) {
      return StopKind.LOST;
    }
    return dueAtReadopt(t);
  }

  /** The stop a readopted run of this build gets: a draining daemon's, or a park's (Q9); or null. */
  StopKind dueAtReadopt(TaskTable.Tracked t) {
    if (stopEveryStart) {
      return StopKind.OPERATOR;
    }
    return table.parked(t) ? StopKind.PARK : null;
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
