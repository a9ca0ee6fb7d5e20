package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Lane;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunState;
import dev.vigil.coordination.Ticket;
import dev.vigil.supervisor.HelloCheck;
import dev.vigil.supervisor.Step;
import dev.vigil.supervisor.StopKind;
import dev.vigil.supervisor.Stopping;
import java.util.Optional;

/**
 * H1: runs of this host that the store says are no longer this daemon's while their workers may live.
 * An operator of another host released this host (its daemon seemed gone: partitioned, frozen, cut off
 * from the store) and that host's daemon rolled back its claims, took its runs' exits and settled them
 * LOST. Whichever of this daemon's looks at such a run comes first notices it, by the store's word and
 * never by a lease's expiry (C4):
 *
 * <ol>
 *   <li>a reconcile pass, which reads each supervised run after the renewals (a renewal denied is
 *       only recorded);
 *   <li>a start refused, at the end of a handoff;
 *   <li>an exit taken by another owner, when this daemon finds the worker dead;
 *   <li>a hello of the worker: before any welcome that tells go, the run is read again;
 *   <li>after this daemon restarted, a hello of a worker whose run was settled meanwhile: the worker
 *       is still checked against the run's recorded identity and token.
 * </ol>
 *
 * The run then moves to {@link RunPhase.Released}: a {@link EngineEvent.SettledElsewhere} is
 * recorded, its worker is stopped as a lost worker ({@link StopKind#LOST}: the frame, TERM one
 * stopGrace later, KILL one more grace later, every signal identity-gated, so only this host's
 * processes are reached), it is never told go, and the run is never started, taken or settled here
 * again. Supervision ends once the worker is dead by identity and reservation (C5). A release of a
 * host whose daemon still runs can let a ticket's next attempt start elsewhere while the old worker
 * here is still being stopped: the release is the operator's word that this host is gone.
 */
final class Releases {
  private final Ctx ctx;
  private final TaskTable table;
  private final Workers workers;

  Releases(Ctx ctx, TaskTable table, Workers workers) {
    this.ctx = ctx;
    this.table = table;
    this.workers = workers;
  }

  /**
   * What became of {@code stored} elsewhere, in words; empty while it is this daemon's (CLAIMED or
   * RUNNING with this daemon's lease, or EXITED by this daemon).
   */
  Optional<String> elsewhere(Run stored) {
    if (stored.state() == RunState.SETTLED) {
      String verdict = stored.exitOwner() == null && stored.verdict() == dev.vigil.coordination.Verdict.ABANDONED
          ? "it was rolled back" : "it was settled " + stored.verdict()
          + (stored.exitOwner() == null ? "" : " by " + who(stored.exitOwner().owner()));
      return Optional.of(verdict + (stored.diagnosis() == null ? "" : " (" + stored.diagnosis() + ")"));
    } else if (stored.state() == RunState.EXITED && !stored.exitOwner().owner().equals(ctx.me)) {
      return Optional.of("its exit was taken by " + who(stored.exitOwner().owner()));
    } else if (!stored.owner().equals(ctx.me)) {
      return Optional.of("its lease was taken over by " + who(stored.owner()));
    }
    return Optional.empty();
  }

  /** What became of the supervised run {@code t}, as the store has it now; empty while it is this daemon's. */
  Optional<String> elsewhere(TaskTable.Tracked t) {
    Optional<Run> stored = ctx.store.run(t.run);
    return stored.isEmpty() ? Optional.of("the store no longer has it") : elsewhere(stored.get());
  }

  private String who(OwnerId owner) {
    return "daemon " + owner + ctx.otherHost(owner).map(h -> " of host " + h).orElse("");
  }

  /**
   * The run of {@code t} is no longer this daemon's ({@code how}): records it, and stops its worker as a
   * lost worker when it lives (a stop as hard already in progress goes on); supervision ends at once when
   * it is dead.
   *
   * @param delivered whether the worker has the stop already (the answer to its hello refuses it)
   */
  void release(TaskTable.Tracked t, String how, long nowMonoMs, boolean delivered) {
    release(t, table.identityOf(t), how, nowMonoMs, delivered);
  }

  private void release(TaskTable.Tracked t, ProcessIdentity identity, String how, long nowMonoMs, boolean delivered) {
    boolean alive = !Liveness.dead(ctx.processes, ctx.directories, t.key(), identity);
    ctx.record(new EngineEvent.SettledElsewhere(t.run, how, alive));
    ctx.occupancy.freedElsewhere(); // its slot is free once the store says so (the worker's stop takes none)
    if (!alive) {
      table.transition(t, null);
      return;
    }
    Stopping current = t.phase() instanceof RunPhase.Running r ? r.stop() : null;
    Stopping stop = workers.beginStop(t.key(), current, StopKind.LOST, false, delivered, nowMonoMs).orElse(current);
    table.transition(t, new RunPhase.Released(identity, stop, how));
  }

  /**
   * Moves the stop of a released run's worker on; supervision ends once the worker is dead by identity and
   * reservation.
   */
  void advance(TaskTable.Tracked t, RunPhase.Released r, long nowMonoMs) {
    ProcessIdentity identity = r.identity() != null ? r.identity() : table.identityOf(t);
    boolean alive = !Liveness.dead(ctx.processes, ctx.directories, t.key(), identity);
    Step<Stopping, Stopping.Action> step = workers.advanceStop(t.key(), identity, r.stop(), alive, nowMonoMs);
    if (step.decision() instanceof Stopping.Action.Done) {
      table.transition(t, null);
    } else if (!step.next().equals(r.stop()) || !java.util.Objects.equals(identity, r.identity())) {
      table.transition(t, new RunPhase.Released(identity, step.next(), r.how()));
    }
  }

  /** The answer to a hello of a released run's worker: refused, which is the lost worker's stop on the wire. */
  ToWorker refuse(WorkerMessage.Hello hello, TaskTable.Tracked t, String how) {
    return workers.deny(hello, "run " + t.run + " is no longer this daemon's: " + how + "; stop");
  }

  /**
   * A hello of the worker of {@code stored}, a run this daemon does not supervise that was settled, or
   * whose exit a daemon of another host took, while that worker lived (this daemon had restarted in
   * between): when the worker is the run's, by its recorded identity, token and build, it is tracked as
   * released, stopped as a lost worker, and the hello refused. Empty for any other hello.
   */
  Optional<ToWorker> helloOfReleased(WorkerMessage.Hello hello, Run stored, long nowMonoMs) {
    boolean exitElsewhere = stored.state() == RunState.EXITED && ctx.otherHost(stored.exitOwner().owner()).isPresent();
    if (stored.start() == null || (stored.state() != RunState.SETTLED && !exitElsewhere)
        || !ctx.ofThisHost(stored.owner())) {
      return Optional.empty();
    }
    HelloCheck.Result check = workers.check(hello, new HelloCheck.Expected(stored.start().identity(),
        stored.start().tokenHash(), stored.start().build()));
    if (!(check instanceof HelloCheck.Result.Accepted a)) {
      return Optional.empty();
    }
    Lane lane = ctx.store.ticket(stored.ticket()).map(Ticket::lane).orElse(Lane.DEFAULT);
    TaskTable.Tracked t = new TaskTable.Tracked(stored.id(), lane);
    String how = elsewhere(stored).orElseThrow();
    release(t, a.identity(), how, nowMonoMs, true);
    return Optional.of(refuse(hello, t, how));
  }
}
