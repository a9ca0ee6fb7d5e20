package dev.vigil.supervisor;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Every timeout of Vigil, by the name it has in the configuration file, and the "waits for" edges
 * between them (S2: each timeout is at least the sum of the timeouts it waits for). A lattice is
 * built from the defaults overridden by the configuration; the constructor rejects a lattice that
 * violates any edge, naming every violated edge (e.g. {@code quiesceHold (1s) must be >
 * quiesceAnswer (2s)}), and {@link #validate(Map, int)} returns the violations without throwing.
 * The defaults are valid.
 *
 * <p>The edges ({@link Edge}), each with the law that needs it:
 *
 * <ol>
 *   <li>{@code stopGrace ≥ workerTeardown + protocolClose} (S2): a stopped worker may take its whole
 *       teardown and protocol close before the KILL that follows the grace.
 *   <li>{@code launcherWait ≥ quiesceAnswer + stopGrace + supervisorDrain} (S2): the launcher waits
 *       for the whole supervisor drain of {@code vigil down}: one quiesce round, the stop grace of
 *       its workers, then the supervisor's own close.
 *   <li>{@code workerTeardown ≥ killRoute + childDrain} (S2): the worker host's kill of its child
 *       (the parent's kill of a child) covers the signal's route to the child's group and the
 *       child's drain.
 *   <li>{@code lostExit ≥ clientRelaunch + supervisorBoot} (S2, S4, S9): an orphaned worker waits
 *       long enough for an attached client to relaunch the supervisor and for it to boot and adopt.
 *   <li>{@code busyFreshness > busyRefresh} (S2, S3): a working worker refreshes its busy evidence
 *       before the evidence goes stale; {@code busyFreshness} is also the revival window.
 *   <li>{@code quiesceHold > quiesceAnswer} (S2, S5): a quiesced worker keeps its gate closed until
 *       after the supervisor has decided its round.
 *   <li>{@code restartWindow ≥ Σ backoffs up to restartGiveUpCount} (S2, S1): a crash loop reaches
 *       the give-up count inside one window.
 *   <li>{@code leaseTtl ≥ 2 × reconcile} (S2): a lease survives one missed reconcile pass.
 *   <li>{@code statusStale = 6 × heartbeat} (S2, D1): a reader calls the daemon dead after six
 *       missed beats.
 *   <li>{@code supervisorBoot ≥ launchHandoff} (added, S6): a booting supervisor waits one handoff
 *       for a live worker's hello before it decides adoption, so its boot includes that wait.
 *   <li>{@code restartBackoffCap ≥ restartBackoffBase} (added, S1): the cap bounds a doubling pause.
 *   <li>Ranges: every timeout in {@code (0, 366d]} except {@code revivalClockSkew} in
 *       {@code [0, 366d]}; {@code restartGiveUpCount} in {@code [0, 1000]}. The upper bounds keep
 *       every sum exact. An edge is checked when all its values are in range.
 * </ol>
 *
 * <p>{@code staleClaim} (Q10) has no edge: it only has to be longer than any plausible run.
 *
 * @param millis             every timeout, ms; timeouts missing from the given map take their
 *                           default
 * @param restartGiveUpCount the number of failures within {@code restartWindow} that is still
 *                           restarted; one more gives up (S1)
 */
public record TimeoutLattice(Map<Timeout, Long> millis, int restartGiveUpCount) {
  /** Default give-up count: more than 5 failures in the window give up (S1). */
  public static final int DEFAULT_RESTART_GIVE_UP_COUNT = 5;
  /** Largest accepted timeout, ms (366 days). */
  public static final long MAX_MS = 366L * 24 * 3_600_000;
  /** Largest accepted give-up count. */
  public static final int MAX_GIVE_UP_COUNT = 1_000;

  private static final TimeoutLattice DEFAULTS = new TimeoutLattice(Map.of(), DEFAULT_RESTART_GIVE_UP_COUNT);

  /** A named timeout with its configuration name and default. */
  public enum Timeout {
    /** Period of the daemon.json refresh (D1), default 5 s. */
    HEARTBEAT("heartbeat", 5_000),
    /** Age at which daemon.json reads as a dead daemon (D1), default 30 s = 6 heartbeats. */
    STATUS_STALE("statusStale", 30_000),
    /** Period of the reconcile pass, default 5 s. */
    RECONCILE("reconcile", 5_000),
    /** Lease time to live granted by claim, renew and readopt, default 30 s. */
    LEASE_TTL("leaseTtl", 30_000),
    /** Pause between a worker's TERM and its KILL, default 10 s. */
    STOP_GRACE("stopGrace", 10_000),
    /** Time a worker host takes to tear down its work after TERM, default 5 s. */
    WORKER_TEARDOWN("workerTeardown", 5_000),
    /** Time to flush and close a protocol connection, default 1 s. */
    PROTOCOL_CLOSE("protocolClose", 1_000),
    /** The supervisor's own close after its workers stopped (status file, socket, database), default 5 s. */
    SUPERVISOR_DRAIN("supervisorDrain", 5_000),
    /** How long {@code vigil down} waits for the daemon to exit, default 30 s. */
    LAUNCHER_WAIT("launcherWait", 30_000),
    /** Time for a TERM to reach a child's process group, default 1 s. */
    KILL_ROUTE("killRoute", 1_000),
    /** Time a worker's child takes to exit after TERM, default 3 s. */
    CHILD_DRAIN("childDrain", 3_000),
    /** How long a worker waits for a lost supervisor before it exits (S4), default 5 min. */
    LOST_EXIT("lostExit", 300_000),
    /** Latest relaunch of a lost supervisor by an attached client (S9), default 1 min. */
    CLIENT_RELAUNCH("clientRelaunch", 60_000),
    /** Time from a supervisor's launch until it serves and has adopted its workers, default 30 s. */
    SUPERVISOR_BOOT("supervisorBoot", 30_000),
    /** Period of a working worker's busy-evidence refresh (S3), default 5 min. */
    BUSY_REFRESH("busyRefresh", 300_000),
    /** Age until which busy evidence revives a worker at boot: the revival window (S3), default 25 min. */
    BUSY_FRESHNESS("busyFreshness", 1_500_000),
    /** Window in which a quiesce round collects answers (S5), default 2 s. */
    QUIESCE_ANSWER("quiesceAnswer", 2_000),
    /** How long a quiesced worker keeps its gate closed without stop or release (S5), default 30 s. */
    QUIESCE_HOLD("quiesceHold", 30_000),
    /** Monotonic window of the restart budget (S1), default 15 min. */
    RESTART_WINDOW("restartWindow", 900_000),
    /** Pause before the first restart in the window (S1), default 250 ms. */
    RESTART_BACKOFF_BASE("restartBackoffBase", 250),
    /** Longest pause before a restart (S1), default 30 s. */
    RESTART_BACKOFF_CAP("restartBackoffCap", 30_000),
    /** How long a launch or a booting supervisor waits for a worker's reservation and hello, default 10 s. */
    LAUNCH_HANDOFF("launchHandoff", 10_000),
    /** Age after which a startup sweep takes a claim as stale (Q10), default 24 h. */
    STALE_CLAIM("staleClaim", 86_400_000),
    /** Bound on wall-clock skew between Vigil's processes (S3), default 2 s. */
    REVIVAL_CLOCK_SKEW("revivalClockSkew", 2_000),
    /**
     * How long a live run goes without a live daemon before views call it stalled
     * ({@link StalledRuns}), default 1 min. A view only: it decides nothing.
     */
    STALLED_RUNNING("stalledRunning", 60_000);

    private final String configName;
    private final long defaultMs;

    Timeout(String configName, long defaultMs) {
      this.configName = configName;
      this.defaultMs = defaultMs;
    }

    /** The name in the configuration file, e.g. {@code quiesceHold}. */
    public String configName() {
      return configName;
    }

    /** The default, ms. */
    public long defaultMs() {
      return defaultMs;
    }

    /** The timeout called {@code configName} in the configuration file, if any. */
    public static Optional<Timeout> byConfigName(String configName) {
      Objects.requireNonNull(configName, "configName");
      for (Timeout t : values()) {
        if (t.configName.equals(configName)) {
          return Optional.of(t);
        }
      }
      return Optional.empty();
    }
  }

  /** A "waits for" edge, or the range rule; {@link #text()} states it as the configuration reads. */
  public enum Edge {
    STOP_GRACE("S2", "stopGrace ≥ workerTeardown + protocolClose"),
    LAUNCHER_WAIT("S2", "launcherWait ≥ quiesceAnswer + stopGrace + supervisorDrain"),
    PARENT_KILL("S2", "workerTeardown ≥ killRoute + childDrain"),
    LOST_EXIT("S2", "lostExit ≥ clientRelaunch + supervisorBoot"),
    BUSY_FRESHNESS("S2", "busyFreshness > busyRefresh"),
    QUIESCE_HOLD("S2", "quiesceHold > quiesceAnswer"),
    RESTART_WINDOW("S2", "restartWindow ≥ the sum of the backoffs up to restartGiveUpCount"),
    LEASE_TTL("S2", "leaseTtl ≥ 2 × reconcile"),
    STATUS_STALE("D1", "statusStale = 6 × heartbeat"),
    SUPERVISOR_BOOT("S6", "supervisorBoot ≥ launchHandoff"),
    BACKOFF_CAP("S1", "restartBackoffCap ≥ restartBackoffBase"),
    RANGE("S2", "every timeout in (0, 366d], revivalClockSkew in [0, 366d], restartGiveUpCount in [0, 1000]");

    private final String law;
    private final String text;

    Edge(String law, String text) {
      this.law = law;
      this.text = text;
    }

    /** The id of the law that needs the edge. */
    public String law() {
      return law;
    }

    /** The edge as a relation between configuration names. */
    public String text() {
      return text;
    }
  }

  /**
   * One violated edge.
   *
   * @param edge    the edge
   * @param message the edge with the configured values, e.g. {@code quiesceHold (1s) must be >
   *                quiesceAnswer (2s)}
   */
  public record Violation(Edge edge, String message) {
    public Violation {
      Objects.requireNonNull(edge, "edge");
      Objects.requireNonNull(message, "message");
    }
  }

  /**
   * Builds a lattice from {@code millis} over the defaults.
   *
   * @throws NullPointerException     naming the field or the timeout whose value is null
   * @throws IllegalArgumentException listing every violated edge, separated by {@code "; "}
   */
  public TimeoutLattice {
    millis = complete(millis);
    List<Violation> violations = check(millis, restartGiveUpCount);
    if (!violations.isEmpty()) {
      StringBuilder b = new StringBuilder();
      for (Violation v : violations) {
        b.append(b.length() == 0 ? "" : "; ").append(v.message());
      }
      throw new IllegalArgumentException(b.toString());
    }
    millis = Collections.unmodifiableMap(millis);
  }

  /** The defaults, which satisfy every edge. */
  public static TimeoutLattice defaults() {
    return DEFAULTS;
  }

  /**
   * Every violated edge of the defaults overridden by {@code overridesMs}, in {@link Edge} order;
   * empty when the configuration is valid. Never throws for bad values.
   */
  public static List<Violation> validate(Map<Timeout, Long> overridesMs, int restartGiveUpCount) {
    return check(complete(overridesMs), restartGiveUpCount);
  }

  /** This lattice with one timeout changed, validated. */
  public TimeoutLattice with(Timeout timeout, long ms) {
    Objects.requireNonNull(timeout, "timeout");
    EnumMap<Timeout, Long> m = new EnumMap<>(millis);
    m.put(timeout, ms);
    return new TimeoutLattice(m, restartGiveUpCount);
  }

  /** The value of {@code timeout}, ms. */
  public long ms(Timeout timeout) {
    return millis.get(Objects.requireNonNull(timeout, "timeout"));
  }

  /**
   * The sum of the pauses before restarts 1 to {@code count} in one window, ms (S1, S2):
   * {@code Σ min(cap, base × 2^(k−1))}, saturating at {@code Long.MAX_VALUE}.
   *
   * @throws IllegalArgumentException unless {@code 0 ≤ count ≤ MAX_GIVE_UP_COUNT}
   */
  public static long backoffSumMs(long baseMs, long capMs, int count) {
    if (count < 0 || count > MAX_GIVE_UP_COUNT) {
      throw new IllegalArgumentException("count (" + count + ") must be ≥ 0 and ≤ " + MAX_GIVE_UP_COUNT);
    }
    long sum = 0;
    long delay = baseMs;
    for (int k = 1; k <= count; k++) {
      long term = Math.min(delay, capMs);
      sum = term > 0 && sum > Long.MAX_VALUE - term ? Long.MAX_VALUE : sum + term;
      if (delay < capMs) {
        delay = delay > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : delay * 2;
      }
    }
    return sum;
  }

  private static EnumMap<Timeout, Long> complete(Map<Timeout, Long> given) {
    Objects.requireNonNull(given, "millis");
    EnumMap<Timeout, Long> m = new EnumMap<>(Timeout.class);
    for (Timeout t : Timeout.values()) {
      m.put(t, t.defaultMs());
    }
    for (Map.Entry<Timeout, Long> e : given.entrySet()) {
      Objects.requireNonNull(e.getKey(), "millis key");
      m.put(e.getKey(), Objects.requireNonNull(e.getValue(), e.getKey().configName()));
    }
    return m;
  }

  private static List<Violation> check(Map<Timeout, Long> m, int giveUpCount) {
    List<Violation> out = new ArrayList<>();
    EnumSet<Timeout> bad = EnumSet.noneOf(Timeout.class);
    for (Timeout t : Timeout.values()) {
      long v = m.get(t);
      long min = t == Timeout.REVIVAL_CLOCK_SKEW ? 0 : 1;
      if (v < min || v > MAX_MS) {
        bad.add(t);
        out.add(new Violation(Edge.RANGE, t.configName() + " (" + Durations.format(v) + ") must be "
            + (min == 0 ? "≥ 0" : "> 0") + " and ≤ " + Durations.format(MAX_MS)));
      }
    }
    boolean countInRange = giveUpCount >= 0 && giveUpCount <= MAX_GIVE_UP_COUNT;
    if (!countInRange) {
      out.add(new Violation(Edge.RANGE, "restartGiveUpCount (" + giveUpCount + ") must be ≥ 0 and ≤ " + MAX_GIVE_UP_COUNT));
    }
    sum(out, m, bad, Edge.STOP_GRACE, Timeout.STOP_GRACE, Timeout.WORKER_TEARDOWN, Timeout.PROTOCOL_CLOSE);
    sum(out, m, bad, Edge.LAUNCHER_WAIT, Timeout.LAUNCHER_WAIT, Timeout.QUIESCE_ANSWER, Timeout.STOP_GRACE,
        Timeout.SUPERVISOR_DRAIN);
    sum(out, m, bad, Edge.PARENT_KILL, Timeout.WORKER_TEARDOWN, Timeout.KILL_ROUTE, Timeout.CHILD_DRAIN);
    sum(out, m, bad, Edge.LOST_EXIT, Timeout.LOST_EXIT, Timeout.CLIENT_RELAUNCH, Timeout.SUPERVISOR_BOOT);
    greater(out, m, bad, Edge.BUSY_FRESHNESS, Timeout.BUSY_FRESHNESS, Timeout.BUSY_REFRESH);
    greater(out, m, bad, Edge.QUIESCE_HOLD, Timeout.QUIESCE_HOLD, Timeout.QUIESCE_ANSWER);
    long base = m.get(Timeout.RESTART_BACKOFF_BASE);
    long cap = m.get(Timeout.RESTART_BACKOFF_CAP);
    if (countInRange && inRange(bad, Timeout.RESTART_WINDOW, Timeout.RESTART_BACKOFF_BASE, Timeout.RESTART_BACKOFF_CAP)) {
      long window = m.get(Timeout.RESTART_WINDOW);
      long backoffs = backoffSumMs(base, Math.max(base, cap), giveUpCount);
      if (window < backoffs) {
        out.add(new Violation(Edge.RESTART_WINDOW, "restartWindow (" + Durations.format(window)
            + ") must be ≥ the sum of the " + giveUpCount + " backoffs before give-up (" + Durations.format(backoffs) + ")"));
      }
    }
    if (inRange(bad, Timeout.LEASE_TTL, Timeout.RECONCILE)) {
      long reconcile = m.get(Timeout.RECONCILE);
      long ttl = m.get(Timeout.LEASE_TTL);
      if (ttl < 2 * reconcile) {
        out.add(new Violation(Edge.LEASE_TTL, "leaseTtl (" + Durations.format(ttl) + ") must be ≥ 2 × reconcile ("
            + Durations.format(reconcile) + ")"));
      }
    }
    if (inRange(bad, Timeout.STATUS_STALE, Timeout.HEARTBEAT)) {
      long beat = m.get(Timeout.HEARTBEAT);
      long stale = m.get(Timeout.STATUS_STALE);
      if (stale != 6 * beat) {
        out.add(new Violation(Edge.STATUS_STALE, "statusStale (" + Durations.format(stale) + ") must be = 6 × heartbeat ("
            + Durations.format(beat) + ")"));
      }
    }
    sum(out, m, bad, Edge.SUPERVISOR_BOOT, Timeout.SUPERVISOR_BOOT, Timeout.LAUNCH_HANDOFF);
    if (inRange(bad, Timeout.RESTART_BACKOFF_BASE, Timeout.RESTART_BACKOFF_CAP) && cap < base) {
      out.add(new Violation(Edge.BACKOFF_CAP, "restartBackoffCap (" + Durations.format(cap)
          + ") must be ≥ restartBackoffBase (" + Durations.format(base) + ")"));
    }
    return out;
  }

  private static boolean inRange(Set<Timeout> bad, Timeout... ts) {
    for (Timeout t : ts) {
      if (bad.contains(t)) {
        return false;
      }
    }
    return true;
  }

  /** {@code lhs ≥ Σ rhs}, checked when every term is in range. */
  private static void sum(List<Violation> out, Map<Timeout, Long> m, Set<Timeout> bad, Edge edge, Timeout lhs,
                          Timeout... rhs) {
    if (!inRange(bad, lhs) || !inRange(bad, rhs)) {
      return;
    }
    long total = 0;
    StringBuilder terms = new StringBuilder();
    for (Timeout t : rhs) {
      total += m.get(t);
      terms.append(terms.length() == 0 ? "" : " + ").append(t.configName()).append(" (")
          .append(Durations.format(m.get(t))).append(')');
    }
    if (m.get(lhs) < total) {
      out.add(new Violation(edge, lhs.configName() + " (" + Durations.format(m.get(lhs)) + ") must be ≥ " + terms
          + (rhs.length > 1 ? " = " + Durations.format(total) : "")));
    }
  }

  /** {@code lhs > rhs}, checked when both are in range. */
  private static void greater(List<Violation> out, Map<Timeout, Long> m, Set<Timeout> bad, Edge edge, Timeout lhs,
                              Timeout rhs) {
    if (inRange(bad, lhs, rhs) && m.get(lhs) <= m.get(rhs)) {
      out.add(new Violation(edge, lhs.configName() + " (" + Durations.format(m.get(lhs)) + ") must be > "
          + rhs.configName() + " (" + Durations.format(m.get(rhs)) + ")"));
    }
  }
}
