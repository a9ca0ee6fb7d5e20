package dev.vigil.supervisor.law;

import dev.vigil.supervisor.RevivalGate;
import dev.vigil.supervisor.RevivalGate.BusyRecord;
import dev.vigil.supervisor.RevivalGate.Refresh;
import dev.vigil.supervisor.RevivalGate.Revival;
import dev.vigil.supervisor.WorkSet;
import java.util.ArrayList;
import java.util.List;

/**
 * S3's busy evidence and revival as written, keeping every record the worker wrote: a worker with
 * work records busy every refresh period, and records busy at once when its latest record says
 * idle (or it has none); a worker without work records idle once; a boot revives a dead worker
 * only on a busy latest record younger than the revival window plus the clock-skew bound.
 */
public final class RevivalLaw {
  private final RevivalGate config;
  private final List<BusyRecord> written = new ArrayList<>();

  public RevivalLaw(RevivalGate config) {
    this.config = config;
  }

  /** A tick of the worker; a written record joins the history. */
  public Refresh onTick(WorkSet work, long nowWallMs) {
    BusyRecord latest = written.isEmpty() ? null : written.get(written.size() - 1);
    Refresh r;
    if (work.isBusy()) {
      boolean idleOrNone = latest == null || !latest.busy();
      boolean due = latest != null && (nowWallMs - latest.atWallMs() >= config.busyRefreshMs()
          || nowWallMs < latest.atWallMs());
      r = idleOrNone || due ? new Refresh.Write(new BusyRecord(true, nowWallMs)) : new Refresh.Keep();
    } else {
      r = latest != null && latest.busy() ? new Refresh.Write(new BusyRecord(false, nowWallMs)) : new Refresh.Keep();
    }
    if (r instanceof Refresh.Write w) {
      written.add(w.record());
    }
    return r;
  }

  /** Records busy as an orphan does when it exits with work (S4). */
  public void recordBusyAtExit(long nowWallMs) {
    written.add(new BusyRecord(true, nowWallMs));
  }

  /** Every record written, oldest first. */
  public List<BusyRecord> written() {
    return List.copyOf(written);
  }

  /** The verdict for this worker, found dead at a boot at {@code bootAtWallMs}. */
  public Revival atBoot(long bootAtWallMs) {
    if (written.isEmpty()) {
      return new Revival.Stay(Revival.Reason.NO_BUSY_RECORD);
    }
    BusyRecord latest = written.get(written.size() - 1);
    if (!latest.busy()) {
      return new Revival.Stay(Revival.Reason.IDLE);
    }
    long age = bootAtWallMs - latest.atWallMs();
    if (age < config.busyFreshnessMs() + config.revivalClockSkewMs()) {
      return new Revival.Revive(latest, age);
    }
    return new Revival.Stay(Revival.Reason.STALE);
  }
}
