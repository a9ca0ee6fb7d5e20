package dev.vigil.worker.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.worker.Outcome;
import dev.vigil.worker.Question;
import dev.vigil.worker.WorkContext;
import dev.vigil.worker.WorkerType;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A worker type that asks a person (Q16), tested with the fake context as the worker host runs it. */
class FakeWorkContextAskTest {
  private static final Duration PATIENCE = Duration.ofSeconds(20);

  /** Asks whether to deploy; succeeds with the answer's value, or stalls when stopped while waiting. */
  private static final WorkerType ASKER = new WorkerType() {
    @Override
    public String name() {
      return "asker";
    }

    @Override
    public Outcome run(WorkContext ctx) throws Exception {
      Optional<Question.Answer> a = ctx.ask(Question.of("Deploy build 42?")
          .option("yes", "deploy it", Map.of("deploy", true))
          .option("no", "leave it", Map.of("deploy", false)));
      if (a.isEmpty()) {
        return ctx.stalled(0, "stopped while asking");
      }
      return ctx.succeeded(a.get().option() + " " + a.get().value());
    }
  };

  @Test
  void Q16_theTypeWaitsForTheAnswer_andReceivesTheChosenOptionsValue() throws Exception {
    FakeWorkContext ctx = FakeWorkContext.task().build();
    FakeWorkContext.Running r = ctx.start(ASKER);
    Question q = ctx.awaitQuestion(PATIENCE);
    assertEquals("Deploy build 42?", q.text());
    assertEquals(List.of("yes", "no"), q.options().stream().map(o -> o.name()).toList());
    assertTrue(!r.done(), "the type waits for the answer");
    assertThrows(IllegalArgumentException.class, () -> ctx.answer("maybe"));
    ctx.answer("no");
    assertEquals(new Outcome.Succeeded("no {\"deploy\":false}"), r.await(PATIENCE));
    assertEquals(List.of(q), ctx.questions());
  }

  @Test
  void Q16_aStopWhileWaiting_endsTheWaitWithoutAnAnswer() throws Exception {
    FakeWorkContext ctx = FakeWorkContext.task().build();
    FakeWorkContext.Running r = ctx.start(ASKER);
    ctx.awaitQuestion(PATIENCE);
    ctx.requestStop();
    assertEquals(new Outcome.Stalled(0, "stopped while asking"), r.await(PATIENCE));
  }

  @Test
  void Q16_aQuestionIsCheckedAsTheDaemonChecksIt_andAServiceCannotAsk() {
    FakeWorkContext task = FakeWorkContext.task().build();
    assertThrows(IllegalArgumentException.class, () -> task.ask(Question.of("no options?")));
    assertThrows(IllegalArgumentException.class, () -> task.ask(Question.of("two\nlines").option("a", "", 1)));
    FakeWorkContext service = FakeWorkContext.service("indexer").build();
    assertThrows(UnsupportedOperationException.class, () -> service.ask(Question.of("?").option("a", "", 1)));
  }
}
