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
 * @param result      what the worker returned with its success, as JSON text (at most
 *                    {@link #MAX_RESULT_BYTES} bytes of UTF-8), or {@code null}; only a SUCCEEDED run has
 *                    one. The store keeps it as given: the worker host wrote it as JSON, and it is not
 *                    parsed here.
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
    StopIntent stopIntent,
    String result) {

  /** The largest result a run keeps, bytes of UTF-8 JSON (64 KiB). */
  public static final int MAX_RESULT_BYTES = 65_536;

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
    checkResult(result, verdict);
  }

  /** A run without a result. */
  public Run(RunId id, int attempt, RunState state, OwnerId owner, long claimedAtMs, boolean handStarted,
             RunStart start, RunExit exit, ExitOwner exitOwner, Verdict verdict, String diagnosis,
             StopIntent stopIntent) {
    this(id, attempt, state, owner, claimedAtMs, handStarted, start, exit, exitOwner, verdict, diagnosis, stopIntent,
        null);
  }

  /** A run without a stop intent or a result. */
  public Run(RunId id, int attempt, RunState state, OwnerId owner, long claimedAtMs, boolean handStarted,
             RunStart start, RunExit exit, ExitOwner exitOwner, Verdict verdict, String diagnosis) {
    this(id, attempt, state, owner, claimedAtMs, handStarted, start, exit, exitOwner, verdict, diagnosis, null, null);
  }

  /**
   * Checks a result as a run or a finish carries it: none, or one of at most {@link #MAX_RESULT_BYTES}
   * bytes of UTF-8 with the verdict SUCCEEDED.
   *
   * @throws IllegalArgumentException naming the rule broken
   */
  public static void checkResult(String result, Verdict verdict) {
    if (result == null) {
      return;
    }
    if (verdict != Verdict.SUCCEEDED) {
      throw new IllegalArgumentException("only a SUCCEEDED run has a result (verdict " + verdict + ")");
    }
    long bytes = utf8Length(result);
    if (bytes > MAX_RESULT_BYTES) {
      throw new IllegalArgumentException("result (" + bytes + " bytes) must be at most " + MAX_RESULT_BYTES
          + " bytes of UTF-8");
    }
  }

  /** How many bytes {@code s} takes in UTF-8 (an unpaired surrogate as the 3 of its replacement). */
  static long utf8Length(String s) {
    long n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        n += 1;
      } else if (c < 0x800) {
        n += 2;
      } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        n += 4;
        i++;
      } else {
        n += 3;
      }
    }
    return n;
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
        stopIntent, result);
  }

  public Run exited(RunExit newExit, ExitOwner newExitOwner) {
    return new Run(id, attempt, RunState.EXITED, owner, claimedAtMs, handStarted, start, newExit, newExitOwner, null,
        null, stopIntent);
  }

  /** The run settled without a result. */
  public Run settled(Verdict newVerdict, String newDiagnosis) {
    return settled(newVerdict, newDiagnosis, null);
  }

  /** The run settled with {@code newResult} (JSON text, or {@code null} for none). */
  public Run settled(Verdict newVerdict, String newDiagnosis, String newResult) {
    return new Run(id, attempt, RunState.SETTLED, owner, claimedAtMs, handStarted, start, exit, exitOwner, newVerdict,
        newDiagnosis, stopIntent, newResult);
  }

  /** The run with {@code intent} on record. */
  public Run withStopIntent(StopIntent intent) {
    return new Run(id, attempt, state, owner, claimedAtMs, handStarted, start, exit, exitOwner, verdict, diagnosis,
        intent, result);
  }
}
