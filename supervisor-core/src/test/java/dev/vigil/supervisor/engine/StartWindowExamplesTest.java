package dev.vigil.supervisor.engine;

import static dev.vigil.supervisor.engine.Simulation.LANE_A;
import static dev.vigil.supervisor.engine.Simulation.LANE_B;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunQuery;
import dev.vigil.coordination.RunState;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.Verdict;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code maxStarting}: how many task workers start at once. A burst of due work starts in waves no larger
 * than it, every free slot is still filled as starts end, the lanes take turns, and a hand start is not held
 * back by it.
 */
class StartWindowExamplesTest {
  private final Bench b = new Bench();

  /** Task workers that live and have not been told to go yet. */
  private long starting() {
    return b.world.everyProcess.stream().filter(p -> p instanceof SimWorld.TaskProc t && t.alive && !t.gotGo).count();
  }

  private long running() {
    return b.law.runs(RunQuery.all()).stream().filter(r -> r.state() == RunState.RUNNING).count();
  }

  @Test
  void aBurstStartsInWavesOfMaxStarting_yetEverySlotFills_andEveryTaskRunsOnce() {
    b.lanes = List.of(new EngineConfig.LaneLimit(LANE_A, 6));
    b.maxStarting = 2;
    b.boot();
    List<TicketId> burst = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      b.scripts.add(Bench.task().helloAfter(1_000).work(20_000).build());
      burst.add(b.submit(LANE_A));
    }
    long most = 0;
    for (int t = 0; t < 60 && running() < 6; t++) {
      b.tick();
      most = Math.max(most, starting());
    }
    assertEquals(6, running(), "every slot of the lane filled as the starts ended");
    assertEquals(2, most, "never more than maxStarting starting at once, and that many when work waits");
    b.until("all done", () -> burst.stream().allMatch(t -> b.ticket(t).state() == TicketState.SUCCEEDED), 60_000);
    for (TicketId t : burst) {
      List<Run> runs = b.law.runsOf(t);
      assertEquals(1, runs.size(), "one run each, none thrown away: " + runs);
      assertEquals(Verdict.SUCCEEDED, runs.get(0).verdict());
    }
  }

  @Test
  void whileStartsHoldDispatchBack_theLanesTakeTurns() {
    b.lanes = List.of(new EngineConfig.LaneLimit(LANE_A, 3), new EngineConfig.LaneLimit(LANE_B, 3));
    b.maxStarting = 1;
    b.boot();
    b.command(new Command.Pause());
    for (int i = 0; i < 3; i++) {
      b.scripts.add(Bench.task().helloAfter(500).work(30_000).build());
      b.submit(LANE_A);
    }
    for (int i = 0; i < 3; i++) {
      b.scripts.add(Bench.task().helloAfter(500).work(30_000).build());
      b.submit(LANE_B);
    }
    b.command(new Command.Resume());
    b.until("all six run", () -> running() == 6, 30_000);
    List<Run> byClaim = new ArrayList<>(b.law.runs(RunQuery.all()));
    byClaim.sort(Comparator.comparingLong(Run::claimedAtMs));
    List<String> lanes = byClaim.stream().map(r -> b.ticket(r.ticket()).lane().toString()).toList();
    assertEquals(List.of("a", "b", "a", "b", "a", "b"), lanes, "one start at a time, the lanes in turn");
  }

  @Test
  void aHandStartIsNotHeldBackByStarts() {
    b.lanes = List.of(new EngineConfig.LaneLimit(LANE_A, 3));
    b.maxStarting = 1;
    b.boot();
    b.scripts.add(Bench.task().helloAfter(2_000).work(30_000).build());
    b.submit(LANE_A);
    b.tick();
    assertEquals(1, starting(), "the window is full");
    TicketId mine = b.submit(LANE_A);
    Reply.HandStarted r = assertInstanceOf(Reply.HandStarted.class, b.command(new Command.RunByHand(mine)));
    assertEquals(2, starting(), "started by hand beside it");
    b.until("it runs", () -> b.run(r.run().id()).state() == RunState.RUNNING, 5_000);
  }
}
