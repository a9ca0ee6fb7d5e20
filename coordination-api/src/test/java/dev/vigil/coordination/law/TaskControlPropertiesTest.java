package dev.vigil.coordination.law;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

import dev.vigil.coordination.AbortClaim;
import dev.vigil.coordination.Control;
import dev.vigil.coordination.Denials;
import dev.vigil.coordination.Event;
import dev.vigil.coordination.Prerequisites;
import dev.vigil.coordination.RetryPolicy;
import dev.vigil.coordination.Retry;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunState;
import dev.vigil.coordination.Settlement;
import dev.vigil.coordination.Snapshot;
import dev.vigil.coordination.StopIntent;
import dev.vigil.coordination.StopRequest;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.Verdict;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

/**
 * The laws of task control on the reference model, over random step sequences that kill, time out,
 * release with grants, retry and report: Q12 and Q13 (a stop intent on a live run; KILLED exactly
 * for killed runs, settled once, spending nothing, the ticket where the kill said), Q1 with grants
 * (a released ticket always has an attempt left), retries (the same work once, a HELD original
 * cancelled) and the event stream (each decision appends exactly its events, numbered without gaps).
 */
class TaskControlPropertiesTest {
  private static final RetryPolicy POLICY = new RetryPolicy(1_000, 60_000);

  private static void forEveryStep(BiConsumer<Long, Trace> check) {
    LeaseLawPropertiesTest.forEveryStep(check);
  }

  private static Optional<Ticket> ticket(Snapshot s, TicketId id) {
    return LeaseLawPropertiesTest.ticket(s, id);
  }

  private static Optional<Run> run(Snapshot s, RunId id) {
    return LeaseLawPropertiesTest.run(s, id);
  }

  /** The tickets {@code t} waits for, as {@code s} holds them. */
  static List<Ticket> prerequisites(Snapshot s, Ticket t) {
    return t.after().stream().map(p -> ticket(s, p).orElseThrow()).toList();
  }

  /** The store after, without the events the step appended, equals the store before with only {@code changed}. */
  private static List<Event> appended(Trace t) {
    return t.after().events().subList(t.before().events().size(), t.after().events().size());
  }

  @Test
  void Q12_Q13_aStopIntentIsRecordedOnlyOnALiveRun_andAKillReplacesATimeoutButNotTheOtherWayRound() {
    Coverage cov = new Coverage("Q12 Q13 requestStop");
    forEveryStep((seed, t) -> {
      if (!(t.step() instanceof Step.RequestStop rs)) {
        return;
      }
      Optional<Run> pre = run(t.before(), rs.run());
      Optional<StopRequest.Reason> expected = pre.isEmpty() ? Optional.of(StopRequest.Reason.NOT_FOUND)
          : pre.get().state() == RunState.EXITED || pre.get().state() == RunState.SETTLED
              ? Optional.of(StopRequest.Reason.ENDED)
          : rs.intent() == StopIntent.TIMEOUT && pre.get().state() == RunState.CLAIMED
              ? Optional.of(StopRequest.Reason.NOT_STARTED)
          : Optional.empty();
      if (t.decision() instanceof StopRequest.Recorded r) {
        assertEquals(Optional.empty(), expected, t.where(seed));
        StopIntent before = pre.get().stopIntent();
        StopIntent now = before == null ? rs.intent() : before.then(rs.intent());
        assertEquals(pre.get().withStopIntent(now), r.run(), "Q13: only the intent changes, " + t.where(seed));
        assertEquals(now != before, r.changed(), t.where(seed));
        assertEquals(r.changed() ? 1 : 0, appended(t).size(), "one event when the intent changed, " + t.where(seed));
        assertEquals(t.before().tickets(), t.after().tickets(), "a stop intent moves no ticket, " + t.where(seed));
        assertEquals(t.before().leases(), t.after().leases(), "a stop intent releases no lease, " + t.where(seed));
        if (before != null && before.kill() && rs.intent() == StopIntent.TIMEOUT) {
          assertEquals(before, r.run().stopIntent(), "a time-out never replaces a kill, " + t.where(seed));
          cov.saw("timeout-after-kill-kept");
        } else if (before == StopIntent.TIMEOUT && rs.intent().kill()) {
          cov.saw("kill-replaces-timeout");
        }
        cov.saw("recorded-" + rs.intent() + "-on-" + pre.get().state());
      } else if (t.decision() instanceof StopRequest.Denied d) {
        assertEquals(expected, Optional.of(d.reason()), t.where(seed));
        assertEquals(t.before(), t.after(), "a denied stop request changed the store, " + t.where(seed));
        cov.saw(d.reason().name());
      } else {
        throw new AssertionError(t.decision());
      }
    });
    cov.assertSaw("recorded-KILL-on-RUNNING", "recorded-TIMEOUT-on-RUNNING", "recorded-KILL_RETRY-on-RUNNING",
        "recorded-KILL_HOLD-on-RUNNING", "recorded-KILL-on-CLAIMED", "timeout-after-kill-kept", "kill-replaces-timeout",
        "NOT_FOUND", "ENDED", "NOT_STARTED");
  }

