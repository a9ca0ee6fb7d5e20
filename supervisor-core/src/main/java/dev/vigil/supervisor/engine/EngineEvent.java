package dev.vigil.supervisor.engine;

import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.Renewal;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.Settlement;
import dev.vigil.coordination.StopIntent;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.Verdict;
import dev.vigil.supervisor.StopKind;
import dev.vigil.supervisor.engine.port.Journal;
import dev.vigil.supervisor.engine.port.Signal;
import java.util.Set;

/** Something the engine did or observed, for the {@link Journal}. */
public sealed interface EngineEvent {
  /** This incarnation registered itself and recovered the store (DESIGN.md §7). */
  record Booted(OwnerId owner, String build, int liveRunsFound) implements EngineEvent {}

  /**
   * Q15: a schedule's due fires were decided.
   *
   * @param schedule the schedule
   * @param decision what was decided (submitted, skipped, made to wait)
   * @param tickets  the tickets its fires submitted, in fire order (none unless it submitted)
   */
  record ScheduleFired(dev.vigil.coordination.schedule.ScheduleName schedule,
                       dev.vigil.coordination.schedule.FireDecision decision,
                       java.util.List<dev.vigil.coordination.TicketId> tickets) implements EngineEvent {
    public ScheduleFired {
      tickets = java.util.List.copyOf(tickets);
    }
  }

  /** What recovery did with a run it found without a live owner. */
  enum RecoveryAction {
    /** CLAIMED, reservation held: the claim is taken over (adoptClaim) and started once the worker's identity is known. */
    ADOPT_CLAIM,
    /** CLAIMED, reservation free: claim rolled back. */
    ABORT_CLAIM,
    /** RUNNING, alive by identity or reservation, same build: readopted (Q11, D4). */
    READOPT,
    /** RUNNING, alive, another build: readopted and stopped as a lost worker (S6). */
    STOP_OTHER_BUILD,
    /** RUNNING, dead by identity and reservation: exit taken as RECOVERY and settled (Q4, Q5). */
    SETTLE_DEAD,
    /** EXITED by a dead exit owner: settled with the recorded facts. */
    FINISH_FOR_DEAD_EXIT_OWNER,
    /** EXITED by this owner but not settled (a finish that did not happen): settled now. */
    SETTLE_OWN_EXIT,
    /** Owned by a live owner (a hand-started run, another daemon): left alone. */
    LEAVE_TO_LIVE_OWNER,
    /** A run of another host: left to that host's daemons (H1). */
    LEAVE_TO_ITS_HOST,
    /**
     * A run of a host an operator released (H1): rolled back when CLAIMED, else settled LOST; also a run of
     * this host whose exit a daemon of the released host took and did not settle.
     */
    RELEASED_WITH_ITS_HOST,
    /**
     * A release of another host that a daemon of this host began and did not finish (it took the run's exit
     * and died, H1): the run is settled LOST now, as the release would have.
     */
    FINISH_RELEASE
  }

  record Recovered(RunId run, RecoveryAction action, String detail) implements EngineEvent {}

  record Claimed(RunId run, Lane lane) implements EngineEvent {}

  record Launched(WorkerKey key, ProcessIdentity identity) implements EngineEvent {}

  record LaunchFailed(WorkerKey key, String why) implements EngineEvent {}

  /** Q3: the run is RUNNING with its identity. */
  record Started(RunId run, ProcessIdentity identity, String build) implements EngineEvent {}

  /** A verb ({@code start}, {@code adoptClaim}, {@code readopt}, {@code abortClaim}) was refused; the run is left to the store's state. */
  record VerbDenied(RunId run, String verb, String reason) implements EngineEvent {}

  record Welcomed(WorkerKey key, boolean go) implements EngineEvent {}

  record HelloDenied(WorkerKey key, String reason) implements EngineEvent {}

  /** No reservation, identity and hello within {@code launchHandoff}: kill and roll back. */
  record HandoffTimedOut(WorkerKey key, String why) implements EngineEvent {}

  record ClaimAborted(RunId run, String why, TicketState ticketState) implements EngineEvent {}

  /** C4: a renewal denial is a fact; it decides nothing. */
  record RenewalDenied(RunId run, Renewal.Reason reason) implements EngineEvent {}

