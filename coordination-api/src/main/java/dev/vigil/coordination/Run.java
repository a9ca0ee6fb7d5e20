package dev.vigil.coordination;

import java.util.Objects;

/**
 * One attempt at a ticket, as stored.
 *
 * @param id          the run's id
 * @param attempt     the attempt number it runs as ({@code attemptsUsed + 1} at claim)
 * @param state       its state
 * @param owner       the owner that claimed it, or that last adopted ({@code adoptClaim}) or readopted it;
 *                    always the owner of its lease while it holds one
 * @param claimedAtMs wall-clock ms of the claim
 * @param handStarted true when a person started it in the foreground (Q8)
 * @param start       what {@code start} recorded, or {@code null} while CLAIMED (and for a run
 *                    abandoned before starting)
 * @param exit        the observed end, or {@code null} before the exit checkpoint
 * @param exitOwner   who took the exit checkpoint (C6), or {@code null}
 * @param verdict     the settled verdict, or {@code null} before SETTLED
 * @param diagnosis   a human-readable note on the settlement, or {@code null}
 * @param stopIntent  why the daemon is stopping it on purpose (a time-out, an operator's kill), or
 *                    {@code null}; recorded before the first signal (Q12, Q13)
 */
public record Run(
    RunId id,
    int attempt,
    RunState state,
    OwnerId owner,
    long claimedAtMs,
    boolean handStarted,
    RunStart start,
    RunExit exit,
    ExitOwner exitOwner,
    Verdict verdict,
    String diagnosis,
    StopIntent stopIntent) {

  public Run {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(owner, "owner");
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt (" + attempt + ") must be >= 1");
    }
    if (state == RunState.RUNNING && start == null) {
      throw new IllegalArgumentException("a RUNNING run must have its start recorded (Q3)");
    }
    if ((state == RunState.SETTLED) != (verdict != null)) {
      throw new IllegalArgumentException("verdict must be set exactly when the run is SETTLED (state " + state + ")");
    }
  }

  /** A run without a stop intent. */
  public Run(RunId id, int attempt, RunState state, OwnerId owner, long claimedAtMs, boolean handStarted,
             RunStart start, RunExit exit, ExitOwner exitOwner, Verdict verdict, String diagnosis) {
    this(id, attempt, state, owner, claimedAtMs, handStarted, start, exit, exitOwner, verdict, diagnosis, null);
  }

  public TicketId ticket() {
    return id.ticket();
  }

  /** The run just claimed. */
  public static Run claimed(RunId id, int attempt, OwnerId owner, long claimedAtMs, boolean handStarted) {
    return new Run(id, attempt, RunState.CLAIMED, owner, claimedAtMs, handStarted, null, null, null, null, null);
  }

  public Run started(RunStart newStart) {
    return new Run(id, attempt, RunState.RUNNING, owner, claimedAtMs, handStarted, newStart, null, null, null, null,
        stopIntent);
  }

  /** The run under a new owner, as {@code adoptClaim} and {@code readopt} leave it. */
  public Run ownedBy(OwnerId newOwner) {
    return new Run(id, attempt, state, newOwner, claimedAtMs, handStarted, start, exit, exitOwner, verdict, diagnosis,
        stopIntent);
  }

  public Run exited(RunExit newExit, ExitOwner newExitOwner) {
    return new Run(id, attempt, RunState.EXITED, owner, claimedAtMs, handStarted, start, newExit, newExitOwner, null,
        null, stopIntent);
  }

  public Run settled(Verdict newVerdict, String newDiagnosis) {
    return new Run(id, attempt, RunState.SETTLED, owner, claimedAtMs, handStarted, start, exit, exitOwner, newVerdict,
        newDiagnosis, stopIntent);
  }

  /** The run with {@code intent} on record. */
  public Run withStopIntent(StopIntent intent) {
    return new Run(id, attempt, state, owner, claimedAtMs, handStarted, start, exit, exitOwner, verdict, diagnosis,
        intent);
  }
}
