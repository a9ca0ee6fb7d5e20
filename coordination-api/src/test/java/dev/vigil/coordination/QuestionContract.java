package dev.vigil.coordination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.law.CoordinationInvariants;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The question verbs' contract (Q16), kept by the reference model and every adapter: named examples of
 * ask, answer and apply, with {@link CoordinationInvariants} checked after each test.
 */
public abstract class QuestionContract extends StoreContract {
  protected static final long T0 = 1_700_000_000_000L;
  protected static final Lane GPU = new Lane("gpu");

  private TicketId heldTicket() {
    TicketId t = ((Submission.Accepted) c.submit(new NewTicket(GPU, "command", "{}", 2, 0, 0, null), T0)).ticket().id();
    assertInstanceOf(Control.Done.class, c.hold(t, "attempts used up", T0));
    return t;
  }

  /** A ticket whose first run is claimed. */
  private TicketId runningTicket() {
    TicketId u = ((Submission.Accepted) c.submit(NewTicket.of(GPU, "command", "{}"), T0)).ticket().id();
    assertInstanceOf(Claim.Granted.class, c.claim(u, new OwnerId("d-run"), T0, 30_000));
    return u;
  }

  private static NewQuestion aboutHold(TicketId t) {
    return new NewQuestion("held:" + t, t + " is held: what now?", null, t, null, List.of(
        new QuestionOption("release", "run it again with 2 more attempts", List.of(new Action.Release(t, 2))),
        new QuestionOption("retry", "run it again now", List.of(new Action.RetryNow(t))),
        new QuestionOption("cancel", "give it up and park the lane",
            List.of(new Action.Cancel(t), new Action.ParkLane(GPU)))));
  }

  private QuestionId ask(NewQuestion q) {
    return assertInstanceOf(Asking.Asked.class, c.ask(q, T0 + 1)).question().id();
  }

  @Test
  void Q16_aQuestionIsAskedOnce_perKey_andReadBackAsAsked() {
    TicketId t = heldTicket();
    NewQuestion q = aboutHold(t);
    int events = c.store().events(0, 1_000).size();
    Question asked = assertInstanceOf(Asking.Asked.class, c.ask(q, T0 + 1)).question();
    assertEquals(new QuestionId(1), asked.id());
    List<Event> appended = c.store().events(events, 1_000);
    assertEquals(List.of(new Event(events + 1, T0 + 1, Event.Kind.QUESTION, t, null, null, null, null,
        "q-1: " + t + " is held: what now?")), appended, "an ask writes one QUESTION event");
    assertEquals(Question.State.OPEN, asked.state());
    Asking again = c.ask(q, T0 + 2);
    assertEquals(asked, assertInstanceOf(Asking.Duplicate.class, again).question(), "asking again asks nothing");
    assertEquals(events + 1, c.store().events(0, 1_000).size(), "and writes no event");
    assertEquals(new Asking.Denied("ticket t-77"), c.ask(new NewQuestion("nope", "?", null, new TicketId(77), null,
        List.of(new QuestionOption("a", "", List.of()))), T0 + 2), "a question about no ticket is refused");
    assertEquals(Optional.of(asked), c.store().question(asked.id()));
    assertEquals(Optional.of(asked), c.store().questionByKey("held:" + t));
    assertEquals(List.of(asked), c.store().questions(Set.of(Question.State.OPEN)));
    assertEquals(List.of(), c.store().questions(Set.of(Question.State.ANSWERED, Question.State.APPLIED)));
    TicketId u = runningTicket();
    assertEquals(new Asking.Denied("run " + new RunId(t, 1)), c.ask(new NewQuestion("worker:" + t + ".1:1", "?",
        new RunId(t, 1), t, null, List.of(new QuestionOption("a", "", List.of()))), T0 + 2), "no such run asks");
    QuestionId second = ask(new NewQuestion("worker:" + u + ".1:1", "which model?", new RunId(u, 1), u, null,
        List.of(new QuestionOption("small", "", List.of(new Action.Reply("\"small\""))),
            new QuestionOption("large", "", List.of(new Action.Reply("{\"model\":\"large\",\"n\":2}"))))));
    assertEquals(new QuestionId(2), second);
    assertEquals(new RunId(u, 1), c.store().question(second).orElseThrow().question().askedBy());
  }

