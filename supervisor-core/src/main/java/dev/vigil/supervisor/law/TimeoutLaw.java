package dev.vigil.supervisor.law;

import dev.vigil.supervisor.TimeoutLattice;
import dev.vigil.supervisor.TimeoutLattice.Edge;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import java.math.BigInteger;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * S2 as written in LAWS.md, one sentence per edge, over the defaults overridden by a
 * configuration. An edge is judged only when each of its values is in range (the range rule is
 * judged on its own).
 */
public final class TimeoutLaw {
  private TimeoutLaw() {}

  /** The edges a configuration violates. */
  public static Set<Edge> violated(Map<Timeout, Long> overrides, int giveUpCount) {
    Map<Timeout, Long> v = new EnumMap<>(Timeout.class);
    for (Timeout t : Timeout.values()) {
      v.put(t, overrides.getOrDefault(t, t.defaultMs()));
    }
    Set<Timeout> ok = EnumSet.noneOf(Timeout.class);
    for (Timeout t : Timeout.values()) {
      long min = t == Timeout.REVIVAL_CLOCK_SKEW ? 0 : 1;
      if (v.get(t) >= min && v.get(t) <= TimeoutLattice.MAX_MS) {
        ok.add(t);
      }
    }
    boolean countOk = giveUpCount >= 0 && giveUpCount <= TimeoutLattice.MAX_GIVE_UP_COUNT;
    Set<Edge> out = EnumSet.noneOf(Edge.class);
    if (ok.size() < Timeout.values().length || !countOk) {
      out.add(Edge.RANGE);
    }
    // stop grace ≥ worker teardown + protocol close
    judge(out, ok, Edge.STOP_GRACE, v.get(Timeout.STOP_GRACE) >= v.get(Timeout.WORKER_TEARDOWN) + v.get(Timeout.PROTOCOL_CLOSE),
        Timeout.STOP_GRACE, Timeout.WORKER_TEARDOWN, Timeout.PROTOCOL_CLOSE);
    // launcher wait ≥ whole supervisor drain (a quiesce round, the stop grace, the supervisor's close)
    judge(out, ok, Edge.LAUNCHER_WAIT, v.get(Timeout.LAUNCHER_WAIT)
            >= v.get(Timeout.QUIESCE_ANSWER) + v.get(Timeout.STOP_GRACE) + v.get(Timeout.SUPERVISOR_DRAIN),
        Timeout.LAUNCHER_WAIT, Timeout.QUIESCE_ANSWER, Timeout.STOP_GRACE, Timeout.SUPERVISOR_DRAIN);
    // a parent's kill of a child ≥ kill route + child drain
    judge(out, ok, Edge.PARENT_KILL, v.get(Timeout.WORKER_TEARDOWN) >= v.get(Timeout.KILL_ROUTE) + v.get(Timeout.CHILD_DRAIN),
        Timeout.WORKER_TEARDOWN, Timeout.KILL_ROUTE, Timeout.CHILD_DRAIN);
    // worker lost-exit ≥ client relaunch + supervisor boot
    judge(out, ok, Edge.LOST_EXIT, v.get(Timeout.LOST_EXIT) >= v.get(Timeout.CLIENT_RELAUNCH) + v.get(Timeout.SUPERVISOR_BOOT),
        Timeout.LOST_EXIT, Timeout.CLIENT_RELAUNCH, Timeout.SUPERVISOR_BOOT);
    // busy freshness > busy refresh
    judge(out, ok, Edge.BUSY_FRESHNESS, v.get(Timeout.BUSY_FRESHNESS) > v.get(Timeout.BUSY_REFRESH),
        Timeout.BUSY_FRESHNESS, Timeout.BUSY_REFRESH);
    // quiesce hold > quiesce answer
    judge(out, ok, Edge.QUIESCE_HOLD, v.get(Timeout.QUIESCE_HOLD) > v.get(Timeout.QUIESCE_ANSWER),
        Timeout.QUIESCE_HOLD, Timeout.QUIESCE_ANSWER);
    // restart window ≥ the sum of the backoffs of the give-up count
    if (countOk) {
      BigInteger base = BigInteger.valueOf(v.get(Timeout.RESTART_BACKOFF_BASE));
      BigInteger cap = base.max(BigInteger.valueOf(v.get(Timeout.RESTART_BACKOFF_CAP)));
      BigInteger sum = BigInteger.ZERO;
      for (int k = 1; k <= giveUpCount; k++) {
        sum = sum.add(base.shiftLeft(k - 1).min(cap));
      }
      judge(out, ok, Edge.RESTART_WINDOW, BigInteger.valueOf(v.get(Timeout.RESTART_WINDOW)).compareTo(sum) >= 0,
          Timeout.RESTART_WINDOW, Timeout.RESTART_BACKOFF_BASE, Timeout.RESTART_BACKOFF_CAP);
    }
    // lease TTL ≥ 2 × reconcile interval
    judge(out, ok, Edge.LEASE_TTL, v.get(Timeout.LEASE_TTL) >= 2 * v.get(Timeout.RECONCILE),
        Timeout.LEASE_TTL, Timeout.RECONCILE);
    // stale status = 6 × heartbeat
    judge(out, ok, Edge.STATUS_STALE, v.get(Timeout.STATUS_STALE) == 6 * v.get(Timeout.HEARTBEAT),
        Timeout.STATUS_STALE, Timeout.HEARTBEAT);
    // a booting supervisor waits one launch handoff for hellos
    judge(out, ok, Edge.SUPERVISOR_BOOT, v.get(Timeout.SUPERVISOR_BOOT) >= v.get(Timeout.LAUNCH_HANDOFF),
        Timeout.SUPERVISOR_BOOT, Timeout.LAUNCH_HANDOFF);
    // the cap bounds the doubling pause
    judge(out, ok, Edge.BACKOFF_CAP, v.get(Timeout.RESTART_BACKOFF_CAP) >= v.get(Timeout.RESTART_BACKOFF_BASE),
        Timeout.RESTART_BACKOFF_CAP, Timeout.RESTART_BACKOFF_BASE);
    return out;
  }

  private static void judge(Set<Edge> out, Set<Timeout> ok, Edge edge, boolean holds, Timeout... involved) {
    for (Timeout t : involved) {
      if (!ok.contains(t)) {
        return;
      }
    }
    if (!holds) {
      out.add(edge);
    }
  }
}
