package dev.vigil.coordination.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.vigil.coordination.Claim;
import dev.vigil.coordination.Event;
import dev.vigil.coordination.ExitAndFinish;
import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Finish;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunStart;
import dev.vigil.coordination.RunState;
import dev.vigil.coordination.Settlement;
import dev.vigil.coordination.Snapshot;
import dev.vigil.coordination.Start;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.Verdict;
import dev.vigil.coordination.law.CoordinationInvariants;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The server goes away in the middle of verbs: its sessions are ended ({@code pg_terminate_backend},
 * as an administrator or a failover does), or it is stopped and started again. Three daemons' worth of
 * threads submit, claim, start and settle meanwhile, each on the same open store, and write down every
 * decision the store acknowledged and every verb it reported unavailable. Then, on the same store
 * (never reopened):
 *
 * <ol>
 *   <li>no acknowledged decision is lost: every acknowledged ticket, claim, start and settlement is
 *       there, as acknowledged;
 *   <li>no verb is half applied: the invariants hold (a claim without its lease, a settlement without
 *       its ticket's move would break them), ticket and event numbers have no gap (a verb that failed
 *       after taking a number took none), and a submission reported unrecorded left nothing, so the
 *       same key submits a new ticket;
 *   <li>the store works again once the server answers: every thread acknowledges decisions after the
 *       last outage;
 *   <li>the test proves something: some verbs did fail as unavailable.
 * </ol>
 */
class PostgresConnectionLossTest {
  private static final Lane LANE = new Lane("loss");
  private static final long TTL = 60_000;
  private static final int THREADS = 3;

  @Test
  void C1_C7_C8_endedSessions_loseNoAcknowledgedDecision_andHalfApplyNoVerb() throws Exception {
    PostgresServer server = PostgresServer.get();
    outage(server, (schema, rounds) -> {
      for (int i = 0; i < 8; i++) {
        Thread.sleep(250);
        rounds.add(server.terminateSessions(schema));
      }
    });
  }

  @Test
  void C1_C7_C8_aServerStoppedAndStartedAgain_losesNoAcknowledgedDecision_andHalfAppliesNoVerb() throws Exception {
    PostgresServer server = PostgresServer.get();
    assumeTrue(server.isEmbedded(), "the server is stopped only when the tests started it themselves");
    outage(server, (schema, rounds) -> {
      for (int i = 0; i < 2; i++) {
        Thread.sleep(400);
        server.stop();
        Thread.sleep(600);
        server.startAgain();
        rounds.add(1);
      }
    });
  }

  interface Disturbance {
    void run(String schema, List<Integer> rounds) throws Exception;
  }

  /** What the store told the threads. */
  private static final class Ledger {
    final Map<String, TicketId> submitted = new ConcurrentHashMap<>();
    final Set<String> notRecorded = ConcurrentHashMap.newKeySet();
    final Map<RunId, OwnerId> claimed = new ConcurrentHashMap<>();
    final Set<RunId> started = ConcurrentHashMap.newKeySet();
    final Set<RunId> settled = ConcurrentHashMap.newKeySet();
    final AtomicInteger unavailable = new AtomicInteger();
    final AtomicInteger outcomeUnknown = new AtomicInteger();
    final Map<String, AtomicInteger> acknowledgedAfterOutages = new ConcurrentHashMap<>();
  }

