package dev.vigil.supervisor.engine;

import static dev.vigil.supervisor.engine.Simulation.LANE_A;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.Event;
import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunSpec;
import dev.vigil.coordination.RunState;
import dev.vigil.coordination.StopIntent;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.Verdict;
import dev.vigil.supervisor.StopKind;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.engine.port.OutcomeRecord;
import dev.vigil.supervisor.engine.port.Signal;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** Time limits (Q12), kills (Q13), grants, retries, events and the exit a run shows, as named examples. */
class TaskControlExamplesTest {
  private final Bench b = new Bench();

  private RunId running(Bench.TaskBuilder script, NewTicket n) {
    b.scripts.add(script.build());
    RunId run = b.firstRun(b.submit(n));
    b.until("the worker is told go", () -> !b.world.tasksOf(run).isEmpty() && b.worker(run).gotGo, 3_000);
    return run;
  }

  private static NewTicket timed(long ms) {
    return NewTicket.of(LANE_A, "cmd", "{}").withSpec(RunSpec.DEFAULT.withTimeout(ms));
  }

  @Test
  void Q12_aRunPastItsTimeLimitIsStopped_termAtOnceThenKill_andSettlesFailedTimedOut_spendingAnAttempt() {
    b.boot();
    RunId run = running(Bench.task().work(60_000).hangs().stopReact(-1, false), timed(4_000));
    assertEquals(4_000, b.run(run).start().timeoutMs(), "the limit is fixed at the start");
    b.until("timed out", () -> b.run(run).stopIntent() == StopIntent.TIMEOUT, 5_000);
    assertEquals(StopKind.TIMEOUT, b.events(EngineEvent.StopBegun.class).get(0).kind());
    b.tick();
    assertEquals(Signal.TERM, b.events(EngineEvent.Signalled.class).get(0).signal(), "TERM at once");
    b.until("settled", () -> b.run(run).state() == RunState.SETTLED, Bench.ms(Timeout.STOP_GRACE) + 2_000);
    assertEquals(Signal.KILL, b.events(EngineEvent.Signalled.class).get(1).signal(), "KILL after the grace: it hangs");
    assertEquals(Verdict.FAILED, b.run(run).verdict());
    assertEquals("timed out after 4s", b.run(run).diagnosis());
    assertEquals(1, b.ticket(run.ticket()).attemptsUsed(), "Q12: a time-out spends an attempt");
    assertEquals(List.of(Event.Kind.TIMEOUT, Event.Kind.SETTLED), b.law.events(0, 10).stream().map(Event::kind).toList());
  }

  @Test
  void Q12_aRestartedDaemonEnforcesTheSameDeadline_andARunWithoutALimitRunsOn() {
    b.boot();
    RunId limited = running(Bench.task().work(60_000), timed(6_000));
    RunId free = running(Bench.task().work(60_000), NewTicket.of(LANE_A, "cmd", "{}"));
    b.run(2_000);
    b.crash();
    b.run(2_000);
    b.boot();
    b.run(1_000);
    assertNull(b.run(limited).stopIntent(), "not yet: about 5 s of 6 s have passed");
    b.until("timed out by the new daemon", () -> b.run(limited).stopIntent() == StopIntent.TIMEOUT, 2_000);
    b.until("settled", () -> b.run(limited).state() == RunState.SETTLED, 5_000);
    assertEquals("timed out after 6s", b.run(limited).diagnosis());
    assertEquals(RunState.RUNNING, b.run(free).state(), "a run without a limit is not stopped");
  }

  @Test
  void Q13_aKillStopsTheRunNow_itSettlesKilled_spendsNothing_andTheTicketGoesWhereTheKillSaid() {
    b.boot();
    RunId run = running(Bench.task().work(60_000), NewTicket.of(LANE_A, "cmd", "{}"));
    Reply r = b.command(new Command.Kill(run.ticket(), null, StopIntent.KILL_HOLD));
    Reply.Killing k = assertInstanceOf(Reply.Killing.class, r);
    assertTrue(k.message().contains("the ticket will be held"), k.message());
    b.until("settled", () -> b.run(run).state() == RunState.SETTLED, 3_000);
    assertEquals(Verdict.KILLED, b.run(run).verdict());
    assertEquals(TicketState.HELD, b.ticket(run.ticket()).state());
    assertEquals(0, b.ticket(run.ticket()).attemptsUsed());
    Reply again = b.command(new Command.Kill(run.ticket(), null, StopIntent.KILL));
    assertTrue(again instanceof Reply.Denied d && d.reason().contains("is not running"), "" + again);
  }

