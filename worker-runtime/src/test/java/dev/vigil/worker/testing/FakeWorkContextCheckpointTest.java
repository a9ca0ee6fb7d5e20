package dev.vigil.worker.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import dev.vigil.worker.Outcome;
import dev.vigil.worker.PayloadBindingException;
import dev.vigil.worker.WorkContext;
import dev.vigil.worker.WorkerType;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A resumable worker type (Q17) tested with the fake context: it saves checkpoints and resumes from one. */
class FakeWorkContextCheckpointTest {
  /** Where a count of steps stands. */
  public record Progress(int done, String note) {}

  /** Counts steps 1..5 from where its previous checkpoint left off, saving each; fails at {@code failAt}. */
  private static WorkerType counter(int failAt) {
    return new WorkerType() {
      @Override
      public String name() {
        return "counter";
      }

      @Override
      public Outcome run(WorkContext ctx) {
        int from = ctx.previousCheckpoint(Progress.class).map(Progress::done).orElse(0);
        for (int i = from + 1; i <= 5; i++) {
          if (i == failAt) {
            return ctx.failed("step " + i + " failed");
          }
          ctx.checkpoint(new Progress(i, "after step " + i));
        }
        return ctx.succeeded("from " + from);
      }
    };
  }

  @Test
  void Q17_aSecondAttempt_resumesFromTheLastCheckpointOfTheFirst() {
    FakeWorkContext first = FakeWorkContext.task().build();
    assertEquals(Optional.empty(), first.previousCheckpoint(), "a first attempt resumes from nothing");
    assertEquals(new Outcome.Failed("step 4 failed"), first.run(counter(4)));
    assertEquals(3, first.checkpoints().size());
    JsonNode last = first.lastCheckpoint().orElseThrow();
    assertEquals(3, last.path("done").asInt());

    FakeWorkContext second = FakeWorkContext.task().attempt(2).previousCheckpoint(last).build();
    assertEquals(new Outcome.Succeeded("from 3"), second.run(counter(0)));
    assertEquals(List.of(4, 5), second.checkpoints().stream().map(c -> c.path("done").asInt()).toList());
  }

  @Test
  void aCheckpointIsBoundLikeAResult_andRefusedOverTheBound_orNull_withOneLine() {
    FakeWorkContext ctx = FakeWorkContext.task().build();
    ctx.checkpoint(7);
    ctx.checkpoint(new Progress(2, "x"));
    assertEquals(List.of(IntNode.valueOf(7), ctx.checkpoints().get(1)), ctx.checkpoints());
    IllegalArgumentException big = assertThrows(IllegalArgumentException.class, () -> ctx.checkpoint("x".repeat(70_000)));
    assertEquals("checkpoint refused: it is 70002 bytes of JSON, more than the 65536 a ticket keeps (keep large state in"
        + " files of your own and save where they are)", big.getMessage());
    IllegalArgumentException none = assertThrows(IllegalArgumentException.class, () -> ctx.checkpoint(null));
    assertTrue(none.getMessage().startsWith("checkpoint refused: the value is null"), none.getMessage());
    assertEquals(2, ctx.checkpoints().size(), "a refused checkpoint replaces nothing");
  }

  @Test
  void aCheckpointThatDoesNotBind_failsWithOneLine_andAServiceCannotSaveOne() {
    FakeWorkContext ctx = FakeWorkContext.task().previousCheckpoint(List.of(1, 2)).build();
    PayloadBindingException e = assertThrows(PayloadBindingException.class, () -> ctx.previousCheckpoint(Progress.class));
    assertTrue(e.getMessage().startsWith("checkpoint does not bind to "), e.getMessage());
    assertEquals(1, e.getMessage().lines().count());
    FakeWorkContext service = FakeWorkContext.service("svc").build();
    assertThrows(UnsupportedOperationException.class, () -> service.checkpoint(1));
    assertEquals(Optional.empty(), service.previousCheckpoint());
  }
}