  @Test
  void Q13_aKilledRunSettlesKilledOnce_spendsNoAttempt_andItsTicketGoesWhereTheKillSaid() {
    Coverage cov = new Coverage("Q13 settlement");
    forEveryStep((seed, t) -> {
      if (t.step() instanceof Step.Finish f) {
        Optional<Run> pre = run(t.before(), f.finish().run());
        boolean killed = pre.isPresent() && pre.get().stopIntent() != null && pre.get().stopIntent().kill();
        if (t.decision() instanceof Settlement.Settled s) {
          assertEquals(killed, s.run().verdict() == Verdict.KILLED, "Q13: KILLED exactly for killed runs, "
              + t.where(seed));
          if (killed) {
            Ticket before = ticket(t.before(), s.ticket().id()).orElseThrow();
            assertEquals(before.attemptsUsed(), s.ticket().attemptsUsed(), "Q13: a kill spends nothing, "
                + t.where(seed));
            TicketState expected = switch (pre.get().stopIntent()) {
              case KILL -> TicketState.CANCELLED;
              case KILL_RETRY -> pre.get().handStarted() ? TicketState.HELD : TicketState.READY; // Q8
              case KILL_HOLD -> TicketState.HELD;
              case TIMEOUT -> throw new AssertionError();
            };
            assertEquals(expected, s.ticket().state(), "Q13: the ticket goes where the kill said, " + t.where(seed));
            cov.saw("killed-" + pre.get().stopIntent() + "-" + expected);
          }
        } else if (t.decision() instanceof Settlement.Denied d && d.reason() == Settlement.Reason.KILL_MISMATCH) {
          assertEquals(t.before(), t.after(), t.where(seed));
          assertTrue(killed != (f.finish().verdict() == Verdict.KILLED), t.where(seed));
          cov.saw(killed ? "killed-offered-" + (f.finish().verdict() == Verdict.KILLED ? "?" : "other") : "unkilled-offered-KILLED");
        } else if (t.decision() instanceof Settlement.Denied d && d.reason() == Settlement.Reason.ALREADY_SETTLED
            && pre.get().verdict() == Verdict.KILLED) {
          cov.saw("killed-settled-once");
        }
      } else if (t.decision() instanceof AbortClaim.Aborted a && a.run().stopIntent() != null) {
        StopIntent i = a.run().stopIntent();
        if (i == StopIntent.KILL) {
          assertEquals(TicketState.CANCELLED, a.ticket().state(), t.where(seed));
        } else if (i == StopIntent.KILL_HOLD) {
          assertEquals(TicketState.HELD, a.ticket().state(), t.where(seed));
        }
        cov.saw("killed-before-start-" + a.ticket().state());
      }
    });
    cov.assertSaw("killed-KILL-CANCELLED", "killed-KILL_RETRY-READY", "killed-KILL_HOLD-HELD", "killed-offered-other",
        "unkilled-offered-KILLED", "killed-settled-once", "killed-before-start-CANCELLED");
  }