  @Test
  void Q16_anAnswerIsRecordedOnce_andChangesNothingElse() {
    TicketId t = heldTicket();
    QuestionId q = ask(aboutHold(t));
    Ticket before = c.store().ticket(t).orElseThrow();
    assertEquals(Answering.Reason.UNKNOWN_OPTION,
        assertInstanceOf(Answering.Denied.class, c.answer(q, "banana", T0 + 2)).reason());
    assertEquals(Answering.Reason.NOT_FOUND,
        assertInstanceOf(Answering.Denied.class, c.answer(new QuestionId(7), "release", T0 + 2)).reason());
    Question answered = assertInstanceOf(Answering.Answered.class, c.answer(q, "release", T0 + 3)).question();
    assertEquals(Question.State.ANSWERED, answered.state());
    assertEquals("release", answered.answer());
    assertEquals(before, c.store().ticket(t).orElseThrow(), "Q16: the deputy's answer does not act");
    Answering.Denied again = assertInstanceOf(Answering.Denied.class, c.answer(q, "cancel", T0 + 4));
    assertEquals(Answering.Reason.ALREADY_ANSWERED, again.reason());
    assertEquals("release", again.question().answer(), "the first answer stands");
  }

  @Test
  void Q16_anAnsweredQuestionIsAppliedOnce_withItsActions_evenAcrossARestartBetweenAnswerAndApply() throws Exception {
    TicketId t = heldTicket();
    QuestionId q = ask(aboutHold(t));
    assertEquals(Applying.Reason.NOT_ANSWERED,
        assertInstanceOf(Applying.Denied.class, c.applyAnswer(q, T0 + 2)).reason());
    c.answer(q, "release", T0 + 3);
    c = reopen(c);
    assertEquals(Question.State.ANSWERED, c.store().question(q).orElseThrow().state(), "an answer survives");
    Applying.Applied a = assertInstanceOf(Applying.Applied.class, c.applyAnswer(q, T0 + 5));
    assertEquals("done: release " + t + " with 2 more attempts", a.question().outcome());
    Ticket after = c.store().ticket(t).orElseThrow();
    assertEquals(TicketState.READY, after.state());
    assertEquals(2, after.attemptsGranted());
    c = reopen(c);
    assertEquals(Applying.Reason.ALREADY_APPLIED,
        assertInstanceOf(Applying.Denied.class, c.applyAnswer(q, T0 + 6)).reason());
    assertEquals(after, c.store().ticket(t).orElseThrow(), "applied once: the grant is not given twice");
    Question applied = c.store().question(q).orElseThrow();
    assertEquals(Question.State.APPLIED, applied.state());
    assertEquals(T0 + 5, applied.appliedAtMs());
    assertEquals(Applying.Reason.NOT_FOUND,
        assertInstanceOf(Applying.Denied.class, c.applyAnswer(new QuestionId(9), T0 + 6)).reason());
  }