  /** A lapsed lease of a run this daemon supervises, alive by identity, re-armed by {@code readopt} (C3). */
  record LeaseRearmed(RunId run) implements EngineEvent {}

  record ExitTaken(RunId run, ExitOwner.Role role, RunExit exit) implements EngineEvent {}

  /** C6: another claimant took the exit first. */
  record ExitLost(RunId run, String reason) implements EngineEvent {}

  /**
   * A run settled.
   *
   * @param exit how it ended as shown to people (the command's own exit code or signal when its worker
   *             reported one), or null when unknown
   */
  record Settled(RunId run, Verdict verdict, String diagnosis, TicketState ticketState, RunExit exit)
      implements EngineEvent {
    /** A settlement whose exit is unknown. */
    public Settled(RunId run, Verdict verdict, String diagnosis, TicketState ticketState) {
      this(run, verdict, diagnosis, ticketState, null);
    }
  }

  record SettleDenied(RunId run, Settlement.Reason reason) implements EngineEvent {}

  /**
   * H1: a run this daemon supervised (or whose worker said hello to it) was settled, rolled back or had its
   * exit taken by another owner: an operator of another host released this host while this daemon ran or
   * was cut off from the store. Its worker, when it lives, is stopped as a lost worker and never told go;
   * the run is not settled here.
   *
   * @param run         the run
   * @param how         what became of it elsewhere, in words
   * @param workerAlive whether its worker still lived (and so is being stopped)
   */
  record SettledElsewhere(RunId run, String how, boolean workerAlive) implements EngineEvent {
    /** In plain words, for the daemon's log. */
    @Override
    public String toString() {
      return "run " + run + " is no longer this daemon's: " + how + (workerAlive
          ? "; its worker here is being stopped as a lost worker and will not be settled here"
          : "; its worker here has ended and the run is not settled here");
    }
  }

  /**
   * Q17: the checkpoint its dead worker left in the directory of {@code run} became its ticket's latest, before
   * the run was settled.
   *
   * @param seq   its number within the run
   * @param bytes its size
   */
  record CheckpointKept(RunId run, long seq, int bytes) implements EngineEvent {}

  /** Q12, Q13: why the daemon stops the run is on record (a time-out, an operator's kill) before its first signal. */
  record StopRequested(RunId run, StopIntent intent) implements EngineEvent {}

  record StopBegun(WorkerKey key, StopKind kind) implements EngineEvent {}

  /** An identity-gated signal: {@code sent} is false when the identity no longer matched a live process. */
  record Signalled(WorkerKey key, Signal signal, boolean sent) implements EngineEvent {}

  record ServiceUp(String service, boolean adopted) implements EngineEvent {}

  record ServiceExited(String service, String how) implements EngineEvent {}

  /** S3: the boot-time revival verdict for a service whose worker was found dead. */
  record ServiceRevival(String service, boolean revived, String why) implements EngineEvent {}

  /** S1: the next launch after a failure. */
  record ServiceRestartScheduled(String service, long delayMs, String why) implements EngineEvent {}

  record ServiceGivenUp(String service, String why) implements EngineEvent {}

  record ServiceDown(String service, String why) implements EngineEvent {}

  /** S7: a service's worker started over a restored snapshot; {@code added} when its notice was stored now. */
  record ServiceRestored(String service, String restoreId, String snapshot, boolean added) implements EngineEvent {}

  record QuiesceStarted(Set<String> workers) implements EngineEvent {
    public QuiesceStarted {
      workers = Set.copyOf(workers);
    }
  }

  /** S5: the round's decision. */
  record QuiesceDecided(boolean stopAll, String message) implements EngineEvent {}

  record ShutdownAborted(String why) implements EngineEvent {}

  record ShutdownComplete(String how) implements EngineEvent {}

  /** Q16: a question for a person was asked ({@code about}: the ticket or service, or empty). */
  record QuestionAsked(String question, String about, String text) implements EngineEvent {}

  /** Q16: an answered question was applied, its actions with it: {@code outcome} says what was done and skipped. */
  record QuestionApplied(String question, String answer, String outcome) implements EngineEvent {}
}
