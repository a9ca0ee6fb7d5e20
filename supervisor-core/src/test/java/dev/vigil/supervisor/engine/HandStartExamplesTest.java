package dev.vigil.supervisor.engine;

import static dev.vigil.supervisor.engine.Simulation.LANE_A;
import static dev.vigil.supervisor.engine.Simulation.LANE_B;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunState;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.Verdict;
import org.junit.jupiter.api.Test;

/** {@code vigil run TICKET}: hand-started runs (Q8), as named examples on the simulated world. */
class HandStartExamplesTest {
  private final Bench b = new Bench();

  private Reply.HandStarted handStart(TicketId t) {
    return assertInstanceOf(Reply.HandStarted.class, b.command(new Command.RunByHand(t)));
  }

  @Test
  void Q8_aHandStartRunsAtOnceAheadOfPrioritiesAndAPauseButOnlyInAFreeSlot() {
    b.boot();
    b.command(new Command.Pause());
    TicketId urgent = b.submit(new NewTicket(LANE_B, "cmd", "{}", 3, 9, 0, null));
    TicketId mine = b.submit(new NewTicket(LANE_B, "cmd", "{}", 3, 0, 0, null));
    b.scripts.add(Bench.task().work(3_000).build());
    Reply.HandStarted r = handStart(mine);
    assertTrue(r.run().handStarted(), "the run is marked hand-started");
    assertEquals(1, r.run().attempt());
    b.until("it runs", () -> b.run(r.run().id()).state() == RunState.RUNNING, 2_000);

    Reply full = b.command(new Command.RunByHand(urgent));
    assertTrue(full instanceof Reply.Denied d && d.reason().contains("lane b is full (1 of 1 running)"), String.valueOf(full));
    b.until("it ran", () -> b.ticket(mine).state() == TicketState.SUCCEEDED, 5_000);
    assertEquals(Verdict.SUCCEEDED, b.run(r.run().id()).verdict());
    assertEquals(1, b.law.runsOf(mine).size(), "one run");
    assertTrue(b.law.runsOf(urgent).isEmpty(), "paused, and the refused hand start changed nothing");
    handStart(urgent);
  }

  @Test
  void Q17_runResume_startsOnlyAnAttemptThatWouldResume_fromTheLatestCheckpoint_andOtherwiseChangesNothing() {
    b.boot();
    b.command(new Command.Pause());
    TicketId py = b.submit(new NewTicket(LANE_A, "py", "{}", 3, 0, 0, null));
    TicketId cmd = b.submit(new NewTicket(LANE_A, "cmd", "{}", 3, 0, 0, null));
    Reply none = b.command(new Command.RunByHand(py, true));
    assertEquals(new Reply.Denied("ticket " + py + " would start over, not resume: no earlier run of it saved a "
        + "checkpoint; nothing was started (vigil run " + py + " starts it over)"), none);
    Reply plain = b.command(new Command.RunByHand(cmd, true));
    assertEquals(new Reply.Denied("ticket " + cmd + " would start over, not resume: its worker type 'cmd' is not "
        + "resumable (\"resumable\": true in its configuration); nothing was started (vigil run " + cmd
        + " starts it over)"), plain);
    assertTrue(b.law.runsOf(py).isEmpty() && b.law.runsOf(cmd).isEmpty(), "refused: nothing started");
    assertEquals(TicketState.READY, b.ticket(py).state());

    b.scripts.add(Bench.task().work(500).ending(SimWorld.Ending.FAIL).build());
    Reply.HandStarted first = handStart(py);
    assertEquals(null, first.resumedFrom(), "a first attempt starts over");
    b.until("settled", () -> b.run(first.run().id()).state() == RunState.SETTLED, 5_000);
    dev.vigil.coordination.Checkpoint kept = b.law.checkpoint(py).orElseThrow();
    assertEquals(first.run().id(), kept.run());
    assertEquals(2, kept.seq(), "the latest of the two its worker saved");
    assertInstanceOf(Reply.TicketChanged.class, b.command(new Command.Release(py)));

    b.scripts.add(Bench.task().work(500).build());
    Reply.HandStarted second = assertInstanceOf(Reply.HandStarted.class, b.command(new Command.RunByHand(py, true)));
    assertEquals(kept, second.resumedFrom(), "Q17: --resume starts the attempt, from the latest checkpoint");
    b.until("it ran", () -> b.ticket(py).state() == TicketState.SUCCEEDED, 5_000);
    assertEquals(second.run().id(), b.law.checkpoint(py).orElseThrow().run(), "the second attempt's own are latest now");
  }

