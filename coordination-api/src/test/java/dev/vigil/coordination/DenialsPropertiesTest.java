package dev.vigil.coordination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.vigil.coordination.law.Coverage;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

/**
 * {@link Denials} as properties over arbitrary rows (consistent or not, since a store reads what it
 * reads): each verb's answer is the first of its reasons, in the order its enum declares them,
 * whose condition (as the enum's javadoc states it) holds, and empty exactly when none holds. Every
 * reason of every verb, and every grant, must occur.
 */
class DenialsPropertiesTest {
  private static final int EXAMPLES = 4_000;
  private static final long NOW = 1_700_000_000_000L;
  private static final OwnerId A = new OwnerId("d-alpha");
  private static final OwnerId B = new OwnerId("d-beta");
  private static final TicketId T = new TicketId(1);
  private static final RunId RUN = new RunId(T, 1);
  private static final RunId OTHER_RUN = new RunId(T, 2);

  /** What one verb's transaction may read, drawn at random. */
  private record Rows(Optional<Ticket> ticket, boolean leased, boolean laneParked, Optional<Run> run,
                      Optional<Lease> lease, OwnerId owner, Finish finish) {
    static Rows draw(SplittableRandom rnd) {
      Optional<Ticket> ticket = rnd.nextInt(6) == 0 ? Optional.empty() : Optional.of(ticket(rnd));
      Optional<Run> run = rnd.nextInt(6) == 0 ? Optional.empty() : Optional.of(run(rnd));
      Optional<Lease> lease = rnd.nextInt(5) == 0 ? Optional.empty()
          : Optional.of(new Lease(T, rnd.nextInt(6) == 0 ? OTHER_RUN : RUN, owner(rnd), NOW - 1 + rnd.nextInt(3)));
      ExitOwner claimant = List.of(ExitOwner.supervisor(A), ExitOwner.recovery(A), ExitOwner.supervisor(B))
          .get(rnd.nextInt(3));
      Finish finish = new Finish(RUN, claimant, Verdict.SUCCEEDED, null, 0, rnd.nextInt(4) == 0);
      return new Rows(ticket, rnd.nextInt(4) == 0, rnd.nextInt(4) == 0, run, lease, owner(rnd), finish);
    }

    private static OwnerId owner(SplittableRandom rnd) {
      return rnd.nextBoolean() ? A : B;
    }

    private static Ticket ticket(SplittableRandom rnd) {
      TicketState state = TicketState.values()[rnd.nextInt(TicketState.values().length)];
      return new Ticket(T, Lane.DEFAULT, "command", "{}", state, 0, 3, 0, NOW - 1 + rnd.nextInt(3), 0,
          rnd.nextInt(4) == 0, state == TicketState.HELD ? "held" : null, 0);
    }

    private static Run run(SplittableRandom rnd) {
      RunState state = RunState.values()[rnd.nextInt(RunState.values().length)];
      RunStart start = state == RunState.RUNNING || rnd.nextInt(4) == 0
          ? new RunStart(new ProcessIdentity("boot", 7, 7, 7), "1.0.0", "ab".repeat(32), NOW) : null;
      ExitOwner exitOwner = rnd.nextInt(3) == 0 ? null
          : List.of(ExitOwner.supervisor(A), ExitOwner.recovery(A), ExitOwner.supervisor(B)).get(rnd.nextInt(3));
      return new Run(RUN, 1, state, owner(rnd), NOW, false, start, exitOwner == null ? null : RunExit.unknown(NOW),
          exitOwner, state == RunState.SETTLED ? Verdict.FAILED : null, null);
    }

    boolean holdsLease(OwnerId o) {
      return lease.isPresent() && lease.get().run().equals(RUN) && lease.get().owner().equals(o);
    }

    boolean runIn(RunState s) {
      return run.isPresent() && run.get().state() == s;
    }
  }

