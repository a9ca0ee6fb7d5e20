package dev.vigil.supervisor;

import java.util.Objects;

/**
 * What a worker does while its supervisor is lost (S4: orphans abort nothing). The exit is due one
 * {@code lostExit} window after the supervisor was lost, or two windows while work is in flight;
 * then a worker with work records its session busy and exits aborting nothing, so a later
 * supervisor resumes the work ({@link RevivalGate}); a worker without work closes. Windows are
 * half-open: the exit is due at {@code lostAt + windows × lostExit} exactly.
 *
 * <p>The decision depends only on when the supervisor was lost, the work in flight now and now, so
 * work that ends while the supervisor is lost brings the exit forward to one window.
 *
 * @param lostExitMs one lost-exit window, ms
 */
public record OrphanPolicy(long lostExitMs) {
  public OrphanPolicy {
    if (lostExitMs <= 0 || lostExitMs > TimeoutLattice.MAX_MS) {
      throw new IllegalArgumentException("lostExit (" + Durations.format(lostExitMs) + ") must be > 0 and ≤ "
          + Durations.format(TimeoutLattice.MAX_MS));
    }
  }

  /** The lattice's {@code lostExit}. */
  public static OrphanPolicy from(TimeoutLattice t) {
    return new OrphanPolicy(t.ms(TimeoutLattice.Timeout.LOST_EXIT));
  }

  /** What an orphaned worker does now. */
  public sealed interface Orphan {
    /**
     * Keep waiting for a supervisor (and keep working).
     *
     * @param untilMonoMs when the exit is due with the work now in flight, ms
     */
    record Wait(long untilMonoMs) implements Orphan {}

    /**
     * Record the session busy, abort nothing, exit.
     *
     * @param work the work in flight, left resumable
     */
    record ExitBusy(WorkSet work) implements Orphan {
      public ExitBusy {
        Objects.requireNonNull(work, "work");
      }
    }

    /** No work: close the session and exit. */
    record Close() implements Orphan {}
  }

  /**
   * Decides at {@code nowMonoMs} for a worker whose supervisor was lost at {@code lostAtMonoMs}.
   */
  public Orphan onTick(long lostAtMonoMs, WorkSet work, long nowMonoMs) {
    Objects.requireNonNull(work, "work");
    long windows = work.isBusy() ? 2 : 1;
    long dueAt = lostAtMonoMs + windows * lostExitMs;
    if (nowMonoMs - lostAtMonoMs < windows * lostExitMs) {
      return new Orphan.Wait(dueAt);
    }
    return work.isBusy() ? new Orphan.ExitBusy(work) : new Orphan.Close();
  }
}
