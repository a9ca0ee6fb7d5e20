package dev.vigil.supervisor.engine;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RunStart;
import dev.vigil.coordination.StopIntent;
import dev.vigil.supervisor.Stopping;
import dev.vigil.supervisor.TimeLimit;
import dev.vigil.supervisor.engine.port.ProcessExit;

/**
 * Where a task run this daemon supervises is: one type per phase; only {@link TaskTable#transition}
 * moves a run from one to the next.
 */
sealed interface RunPhase {
  /** The worker's identity as far as this phase knows it, or null (an adopted handoff names it in its record). */
  ProcessIdentity knownIdentity();

  /**
   * CLAIMED; waiting until the worker holds its reservation and its identity is known, from its
   * identity record or its hello (Q3).
   *
   * @param source         launched by this incarnation, or adopted from a dead owner at recovery (its
   *                       claim already taken over by {@code adoptClaim}: the lease is this owner's either way)
   * @param launched       the launched process (null when adopted)
   * @param launchToken    the launched worker's token hash (null when adopted: from the identity record or the hello)
   * @param deadlineMonoMs when the handoff times out (launchHandoff after the launch or the adoption)
   * @param helloIdentity  the identity of the process that said hello (its token checked when there
   *                       was one to check against), or null
   * @param helloBuild     the build that hello reported, or null
   * @param helloToken     the token hash that hello presented, or null
   */
  record Handoff(Source source, ProcessIdentity launched, String launchToken, long deadlineMonoMs,
                 ProcessIdentity helloIdentity, String helloBuild, String helloToken) implements RunPhase {
    Handoff withHello(ProcessIdentity id, String build, String token) {
      return new Handoff(source, launched, launchToken, deadlineMonoMs, id, build, token);
    }

    @Override
    public ProcessIdentity knownIdentity() {
      return launched;
    }
  }

  /**
   * The handoff failed: the worker (if any) is sent KILL, identity-gated, once per
   * {@code stopGrace} while it lives. The claim is rolled back once the worker is dead by identity
   * and reservation (Q4).
   *
   * @param identity     the worker's identity if known, else null
   * @param why          the claim's diagnosis
   * @param killAtMonoMs when KILL is due (again)
   */
  record Aborting(ProcessIdentity identity, String why, long killAtMonoMs) implements RunPhase {
    @Override
    public ProcessIdentity knownIdentity() {
      return identity;
    }
  }

  /**
   * RUNNING under this owner.
   *
   * @param start           the recorded start
   * @param go              what this incarnation knows about the worker's go
   * @param exit            the exit the shell reported for its child, or null
   * @param exitExpected    the worker reported its outcome: probe each tick until it is gone
   * @param stop            the stop in progress, or null
   * @param limit           its time limit on this daemon's monotonic clock (Q12)
   * @param ownChild        launched by this incarnation: the shell reports its exit, which is awaited
   *                        (for at most one reconcile interval) once the worker is found dead
   * @param intent          the stop intent on record as this daemon knows it, or null (Q12, Q13)
   * @param deadSinceMonoMs when this daemon's own child was first found dead without an exit report, or -1
   */
  record Running(RunStart start, Go go, ProcessExit exit, boolean exitExpected, Stopping stop, TimeLimit limit,
                 boolean ownChild, StopIntent intent, long deadSinceMonoMs) implements RunPhase {
    /** A run just started by this incarnation, or readopted by it. */
    static Running begun(RunStart start, Go go, TimeLimit limit, boolean ownChild, StopIntent intent) {
      return new Running(start, go, null, false, null, limit, ownChild, intent, -1);
    }

    Running with(Go g) {
      return new Running(start, g, exit, exitExpected, stop, limit, ownChild, intent, deadSinceMonoMs);
    }

    Running with(ProcessExit e) {
      return new Running(start, go, e, exitExpected, stop, limit, ownChild, intent, deadSinceMonoMs);
    }

    Running expectingExit() {
      return new Running(start, go, exit, true, stop, limit, ownChild, intent, deadSinceMonoMs);
    }

    Running with(Stopping s) {
      return new Running(start, go, exit, exitExpected, s, limit, ownChild, intent, deadSinceMonoMs);
    }

    Running with(StopIntent i) {
      return new Running(start, go, exit, exitExpected, stop, limit, ownChild, i, deadSinceMonoMs);
    }

    Running deadSince(long monoMs) {
      return new Running(start, go, exit, exitExpected, stop, limit, ownChild, intent, monoMs);
    }

    @Override
    public ProcessIdentity knownIdentity() {
      return start.identity();
    }
  }

  /**
   * H1: the store says the run is no longer this daemon's, though its worker may live: it was settled,
   * rolled back or had its exit taken by another owner (an operator of another host released this host
   * while this daemon ran or was cut off from the store). The worker is stopped as a lost worker (the
   * frame, TERM one stopGrace later, KILL one more grace later, every signal identity-gated, so only
   * this host's processes are reached); it is never told go, and the run is never started, taken or
   * settled here. Supervision ends once the worker is dead by identity and reservation (C5).
   *
   * @param identity the worker's identity if known, else null (an adopted handoff names it in its record)
   * @param stop     the lost-worker stop (or a stop as hard that was in progress)
   * @param how      what became of the run elsewhere, in words
   */
  record Released(ProcessIdentity identity, Stopping stop, String how) implements RunPhase {
    Released with(Stopping s) {
      return new Released(identity, s, how);
    }

    @Override
    public ProcessIdentity knownIdentity() {
      return identity;
    }
  }

  /** How a handoff began. */
  enum Source { LAUNCHED, ADOPTED }

  /** What this incarnation knows about a running worker's go (Q3). */
  enum Go {
    /** Readopted: a previous daemon may or may not have told it. */
    UNKNOWN,
    /** Started by this incarnation; the worker has not been told yet: it has done no work. */
    PENDING,
    /** Told (a welcome with go=true went to its connection). */
    SENT
  }
}
