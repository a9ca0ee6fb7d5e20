package dev.vigil.supervisor.law;

import dev.vigil.supervisor.StopKind;
import dev.vigil.supervisor.Stopping.Action;
import java.util.ArrayList;
import java.util.List;

/**
 * The stop protocol (S5, S6, Q9) as written, keeping every signal it sent: an idle-shutdown stop
 * never signals; every other stop sends TERM one grace after it began; PARK never sends KILL; LOST
 * and OPERATOR send KILL one grace after the last signal, again and again; before a relaunch a
 * worker alive one grace after a KILL is a survivor. A stop is replaced only by a harder one
 * (idle, then park, then lost, operator, time-out or kill), whose first signal is due one grace after
 * it began: KILL if a TERM was ever sent, else TERM. A time-out and a kill send their first TERM as
 * soon as they begin (Q12, Q13).
 */
public final class StopLaw {
  private static final List<List<StopKind>> HARDNESS = List.of(List.of(StopKind.IDLE_SHUTDOWN), List.of(StopKind.PARK),
      List.of(StopKind.LOST, StopKind.OPERATOR, StopKind.TIMEOUT, StopKind.KILL));

  private final boolean beforeRelaunch;
  private final long graceMs;
  private StopKind kind;
  private long beganMonoMs;
  private boolean delivered;
  private final List<Long> termsAt = new ArrayList<>();
  private final List<Long> killsAt = new ArrayList<>();

  /** A stop of {@code kind} that began at {@code nowMonoMs}. */
  public StopLaw(StopKind kind, boolean beforeRelaunch, long graceMs, long nowMonoMs, boolean delivered) {
    this.kind = kind;
    this.beforeRelaunch = beforeRelaunch;
    this.graceMs = graceMs;
    this.beganMonoMs = nowMonoMs;
    this.delivered = delivered;
  }

  private static int hardness(StopKind k) {
    for (int i = 0; i < HARDNESS.size(); i++) {
      if (HARDNESS.get(i).contains(k)) {
        return i;
      }
    }
    throw new AssertionError(k);
  }

  /** Whether a stop of {@code k} replaces this one. */
  public boolean replacedBy(StopKind k) {
    return hardness(k) > hardness(kind);
  }

  /** A harder stop replaces this one at {@code nowMonoMs}. */
  public void replace(StopKind k, long nowMonoMs, boolean delivered) {
    if (!replacedBy(k)) {
      throw new IllegalArgumentException(k + " does not replace " + kind);
    }
    this.kind = k;
    this.beganMonoMs = nowMonoMs;
    this.delivered = delivered;
  }

  /** A new connection has not got the frame. */
  public void redeliver() {
    delivered = false;
  }

  /** Whether the frame must be sent (again). */
  public boolean frameDue() {
    return !delivered;
  }

  /** The last signal sent since the stop (or its replacement) began, or the beginning. */
  private long lastMark() {
    long mark = beganMonoMs;
    for (long t : termsAt) {
      mark = Math.max(mark, t);
    }
    for (long t : killsAt) {
      mark = Math.max(mark, t);
    }
    return mark;
  }

  /** What to do at {@code nowMonoMs}. */
  public Action advance(long nowMonoMs, boolean delivered, boolean alive) {
    this.delivered = delivered;
    if (!alive) {
      return new Action.Done();
    }
    if (kind == StopKind.IDLE_SHUTDOWN) {
      return new Action.AwaitExit();
    }
    if (!termsAt.isEmpty() && kind == StopKind.PARK) {
      return new Action.AwaitExit();
    }
    boolean termNow = termsAt.isEmpty() && (kind == StopKind.TIMEOUT || kind == StopKind.KILL);
    long due = lastMark() + (termNow ? 0 : graceMs);
    if (nowMonoMs < due) {
      return new Action.Wait(due);
    }
    if (beforeRelaunch && !killsAt.isEmpty()) {
      return new Action.Survivor();
    }
    if (termsAt.isEmpty()) {
      termsAt.add(nowMonoMs);
      return new Action.Term();
    }
    killsAt.add(nowMonoMs);
    return new Action.Kill(killsAt.size());
  }

  /** The kind in force. */
  public StopKind kind() {
    return kind;
  }

  /** Every TERM sent, by time. */
  public List<Long> termsAt() {
    return List.copyOf(termsAt);
  }

  /** Every KILL sent, by time. */
  public List<Long> killsAt() {
    return List.copyOf(killsAt);
  }
}