  @Test
  void Q13_aDaemonThatDiesInTheMiddleOfAKill_isFollowedByOneThatFinishesIt_andTheRunSettlesOnce() {
    b.boot();
    RunId run = running(Bench.task().work(60_000).hangs().stopReact(-1, false), NewTicket.of(LANE_A, "cmd", "{}"));
    b.command(new Command.Kill(run.ticket(), null, StopIntent.KILL_RETRY));
    b.tick();
    b.crash(); // TERM sent (ignored: it hangs), the KILL never came
    assertEquals(StopIntent.KILL_RETRY, b.run(run).stopIntent(), "the kill is on record");
    b.boot();
    b.until("settled", () -> b.run(run).state() == RunState.SETTLED, Bench.ms(Timeout.STOP_GRACE) + 3_000);
    assertEquals(Verdict.KILLED, b.run(run).verdict());
    assertTrue(List.of(TicketState.READY, TicketState.LEASED).contains(b.ticket(run.ticket()).state()));
    assertEquals(1, b.events(EngineEvent.Settled.class).stream().filter(s -> s.run().equals(run)).count());
  }

  @Test
  void cancelAndHoldOfARunningTicket_areRefusedNamingVigilKill() {
    b.boot();
    RunId run = running(Bench.task().work(60_000), NewTicket.of(LANE_A, "cmd", "{}"));
    Reply c = b.command(new Command.Cancel(run.ticket()));
    assertTrue(c instanceof Reply.Denied d && d.reason().contains("vigil kill " + run.ticket()), "" + c);
    Reply h = b.command(new Command.Hold(run.ticket(), "x"));
    assertTrue(h instanceof Reply.Denied d && d.reason().contains("vigil kill " + run.ticket() + " --hold"), "" + h);
  }

  @Test
  void aReleaseGrantsAttempts_andARetryQueuesTheSameWork() {
    b.boot();
    b.scripts.add(Bench.task().work(300).ending(SimWorld.Ending.FAIL).build());
    TicketId t = b.submit(new NewTicket(LANE_A, "cmd", "{\"x\":1}", 1, 0, 0, null));
    b.until("held", () -> b.ticket(t).state() == TicketState.HELD, 3_000);
    b.scripts.add(Bench.task().work(300).ending(SimWorld.Ending.FAIL).build());
    assertInstanceOf(Reply.TicketChanged.class, b.command(new Command.Release(t, OptionalInt.of(2))));
    assertEquals(3, b.ticket(t).allowedAttempts());
    b.until("second attempt failed", () -> b.law.runsOf(t).size() == 2 && b.ticket(t).state() != TicketState.LEASED,
        3_000);
    b.command(new Command.Hold(t, "stop"));
    Reply.Retried r = assertInstanceOf(Reply.Retried.class, b.command(new Command.Retry(t)));
    assertEquals(TicketState.CANCELLED, b.ticket(t).state(), "the held original never runs beside its retry");
    assertEquals("{\"x\":1}", r.ticket().payload());
    assertInstanceOf(Reply.Denied.class, b.command(new Command.Retry(t)));
    assertTrue(assertInstanceOf(Reply.EventList.class, b.command(new Command.Events(0, 100))).events().stream()
        .anyMatch(e -> e.kind() == Event.Kind.HELD));
  }

  /**
   * Regression: a worker that reported its outcome before the shell's report of its exit was taken
   * as RECOVERY with unknown facts. Its own child's exit is now awaited, and the exit shown is the
   * command's own, as the outcome carries it.
   */
  @Test
  void theExitOfThisDaemonsOwnChildIsTakenAsItsSupervisor_withTheCommandsOwnExitCode() {
    b.boot();
    RunId run = running(Bench.task().work(60_000), NewTicket.of(LANE_A, "cmd", "{}"));
    SimWorld.TaskProc w = b.worker(run);
    OutcomeRecord.Written o = new OutcomeRecord.Written(Verdict.FAILED, 0, "exit code 3", RunExit.code(3, 0));
    w.wrote = o;
    b.world.dirs.get(w.key).outcome = o;
    w.send(b.world, new WorkerMessage.OutcomeReported(Verdict.FAILED));
    b.world.end(w, 0, null); // the worker host exits 0 whatever the command did
    b.world.pendingExits.clear(); // and the shell's report of it is late
    b.run(Bench.TICK_MS * 3);
    assertEquals(RunState.RUNNING, b.run(run).state(), "a dead child's exit report is awaited");
    b.until("settled", () -> b.run(run).state() == RunState.SETTLED, Bench.ms(Timeout.RECONCILE) + 1_000);
    assertEquals(ExitOwner.Role.RECOVERY, b.run(run).exitOwner().role(), "the report never came: recovery, after a wait");
    assertEquals(Integer.valueOf(3), b.run(run).exit().exitCode(), "the command's own exit code, from its outcome");
  }
}
