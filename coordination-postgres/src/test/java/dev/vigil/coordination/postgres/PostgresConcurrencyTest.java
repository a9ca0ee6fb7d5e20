package dev.vigil.coordination.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.AbortClaim;
import dev.vigil.coordination.AdoptClaim;
import dev.vigil.coordination.Claim;
import dev.vigil.coordination.Control;
import dev.vigil.coordination.Exit;
import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Finish;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.Lease;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.Readopt;
import dev.vigil.coordination.Renewal;
import dev.vigil.coordination.RetryPolicy;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunStart;
import dev.vigil.coordination.RunState;
import dev.vigil.coordination.Settlement;
import dev.vigil.coordination.Snapshot;
import dev.vigil.coordination.Start;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.Verdict;
import dev.vigil.coordination.law.CoordinationInvariants;
import dev.vigil.coordination.law.Coverage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Eight threads acting as three owners race every verb on 50 tickets for 12 s (and on, up to 36 s, until a
 * ticket that waits for another has been claimed) on one PostgreSQL store,
 * each verb on a connection of its own (a pool of 6), as the daemons of several hosts would. A checker
 * thread snapshots the store continuously and requires the invariants (C1, C3, C6, C7, C8, Q1, Q3) in
 * every snapshot; at the end every run must have been granted once (no ticket claimed twice), every
 * lease must belong to a live run (no lease lost), each run that reached its exit checkpoint must have
 * exactly one {@code Exit.Taken} across all threads (C6) and each settled run exactly one settlement
 * (C8). A second test parks a lane under racing claims: once {@code parkLane} returns, no claim in that
 * lane may commit (Q9; it fails when the claims stop locking the lane's row).
 */
@Tag("slow")
class PostgresConcurrencyTest {
  private static final Duration RACE = Duration.ofSeconds(Long.getLong("vigil.pg.race.seconds", 12));
  private static final int THREADS = 8;
  private static final int TICKETS = 50;
  private static final List<OwnerId> OWNERS = List.of(new OwnerId("d-one"), new OwnerId("d-two"),
      new OwnerId("d-three"));
  private static final List<Lane> LANES = List.of(Lane.DEFAULT, new Lane("batch"));
  private static final long TTL = 30_000;

  /** Recently granted runs, shared so that threads race on the same ones. */
  private static final class RecentRuns {
    private final RunId[] ring = new RunId[64];
    private int next;

    synchronized void add(RunId r) {
      ring[next++ % ring.length] = r;
    }

    synchronized RunId pick(SplittableRandom rnd) {
      int n = Math.min(next, ring.length);
      return n == 0 ? null : ring[rnd.nextInt(n)];
    }
  }

  @Test
  void C1_C6_C8_Q14_racingOwners_keepEveryInvariant_andEveryRunHasExactlyOneExitWinner() throws Exception {
    Map<RunId, AtomicInteger> grants = new ConcurrentHashMap<>();
    Map<RunId, AtomicInteger> exitWins = new ConcurrentHashMap<>();
    Map<RunId, AtomicInteger> settlements = new ConcurrentHashMap<>();
    Map<RunId, AtomicInteger> aborts = new ConcurrentHashMap<>();
    Coverage cov = new Coverage("racing owners");
    ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    AtomicLong snapshots = new AtomicLong();
    AtomicLong steps = new AtomicLong();
    RecentRuns claimed = new RecentRuns();
    RecentRuns running = new RecentRuns();
    RecentRuns exited = new RecentRuns();
    PostgresOptions options = PostgresServer.get().freshOptions().withPoolSize(6).withRetryPolicy(new RetryPolicy(0, 0));
    try (PostgresCoordination pg = PostgresCoordination.open(options)) {
      List<TicketId> tickets = new ArrayList<>();
      for (int i = 0; i < TICKETS; i++) {
        NewTicket n = new NewTicket(LANES.get(i % 2), "command", "{}", 1_000, i % 3, 0, null);
        if (i >= 2 && i % 3 == 0) { // Q14: every third ticket waits for the one two before it, in its lane
          n = n.withAfter(List.of(new dev.vigil.coordination.Prerequisite.Existing(tickets.get(i - 2))));
        }
        tickets.add(((Submission.Accepted) pg.submit(n, System.currentTimeMillis())).ticket().id());
      }
      // the race runs RACE, and on (up to 3 × RACE) until a ticket that waits for another was claimed: the
      // Q14 part below must not pass or fail by the luck of a loaded machine
      long start = System.nanoTime();
      AtomicLong deadline = new AtomicLong(start + RACE.toNanos());
      List<Thread> threads = new ArrayList<>();
      Thread checker = new Thread(() -> {
        while (System.nanoTime() < deadline.get() && failures.isEmpty()) {
          Snapshot snap = pg.store().snapshot();
          List<String> v = CoordinationInvariants.violations(snap);
          boolean waitedAndClaimed = snap.runs().stream().anyMatch(r -> snap.tickets().stream()
              .anyMatch(t -> t.id().equals(r.id().ticket()) && !t.after().isEmpty()));
          long now = System.nanoTime();
          if (!waitedAndClaimed && now > deadline.get() - 1_000_000_000L && now < start + 3 * RACE.toNanos()) {
            deadline.addAndGet(1_000_000_000L);
          }
          snapshots.incrementAndGet();
          if (!v.isEmpty()) {
            failures.add("snapshot " + snapshots + ": " + v);
          }
        }
      }, "invariant-checker");
      for (int t = 0; t < THREADS; t++) {
        OwnerId owner = OWNERS.get(t % OWNERS.size());
        SplittableRandom rnd = new SplittableRandom(t * 7919L + System.nanoTime());
        threads.add(new Thread(() -> {
          try {
            while (System.nanoTime() < deadline.get() && failures.isEmpty()) {
              step(pg, owner, rnd, tickets, claimed, running, exited, grants, exitWins, settlements, aborts, cov);
              steps.incrementAndGet();
            }
          } catch (Throwable e) {
            failures.add(Thread.currentThread().getName() + ": " + e);
            throw e;
          }
        }, "owner-" + owner + "-" + t));
      }
      checker.start();
      threads.forEach(Thread::start);
      for (Thread th : threads) {
        th.join();
      }
      checker.join();
      assertTrue(failures.isEmpty(), String.join("\n", failures));

      Snapshot end = pg.store().snapshot();
      CoordinationInvariants.check(end);
      assertEquals(grants.size(), end.runs().size(), "every run in the store was granted by exactly one claim");
      for (Run r : end.runs()) {
        assertEquals(1, count(grants, r.id()), "C1: run " + r.id() + " granted " + count(grants, r.id()) + " times");
        boolean exitTaken = r.state() == RunState.EXITED
            || (r.state() == RunState.SETTLED && r.verdict() != Verdict.ABANDONED);
        assertEquals(exitTaken ? 1 : 0, count(exitWins, r.id()),
            "C6: run " + r.id() + " (" + r.state() + ", " + r.verdict() + ") had " + count(exitWins, r.id())
                + " exit winners");
        if (r.state() == RunState.SETTLED) {
          assertEquals(1, count(settlements, r.id()) + count(aborts, r.id()),
              "C8: run " + r.id() + " was settled " + count(settlements, r.id()) + " times and aborted "
                  + count(aborts, r.id()) + " times");
        } else {
          assertEquals(0, count(settlements, r.id()) + count(aborts, r.id()), "C8: unsettled " + r.id());
        }
      }
      for (Lease l : end.leases()) {
        Run r = end.runs().stream().filter(x -> x.id().equals(l.run())).findFirst().orElseThrow();
        assertTrue(r.state() != RunState.SETTLED, "C7: the lease of " + l.run() + " outlived its settled run");
      }
      for (Run r : end.runs()) {
        boolean live = r.state() != RunState.SETTLED;
        assertEquals(live, end.leases().stream().anyMatch(l -> l.run().equals(r.id())),
            "C1: live run " + r.id() + " (" + r.state() + ") holds exactly its lease: no lease lost");
      }
      System.out.printf("%d steps by %d threads in %s, %d snapshots checked, %d runs: %s%n",
          steps.get(), THREADS, java.time.Duration.ofNanos(System.nanoTime() - start), snapshots.get(), end.runs().size(), cov);
      long waitedAndClaimed = end.tickets().stream()
          .filter(t -> !t.after().isEmpty() && !pg.store().runsOf(t.id()).isEmpty()).count();
      System.out.println(waitedAndClaimed + " tickets that wait for another were claimed");
      assertTrue(waitedAndClaimed > 0,
          "Q14: some ticket that waits for another was claimed by racing owners (and, as every snapshot showed, only "
              + "once the other had succeeded)");
      assertTrue(snapshots.get() >= 20, "too few snapshots checked: " + snapshots);
      cov.assertSaw("claim.granted", "claim.denied", "claimNext.granted", "start.started", "start.denied",
          "renew.renewed", "renewAll", "exit.taken", "exit.alreadyTaken", "finish.settled", "finish.alreadySettled",
          "park.done", "abort.aborted", "adopt.adopted", "release.done", "readoptAll");
    }
  }

  @Test
  void Q9_onceParkLaneReturns_noClaimInThatLaneIsGranted_evenWithClaimsInFlight() throws Exception {
    Lane lane = new Lane("hot");
    try (PostgresCoordination pg = PostgresCoordination.open(PostgresServer.get().freshOptions().withPoolSize(6))) {
      for (int i = 0; i < 400; i++) {
        pg.submit(NewTicket.of(lane, "command", "{}"), 0);
      }
      AtomicInteger parkedGrants = new AtomicInteger();
      java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
      List<Thread> claimers = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        OwnerId owner = OWNERS.get(t % OWNERS.size());
        claimers.add(new Thread(() -> {
          while (!stop.get()) {
            pg.claimNext(lane, owner, 1, TTL, 1);
          }
        }));
      }
      claimers.forEach(Thread::start);
      int cycles = 0;
      for (; cycles < 15; cycles++) {
        pg.unparkLane(lane);
        Thread.sleep(15);
        assertTrue(pg.parkLane(lane));
        int atPark = pg.store().runs().size();
        Thread.sleep(30);
        int later = pg.store().runs().size();
        parkedGrants.addAndGet(later - atPark);
      }
      stop.set(true);
      for (Thread th : claimers) {
        th.join();
      }
      assertEquals(0, parkedGrants.get(), "Q9: claims were granted in a lane after parkLane returned");
      assertTrue(pg.store().runs().size() > 0, "no claim was ever granted, so the test proved nothing");
      CoordinationInvariants.check(pg.store());
    }
  }

  private static int count(Map<RunId, AtomicInteger> m, RunId id) {
    AtomicInteger n = m.get(id);
    return n == null ? 0 : n.get();
  }

  private static void step(PostgresCoordination pg, OwnerId owner, SplittableRandom rnd, List<TicketId> tickets,
                           RecentRuns claimed, RecentRuns running, RecentRuns exited,
                           Map<RunId, AtomicInteger> grants, Map<RunId, AtomicInteger> exitWins,
                           Map<RunId, AtomicInteger> settlements, Map<RunId, AtomicInteger> aborts, Coverage cov) {
    long now = System.currentTimeMillis();
    int dice = rnd.nextInt(100);
    if (dice < 12) {
      Claim c = pg.claim(tickets.get(rnd.nextInt(tickets.size())), owner, now, TTL);
      if (c instanceof Claim.Granted g) {
        granted(g, owner, claimed, grants);
        cov.saw("claim.granted");
      } else {
        cov.saw("claim.denied");
      }
    } else if (dice < 24) {
      for (Claim.Granted g : pg.claimNext(LANES.get(rnd.nextInt(2)), owner, now, TTL, 1 + rnd.nextInt(3)).granted()) {
        granted(g, owner, claimed, grants);
        cov.saw("claimNext.granted");
      }
    } else if (dice < 40) {
      RunId run = claimed.pick(rnd);
      if (run != null) {
        Start s = pg.start(run, owner, new RunStart(new ProcessIdentity("boot", 100 + rnd.nextInt(1000), 1, 1),
            "1.0.0", "ef".repeat(32), now));
        if (s instanceof Start.Started) {
          running.add(run);
          cov.saw("start.started");
        } else {
          cov.saw("start.denied");
        }
      }
    } else if (dice < 44) {
      RunId run = claimed.pick(rnd);
      if (run == null) {
        return;
      }
      // act for the lease's owner as last read, as recovery does for an owner it found dead; a
      // racing adoption, abort or start makes the store refuse (C3 compare-and-set on the owner)
      OwnerId holder = pg.store().lease(run.ticket()).filter(l -> l.run().equals(run)).map(Lease::owner)
          .orElse(owner);
      if (rnd.nextBoolean()) {
        if (pg.abortClaim(run, holder, "spawn failed", now) instanceof AbortClaim.Aborted) {
          aborts.computeIfAbsent(run, k -> new AtomicInteger()).incrementAndGet();
          cov.saw("abort.aborted");
        }
      } else if (pg.adoptClaim(run, owner, holder, now, TTL) instanceof AdoptClaim.Adopted a) {
        assertEquals(owner, a.lease().owner(), "C3: the lease moved to the adopter");
        assertEquals(owner, a.run().owner(), "C3: the run moved with its lease");
        cov.saw("adopt.adopted");
      }
    } else if (dice < 52) {
      RunId run = running.pick(rnd);
      if (run != null && pg.renew(run, owner, now, rnd.nextInt(5) == 0 ? 1 : TTL) instanceof Renewal.Renewed) {
        cov.saw("renew.renewed");
      }
    } else if (dice < 54) {
      pg.renewAll(owner, now, TTL);
      cov.saw("renewAll");
    } else if (dice < 55) {
      RunId run = running.pick(rnd);
      if (run != null && pg.readopt(run, owner, now, TTL) instanceof Readopt.Readopted) {
        cov.saw("readopt.readopted");
      }
    } else if (dice < 56) {
      // recovery's batch, racing every other verb on the same runs: each decision is a readopt's
      java.util.List<RunId> batch = new java.util.ArrayList<>();
      for (int i = 1 + rnd.nextInt(4); i > 0; i--) {
        RunId run = running.pick(rnd);
        if (run != null) {
          batch.add(run);
        }
      }
      java.util.List<Readopt> decisions = pg.readoptAll(batch, owner, now, TTL);
      assertEquals(batch.size(), decisions.size(), "one decision per run");
      for (int i = 0; i < batch.size(); i++) {
        if (decisions.get(i) instanceof Readopt.Readopted r) {
          assertEquals(batch.get(i), r.run().id());
          assertEquals(owner, r.run().owner(), "the run is the new owner's");
          assertEquals(new dev.vigil.coordination.Lease(batch.get(i).ticket(), batch.get(i), owner, now + TTL), r.lease());
          cov.saw("readoptAll.readopted");
        }
      }
      cov.saw("readoptAll");
    } else if (dice < 72) {
      RunId run = running.pick(rnd);
      if (run != null) {
        ExitOwner claimant = rnd.nextBoolean() ? ExitOwner.supervisor(owner) : ExitOwner.recovery(owner);
        Exit e = pg.takeExit(run, claimant, rnd.nextBoolean() ? RunExit.code(rnd.nextInt(2), now)
            : RunExit.unknown(now));
        if (e instanceof Exit.Taken t) {
          exitWins.computeIfAbsent(run, k -> new AtomicInteger()).incrementAndGet();
          assertEquals(claimant, t.run().exitOwner(), "C6: the winner is recorded");
          exited.add(run);
          cov.saw("exit.taken");
        } else if (e instanceof Exit.Denied d && d.reason() == Exit.Reason.ALREADY_TAKEN) {
          cov.saw("exit.alreadyTaken");
        }
      }
    } else if (dice < 88) {
      RunId run = exited.pick(rnd);
      if (run != null) {
        Verdict v = switch (rnd.nextInt(12)) {
          case 0 -> Verdict.SUCCEEDED;
          case 1, 2 -> Verdict.BLOCKED;
          case 3, 4, 5 -> Verdict.STALLED;
          case 6 -> Verdict.LOST;
          default -> Verdict.FAILED;
        };
        // Any owner may settle on behalf of a dead exit owner, so settlements race too (C8).
        Finish f = new Finish(run, ExitOwner.recovery(owner), v, "race", v == Verdict.STALLED ? now : 0, true);
        Settlement s = pg.finish(f, now);
        if (s instanceof Settlement.Settled) {
          settlements.computeIfAbsent(run, k -> new AtomicInteger()).incrementAndGet();
          cov.saw("finish.settled");
        } else if (s instanceof Settlement.Denied d && d.reason() == Settlement.Reason.ALREADY_SETTLED) {
          cov.saw("finish.alreadySettled");
        }
      }
    } else if (dice < 93) {
      TicketId t = tickets.get(rnd.nextInt(tickets.size()));
      Control c = rnd.nextBoolean() ? pg.park(t) : pg.unpark(t);
      if (c instanceof Control.Done) {
        cov.saw("park.done");
      }
    } else if (dice < 99) {
      if (pg.release(tickets.get(rnd.nextInt(tickets.size()))) instanceof Control.Done) {
        cov.saw("release.done");
      }
    } else {
      Lane lane = LANES.get(rnd.nextInt(2));
      if (rnd.nextBoolean()) {
        pg.parkLane(lane);
      } else {
        pg.unparkLane(lane);
      }
    }
  }

  private static void granted(Claim.Granted g, OwnerId owner, RecentRuns claimed, Map<RunId, AtomicInteger> grants) {
    assertEquals(owner, g.lease().owner(), "C1: the lease belongs to the claimant");
    assertEquals(RunState.CLAIMED, g.run().state());
    grants.computeIfAbsent(g.run().id(), k -> new AtomicInteger()).incrementAndGet();
    claimed.add(g.run().id());
  }
}