  /** Draws {@link #EXAMPLES} row sets and hands each to {@code check}. */
  private static void forAllRows(BiConsumer<Rows, String> check) {
    qt().withExamples(EXAMPLES).withShrinkCycles(0).forAll(longs().all()).checkAssert(seed -> {
      Rows rows = Rows.draw(new SplittableRandom(seed));
      check.accept(rows, "seed " + seed + ": " + rows);
    });
  }

  /**
   * Requires {@code got} to be the first reason, in declaration order, whose condition holds (empty
   * when none holds), and counts it.
   */
  private static <E extends Enum<E>> void firstFailing(Map<E, Boolean> conditions, Optional<E> got, Coverage cov,
                                                       String where) {
    Optional<E> expected = conditions.entrySet().stream().filter(Map.Entry::getValue).map(Map.Entry::getKey)
        .findFirst();
    assertEquals(expected, got, where);
    cov.saw(got.map(Enum::name).orElse("granted"));
  }

  private static <E extends Enum<E>> Map<E, Boolean> conditions(Class<E> type) {
    return new EnumMap<>(type);
  }

  @Test
  void C2_claimIsRefusedForTheFirstFailingCheck_NOT_FOUND_LEASED_NOT_READY_PARKED_NOT_DUE() {
    Coverage cov = new Coverage("Denials.claim");
    forAllRows((r, where) -> {
      Map<Claim.Reason, Boolean> c = conditions(Claim.Reason.class);
      boolean present = r.ticket().isPresent();
      c.put(Claim.Reason.NOT_FOUND, !present);
      c.put(Claim.Reason.LEASED, present && (r.leased() || r.ticket().get().state() == TicketState.LEASED));
      c.put(Claim.Reason.NOT_READY, present && r.ticket().get().state() != TicketState.READY);
      c.put(Claim.Reason.PARKED, present && (r.ticket().get().parked() || r.laneParked()));
      c.put(Claim.Reason.NOT_DUE, present && r.ticket().get().notBeforeMs() > NOW);
      Optional<Claim.Reason> got = Denials.claim(r.ticket(), r.leased(), r.laneParked(), NOW);
      firstFailing(c, got, cov, where);
      if (present) {
        Ticket t = r.ticket().get();
        assertEquals(t.state() == TicketState.READY && !t.parked() && t.notBeforeMs() <= NOW, t.claimableAt(NOW),
            "claimableAt: READY, unparked and due, " + where);
      }
    });
    cov.assertSaw("granted", "NOT_FOUND", "LEASED", "NOT_READY", "PARKED", "NOT_DUE");
  }

  @Test
  void Q3_startIsRefusedForTheFirstFailingCheck_NOT_FOUND_ALREADY_STARTED_NOT_CLAIMED_LEASE_LOST() {
    Coverage cov = new Coverage("Denials.start");
    forAllRows((r, where) -> {
      Map<Start.Reason, Boolean> c = conditions(Start.Reason.class);
      c.put(Start.Reason.NOT_FOUND, r.run().isEmpty());
      c.put(Start.Reason.ALREADY_STARTED, r.run().isPresent() && r.run().get().start() != null);
      c.put(Start.Reason.NOT_CLAIMED, r.run().isPresent() && !r.runIn(RunState.CLAIMED));
      c.put(Start.Reason.LEASE_LOST, !r.holdsLease(r.owner()));
      firstFailing(c, Denials.start(r.run(), r.lease(), r.owner()), cov, where);
    });
    cov.assertSaw("granted", "NOT_FOUND", "ALREADY_STARTED", "NOT_CLAIMED", "LEASE_LOST");
  }

  @Test
  void abortClaimIsRefusedForTheFirstFailingCheck_NOT_FOUND_NOT_CLAIMED_NOT_OWNER() {
    Coverage cov = new Coverage("Denials.abortClaim");
    forAllRows((r, where) -> {
      Map<AbortClaim.Reason, Boolean> c = conditions(AbortClaim.Reason.class);
      c.put(AbortClaim.Reason.NOT_FOUND, r.run().isEmpty());
      c.put(AbortClaim.Reason.NOT_CLAIMED, r.run().isPresent() && !r.runIn(RunState.CLAIMED));
      c.put(AbortClaim.Reason.NOT_OWNER, !r.holdsLease(r.owner()));
      firstFailing(c, Denials.abortClaim(r.run(), r.lease(), r.owner()), cov, where);
    });
    cov.assertSaw("granted", "NOT_FOUND", "NOT_CLAIMED", "NOT_OWNER");
  }

