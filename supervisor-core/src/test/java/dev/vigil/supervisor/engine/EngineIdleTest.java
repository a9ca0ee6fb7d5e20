package dev.vigil.supervisor.engine;

import static dev.vigil.supervisor.engine.Simulation.LANE_A;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.Coordination;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunState;
import dev.vigil.coordination.Store;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketQuery;
import dev.vigil.coordination.TicketState;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.engine.EngineEvent.RecoveryAction;
import dev.vigil.supervisor.engine.port.Ports;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * An idle daemon (no run supervised, none live in the store) still publishes its status every
 * heartbeat (D1) and still looks for live runs at every reconcile pass, but reads nothing else of
 * the store until something happens; a run that another owner claims beside it is seen by the next
 * pass, shown and recovered as before (Q4, Q11).
 */
class EngineIdleTest {
  private final Bench b = new Bench();
  /** Store reads by query: the method name, and for {@code tickets} the state asked for. */
  private final Map<String, Integer> reads = new TreeMap<>();

  private void boot() {
    boot(null);
  }

  private void boot(String hostId) {
    b.incarnation++;
    b.daemon = b.world.startDaemon(b.incarnation);
    EngineConfig config = new EngineConfig(new OwnerId("d" + b.incarnation), "bench", b.build, "1.0.0", 1,
        new Workload(Simulation.LANES, Simulation.TYPES, List.of()), b.timeouts, hostId);
    Ports ports = new Ports(counting(b.coordination), b.world.processesOf(b.daemon), b.world.directories,
        b.world.channel, b.statuses::add, b.events::add, b.schedules);
    b.engine = Engine.boot(config, ports, b.world.monoMs, b.world.wallMs);
  }

  private Status lastPublished() {
    return b.statuses.get(b.statuses.size() - 1);
  }

  /**
   * On a store that several hosts share, a ticket submitted through another host's daemon reaches this
   * daemon with no event: its next reconcile pass looks at the queue and claims it; on a store of one host,
   * where every submission is an event of its one daemon, an idle daemon does not look.
   */
  @Test
  void H1_onASharedStore_workSubmittedElsewhereIsClaimedByTheNextReconcilePass() {
    for (String hostId : java.util.Arrays.asList("host-a", null)) {
      Bench fresh = new Bench();
      EngineConfig config = new EngineConfig(new OwnerId("d1"), "bench", fresh.build, "1.0.0", 1,
          new Workload(Simulation.LANES, Simulation.TYPES, List.of()), fresh.timeouts, hostId);
      fresh.incarnation = 1;
      fresh.daemon = fresh.world.startDaemon(1);
      fresh.engine = Engine.boot(config, new Ports(fresh.coordination, fresh.world.processesOf(fresh.daemon),
          fresh.world.directories, fresh.world.channel, fresh.statuses::add, fresh.events::add, fresh.schedules),
          fresh.world.monoMs, fresh.world.wallMs);
      fresh.run(2 * Bench.ms(Timeout.RECONCILE));
      Submission s = fresh.coordination.submit(NewTicket.of(LANE_A, "cmd", "{}"), fresh.world.wallMs); // another host
      TicketId elsewhere = ((Submission.Accepted) s).ticket().id();
      fresh.run(Bench.ms(Timeout.RECONCILE) / 4);
      assertEquals(TicketState.READY, fresh.ticket(elsewhere).state(), "no event yet, and no pass yet");
      if (hostId != null) { // the store's word that a ticket became claimable: dispatched at once
        Submission s2 = fresh.coordination.submit(NewTicket.of(LANE_A, "cmd", "{}"), fresh.world.wallMs);
        fresh.engine.onQueueChanged(fresh.world.monoMs, fresh.world.wallMs);
        fresh.run(1);
        assertEquals(TicketState.LEASED, fresh.ticket(((Submission.Accepted) s2).ticket().id()).state(),
            "H1: told of new work, the daemon claimed it without waiting for its next pass");
      }
      fresh.run(Bench.ms(Timeout.RECONCILE) + 10);
      if (hostId != null) {
        assertEquals(TicketState.LEASED, fresh.ticket(elsewhere).state(),
            "H1: the next reconcile pass claimed work submitted through another host");
      } else {
        assertEquals(TicketState.READY, fresh.ticket(elsewhere).state(),
            "one host's store: every submission comes through its daemon, and an idle one reads no queue");
      }
    }
  }