  @Test
  void Q1_aReleaseGrantsWhatWasAsked_orOneWhenNoneRemain_andAReleasedTicketAlwaysHasAnAttemptLeft() {
    Coverage cov = new Coverage("Q1 release");
    forEveryStep((seed, t) -> {
      if (!(t.step() instanceof Step.Release r)) {
        return;
      }
      Optional<Ticket> pre = ticket(t.before(), r.ticket());
      if (t.decision() instanceof Control.Done d) {
        Ticket before = pre.orElseThrow();
        int lacking = Math.max(0, before.attemptsUsed() - before.allowedAttempts() + 1);
        int grant = r.moreAttempts().isPresent() ? Math.max(r.moreAttempts().getAsInt(), lacking) : lacking;
        assertEquals(before.allowedAttempts() + grant, d.ticket().allowedAttempts(), t.where(seed));
        assertEquals(before.attemptsUsed(), d.ticket().attemptsUsed(), t.where(seed));
        assertTrue(d.ticket().attemptsUsed() < d.ticket().allowedAttempts(), "Q1: a released ticket has an attempt "
            + "left, " + t.where(seed));
        assertEquals(TicketState.READY, d.ticket().state(), t.where(seed));
        cov.saw(r.moreAttempts().isPresent() ? "granted-as-asked" : grant == 1 ? "granted-one-as-none-remained"
            : "granted-none-as-some-remained");
      } else if (t.decision() instanceof Control.Denied d) {
        assertEquals(Denials.release(pre, r.moreAttempts(), pre.map(p -> prerequisites(t.before(), p)).orElse(List.of())),
            Optional.of(d.reason()), t.where(seed));
        assertEquals(t.before(), t.after(), t.where(seed));
        cov.saw(d.reason().name());
      }
    });
    cov.assertSaw("granted-as-asked", "granted-one-as-none-remained", "granted-none-as-some-remained", "NOT_HELD",
        "NOT_FOUND", "ATTEMPTS_LIMIT", "WAITING");
  }

  @Test
  void aRetryQueuesTheSameWorkOnce_linkedBothWays_andAHeldOriginalIsCancelled() {
    Coverage cov = new Coverage("retry");
    forEveryStep((seed, t) -> {
      if (!(t.step() instanceof Step.Retry r)) {
        return;
      }
      Optional<Ticket> pre = ticket(t.before(), r.original());
      if (t.decision() instanceof Retry.Retried d) {
        Ticket before = pre.orElseThrow();
        assertEquals(before.resubmission(), d.ticket().resubmission(), "the same work, " + t.where(seed));
        // Q14: READY, or HELD at once for a prerequisite of the work that holds it
        Optional<Ticket> blocker = Prerequisites.blocker(prerequisites(t.after(), d.ticket()));
        assertEquals(blocker.isPresent() ? TicketState.HELD : TicketState.READY, d.ticket().state(), t.where(seed));
        assertEquals(blocker.map(Ticket::id).orElse(null), d.ticket().heldFor(), t.where(seed));
        assertEquals(0, d.ticket().attemptsUsed(), t.where(seed));
        assertEquals(before.id(), d.ticket().retryOf(), t.where(seed));
        assertEquals(d.ticket().id(), d.original().retriedAs(), t.where(seed));
        assertEquals(before.state() == TicketState.HELD ? TicketState.CANCELLED : before.state(), d.original().state(),
            t.where(seed));
        assertEquals(t.before().tickets().size() + 1, t.after().tickets().size(), t.where(seed));
        assertEquals(t.before().runs(), t.after().runs(), t.where(seed));
        cov.saw("retried-" + before.state());
      } else if (t.decision() instanceof Retry.Denied d) {
        assertEquals(Denials.retry(pre), Optional.of(d), t.where(seed));
        assertEquals(t.before(), t.after(), t.where(seed));
        cov.saw(d.reason().name());
      }
    });
    cov.assertSaw("retried-SUCCEEDED", "retried-HELD", "retried-CANCELLED", "retried-FAILED", "NOT_FOUND", "NOT_FINISHED",
        "ALREADY_RETRIED");
  }