  @Test
  void C3_adoptClaimIsRefusedForTheFirstFailingCheck_NOT_FOUND_NOT_CLAIMED_NOT_OWNER_lapsedOrNot() {
    Coverage cov = new Coverage("Denials.adoptClaim");
    forAllRows((r, where) -> {
      Map<AdoptClaim.Reason, Boolean> c = conditions(AdoptClaim.Reason.class);
      c.put(AdoptClaim.Reason.NOT_FOUND, r.run().isEmpty());
      c.put(AdoptClaim.Reason.NOT_CLAIMED, r.run().isPresent() && !r.runIn(RunState.CLAIMED));
      c.put(AdoptClaim.Reason.NOT_OWNER, !r.holdsLease(r.owner()));
      Optional<AdoptClaim.Reason> got = Denials.adoptClaim(r.run(), r.lease(), r.owner());
      firstFailing(c, got, cov, where);
      if (got.isEmpty()) {
        cov.saw(r.lease().get().expiresAtMs() <= NOW ? "granted-lapsed" : "granted-live");
      }
    });
    cov.assertSaw("granted-lapsed", "granted-live", "NOT_FOUND", "NOT_CLAIMED", "NOT_OWNER");
  }

  @Test
  void C3_renewIsRefusedForTheFirstFailingCheck_GONE_NOT_OWNER_EXPIRED() {
    Coverage cov = new Coverage("Denials.renew");
    forAllRows((r, where) -> {
      Optional<Lease> ofRun = r.lease().filter(l -> l.run().equals(RUN));
      Map<Renewal.Reason, Boolean> c = conditions(Renewal.Reason.class);
      c.put(Renewal.Reason.GONE, ofRun.isEmpty());
      c.put(Renewal.Reason.NOT_OWNER, ofRun.isPresent() && !ofRun.get().owner().equals(r.owner()));
      c.put(Renewal.Reason.EXPIRED, ofRun.isPresent() && ofRun.get().expiresAtMs() <= NOW);
      firstFailing(c, Denials.renew(ofRun, r.owner(), NOW), cov, where);
    });
    cov.assertSaw("granted", "GONE", "NOT_OWNER", "EXPIRED");
  }

  @Test
  void C3_readoptIsRefusedForTheFirstFailingCheck_GONE_NOT_RUNNING() {
    Coverage cov = new Coverage("Denials.readopt");
    forAllRows((r, where) -> {
      Optional<Lease> ofRun = r.lease().filter(l -> l.run().equals(RUN));
      Map<Readopt.Reason, Boolean> c = conditions(Readopt.Reason.class);
      c.put(Readopt.Reason.GONE, r.run().isEmpty() || ofRun.isEmpty());
      c.put(Readopt.Reason.NOT_RUNNING, r.run().isPresent() && !r.runIn(RunState.RUNNING));
      firstFailing(c, Denials.readopt(r.run(), ofRun), cov, where);
    });
    cov.assertSaw("granted", "GONE", "NOT_RUNNING");
  }

