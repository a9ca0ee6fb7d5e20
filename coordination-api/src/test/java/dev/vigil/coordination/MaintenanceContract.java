package dev.vigil.coordination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.law.CoordinationInvariants;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The maintenance verbs' contract (Q18), kept by the reference model and every adapter: named examples of
 * prune (dry and real), the directories it lists until their removal is recorded, what stays, and a
 * compaction, with {@link CoordinationInvariants} checked after each test.
 */
public abstract class MaintenanceContract extends StoreContract {
  protected static final long T0 = 1_700_000_000_000L;
  protected static final long TTL = 30_000;
  protected static final long DAY = 86_400_000L;
  protected static final OwnerId A = new OwnerId("d-alpha");

  private TicketId submit(long now, TicketId... after) {
    NewTicket n = NewTicket.of(Lane.DEFAULT, "command", "{}");
    if (after.length > 0) {
      n = n.withAfter(java.util.Arrays.stream(after).<Prerequisite>map(Prerequisite.Existing::new).toList());
    }
    return ((Submission.Accepted) c.submit(n, now)).ticket().id();
  }

  /** A ticket whose one run succeeded at {@code now}. */
  private TicketId succeeded(long now, TicketId... after) {
    TicketId t = submit(now, after);
    RunId run = assertInstanceOf(Claim.Granted.class, c.claim(t, A, now, TTL)).run().id();
    assertInstanceOf(Start.Started.class, c.start(run, A,
        new RunStart(new ProcessIdentity("boot-1", 4242, 99, 4242), "1.0.0", "ab".repeat(32), now)));
    assertInstanceOf(Exit.Taken.class, c.takeExit(run, ExitOwner.supervisor(A), RunExit.code(0, now)));
    assertInstanceOf(Settlement.Settled.class,
        c.finish(Finish.as(ExitOwner.supervisor(A), run, Verdict.SUCCEEDED, null), now));
    return t;
  }

  /** A ticket whose run is RUNNING since {@code now}. */
  private RunId running(long now) {
    TicketId t = submit(now);
    RunId run = assertInstanceOf(Claim.Granted.class, c.claim(t, A, now, TTL)).run().id();
    assertInstanceOf(Start.Started.class, c.start(run, A,
        new RunStart(new ProcessIdentity("boot-1", 4343, 99, 4343), "1.0.0", "cd".repeat(32), now)));
    return run;
  }

  private Pruning prune(String job, long cutoffMs, boolean dryRun, long now) {
    return c.prune(new Pruning.Request(job, cutoffMs, dryRun), now);
  }

  @Test
  void Q18_aPruneDeletesOnlyFinishedTicketsOlderThanTheCutoff_andListsTheirRunDirectories() {
    TicketId old = succeeded(T0);
    TicketId cancelled = submit(T0);
    assertInstanceOf(Control.Done.class, c.cancel(cancelled, T0));
    RunId live = running(T0);
    TicketId waiting = submit(T0);
    TicketId recent = succeeded(T0 + 40 * DAY);
    long now = T0 + 45 * DAY;
    Pruning p = prune("prune", now - 30 * DAY, false, now);
    assertEquals(List.of(old, cancelled), p.tickets(), "Q18: only finished tickets that ended before the cutoff");
    assertEquals(List.of(new RunId(old, 1)), p.runs());
    assertEquals(List.of(new RunId(old, 1)), p.directories(), "Q18: the pruned runs' directories are to remove");
    assertEquals(Map.of(Retention.Reason.NOT_FINISHED, 2, Retention.Reason.TOO_RECENT, 1, Retention.Reason.PINNED, 0,
        Retention.Reason.LINKED, 0), p.kept());
    assertEquals(Optional.empty(), c.store().ticket(old));
    assertEquals(List.of(), c.store().runsOf(old));
    assertEquals(Optional.empty(), c.store().ticket(cancelled));
    assertEquals(RunState.RUNNING, c.store().run(live).orElseThrow().state(), "Q18: a live run is never touched");
    assertTrue(c.store().lease(live.ticket()).isPresent());
    assertEquals(TicketState.READY, c.store().ticket(waiting).orElseThrow().state());
    assertEquals(TicketState.SUCCEEDED, c.store().ticket(recent).orElseThrow().state());
    assertTrue(c.store().events(0, 100).stream().noneMatch(e -> old.equals(e.ticket()) || cancelled.equals(e.ticket())),
        "Q18: a pruned ticket's events go with it");
    assertTrue(c.store().events(0, 100).stream().anyMatch(e -> recent.equals(e.ticket())), "other events stay");
    MaintenanceRecord line = c.maintenanceRecords().stream().filter(r -> r.job().equals("prune")).findFirst().orElseThrow();
    assertEquals(now, line.atMs());
    assertEquals(p.summary(), line.summary(), "Q18: the record is written with the effect");
  }

  @Test
  void Q18_aDryRunChangesNothing() throws Exception {
    TicketId old = succeeded(T0);
    long now = T0 + 45 * DAY;
    Snapshot before = c.store().snapshot();
    Pruning p = prune("prune", now - 30 * DAY, true, now);
    assertTrue(p.dryRun());
    assertEquals(List.of(old), p.tickets());
    assertEquals(List.of(new RunId(old, 1)), p.directories());
    assertEquals(before, c.store().snapshot(), "Q18: a dry run deletes nothing");
    assertEquals(List.of(), c.maintenanceRecords(), "a dry run records nothing");
    c = reopen(c);
    assertTrue(c.store().ticket(old).isPresent());
  }

