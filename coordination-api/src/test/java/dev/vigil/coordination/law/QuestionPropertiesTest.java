package dev.vigil.coordination.law;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.vigil.coordination.Action;
import dev.vigil.coordination.Answering;
import dev.vigil.coordination.Applying;
import dev.vigil.coordination.Asking;
import dev.vigil.coordination.Claim;
import dev.vigil.coordination.Event;
import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Finish;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewQuestion;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.Question;
import dev.vigil.coordination.QuestionId;
import dev.vigil.coordination.QuestionOption;
import dev.vigil.coordination.QuestionPlan;
import dev.vigil.coordination.RetryPolicy;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunStart;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Q16 on the reference model: the apply decision ({@link QuestionPlan}) against every ticket state and lane
 * state, and the question verbs under random sequences mixed with an operator's own hands on the same
 * tickets. Both count their decision variants.
 */
class QuestionPropertiesTest {
  static final long NOW = 1_700_000_000_000L;
  static final OwnerId OWNER = new OwnerId("d-questions");
  static final Lane LANE = new Lane("gpu");

  /** A ticket's situation when the answer is applied. */
  enum Setup { NONE, READY_DUE, READY_WAITING, LEASED, HELD, HELD_AT_LIMIT, SUCCEEDED, CANCELLED }

  /** Every action kind, with an index the generator draws. */
  enum Kind { RELEASE, CANCEL, RETRY_NOW, PARK_LANE, UNPARK_LANE, RESTART_SERVICE, STOP_SERVICE, RESET_BUDGET, REPLY }

  /** A model holding one ticket in {@code setup} (none for NONE); returns the ticket's id (t-1, or t-99 for NONE). */
  static TicketId build(LeaseLaw m, Setup setup) {
    if (setup == Setup.NONE) {
      return new TicketId(99);
    }
    NewTicket n = switch (setup) {
      case READY_WAITING -> new NewTicket(LANE, "command", "{}", 3, 0, NOW + 60_000, null);
      case HELD_AT_LIMIT -> new NewTicket(LANE, "command", "{}", NewTicket.MAX_ATTEMPTS, 0, 0, null);
      default -> new NewTicket(LANE, "command", "{}", 3, 0, 0, null);
    };
    TicketId t = ((Submission.Accepted) m.submit(n, NOW - 1_000)).ticket().id();
    switch (setup) {
      case LEASED -> m.claim(t, OWNER, NOW - 500, 30_000);
      case HELD, HELD_AT_LIMIT -> m.hold(t, "for a person", NOW - 500);
      case CANCELLED -> m.cancel(t, NOW - 500);
      case SUCCEEDED -> {
        RunId run = ((Claim.Granted) m.claim(t, OWNER, NOW - 500, 30_000)).run().id();
        m.start(run, OWNER, new RunStart(new ProcessIdentity("b", 7, 7, 7), "1", "0".repeat(64), NOW - 400));
        m.takeExit(run, ExitOwner.supervisor(OWNER), RunExit.code(0, NOW - 300));
        m.finish(Finish.succeeded(ExitOwner.supervisor(OWNER), run, "done", null), NOW - 300);
      }
      default -> { }
    }
    return t;
  }

  static Action action(Kind k, TicketId t, int n) {
    return switch (k) {
      case RELEASE -> new Action.Release(t, n);
      case CANCEL -> new Action.Cancel(t);
      case RETRY_NOW -> new Action.RetryNow(t);
      case PARK_LANE -> new Action.ParkLane(LANE);
      case UNPARK_LANE -> new Action.UnparkLane(LANE);
      case RESTART_SERVICE -> new Action.RestartService("web");
      case STOP_SERVICE -> new Action.StopService("web");
      case RESET_BUDGET -> new Action.ResetRestartBudget("web");
      case REPLY -> new Action.Reply("{\"go\":" + n + "}");
    };
  }

