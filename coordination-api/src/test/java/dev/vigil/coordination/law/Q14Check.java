package dev.vigil.coordination.law;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.Claim;
import dev.vigil.coordination.Claims;
import dev.vigil.coordination.Denials;
import dev.vigil.coordination.Prerequisite;
import dev.vigil.coordination.Prerequisites;
import dev.vigil.coordination.Snapshot;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import java.util.List;
import java.util.Optional;

/**
 * Q14, prerequisites first, checked on one transition of any store: no claim is granted before
 * every prerequisite of its ticket SUCCEEDED; a WAITING denial is given exactly when one has not;
 * a dependency hold names a prerequisite that holds its dependents; a hold ends only by a release
 * or a retry of what held it; prerequisites change only by a retry that stands in for one. Each
 * case it meets is counted, so the properties that call it can require every one to occur.
 */
public final class Q14Check {
  /** The cases a long enough run of {@link RandomSteps} shows, each counted by {@link #step}. */
  public static final String[] CASES = {"claimed-after-its-prerequisites-succeeded", "denied-WAITING",
      "held-for-HELD", "held-for-FAILED", "held-for-CANCELLED", "held-transitively", "held-at-submission",
      "hold-ended-by-Release", "hold-ended-by-Retry", "moved-to-the-retry", "waits-for-an-earlier-one-of-its-batch"};

  private Q14Check() {}

  /** Checks one transition and counts what it saw in {@code cov}. */
  public static void step(long seed, Trace t, Coverage cov) {
    String where = "Q14 prerequisites first, " + t.where(seed);
    Object d = t.decision();
    if (d instanceof Claim.Granted g) {
      claimed(t.before(), g.run().ticket(), where, cov);
    } else if (d instanceof Claims c) {
      c.granted().forEach(g -> claimed(t.before(), g.run().ticket(), where, cov));
    } else if (d instanceof Claim.Denied denied
        && (t.step() instanceof Step.Claim || t.step() instanceof Step.ClaimByHand)) {
      TicketId id = t.step() instanceof Step.Claim c ? c.ticket() : ((Step.ClaimByHand) t.step()).ticket();
      long nowMs = t.step() instanceof Step.Claim c ? c.nowMs() : ((Step.ClaimByHand) t.step()).nowMs();
      Optional<Ticket> before = ticket(t.before(), id);
      boolean met = before.map(b -> Prerequisites.met(states(t.before(), b))).orElse(true);
      boolean leased = t.before().leases().stream().anyMatch(l -> l.ticket().equals(id));
      boolean laneParked = before.isPresent() && t.before().parkedLanes().contains(before.get().lane());
      assertEquals(Denials.claim(before, leased, laneParked, nowMs, met), Optional.of(denied.reason()), where);
      if (denied.reason() == Claim.Reason.WAITING) {
        assertFalse(met, where + ": WAITING, but every prerequisite had succeeded");
        cov.saw("denied-WAITING");
      }
    }
    for (Ticket a : t.after().tickets()) {
      Optional<Ticket> b = ticket(t.before(), a.id());
      if (b.isPresent() && !b.get().after().equals(a.after())) {
        assertTrue(t.step() instanceof Step.Retry, where + ": the prerequisites of " + a.id()
            + " changed, and only a retry moves a dependent onto it");
        cov.saw("moved-to-the-retry");
      }
      if (a.heldFor() != null && (b.isEmpty() || !a.heldFor().equals(b.get().heldFor()))) {
        Ticket p = ticket(t.after(), a.heldFor()).orElseThrow();
        assertTrue(Prerequisites.holdsDependents(p.state()), where + ": " + a.id() + " held for " + p.id() + ", "
            + p.state());
        assertEquals(Prerequisites.holdReason(p), a.holdReason(), where);
        cov.saw("held-for-" + p.state());
        if (p.heldFor() != null) {
          cov.saw("held-transitively");
        }
        if (b.isEmpty()) {
          cov.saw("held-at-submission");
        }
      }
      if (b.isPresent() && b.get().heldFor() != null && a.heldFor() == null) {
        assertTrue(t.step() instanceof Step.Release || t.step() instanceof Step.Retry
            || t.step() instanceof Step.Cancel, where + ": the hold of " + a.id() + " for " + b.get().heldFor()
            + " ended by " + t.step());
        if (a.state() == TicketState.READY) {
          cov.saw("hold-ended-by-" + t.step().getClass().getSimpleName());
        }
      }
    }
    if (t.step() instanceof Step.SubmitAll s && d instanceof List<?> out) {
      for (int i = 0; i < s.tickets().size(); i++) {
        for (Prerequisite p : s.tickets().get(i).after()) {
          if (p instanceof Prerequisite.Earlier e && out.get(i) instanceof Submission.Accepted acc) {
            TicketId earlier = id((Submission) out.get(e.index()));
            assertTrue(acc.ticket().after().contains(earlier), where + ": submission " + (i + 1) + " waits for "
                + earlier);
            cov.saw("waits-for-an-earlier-one-of-its-batch");
          }
        }
      }
    }
  }

  private static void claimed(Snapshot before, TicketId id, String where, Coverage cov) {
    Ticket t = ticket(before, id).orElseThrow();
    assertTrue(Prerequisites.met(states(before, t)), where + ": " + id + " was claimed while its prerequisites were "
        + t.after().stream().map(p -> p + " " + ticket(before, p).map(Ticket::state).orElse(null)).toList());
    if (!t.after().isEmpty()) {
      cov.saw("claimed-after-its-prerequisites-succeeded");
    }
  }

  private static TicketId id(Submission s) {
    return s instanceof Submission.Accepted a ? a.ticket().id() : ((Submission.Duplicate) s).existing().id();
  }

  static List<TicketState> states(Snapshot s, Ticket t) {
    return t.after().stream().map(p -> ticket(s, p).orElseThrow().state()).toList();
  }

  static Optional<Ticket> ticket(Snapshot s, TicketId id) {
    return s.tickets().stream().filter(t -> t.id().equals(id)).findFirst();
  }
}