  @Test
  void Q18_directoriesStayListedUntilTheirRemovalIsRecorded_acrossARestart() throws Exception {
    TicketId a = succeeded(T0);
    TicketId b = succeeded(T0);
    long now = T0 + 45 * DAY;
    Pruning first = prune("retention", now - 30 * DAY, false, now);
    assertEquals(List.of(new RunId(a, 1), new RunId(b, 1)), first.directories());
    c = reopen(c); // the job's worker died before it removed anything
    Pruning again = prune("retention", now - 30 * DAY, false, now + 1);
    assertEquals(List.of(), again.tickets(), "Q18: nothing is pruned twice");
    assertEquals(first.directories(), again.directories(), "Q18: a re-run finds what is left to remove");
    assertEquals(1, c.directoriesRemoved("retention", List.of(new RunId(a, 1), new RunId(new TicketId(99), 1)),
        "1 run directory removed", now + 2), "runs not on the list are ignored");
    c = reopen(c);
    assertEquals(List.of(new RunId(b, 1)), prune("retention", now - 30 * DAY, true, now + 3).directories());
    assertEquals(1, c.directoriesRemoved("retention", List.of(new RunId(b, 1)), "1 run directory removed", now + 4));
    assertEquals(0, c.directoriesRemoved("retention", List.of(new RunId(b, 1)), "none", now + 5), "idempotent");
    assertEquals(List.of(), prune("retention", now - 30 * DAY, true, now + 6).directories());
    assertEquals(new MaintenanceRecord("retention", now + 5, "none"),
        c.maintenanceRecords().stream().filter(r -> r.job().equals("retention")).findFirst().orElseThrow());
  }

  @Test
  void Q18_aPrerequisiteOfAWaitingTicketStays_andGoesWithItOnceItIsFinished() {
    TicketId pre = succeeded(T0);
    TicketId dependent = submit(T0, pre);
    long now = T0 + 45 * DAY;
    Pruning p = prune("prune", now - 30 * DAY, false, now);
    assertEquals(List.of(), p.tickets());
    assertEquals(1, p.kept().get(Retention.Reason.LINKED), "Q18: the prerequisite of a waiting ticket stays");
    assertEquals(List.of(pre), c.store().ticket(dependent).orElseThrow().after());
    assertInstanceOf(Control.Done.class, c.cancel(dependent, T0 + 2 * DAY));
    assertEquals(List.of(pre, dependent), prune("prune", now - 30 * DAY, false, now + 1).tickets(),
        "Q18: a linked group goes together");
  }

  @Test
  void Q18_aRetryKeepsItsOriginal_whileItIsNotFinished() {
    TicketId original = submit(T0);
    assertInstanceOf(Control.Done.class, c.cancel(original, T0));
    TicketId retry = assertInstanceOf(Retry.Retried.class, c.retry(original, T0)).ticket().id();
    long now = T0 + 45 * DAY;
    assertEquals(List.of(), prune("prune", now - 30 * DAY, false, now).tickets());
    assertTrue(c.store().ticket(original).isPresent());
    assertInstanceOf(Control.Done.class, c.cancel(retry, T0));
    assertEquals(List.of(original, retry), prune("prune", now - 30 * DAY, false, now).tickets());
  }

  @Test
  void Q18_aTicketAQuestionNamesStays_untilTheQuestionIsApplied() {
    TicketId t = submit(T0);
    assertInstanceOf(Control.Done.class, c.cancel(t, T0));
    QuestionId q = assertInstanceOf(Asking.Asked.class, c.ask(new NewQuestion("about:" + t, t + ": what now?", null, t,
        null, List.of(new QuestionOption("cancel", "give it up", List.of(new Action.Cancel(t))))), T0)).question().id();
    long now = T0 + 45 * DAY;
    Pruning p = prune("prune", now - 30 * DAY, false, now);
    assertEquals(List.of(), p.tickets(), "Q18: a ticket an open question names stays");
    assertEquals(1, p.kept().get(Retention.Reason.PINNED));
    assertInstanceOf(Answering.Answered.class, c.answer(q, "cancel", now));
    assertEquals(List.of(), prune("prune", now - 30 * DAY, false, now).tickets(), "nor while it is answered");
    assertInstanceOf(Applying.Applied.class, c.applyAnswer(q, now));
    assertEquals(List.of(t), prune("prune", now - 30 * DAY, false, now).tickets(), "once applied it may go");
  }

  @Test
  void Q18_eventsAfterAPruneContinueTheirNumbering() {
    TicketId old = submit(T0);
    assertInstanceOf(Control.Done.class, c.cancel(old, T0));
    TicketId kept = submit(T0 + 40 * DAY);
    long lastBefore = c.store().events(0, 100).get(c.store().events(0, 100).size() - 1).id();
    prune("prune", T0 + 10 * DAY, false, T0 + 45 * DAY);
    assertInstanceOf(Control.Done.class, c.cancel(kept, T0 + 45 * DAY));
    List<Event> after = c.store().events(lastBefore, 100);
    assertEquals(1, after.size());
    assertEquals(lastBefore + 1, after.get(0).id(), "Q18: a new event takes the next number, never a pruned one's");
  }

  @Test
  void Q18_aCompactionKeepsEveryDecision_andRecordsItsLine() throws Exception {
    TicketId t = succeeded(T0);
    RunId live = running(T0);
    Compacted done = c.compact("compact", T0 + 1);
    assertTrue(done.bytesBefore() >= 0 && done.bytesAfter() >= 0);
    assertEquals(new MaintenanceRecord("compact", T0 + 1, done.summary()),
        c.maintenanceRecords().stream().filter(r -> r.job().equals("compact")).findFirst().orElseThrow());
    c = reopen(c);
    assertEquals(TicketState.SUCCEEDED, c.store().ticket(t).orElseThrow().state());
    assertEquals(RunState.RUNNING, c.store().run(live).orElseThrow().state());
    assertEquals(1, c.maintenanceRecords().size());
  }
}