  private void outage(PostgresServer server, Disturbance disturbance) throws Exception {
    PostgresOptions options = server.freshOptions().withPoolSize(4).withConnectTimeout(Duration.ofSeconds(1));
    Ledger ledger = new Ledger();
    ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    AtomicBoolean disturbing = new AtomicBoolean(true);
    AtomicBoolean stop = new AtomicBoolean();
    try (PostgresCoordination pg = PostgresCoordination.open(options)) {
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        OwnerId owner = new OwnerId("d-host" + t);
        String name = "t" + t;
        threads.add(new Thread(() -> {
          try {
            work(pg, owner, name, ledger, disturbing, stop);
          } catch (Throwable e) {
            failures.add(name + ": " + e);
          }
        }, "worker-" + name));
      }
      threads.forEach(Thread::start);
      List<Integer> rounds = new ArrayList<>();
      try {
        disturbance.run(options.schema(), rounds);
      } finally {
        disturbing.set(false);
      }
      Thread.sleep(1_500); // every thread works on after the last outage
      stop.set(true);
      for (Thread th : threads) {
        th.join(30_000);
      }
      assertTrue(failures.isEmpty(), String.join("\n", failures));

      // 4. the test proves something
      assertTrue(ledger.unavailable.get() > 0, "no verb met the outage (" + rounds + "), so the test proved nothing");
      // 3. the store works again, never reopened
      for (int t = 0; t < THREADS; t++) {
        AtomicInteger n = ledger.acknowledgedAfterOutages.get("t" + t);
        assertTrue(n != null && n.get() > 0, "thread t" + t + " got no decision once the server was back");
      }
      Snapshot s = pg.store().snapshot();
      // 1. no acknowledged decision lost
      for (Map.Entry<String, TicketId> e : ledger.submitted.entrySet()) {
        assertTrue(pg.store().ticket(e.getValue()).isPresent(), "the acknowledged ticket " + e.getValue() + " is lost");
        Submission again = pg.submit(ticket(e.getKey()), 1);
        assertEquals(e.getValue(), assertInstanceOf(Submission.Duplicate.class, again,
            "the key " + e.getKey() + " of an acknowledged ticket is lost").existing().id());
      }
      for (Map.Entry<RunId, OwnerId> e : ledger.claimed.entrySet()) {
        Run r = pg.store().run(e.getKey()).orElse(null);
        assertTrue(r != null, "C1: the acknowledged claim of " + e.getKey() + " is lost");
        assertEquals(e.getValue(), r.owner(), "C1: the acknowledged claim of " + e.getKey() + " changed owner");
      }
      for (RunId id : ledger.started) {
        assertTrue(pg.store().run(id).orElseThrow().state() != RunState.CLAIMED, "Q3: the acknowledged start of " + id
            + " is lost");
      }
      for (RunId id : ledger.settled) {
        Run r = pg.store().run(id).orElseThrow();
        assertEquals(RunState.SETTLED, r.state(), "C8: the acknowledged settlement of " + id + " is lost");
        assertEquals(Verdict.SUCCEEDED, r.verdict(), "C8: " + id);
        assertEquals(TicketState.SUCCEEDED, pg.store().ticket(id.ticket()).orElseThrow().state(),
            "C7: the ticket of the acknowledged settlement of " + id + " did not move with it");
      }
      // 2. no verb half applied
      CoordinationInvariants.check(s);
      List<Long> ticketIds = s.tickets().stream().map(t -> t.id().seq()).toList();
      for (int i = 0; i < ticketIds.size(); i++) {
        assertEquals(i + 1, ticketIds.get(i), "ticket numbers have a gap: a failed submission took a number");
      }
      List<Event> events = s.events();
      for (int i = 0; i < events.size(); i++) {
        assertEquals(i + 1, events.get(i).id(), "event numbers have a gap: a failed verb took a number");
      }
      for (Run r : s.runs()) {
        if (r.state() == RunState.SETTLED) {
          assertTrue(events.stream().anyMatch(e -> r.id().equals(e.run()) && e.kind() == Event.Kind.SETTLED),
              "C8: " + r.id() + " settled without its event");
        }
      }
      for (String key : ledger.notRecorded) {
        if (!ledger.submitted.containsKey(key)) {
          assertInstanceOf(Submission.Accepted.class, pg.submit(ticket(key), 1),
              "a submission reported unrecorded left its ticket behind (key " + key + ")");
        }
      }
      CoordinationInvariants.check(pg.store());
      System.out.printf("outages %s: %d tickets, %d claims, %d starts, %d settlements acknowledged; %d verbs"
              + " unavailable (%d of them during their commit)%n", rounds, ledger.submitted.size(),
          ledger.claimed.size(), ledger.started.size(), ledger.settled.size(), ledger.unavailable.get(),
          ledger.outcomeUnknown.get());
    } finally {
      server.drop(options.schema());
    }
  }

  private static NewTicket ticket(String key) {
    return new NewTicket(LANE, "command", "{}", 3, 0, 0, key);
  }

  /** One thread's loop: submit, claim, start and settle, every verb tried again after the server is back. */
  private static void work(PostgresCoordination pg, OwnerId owner, String name, Ledger ledger, AtomicBoolean disturbing,
                           AtomicBoolean stop) throws InterruptedException {
    Deque<RunId> toStart = new ArrayDeque<>();
    Deque<RunId> toSettle = new ArrayDeque<>();
    int n = 0;
    while (!stop.get()) {
      boolean quiet = !disturbing.get();
      long now = System.currentTimeMillis();
      String key = name + "-" + (++n);
      Submission s;
      try {
        s = pg.submit(ticket(key), now);
      } catch (PostgresUnavailableException e) {
        count(ledger, e);
        s = null;
        if (!e.outcomeUnknown()) {
          ledger.notRecorded.add(key); // broken before its commit: nothing of it may be recorded
        }
      }
      if (s instanceof Submission.Accepted a) {
        ledger.submitted.put(key, a.ticket().id());
        acknowledged(ledger, name, quiet);
      }
      if (s instanceof Submission.Duplicate d) {
        ledger.submitted.put(key, d.existing().id()); // recorded by an attempt whose commit went unanswered
      }
      var claims = call(ledger, () -> pg.claimNext(LANE, owner, now, TTL, 1));
      if (claims != null) {
        for (Claim.Granted g : claims.granted()) {
          ledger.claimed.put(g.run().id(), owner);
          toStart.add(g.run().id());
          acknowledged(ledger, name, quiet);
        }
      }
      RunId run = toStart.peek();
      if (run != null) {
        Start st = call(ledger, () -> pg.start(run, owner, new RunStart(new ProcessIdentity("boot", 4242, 1, 4242),
            "1.0.0", "ab".repeat(32), now)));
        if (st instanceof Start.Started || (st instanceof Start.Denied d && d.reason() == Start.Reason.ALREADY_STARTED)) {
          toStart.poll();
          toSettle.add(run);
          if (st instanceof Start.Started) {
            ledger.started.add(run);
            acknowledged(ledger, name, quiet);
          }
        } else if (st != null) {
          throw new AssertionError("start of " + run + " by its own claimant refused: " + st);
        }
      }
      RunId done = toSettle.peek();
      if (done != null) {
        ExitOwner me = ExitOwner.supervisor(owner);
        ExitAndFinish ef = call(ledger, () -> pg.takeExitAndFinish(done, me, RunExit.code(0, now),
            Finish.succeeded(me, done, "ok", null), now));
        if (ef != null) {
          toSettle.poll();
          if (ef.settlement().orElse(null) instanceof Settlement.Settled) {
            ledger.settled.add(done);
            acknowledged(ledger, name, quiet);
          }
        }
      }
      if (s == null) {
        Thread.sleep(20);
      }
    }
  }

  private static void acknowledged(Ledger ledger, String name, boolean quiet) {
    if (quiet) {
      ledger.acknowledgedAfterOutages.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
    }
  }

  /** The verb's decision, or null when the store reported the server unavailable. */
  private static <T> T call(Ledger ledger, Supplier<T> verb) {
    try {
      return verb.get();
    } catch (PostgresUnavailableException e) {
      count(ledger, e);
      return null;
    }
  }

  private static void count(Ledger ledger, PostgresUnavailableException e) {
    ledger.unavailable.incrementAndGet();
    if (e.outcomeUnknown()) {
      ledger.outcomeUnknown.incrementAndGet();
    }
  }
}