  @Test
  void Q8_aHandStartedFailureWithAttemptsToSpareHoldsTheTicketUntilReleased() {
    b.boot();
    b.command(new Command.Pause());
    TicketId t = b.submit(new NewTicket(LANE_A, "cmd", "{}", 3, 0, 0, null));
    b.scripts.add(Bench.task().work(500).ending(SimWorld.Ending.FAIL).build());
    Reply.HandStarted r = handStart(t);
    b.until("settled", () -> b.run(r.run().id()).state() == RunState.SETTLED, 5_000);
    assertEquals(Verdict.FAILED, b.run(r.run().id()).verdict());
    assertEquals(TicketState.HELD, b.ticket(t).state(), "Q8: a hand-started run that leaves the ticket runnable holds it");
    assertEquals(1, b.ticket(t).attemptsUsed());
    b.command(new Command.Resume());
    b.run(3_000);
    assertEquals(1, b.law.runsOf(t).size(), "a held ticket is not scheduled");

    assertInstanceOf(Reply.TicketChanged.class, b.command(new Command.Release(t)));
    b.scripts.add(Bench.task().work(500).build());
    b.until("released, the scheduler runs it", () -> b.ticket(t).state() == TicketState.SUCCEEDED, 5_000);
    Run second = b.law.runsOf(t).get(1);
    assertTrue(!second.handStarted() && second.attempt() == 2, "the scheduler's run is attempt 2");
  }

  @Test
  void Q8_aStalledHandStartHoldsWithoutSpendingAnAttempt() {
    b.boot();
    b.command(new Command.Pause());
    TicketId t = b.submit(new NewTicket(LANE_A, "cmd", "{}", 3, 0, 0, null));
    b.scripts.add(Bench.task().work(300).stallFor(60_000).build());
    TicketId other = b.submit(new NewTicket(LANE_A, "cmd", "{}", 3, 0, 0, null));
    Reply.HandStarted r = handStart(other);
    b.until("settled", () -> b.run(r.run().id()).state() == RunState.SETTLED, 5_000);
    assertEquals(Verdict.STALLED, b.run(r.run().id()).verdict());
    assertEquals(TicketState.HELD, b.ticket(other).state(), "Q8: requeued by a hand-started run, so held");
    assertEquals(0, b.ticket(other).attemptsUsed(), "a stall spends no attempt");
    assertTrue(b.law.runsOf(t).isEmpty(), "paused: nothing else was dispatched");
  }

  @Test
  void Q8_aHandStartedRunSurvivesADaemonCrashAndStillHoldsItsTicket() {
    b.boot();
    b.command(new Command.Pause());
    TicketId t = b.submit(new NewTicket(LANE_A, "cmd", "{}", 3, 0, 0, null));
    b.scripts.add(Bench.task().work(4_000).ending(SimWorld.Ending.FAIL).build());
    RunId run = handStart(t).run().id();
    b.until("running", () -> b.run(run).state() == RunState.RUNNING && b.worker(run).gotGo, 2_000);
    long pid = b.worker(run).identity.pid();
    b.crash();
    b.boot();
    b.until("settled by the next daemon", () -> b.run(run).state() == RunState.SETTLED, 10_000);
    assertEquals(pid, b.run(run).start().identity().pid(), "the same worker, adopted");
    assertEquals(1, b.world.tasksOf(run).size(), "launched once");
    assertEquals(TicketState.HELD, b.ticket(t).state(), "Q8 across the crash");
  }

  @Test
  void aHandStartOfATicketThatCannotRunIsRefusedAndChangesNothing() {
    b.boot();
    b.command(new Command.Pause());
    TicketId held = b.submit(LANE_A);
    b.command(new Command.Hold(held, "operator"));
    TicketId parked = b.submit(LANE_A);
    b.command(new Command.Park(parked));
    TicketId later = b.submit(new NewTicket(LANE_A, "cmd", "{}", 3, 0, b.world.wallMs + 600_000, null));
    TicketId cancelled = b.submit(LANE_A);
    b.command(new Command.Cancel(cancelled));
    b.scripts.add(Bench.task().work(30_000).build());
    TicketId live = b.submit(LANE_A);
    handStart(live);

    assertTrue(((Reply.Denied) b.command(new Command.RunByHand(held))).reason().contains("release it first"));
    assertTrue(((Reply.Denied) b.command(new Command.RunByHand(parked))).reason().contains("parked"));
    assertTrue(((Reply.Denied) b.command(new Command.RunByHand(later))).reason().contains("not due"));
    assertTrue(((Reply.Denied) b.command(new Command.RunByHand(cancelled))).reason().contains("CANCELLED"));
    assertTrue(((Reply.Denied) b.command(new Command.RunByHand(live))).reason().contains("live run"));
    assertInstanceOf(Reply.NotFound.class, b.command(new Command.RunByHand(new TicketId(999))));
    b.run(1_000);
    for (TicketId t : new TicketId[] {held, parked, later, cancelled}) {
      assertTrue(b.law.runsOf(t).isEmpty(), t + " has no run");
    }
    assertEquals(1, b.law.runsOf(live).size());
    assertEquals(TicketState.HELD, b.ticket(held).state());
    assertEquals(TicketState.CANCELLED, b.ticket(cancelled).state());
  }

  @Test
  void aHandStartIsRefusedWhileTheDaemonShutsDown() {
    b.boot();
    b.command(new Command.Pause());
    TicketId t = b.submit(LANE_A);
    b.send(new Command.Shutdown(Command.Shutdown.Mode.STOP_WORKERS));
    Reply r = b.command(new Command.RunByHand(t));
    assertTrue(r instanceof Reply.Denied d && d.reason().contains("shutting down"), String.valueOf(r));
    assertTrue(b.law.runsOf(t).isEmpty());
  }
}