  @Test
  void C6_takeExitIsRefusedForTheFirstFailingCheck_NOT_FOUND_ALREADY_TAKEN_NOT_RUNNING_namingTheWinner() {
    Coverage cov = new Coverage("Denials.takeExit");
    forAllRows((r, where) -> {
      Map<Exit.Reason, Boolean> c = conditions(Exit.Reason.class);
      c.put(Exit.Reason.NOT_FOUND, r.run().isEmpty());
      c.put(Exit.Reason.ALREADY_TAKEN, r.run().isPresent() && r.run().get().exitOwner() != null);
      c.put(Exit.Reason.NOT_RUNNING, r.run().isPresent() && !r.runIn(RunState.RUNNING));
      Optional<Exit.Denied> got = Denials.takeExit(r.run());
      firstFailing(c, got.map(Exit.Denied::reason), cov, where);
      got.filter(d -> d.reason() == Exit.Reason.ALREADY_TAKEN)
          .ifPresent(d -> assertEquals(r.run().get().exitOwner(), d.winner(), "C6: the loser is told who won, " + where));
    });
    cov.assertSaw("granted", "NOT_FOUND", "ALREADY_TAKEN", "NOT_RUNNING");
  }

  @Test
  void C8_finishIsRefusedForTheFirstFailingCheck_NOT_FOUND_ALREADY_SETTLED_NOT_EXITED_NOT_EXIT_OWNER() {
    Coverage cov = new Coverage("Denials.finish");
    forAllRows((r, where) -> {
      Map<Settlement.Reason, Boolean> c = conditions(Settlement.Reason.class);
      c.put(Settlement.Reason.NOT_FOUND, r.run().isEmpty());
      c.put(Settlement.Reason.ALREADY_SETTLED, r.runIn(RunState.SETTLED));
      c.put(Settlement.Reason.NOT_EXITED, r.run().isPresent() && !r.runIn(RunState.EXITED));
      c.put(Settlement.Reason.NOT_EXIT_OWNER, r.run().isPresent()
          && !r.finish().claimant().equals(r.run().get().exitOwner()) && !r.finish().exitOwnerDead());
      Optional<Settlement.Reason> got = Denials.finish(r.run(), r.finish());
      firstFailing(c, got, cov, where);
      if (got.isEmpty()) {
        cov.saw(r.finish().claimant().equals(r.run().get().exitOwner()) ? "granted-exit-owner" : "granted-dead-owner");
      }
    });
    cov.assertSaw("granted-exit-owner", "granted-dead-owner", "NOT_FOUND", "ALREADY_SETTLED", "NOT_EXITED",
        "NOT_EXIT_OWNER");
  }

  @Test
  void Q8_Q9_operatorVerbsAreRefusedForTheFirstFailingCheck_inTheOrderOfControlReason() {
    Coverage park = new Coverage("Denials.park");
    Coverage hold = new Coverage("Denials.hold");
    Coverage cancel = new Coverage("Denials.cancel");
    Coverage release = new Coverage("Denials.release");
    forAllRows((r, where) -> {
      boolean present = r.ticket().isPresent();
      boolean terminal = present && r.ticket().get().state().terminal();
      boolean leased = present && r.ticket().get().state() == TicketState.LEASED;
      Map<Control.Reason, Boolean> p = conditions(Control.Reason.class);
      p.put(Control.Reason.NOT_FOUND, !present);
      p.put(Control.Reason.TERMINAL, terminal);
      firstFailing(p, Denials.park(r.ticket()), park, where);
      Map<Control.Reason, Boolean> hc = new EnumMap<>(p);
      hc.put(Control.Reason.LEASED, leased);
      firstFailing(hc, Denials.hold(r.ticket()), hold, where);
      firstFailing(hc, Denials.cancel(r.ticket()), cancel, where);
      Map<Control.Reason, Boolean> rl = conditions(Control.Reason.class);
      rl.put(Control.Reason.NOT_FOUND, !present);
      rl.put(Control.Reason.NOT_HELD, present && r.ticket().get().state() != TicketState.HELD);
      firstFailing(rl, Denials.release(r.ticket()), release, where);
    });
    park.assertSaw("granted", "NOT_FOUND", "TERMINAL");
    hold.assertSaw("granted", "NOT_FOUND", "TERMINAL", "LEASED");
    cancel.assertSaw("granted", "NOT_FOUND", "TERMINAL", "LEASED");
    release.assertSaw("granted", "NOT_FOUND", "NOT_HELD");
  }
}
