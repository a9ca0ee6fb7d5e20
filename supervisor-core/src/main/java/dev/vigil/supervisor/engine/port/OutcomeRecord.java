package dev.vigil.supervisor.engine.port;

import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.Verdict;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * A task worker's {@code outcome.json}, as {@link RunDirectories#outcome} reads it. A worker writes
 * its outcome durably before it reports it (DESIGN.md §1.4), so a daemon that was down collects it
 * later. Reading never throws: a missing file is {@link Absent}, a truncated or unreadable one
 * {@link Corrupt}; either way the run has no outcome, and its verdict is the one
 * {@link dev.vigil.supervisor.Verdicts} gives a run without one: LOST with the diagnosis
 * (DESIGN.md §7), or STALLED when this daemon had stopped the worker or never told it to go.
 */
public sealed interface OutcomeRecord {
  /** The verdicts a worker may write. */
  Set<Verdict> WRITABLE = EnumSet.of(Verdict.SUCCEEDED, Verdict.FAILED, Verdict.STALLED, Verdict.BLOCKED,
      Verdict.PERMANENT_FAILURE);

  /**
   * The worker's verdict.
   *
   * @param verdict          SUCCEEDED, FAILED, STALLED, BLOCKED or PERMANENT_FAILURE
   * @param stallUntilWallMs for STALLED, the wall-clock ms at which the ticket is due again (Q2); else 0
   * @param note             the worker's note for humans, or {@code null}
   * @param exit             how the command the run stands for ended (the built-in command type's child:
   *                         its own exit code or signal), or {@code null} when the worker reported none;
   *                         the run's exit as shown everywhere, whoever takes the exit
   * @param result           for SUCCEEDED, what the worker returned as JSON text (at most
   *                         {@link dev.vigil.coordination.Run#MAX_RESULT_BYTES} bytes), or {@code null};
   *                         stored with the run when the run settles with this outcome's verdict
   */
  record Written(Verdict verdict, long stallUntilWallMs, String note, RunExit exit, String result)
      implements OutcomeRecord {
    /** An outcome without the command's exit. */
    public Written(Verdict verdict, long stallUntilWallMs, String note) {
      this(verdict, stallUntilWallMs, note, null, null);
    }

    /** An outcome without a result. */
    public Written(Verdict verdict, long stallUntilWallMs, String note, RunExit exit) {
      this(verdict, stallUntilWallMs, note, exit, null);
    }

    public Written {
      Objects.requireNonNull(verdict, "verdict");
      if (!WRITABLE.contains(verdict)) {
        throw new IllegalArgumentException("a worker cannot write the verdict " + verdict);
      }
      if (verdict != Verdict.STALLED && stallUntilWallMs != 0) {
        throw new IllegalArgumentException("stallUntilWallMs is only for STALLED outcomes");
      }
      dev.vigil.coordination.Run.checkResult(result, verdict);
    }
  }

  /**
   * No outcome file.
   *
   * @param diagnosis e.g. {@code no outcome.json in runs/t-3.1}
   */
  record Absent(String diagnosis) implements OutcomeRecord {
    public Absent {
      Objects.requireNonNull(diagnosis, "diagnosis");
    }
  }

  /**
   * An outcome file that cannot be read (truncated, not JSON, unknown verdict).
   *
   * @param diagnosis what was wrong, naming the file
   */
  record Corrupt(String diagnosis) implements OutcomeRecord {
    public Corrupt {
      Objects.requireNonNull(diagnosis, "diagnosis");
    }
  }
}
