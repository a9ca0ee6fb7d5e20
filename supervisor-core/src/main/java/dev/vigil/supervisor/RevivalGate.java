package dev.vigil.supervisor;

import java.util.Objects;
import java.util.Optional;

/**
 * Busy evidence and revival (S3). A worker records busy evidence (the worker host writes it to
 * {@code busy.json}) so that a supervisor booting after the worker died can tell whether it died
 * with work to resume.
 *
 * <p>On the worker, {@link #onTick(Optional, WorkSet, long)} decides each tick. The worker host
 * ticks on every change of its {@link WorkSet} as well as periodically (well within
 * {@code busyRefresh}), so work that starts is recorded at once:
 *
 * <ol>
 *   <li>With work, and the latest record missing or idle (work started after it): record busy now.
 *   <li>With work, and the latest busy record {@code busyRefresh} old or more: record busy now (a
 *       refresh every 5 min, however long the run takes). A record dated after now (the wall clock
 *       went back) is refreshed too.
 *   <li>Without work, and the latest record busy: record idle now.
 *   <li>Otherwise keep the latest record.
 * </ol>
 *
 * <p>At boot, for a worker found dead, {@link #atBoot(Optional, long)} revives it when its latest
 * record says busy and is younger than {@code busyFreshness} (the revival window, 25 min) plus
 * {@code revivalClockSkew} by the booting process's wall clock. The record's time stands for the
 * crash: an orphan records busy as it exits (S4), so there the two are equal; a worker killed
 * outright died at most one {@code busyRefresh} after its last record. The skew allowance is added
 * because the record was dated by another process's clock. A boot never revives a dead worker
 * without a busy record, nor one whose latest record says idle.
 *
 * @param busyRefreshMs      the refresh period of busy evidence while working, ms
 * @param busyFreshnessMs    the revival window measured from the latest busy record, ms
 * @param revivalClockSkewMs the bound on wall-clock skew between processes, ms
 */
public record RevivalGate(long busyRefreshMs, long busyFreshnessMs, long revivalClockSkewMs) {
  public RevivalGate {
    if (busyRefreshMs <= 0) {
      throw new IllegalArgumentException("busyRefresh (" + Durations.format(busyRefreshMs) + ") must be > 0");
    }
    if (busyFreshnessMs <= busyRefreshMs || busyFreshnessMs > TimeoutLattice.MAX_MS) {
      throw new IllegalArgumentException("busyFreshness (" + Durations.format(busyFreshnessMs) + ") must be > busyRefresh ("
          + Durations.format(busyRefreshMs) + ") and ≤ " + Durations.format(TimeoutLattice.MAX_MS));
    }
    if (revivalClockSkewMs < 0 || revivalClockSkewMs > TimeoutLattice.MAX_MS) {
      throw new IllegalArgumentException("revivalClockSkew (" + Durations.format(revivalClockSkewMs)
          + ") must be ≥ 0 and ≤ " + Durations.format(TimeoutLattice.MAX_MS));
    }
  }

  /** The lattice's busy-evidence timeouts. */
  public static RevivalGate from(TimeoutLattice t) {
    return new RevivalGate(t.ms(TimeoutLattice.Timeout.BUSY_REFRESH), t.ms(TimeoutLattice.Timeout.BUSY_FRESHNESS),
        t.ms(TimeoutLattice.Timeout.REVIVAL_CLOCK_SKEW));
  }

  /**
   * One busy-evidence record.
   *
   * @param busy     whether the worker had work when it wrote the record
   * @param atWallMs when it wrote the record, on its wall clock
   */
  public record BusyRecord(boolean busy, long atWallMs) {}

  /** The worker's busy-evidence decision for one tick. */
  public sealed interface Refresh {
    /**
     * Write this record; it becomes the latest.
     *
     * @param record the record to write
     */
    record Write(BusyRecord record) implements Refresh {
      public Write {
        Objects.requireNonNull(record, "record");
      }
    }

    /** Keep the latest record. */
    record Keep() implements Refresh {}
  }

  /** The boot-time verdict for a dead worker. */
  public sealed interface Revival {
    /**
     * Revive: the worker died with work to resume.
     *
     * @param record its latest record, busy
     * @param ageMs  the record's age at boot, ms (negative when dated after the boot)
     */
    record Revive(BusyRecord record, long ageMs) implements Revival {
      public Revive {
        Objects.requireNonNull(record, "record");
      }
    }

    /**
     * Leave it down.
     *
     * @param reason why
     */
    record Stay(Reason reason) implements Revival {
      public Stay {
        Objects.requireNonNull(reason, "reason");
      }
    }

    /** Why a dead worker is not revived. */
    enum Reason {
      /** It left no busy record. */
      NO_BUSY_RECORD,
      /** Its latest record says idle. */
      IDLE,
      /** Its busy record is older than the revival window plus the skew bound. */
      STALE;

      /** The reason in words for people. */
      public String words() {
        return switch (this) {
          case NO_BUSY_RECORD -> "its last worker left no sign of unfinished work";
          case IDLE -> "its last worker was idle";
          case STALE -> "its last worker's sign of work is too old";
        };
      }
    }
  }

  /** Decides the worker's busy evidence at {@code nowWallMs}. */
  public Refresh onTick(Optional<BusyRecord> latest, WorkSet work, long nowWallMs) {
    Objects.requireNonNull(latest, "latest");
    Objects.requireNonNull(work, "work");
    if (work.isBusy()) {
      if (latest.isEmpty() || !latest.get().busy()) {
        return new Refresh.Write(new BusyRecord(true, nowWallMs));
      }
      long age = nowWallMs - latest.get().atWallMs();
      return age >= busyRefreshMs || age < 0 ? new Refresh.Write(new BusyRecord(true, nowWallMs)) : new Refresh.Keep();
    }
    if (latest.isPresent() && latest.get().busy()) {
      return new Refresh.Write(new BusyRecord(false, nowWallMs));
    }
    return new Refresh.Keep();
  }

  /** Decides at boot whether a worker found dead is revived. */
  public Revival atBoot(Optional<BusyRecord> latest, long bootAtWallMs) {
    Objects.requireNonNull(latest, "latest");
    if (latest.isEmpty()) {
      return new Revival.Stay(Revival.Reason.NO_BUSY_RECORD);
    }
    BusyRecord r = latest.get();
    if (!r.busy()) {
      return new Revival.Stay(Revival.Reason.IDLE);
    }
    long age = bootAtWallMs - r.atWallMs();
    return age < busyFreshnessMs + revivalClockSkewMs ? new Revival.Revive(r, age)
        : new Revival.Stay(Revival.Reason.STALE);
  }
}
