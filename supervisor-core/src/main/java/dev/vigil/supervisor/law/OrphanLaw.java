package dev.vigil.supervisor.law;

import dev.vigil.supervisor.OrphanPolicy.Orphan;
import dev.vigil.supervisor.WorkSet;

/**
 * S4 as written: a worker whose supervisor stays lost exits after the lost-exit window, two windows
 * with work in flight; with work it records busy and aborts nothing, without work it closes.
 */
public final class OrphanLaw {
  private OrphanLaw() {}

  /** What the orphan does at {@code nowMonoMs}. */
  public static Orphan decide(long lostExitMs, long lostAtMonoMs, WorkSet work, long nowMonoMs) {
    long lostFor = nowMonoMs - lostAtMonoMs;
    if (work.isBusy()) {
      return lostFor >= 2 * lostExitMs ? new Orphan.ExitBusy(work) : new Orphan.Wait(lostAtMonoMs + 2 * lostExitMs);
    }
    return lostFor >= lostExitMs ? new Orphan.Close() : new Orphan.Wait(lostAtMonoMs + lostExitMs);
  }
}
