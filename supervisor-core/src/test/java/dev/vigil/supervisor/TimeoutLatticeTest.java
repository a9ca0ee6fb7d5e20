package dev.vigil.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.supervisor.TimeoutLattice.Edge;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.TimeoutLattice.Violation;
import dev.vigil.supervisor.law.SupervisorInvariants;
import dev.vigil.supervisor.law.TimeoutLaw;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class TimeoutLatticeTest {
  @Test
  void S2_defaultsAreValidAndAsDocumented() {
    TimeoutLattice d = TimeoutLattice.defaults();
    assertEquals(List.of(), TimeoutLattice.validate(Map.of(), 5));
    SupervisorInvariants.s2LatticeValid(d, "defaults");
    assertEquals(5_000, d.ms(Timeout.HEARTBEAT));
    assertEquals(30_000, d.ms(Timeout.STATUS_STALE));
    assertEquals(30_000, d.ms(Timeout.LEASE_TTL));
    assertEquals(300_000, d.ms(Timeout.LOST_EXIT));
    assertEquals(60_000, d.ms(Timeout.CLIENT_RELAUNCH));
    assertEquals(1_500_000, d.ms(Timeout.BUSY_FRESHNESS));
    assertEquals(2_000, d.ms(Timeout.QUIESCE_ANSWER));
    assertEquals(30_000, d.ms(Timeout.QUIESCE_HOLD));
    assertEquals(900_000, d.ms(Timeout.RESTART_WINDOW));
    assertEquals(250, d.ms(Timeout.RESTART_BACKOFF_BASE));
    assertEquals(86_400_000, d.ms(Timeout.STALE_CLAIM));
    assertEquals(2_000, d.ms(Timeout.REVIVAL_CLOCK_SKEW));
    assertEquals(5, d.restartGiveUpCount());
    assertEquals(Timeout.values().length, d.millis().size());
  }

  @Test
  void S2_anInvalidConfigurationIsRejectedWithTheEdgeNamed() {
    Map<Timeout, Long> user = Map.of(Timeout.QUIESCE_HOLD, 1_000L);
    assertEquals(List.of(new Violation(Edge.QUIESCE_HOLD, "quiesceHold (1s) must be > quiesceAnswer (2s)")),
        TimeoutLattice.validate(user, 5));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new TimeoutLattice(user, 5));
    assertEquals("quiesceHold (1s) must be > quiesceAnswer (2s)", e.getMessage());
  }

  @Test
  void S2_messagesStateTheRelationWithTheConfiguredValues() {
    assertEquals("leaseTtl (20s) must be ≥ 2 × reconcile (15s)",
        only(Map.of(Timeout.LEASE_TTL, 20_000L, Timeout.RECONCILE, 15_000L)));
    assertEquals("stopGrace (5s) must be ≥ workerTeardown (5s) + protocolClose (1s) = 6s",
        only(Map.of(Timeout.STOP_GRACE, 5_000L, Timeout.LAUNCHER_WAIT, 60_000L)));
    assertEquals("statusStale (20s) must be = 6 × heartbeat (5s)", only(Map.of(Timeout.STATUS_STALE, 20_000L)));
    assertEquals("lostExit (1m29s999ms) must be ≥ clientRelaunch (1m) + supervisorBoot (30s) = 1m30s",
        only(Map.of(Timeout.LOST_EXIT, 89_999L)));
    assertEquals("heartbeat (0ms) must be > 0 and ≤ 8784h", only(Map.of(Timeout.HEARTBEAT, 0L, Timeout.STATUS_STALE, 1L)));
  }

  private static String only(Map<Timeout, Long> user) {
    List<Violation> v = TimeoutLattice.validate(user, 5);
    assertEquals(1, v.size(), v.toString());
    return v.get(0).message();
  }

  @Test
  void S2_validateReturnsEveryViolatedEdgeAndTheConstructorNamesThemAll() {
    Map<Timeout, Long> user = Map.of(Timeout.QUIESCE_HOLD, 1_000L, Timeout.LEASE_TTL, 9_999L,
        Timeout.BUSY_FRESHNESS, 300_000L);
    List<Violation> v = TimeoutLattice.validate(user, 5);
    assertEquals(List.of(Edge.BUSY_FRESHNESS, Edge.QUIESCE_HOLD, Edge.LEASE_TTL),
        v.stream().map(Violation::edge).toList());
    String m = assertThrows(IllegalArgumentException.class, () -> new TimeoutLattice(user, 5)).getMessage();
    assertEquals("busyFreshness (5m) must be > busyRefresh (5m); quiesceHold (1s) must be > quiesceAnswer (2s); "
        + "leaseTtl (9s999ms) must be ≥ 2 × reconcile (5s)", m);
  }

  /** One configuration per edge that violates that edge alone. */
  private static final Map<Edge, Map<Timeout, Long>> BREAKS = Map.ofEntries(
      Map.entry(Edge.STOP_GRACE, Map.of(Timeout.WORKER_TEARDOWN, 9_001L, Timeout.LAUNCHER_WAIT, 40_000L)),
      Map.entry(Edge.LAUNCHER_WAIT, Map.of(Timeout.LAUNCHER_WAIT, 16_999L)),
      Map.entry(Edge.PARENT_KILL, Map.of(Timeout.CHILD_DRAIN, 4_001L)),
      Map.entry(Edge.LOST_EXIT, Map.of(Timeout.CLIENT_RELAUNCH, 270_001L)),
      Map.entry(Edge.BUSY_FRESHNESS, Map.of(Timeout.BUSY_REFRESH, 1_500_000L)),
      Map.entry(Edge.QUIESCE_HOLD, Map.of(Timeout.QUIESCE_ANSWER, 30_000L, Timeout.LAUNCHER_WAIT, 60_000L)),
      Map.entry(Edge.RESTART_WINDOW, Map.of(Timeout.RESTART_WINDOW, 7_749L)),
      Map.entry(Edge.LEASE_TTL, Map.of(Timeout.LEASE_TTL, 9_999L)),
      Map.entry(Edge.STATUS_STALE, Map.of(Timeout.STATUS_STALE, 30_001L)),
      Map.entry(Edge.SUPERVISOR_BOOT, Map.of(Timeout.LAUNCH_HANDOFF, 30_001L)),
      Map.entry(Edge.BACKOFF_CAP, Map.of(Timeout.RESTART_BACKOFF_CAP, 249L)),
      Map.entry(Edge.RANGE, Map.of(Timeout.STALE_CLAIM, -1L)));

  @Test
  void S2_everyEdgeOfTheLawIsPresent_plusLeaseTtlAndStatusStaleness() {
    assertEquals(EnumSet.allOf(Edge.class), BREAKS.keySet());
    for (Map.Entry<Edge, Map<Timeout, Long>> e : BREAKS.entrySet()) {
      assertEquals(Set.of(e.getKey()), Set.copyOf(TimeoutLattice.validate(e.getValue(), 5).stream().map(Violation::edge)
          .toList()), e.getKey().text());
      assertEquals(Set.of(e.getKey()), TimeoutLaw.violated(e.getValue(), 5), e.getKey().text());
    }
    assertEquals(Set.of(Edge.RANGE), TimeoutLaw.violated(Map.of(), -1));
    assertEquals(List.of(Edge.RESTART_WINDOW),
        TimeoutLattice.validate(Map.of(Timeout.RESTART_WINDOW, 7_750L), 6).stream().map(Violation::edge).toList());
  }

  /** A configuration near the edges: each chosen edge's left side set to its right side −1, ±0 or +1. */
  private static Map<Timeout, Long> nearEdges(SplittableRandom r) {
    EnumMap<Timeout, Long> m = new EnumMap<>(Timeout.class);
    for (Timeout t : Timeout.values()) {
      m.put(t, t.defaultMs());
    }
    int changes = r.nextInt(5);
    for (int i = 0; i < changes; i++) {
      long d = Props.pick(r, -1L, 0L, 1L);
      switch (r.nextInt(13)) {
        case 0 -> m.put(Timeout.STOP_GRACE, m.get(Timeout.WORKER_TEARDOWN) + m.get(Timeout.PROTOCOL_CLOSE) + d);
        case 1 -> m.put(Timeout.LAUNCHER_WAIT,
            m.get(Timeout.QUIESCE_ANSWER) + m.get(Timeout.STOP_GRACE) + m.get(Timeout.SUPERVISOR_DRAIN) + d);
        case 2 -> m.put(Timeout.WORKER_TEARDOWN, m.get(Timeout.KILL_ROUTE) + m.get(Timeout.CHILD_DRAIN) + d);
        case 3 -> m.put(Timeout.LOST_EXIT, m.get(Timeout.CLIENT_RELAUNCH) + m.get(Timeout.SUPERVISOR_BOOT) + d);
        case 4 -> m.put(Timeout.BUSY_FRESHNESS, m.get(Timeout.BUSY_REFRESH) + d);
        case 5 -> m.put(Timeout.QUIESCE_HOLD, m.get(Timeout.QUIESCE_ANSWER) + d);
        case 6 -> m.put(Timeout.RESTART_WINDOW, TimeoutLattice.backoffSumMs(m.get(Timeout.RESTART_BACKOFF_BASE),
            Math.max(m.get(Timeout.RESTART_BACKOFF_BASE), m.get(Timeout.RESTART_BACKOFF_CAP)), 5) + d);
        case 7 -> m.put(Timeout.LEASE_TTL, 2 * m.get(Timeout.RECONCILE) + d);
        case 8 -> m.put(Timeout.STATUS_STALE, 6 * m.get(Timeout.HEARTBEAT) + d);
        case 9 -> m.put(Timeout.SUPERVISOR_BOOT, m.get(Timeout.LAUNCH_HANDOFF) + d);
        case 10 -> m.put(Timeout.RESTART_BACKOFF_CAP, m.get(Timeout.RESTART_BACKOFF_BASE) + d);
        case 11 -> {
          Timeout t = Timeout.values()[r.nextInt(Timeout.values().length)];
          m.put(t, Props.pick(r, 0L, 1L, -1L, TimeoutLattice.MAX_MS, TimeoutLattice.MAX_MS + 1, Long.MAX_VALUE));
        }
        default -> {
          Timeout t = Timeout.values()[r.nextInt(Timeout.values().length)];
          m.put(t, 1 + r.nextLong(2 * t.defaultMs()));
        }
      }
    }
    return m;
  }

  @Test
  void S2_implementationAgreesWithLawModel_nearEveryEdge() {
    Object[] expected = new Object[Edge.values().length + 1];
    for (Edge e : Edge.values()) {
      expected[e.ordinal()] = e;
    }
    expected[Edge.values().length] = "valid";
    Props.Coverage cov = new Props.Coverage("S2 model agreement", expected);
    Props.forSeeds(4_000, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      Map<Timeout, Long> m = nearEdges(r);
      int giveUp = r.nextInt(20) == 0 ? Props.pick(r, -1, 0, 1_000, 1_001, 8) : 5;
      List<Violation> v = TimeoutLattice.validate(m, giveUp);
      Set<Edge> implEdges = EnumSet.noneOf(Edge.class);
      v.forEach(x -> implEdges.add(x.edge()));
      String ctx = "seed " + seed + ", config " + m + ", giveUp " + giveUp + ", violations " + v;
      assertEquals(TimeoutLaw.violated(m, giveUp), implEdges, ctx);
      implEdges.forEach(e -> cov.label(e.toString()));
      if (v.isEmpty()) {
        cov.label("valid");
        TimeoutLattice t = new TimeoutLattice(m, giveUp);
        SupervisorInvariants.s2LatticeValid(t, ctx);
        RestartBudget.Policy.from(t);
        RevivalGate.from(t);
        DaemonLiveness.from(t);
      } else {
        String msg = assertThrows(IllegalArgumentException.class, () -> new TimeoutLattice(m, giveUp), ctx).getMessage();
        for (Violation x : v) {
          assertTrue(msg.contains(x.message()), ctx);
        }
      }
    });
    cov.assertComplete();
  }

  @Test
  void S2_withChangesOneTimeoutAndRevalidates() {
    TimeoutLattice t = TimeoutLattice.defaults().with(Timeout.QUIESCE_HOLD, 2_001);
    assertEquals(2_001, t.ms(Timeout.QUIESCE_HOLD));
    assertThrows(IllegalArgumentException.class, () -> t.with(Timeout.QUIESCE_HOLD, 2_000));
    assertThrows(NullPointerException.class, () -> new TimeoutLattice(null, 5));
  }

  @Test
  void S2_configurationNamesResolve() {
    for (Timeout t : Timeout.values()) {
      assertEquals(t, Timeout.byConfigName(t.configName()).orElseThrow());
    }
    assertTrue(Timeout.byConfigName("quiesce_hold").isEmpty());
    assertEquals(Timeout.REVIVAL_CLOCK_SKEW, Timeout.byConfigName("revivalClockSkew").orElseThrow());
  }
}