  @Test
  void D1_anIdleDaemonPublishesEveryHeartbeat_readingTheStoreOnlyToCountLiveRunsAtEachReconcile() {
    boot();
    b.run(2 * Bench.ms(Timeout.RECONCILE));
    long span = 10 * Bench.ms(Timeout.HEARTBEAT);
    int published = b.statuses.size();
    reads.clear();
    b.run(span);
    assertTrue(b.statuses.size() - published >= 9, "D1: one status per heartbeat, idle or not: "
        + (b.statuses.size() - published));
    long passes = span / Bench.ms(Timeout.RECONCILE);
    assertEquals(Map.of("tickets LEASED", (int) passes), reads, "one count of the live runs per reconcile pass");
    assertEquals(new Status.LaneStatus(LANE_A, 2, 0, 0, 0, false), lastPublished().lanes().get(0));
    assertTrue(lastPublished().runs().isEmpty());

    // a command may change the store: the next status reads it again, and shows the change
    long later = b.world.wallMs + 3_600_000;
    TicketId waiting = b.submit(new NewTicket(LANE_A, "cmd", "{}", 3, 0, later, null));
    b.run(Bench.ms(Timeout.HEARTBEAT));
    assertEquals(new Status.LaneStatus(LANE_A, 2, 0, 1, 0, false), lastPublished().lanes().get(0),
        "the waiting ticket is shown from the next heartbeat on");
    assertEquals(1, lastPublished().tickets().get(TicketState.READY));
    reads.clear();
    b.run(span);
    assertEquals(Map.of("tickets LEASED", (int) passes), reads, "idle again: nothing more is read");
    assertEquals(new Status.LaneStatus(LANE_A, 2, 0, 1, 0, false), lastPublished().lanes().get(0));
    assertEquals(TicketState.READY, b.ticket(waiting).state());
    assertTrue(b.world.wallMs - lastPublished().heartbeatAtWallMs() < Bench.ms(Timeout.HEARTBEAT), "D1: fresh");

    // vigil status always reads the store
    reads.clear();
    b.status();
    assertTrue(reads.containsKey("liveRuns") && reads.containsKey("countsByState"), reads.toString());
  }

  @Test
  void Q11_aRunAnotherOwnerClaimsBesideAnIdleDaemonIsSeenByItsNextReconcile_andRecoveredOnceThatOwnerIsDead() {
    boot();
    b.run(2 * Bench.ms(Timeout.RECONCILE));
    OwnerId client = new OwnerId("client-1");
    SimWorld.DaemonProc clientProcess = b.liveClient(client);
    TicketId t = ((Submission.Accepted) b.law.submit(NewTicket.of(LANE_A, "cmd", "{}"), b.world.wallMs)).ticket().id();
    b.law.claimByHand(t, client, b.world.wallMs, 5_000);
    RunId run = b.firstRun(t);

    b.run(Bench.ms(Timeout.RECONCILE) + Bench.ms(Timeout.HEARTBEAT));
    assertEquals(1, b.recovered(RecoveryAction.LEAVE_TO_LIVE_OWNER).size(), "the pass found it and left it to its owner");
    Status s = lastPublished();
    assertEquals(List.of(run), s.runs().stream().map(Status.RunStatus::run).toList(), "D1: the status shows it");
    assertEquals(Status.Supervision.OTHER, s.runs().get(0).supervision());
    assertEquals(1, s.lanes().get(0).occupied(), "Q11: it occupies a slot of its lane");

    b.world.end(clientProcess, null, 9);
    b.until("the claim of the dead client is rolled back", () -> b.run(run).state() == RunState.SETTLED,
        3 * Bench.ms(Timeout.RECONCILE));
    b.run(Bench.ms(Timeout.HEARTBEAT));
    assertTrue(lastPublished().runs().isEmpty());
    assertEquals(new Status.LaneStatus(LANE_A, 2, 0, 0, 0, false), lastPublished().lanes().get(0));
    assertEquals(TicketState.HELD, b.ticket(t).state(), "Q8: a hand-started claim rolled back holds its ticket");
    assertEquals(1, lastPublished().tickets().get(TicketState.HELD), "the status read the store after the rollback");
  }

  /** {@code real} with its store's queries counted in {@link #reads}. */
  private Coordination counting(Coordination real) {
    Store store = real.store();
    Store counted = (Store) Proxy.newProxyInstance(Store.class.getClassLoader(), new Class<?>[] {Store.class},
        (proxy, m, args) -> {
          String what = m.getName();
          if (args != null && args.length == 1 && args[0] instanceof TicketQuery q) {
            what += " " + q.state();
          }
          reads.merge(what, 1, Integer::sum);
          return call(m, store, args);
        });
    return (Coordination) Proxy.newProxyInstance(Coordination.class.getClassLoader(),
        new Class<?>[] {Coordination.class},
        (proxy, m, args) -> m.getName().equals("store") && m.getParameterCount() == 0 ? counted : call(m, real, args));
  }

  private static Object call(Method m, Object target, Object[] args) throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
