package dev.vigil.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.Question;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Questions through the embedding façade (Q16): a held task is asked about; the answer is applied once by the daemon. */
class VigilQuestionsTest {
  private static final Duration LONG = Duration.ofSeconds(90);

  @TempDir
  Path tmp;

  @Test
  void Q16_aHeldTaskIsAskedAbout_andTheAnswerIsRecordedByTheFacade_andAppliedOnceByTheDaemon() throws Exception {
    Path home = CliEndToEndTest.ownerOnlyHome(tmp, "facade", new ArrayList<>());
    try (Vigil v = Vigil.builder().home(home).start()) {
      List<VigilEvent> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
      Subscription sub = v.events(0, heard::add);
      Submitted s = v.submit(Task.command("sh", "-c", "exit 3").attempts(1).build());
      assertEquals(TicketState.HELD, v.await(s.id(), LONG).state());
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (v.questions().isEmpty()) {
        assertTrue(System.nanoTime() < deadline, "the daemon asks about the held task");
        Thread.sleep(50);
      }
      Question q = v.questions().get(0);
      assertEquals(s.id(), q.question().ticket());
      assertEquals(List.of("retry", "release", "cancel"), q.optionNames());
      while (heard.stream().noneMatch(e -> e instanceof VigilEvent.Asked)) {
        assertTrue(System.nanoTime() < deadline, "a listener hears that a question was asked: " + heard);
        Thread.sleep(50);
      }
      VigilEvent.Asked asked = (VigilEvent.Asked) heard.stream().filter(e -> e instanceof VigilEvent.Asked).findFirst()
          .orElseThrow();
      assertEquals(q.id(), asked.question());
      assertEquals(s.id(), asked.ticket());
      assertEquals(q.question().text(), asked.text());
      sub.close();

      assertInstanceOf(Decision.Invalid.class, v.answer(q.id(), "banana"));
      Decision d = v.answer(q.id(), "cancel");
      assertEquals("cancel", assertInstanceOf(Decision.Answered.class, d).question().answer());
      assertInstanceOf(Decision.Refused.class, v.answer(q.id(), "retry"), "an answer is given once");

      Ticket done = v.await(s.id(), LONG);
      while (done.state() != TicketState.CANCELLED) {
        assertTrue(System.nanoTime() < deadline, "the daemon applies the answer: " + done);
        Thread.sleep(50);
        done = v.ticket(s.id()).orElseThrow();
      }
      assertEquals(List.of(), v.questions());
      Question applied = v.allQuestions().get(0);
      assertEquals(Question.State.APPLIED, applied.state());
      assertEquals("done: cancel " + s.id(), applied.outcome());
    }
  }
}