  /** The oracle, written from the law's words: whether the action still makes sense. */
  static boolean makesSense(Kind k, Setup s, boolean laneParked) {
    return switch (k) {
      case RELEASE -> s == Setup.HELD;
      case CANCEL -> s == Setup.READY_DUE || s == Setup.READY_WAITING || s == Setup.HELD || s == Setup.HELD_AT_LIMIT;
      case RETRY_NOW -> s == Setup.READY_DUE || s == Setup.READY_WAITING || s == Setup.HELD || s == Setup.HELD_AT_LIMIT;
      case PARK_LANE -> !laneParked;
      case UNPARK_LANE -> laneParked;
      case RESTART_SERVICE, STOP_SERVICE, RESET_BUDGET, REPLY -> true;
    };
  }

  @Test
  void Q16_theApplyDecision_doesWhatStillMakesSense_onceAndWithItsQuestion_andSaysWhatItSkipped() {
    Coverage cov = new Coverage("Q16 apply decision");
    qt().withExamples(3_000).withShrinkCycles(0)
        .forAll(integers().between(0, Setup.values().length - 1), integers().between(0, Kind.values().length - 1),
            integers().between(1, 5), integers().between(0, 1))
        .checkAssert((si, ki, n, parked) -> {
          Setup setup = Setup.values()[si];
          Kind kind = Kind.values()[ki];
          LeaseLaw m = new LeaseLaw(new RetryPolicy(1_000, 60_000));
          TicketId t = build(m, setup);
          if (parked == 1) {
            m.parkLane(LANE);
          }
          Action a = action(kind, t, n);
          String where = setup + " " + a.encode() + " lane parked " + (parked == 1);
          QuestionId q = assertInstanceOf(Asking.Asked.class, m.ask(new NewQuestion("k", "what now?", null,
              setup == Setup.NONE ? null : t, "web", List.of(new QuestionOption("go", "do it", List.of(a)),
              new QuestionOption("nothing", "", List.of()))), NOW)).question().id();
          Optional<Ticket> before = m.ticket(t);
          List<Event> eventsBefore = m.events(0, 1_000);
          assertInstanceOf(Answering.Answered.class, m.answer(q, "go", NOW + 10), where);
          assertEquals(before, m.ticket(t), "Q16: an answer alone changes no ticket, " + where);
          assertEquals(Set.of(LANE).equals(m.parkedLanes()), parked == 1, "an answer parks nothing, " + where);

          Applying.Applied applied = assertInstanceOf(Applying.Applied.class, m.applyAnswer(q, NOW + 20), where);
          boolean expectDone = makesSense(kind, setup, parked == 1);
          QuestionPlan.Step step = applied.plan().steps().get(0);
          assertEquals(expectDone, step instanceof QuestionPlan.Step.Done, "the decision, " + where);
          Question after = m.question(q).orElseThrow();
          assertEquals(Question.State.APPLIED, after.state(), where);
          assertEquals(applied.plan().outcome(), after.outcome(), "the outcome is recorded with the question, " + where);
          assertEquals(Applying.Reason.ALREADY_APPLIED,
              assertInstanceOf(Applying.Denied.class, m.applyAnswer(q, NOW + 30)).reason(), "Q16: applied once, " + where);
          List<Event> appended = m.events(eventsBefore.size(), 1_000);
          if (step instanceof QuestionPlan.Step.Skipped sk) {
            assertTrue(after.outcome().contains("skipped: " + a.describe() + " (" + sk.why() + ")"),
                "the outcome says what was skipped and why: " + after.outcome());
            assertEquals(before, m.ticket(t), "a skipped action changes nothing, " + where);
            assertEquals(parked == 1, m.parkedLanes().contains(LANE), where);
            assertEquals(List.of(), appended, where);
          } else {
            assertTrue(after.outcome().startsWith("done: " + a.describe()), after.outcome());
            Ticket was = before.orElse(null);
            Ticket now = m.ticket(t).orElse(null);
            switch (kind) {
              case RELEASE -> {
                assertEquals(TicketState.READY, now.state(), where);
                assertEquals(was.attemptsGranted() + n, now.attemptsGranted(), "the grant once, " + where);
              }
              case CANCEL -> {
                assertEquals(TicketState.CANCELLED, now.state(), where);
                assertEquals(1, appended.size(), "one CANCELLED event, " + where);
                assertEquals(Event.Kind.CANCELLED, appended.get(0).kind(), where);
              }
              case RETRY_NOW -> {
                assertEquals(TicketState.READY, now.state(), where);
                assertTrue(now.notBeforeMs() <= NOW + 20, "due now, " + where);
              }
              case PARK_LANE -> assertTrue(m.parkedLanes().contains(LANE), where);
              case UNPARK_LANE -> assertTrue(!m.parkedLanes().contains(LANE), where);
              case REPLY -> assertEquals(Optional.of("{\"go\":" + n + "}"), after.reply(), where);
              default -> assertEquals(was, now, "a service action is the daemon's, not the store's, " + where);
            }
            if (kind != Kind.CANCEL) {
              assertEquals(List.of(), appended, where);
            }
          }
          CoordinationInvariants.check(m);
          cov.saw(kind + (step instanceof QuestionPlan.Step.Done ? "-done" : "-skipped"));
        });
    cov.assertSaw("RELEASE-done", "RELEASE-skipped", "CANCEL-done", "CANCEL-skipped", "RETRY_NOW-done",
        "RETRY_NOW-skipped", "PARK_LANE-done", "PARK_LANE-skipped", "UNPARK_LANE-done", "UNPARK_LANE-skipped",
        "RESTART_SERVICE-done", "STOP_SERVICE-done", "RESET_BUDGET-done", "REPLY-done");
  }