  @Test
  void everyDecisionAppendsExactlyTheEventsThatReportIt_inItsOwnStep() {
    Coverage cov = new Coverage("events");
    forEveryStep((seed, t) -> {
      List<Event> got = appended(t);
      Object d = t.decision();
      List<Event.Kind> expected;
      if (d instanceof Settlement.Settled s) {
        expected = s.ticket().state() == TicketState.HELD ? List.of(Event.Kind.SETTLED, Event.Kind.HELD)
            : List.of(Event.Kind.SETTLED);
        assertEquals(s.run().verdict(), got.get(0).verdict(), t.where(seed));
        assertEquals(s.run().id(), got.get(0).run(), t.where(seed));
        assertEquals(s.ticket().state(), got.get(0).ticketState(), t.where(seed));
      } else if (d instanceof AbortClaim.Aborted a) {
        expected = a.ticket().state() == TicketState.HELD ? List.of(Event.Kind.HELD)
            : a.ticket().state() == TicketState.CANCELLED ? List.of(Event.Kind.CANCELLED) : List.of();
      } else if (t.step() instanceof Step.Hold && d instanceof Control.Done c) {
        boolean wasHeld = ticket(t.before(), c.ticket().id()).orElseThrow().state() == TicketState.HELD;
        expected = wasHeld ? List.of() : List.of(Event.Kind.HELD);
      } else if (t.step() instanceof Step.Cancel && d instanceof Control.Done c) {
        expected = List.of(Event.Kind.CANCELLED);
        assertEquals(TicketState.CANCELLED, got.get(0).ticketState(), t.where(seed));
        assertEquals(c.ticket().id(), got.get(0).ticket(), t.where(seed));
        cov.saw("CANCELLED-by-cancel-of-" + ticket(t.before(), c.ticket().id()).orElseThrow().state());
      } else if (d instanceof Retry.Retried r) {
        boolean wasHeld = ticket(t.before(), r.original().id()).orElseThrow().state() == TicketState.HELD;
        expected = wasHeld ? List.of(Event.Kind.CANCELLED) : List.of();
        if (wasHeld) {
          assertEquals(r.original().id(), got.get(0).ticket(), t.where(seed));
          assertEquals("retried as " + r.ticket().id(), got.get(0).text(), t.where(seed));
          cov.saw("CANCELLED-by-retry");
        }
      } else if (d instanceof StopRequest.Recorded r) {
        expected = !r.changed() ? List.of()
            : List.of(r.run().stopIntent() == StopIntent.TIMEOUT ? Event.Kind.TIMEOUT : Event.Kind.KILL);
      } else if (d instanceof Event e) {
        expected = List.of(Event.Kind.SERVICE_GIVEN_UP);
        assertEquals(List.of(e), got, t.where(seed));
      } else {
        expected = List.of();
      }
      // Q14: then one HELD event for each ticket that a prerequisite newly holds (a dependency hold)
      List<TicketId> newlyHeld = t.after().tickets().stream().filter(a -> a.heldFor() != null)
          .filter(a -> ticket(t.before(), a.id()).map(b -> b.state() != TicketState.HELD).orElse(true))
          .map(Ticket::id).sorted().toList();
      List<TicketId> heldEvents = got.subList(Math.min(expected.size(), got.size()), got.size()).stream()
          .map(Event::ticket).sorted().toList();
      if (!newlyHeld.isEmpty()) {
        cov.saw("HELD-by-a-prerequisite");
      }
      expected = new java.util.ArrayList<>(expected);
      for (int i = 0; i < newlyHeld.size(); i++) {
        expected.add(Event.Kind.HELD);
      }
      assertEquals(expected, got.stream().map(Event::kind).toList(), "the events of " + t.where(seed));
      assertEquals(newlyHeld, heldEvents, "the dependency holds reported, " + t.where(seed));
      for (Event e : got) {
        cov.saw(e.kind().name());
        assertTrue(e.ticket() == null || ticket(t.after(), e.ticket()).isPresent(), t.where(seed));
      }
    });
    cov.assertSaw("SETTLED", "HELD", "CANCELLED", "KILL", "TIMEOUT", "SERVICE_GIVEN_UP", "HELD-by-a-prerequisite",
        "CANCELLED-by-cancel-of-READY",
        "CANCELLED-by-cancel-of-HELD", "CANCELLED-by-retry");
  }

  @Test
  void Q13_theRetryPolicySendsAKilledTicketWhereTheKillSaid_andSpendsNothing() {
    Coverage cov = new Coverage("Q13 policy");
    qt().withExamples(2_000)
        .forAll(integers().between(1, 5), integers().between(0, 4), integers().between(1, 3), integers().between(0, 1))
        .checkAssert((max, used, intentIx, hand) -> {
          int u = Math.min(used, max - 1);
          StopIntent intent = StopIntent.values()[intentIx];
          Ticket t = new Ticket(new TicketId(1), dev.vigil.coordination.Lane.DEFAULT, "command", "{}",
              TicketState.LEASED, u, max, 0, 0, 0, false, null, 0);
          dev.vigil.coordination.TicketMove m = POLICY.decide(t, hand == 1, Verdict.KILLED, "killed", 0, 7_000,
              intent);
          assertEquals(u, m.attemptsUsed(), "Q13: no attempt spent");
          TicketState after = m.applyTo(t).state();
          TicketState expected = intent == StopIntent.KILL ? TicketState.CANCELLED
              : intent == StopIntent.KILL_HOLD || hand == 1 ? TicketState.HELD : TicketState.READY;
          assertEquals(expected, after, intent + " hand " + hand);
          if (after == TicketState.READY) {
            assertEquals(7_000, m.applyTo(t).notBeforeMs(), "a kill with retry is due at once");
          }
          cov.saw(intent + "-" + after);
        });
    cov.assertSaw("KILL-CANCELLED", "KILL_RETRY-READY", "KILL_RETRY-HELD", "KILL_HOLD-HELD");
  }
}