  @Test
  void Q16_aTargetReleasedByHand_isSkipped_andTheOutcomeSaysSo_whileTheRestIsDone() {
    TicketId t = heldTicket();
    QuestionId q = ask(aboutHold(t));
    c.answer(q, "cancel", T0 + 2);
    c.answer(ask(new NewQuestion("other", "and the lane?", null, t, null,
        List.of(new QuestionOption("unpark", "", List.of(new Action.UnparkLane(GPU)))))), "unpark", T0 + 2);
    assertInstanceOf(Control.Done.class, c.release(t));
    Ticket released = c.store().ticket(t).orElseThrow();
    c.submit(NewTicket.of(GPU, "command", "{}"), T0);
    TicketId running = new TicketId(2);
    assertInstanceOf(Claim.Granted.class, c.claim(running, new OwnerId("d-1"), T0 + 3, 30_000));
    QuestionId q2 = ask(new NewQuestion("running", "cancel the running one?", null, running, null,
        List.of(new QuestionOption("cancel", "", List.of(new Action.Cancel(running), new Action.ParkLane(GPU))))));
    c.answer(q2, "cancel", T0 + 4);
    Applying.Applied a = assertInstanceOf(Applying.Applied.class, c.applyAnswer(q2, T0 + 5));
    assertEquals("done: park lane gpu; skipped: cancel " + running + " (" + running + " is running)",
        a.question().outcome());
    assertTrue(c.store().parkedLanes().contains(GPU));
    assertEquals(TicketState.LEASED, c.store().ticket(running).orElseThrow().state());
    // the first question's cancel still makes sense for a READY ticket; its park is skipped: parked already
    Applying.Applied first = assertInstanceOf(Applying.Applied.class, c.applyAnswer(q, T0 + 6));
    assertEquals("done: cancel " + t + "; skipped: park lane gpu (lane gpu is parked already)",
        first.question().outcome());
    assertEquals(TicketState.CANCELLED, c.store().ticket(t).orElseThrow().state());
    assertTrue(released.state() == TicketState.READY);
    Event last = c.store().events(0, 100).stream().reduce((x, y) -> y).orElseThrow();
    assertEquals(Event.Kind.CANCELLED, last.kind(), "the cancel writes its event in the apply's transaction");
    assertEquals(t, last.ticket());
  }

  @Test
  void Q16_retryNowReleasesAHeldTicket_andMakesAWaitingOneDue() {
    TicketId held = heldTicket();
    TicketId waiting = ((Submission.Accepted) c.submit(new NewTicket(GPU, "command", "{}", 2, 0, T0 + 600_000, null),
        T0)).ticket().id();
    QuestionId q1 = ask(aboutHold(held));
    QuestionId q2 = ask(new NewQuestion("w", "now?", null, waiting, null,
        List.of(new QuestionOption("retry", "", List.of(new Action.RetryNow(waiting))))));
    c.answer(q1, "retry", T0 + 2);
    c.answer(q2, "retry", T0 + 2);
    assertInstanceOf(Applying.Applied.class, c.applyAnswer(q1, T0 + 10));
    assertInstanceOf(Applying.Applied.class, c.applyAnswer(q2, T0 + 10));
    Ticket h = c.store().ticket(held).orElseThrow();
    Ticket w = c.store().ticket(waiting).orElseThrow();
    assertEquals(TicketState.READY, h.state());
    assertTrue(h.claimableAt(T0 + 10), "a released ticket is due at once");
    assertEquals(T0 + 10, w.notBeforeMs(), "a waiting ticket is due at the apply");
    assertInstanceOf(Claim.Granted.class, c.claim(waiting, new OwnerId("d-1"), T0 + 10, 30_000));
  }

  @Test
  void Q16_aReplyIsHandedBackOnlyOnceApplied_andServiceActionsAreLeftToTheDaemon() {
    TicketId t = runningTicket();
    QuestionId q = ask(new NewQuestion("worker", "which model?", new RunId(t, 1), t, "web", List.of(
        new QuestionOption("large", "", List.of(new Action.Reply("{\"model\":\"large\"}"),
            new Action.RestartService("web"), new Action.ResetRestartBudget("db"))),
        new QuestionOption("stop", "", List.of(new Action.StopService("web"))))));
    c.answer(q, "large", T0 + 2);
    assertEquals(Optional.empty(), c.store().question(q).orElseThrow().reply(), "not before the daemon applied it");
    Applying.Applied a = assertInstanceOf(Applying.Applied.class, c.applyAnswer(q, T0 + 3));
    assertEquals(3, a.plan().done().size());
    assertEquals(Optional.of("{\"model\":\"large\"}"), c.store().question(q).orElseThrow().reply());
    assertEquals(TicketState.LEASED, c.store().ticket(t).orElseThrow().state(), "a reply acts on no ticket");
  }
}
