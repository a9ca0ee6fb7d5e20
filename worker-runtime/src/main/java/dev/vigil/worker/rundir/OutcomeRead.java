package dev.vigil.worker.rundir;

import java.util.Objects;

/** What a run directory says about how its run ended: an outcome, or none with a diagnosis. */
public sealed interface OutcomeRead {
  /** A whole, valid {@code outcome.json}. */
  record Recorded(RecordedOutcome outcome) implements OutcomeRead {
    public Recorded {
      Objects.requireNonNull(outcome, "outcome");
    }
  }

  /**
   * No usable outcome: the file is absent, truncated or corrupt. The run settles as LOST with the
   * diagnosis (DESIGN.md §7 recovery); reading never throws at the caller.
   */
  record None(String diagnosis) implements OutcomeRead {
    public None {
      Objects.requireNonNull(diagnosis, "diagnosis");
    }
  }
}