  /**
   * Random sequences of asks (some with a key used before), answers (some of an unknown option, some twice),
   * applies (some before the answer, some twice) and an operator's own release, hold and cancel of the same
   * tickets: an answer is recorded once and changes nothing else; an apply is granted exactly for an ANSWERED
   * question, once; a release is granted once however often it is applied.
   */
  @Test
  void Q16_answersAreRecordedOnce_andAppliedOnce_underRandomSequencesWithHandsOnTheTickets() {
    Coverage cov = new Coverage("Q16 sequences");
    qt().withExamples(400).withShrinkCycles(0).forAll(longs().all()).checkAssert(seed -> {
      SplittableRandom rnd = new SplittableRandom(seed);
      LeaseLaw m = new LeaseLaw(new RetryPolicy(1_000, 60_000));
      List<TicketId> tickets = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        TicketId t = ((Submission.Accepted) m.submit(new NewTicket(LANE, "command", "{}", 3, 0, 0, null), NOW))
            .ticket().id();
        m.hold(t, "for a person", NOW);
        tickets.add(t);
      }
      Map<QuestionId, Integer> applies = new HashMap<>();
      long now = NOW;
      for (int step = 0; step < 40; step++) {
        now += 10;
        String where = "seed " + seed + " step " + step;
        int pick = rnd.nextInt(7);
        TicketId t = tickets.get(rnd.nextInt(tickets.size()));
        List<Question> all = m.questions(Set.of());
        Optional<Question> someQ = all.isEmpty() ? Optional.empty() : Optional.of(all.get(rnd.nextInt(all.size())));
        if (pick == 0) {
          String key = "held:" + t + ":" + rnd.nextInt(3);
          Optional<Question> earlier = m.questionByKey(key);
          Asking a = m.ask(new NewQuestion(key, "what about " + t + "?", null, t, null, List.of(
              new QuestionOption("release", "", List.of(new Action.Release(t, 1 + rnd.nextInt(3)))),
              new QuestionOption("cancel", "", List.of(new Action.Cancel(t))))), now);
          assertEquals(earlier.isPresent(), a instanceof Asking.Duplicate, where);
          earlier.ifPresent(e -> assertEquals(e, ((Asking.Duplicate) a).question(),
              "a duplicate names the earlier question, " + where));
          cov.saw(a instanceof Asking.Asked ? "ask" : "ask-duplicate");
        } else if (pick <= 2 && someQ.isPresent()) {
          Question q = someQ.get();
          String option = rnd.nextInt(5) == 0 ? "banana" : rnd.nextBoolean() ? "release" : "cancel";
          var snap = m.snapshot();
          Answering a = m.answer(q.id(), option, now);
          if (q.state() != Question.State.OPEN) {
            assertEquals(Answering.Reason.ALREADY_ANSWERED, assertInstanceOf(Answering.Denied.class, a).reason(), where);
            cov.saw("answer-again");
          } else if (option.equals("banana")) {
            assertEquals(Answering.Reason.UNKNOWN_OPTION, assertInstanceOf(Answering.Denied.class, a).reason(), where);
            cov.saw("answer-unknown");
          } else {
            assertEquals(option, assertInstanceOf(Answering.Answered.class, a).question().answer(), where);
            cov.saw("answer");
          }
          assertEquals(snap, m.snapshot(), "Q16: the deputy's answer changes no ticket, run, lane or event, " + where);
        } else if (pick <= 4 && someQ.isPresent()) {
          Question q = someQ.get();
          Optional<Ticket> before = m.ticket(q.question().ticket());
          Applying a = m.applyAnswer(q.id(), now);
          if (q.state() == Question.State.ANSWERED) {
            Applying.Applied ap = assertInstanceOf(Applying.Applied.class, a, where);
            applies.merge(q.id(), 1, Integer::sum);
            boolean done = ap.plan().done().size() == 1;
            if (q.answer().equals("release") && done) {
              int n = ((Action.Release) ap.plan().done().get(0)).moreAttempts();
              assertEquals(before.get().attemptsGranted() + n, m.ticket(q.question().ticket()).get().attemptsGranted(),
                  where);
            }
            cov.saw("apply-" + q.answer() + (done ? "-done" : "-skipped"));
          } else {
            assertEquals(q.state() == Question.State.OPEN ? Applying.Reason.NOT_ANSWERED
                : Applying.Reason.ALREADY_APPLIED, assertInstanceOf(Applying.Denied.class, a).reason(), where);
            assertEquals(before, m.ticket(q.question().ticket()), "a refused apply changes nothing, " + where);
            cov.saw(q.state() == Question.State.OPEN ? "apply-unanswered" : "apply-again");
          }
        } else if (pick == 5) {
          m.release(t, OptionalInt.empty());
          cov.saw("hand-release");
        } else {
          if (rnd.nextBoolean()) {
            m.hold(t, "by hand", now);
          } else {
            m.cancel(t, now);
          }
        }
        for (Map.Entry<QuestionId, Integer> e : applies.entrySet()) {
          assertEquals(1, e.getValue(), "Q16: " + e.getKey() + " applied once, " + where);
          assertEquals(Question.State.APPLIED, m.question(e.getKey()).orElseThrow().state(), where);
        }
        CoordinationInvariants.check(m);
      }
    });
    cov.assertSaw("ask", "ask-duplicate", "answer", "answer-again", "answer-unknown", "apply-release-done",
        "apply-release-skipped", "apply-cancel-done", "apply-cancel-skipped", "apply-unanswered", "apply-again",
        "hand-release");
  }

  @Test
  void Q16_optionsAndActionsReadBackAsWritten() {
    Coverage cov = new Coverage("Q16 encoding");
    qt().withExamples(500).forAll(integers().between(0, Kind.values().length - 1), integers().between(1, 999),
        integers().between(1, 4)).checkAssert((ki, n, count) -> {
          List<QuestionOption> options = new ArrayList<>();
          for (int i = 0; i < count; i++) {
            Kind k = Kind.values()[(ki + i) % Kind.values().length];
            options.add(new QuestionOption("o" + i, i % 2 == 0 ? "" : "label with - and = and # " + n,
                i == 3 ? List.of() : List.of(action(k, new TicketId(n), Math.min(n, 1000)))));
            cov.saw(k.name());
          }
          assertEquals(options, QuestionOption.decodeAll(QuestionOption.encodeAll(options)));
        });
    cov.assertSaw(java.util.Arrays.stream(Kind.values()).map(Enum::name).toArray(String[]::new));
  }
}
