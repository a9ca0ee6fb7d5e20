package dev.vigil.coordination.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.Applying;
import dev.vigil.coordination.Event;
import dev.vigil.coordination.Question;
import dev.vigil.coordination.QuestionId;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.law.CoordinationInvariants;
import dev.vigil.coordination.law.Coverage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Q16 across {@code kill -9}: a child JVM ({@link ChildQuestions}) holds tickets, asks about them, answers and
 * applies, printing each acknowledged decision; the test kills it with SIGKILL at a random moment, opens the
 * database as a restarted daemon would, applies every question still ANSWERED, and requires every question to
 * have been applied exactly once: every acknowledged answer and apply is there, every ticket moved exactly as
 * its answer said once (a release granted its 2 attempts once, a cancel wrote one CANCELLED event), and a
 * question never answered left its ticket HELD.
 */
@Tag("slow")
class H2QuestionCrashTest {
  private static final int ROUNDS = Integer.getInteger("vigil.h2.crash.rounds", 8);
  private static final long MAX_LIFE_MS = Long.getLong("vigil.h2.crash.maxLifeMs", 1_500);

  @TempDir
  Path dir;

  @Test
  void Q16_everyAnswerIsAppliedExactlyOnce_acrossKill9BetweenAnswerAndApplyAndInsideTheApply() throws Exception {
    Path file = dir.resolve("questions.mv.db");
    long seed = Long.getLong("vigil.h2.crash.seed", System.nanoTime());
    SplittableRandom rnd = new SplittableRandom(seed);
    Map<QuestionId, String> answered = new HashMap<>();
    List<QuestionId> appliedByChild = new ArrayList<>();
    Map<QuestionId, TicketId> asked = new HashMap<>();
    Coverage cov = new Coverage("Q16 across kill -9");
    for (int round = 1; round <= ROUNDS; round++) {
      long lifeMs = 200 + rnd.nextLong(MAX_LIFE_MS);
      List<String> lines;
      try (Children child = Children.start(dir, "questions", file.toString(), Integer.toString(round))) {
        assertTrue(child.awaitLine("HOLD", 60_000), "round " + round + ": the child never worked (see " + dir + ")");
        Thread.sleep(lifeMs);
        lines = child.kill9();
      }
      for (String l : lines) {
        String[] f = l.split(" ");
        switch (f[0]) {
          case "ASK" -> asked.put(QuestionId.parse(f[1]), TicketId.parse(f[2]));
          case "ANSWER" -> answered.put(QuestionId.parse(f[1]), f[2]);
          case "APPLY" -> appliedByChild.add(QuestionId.parse(f[1]));
          default -> { }
        }
      }
      String where = "seed " + seed + " round " + round;
      try (H2Coordination h2 = H2Coordination.open(file, H2Options.defaults())) {
        CoordinationInvariants.check(h2.store());
        for (Map.Entry<QuestionId, String> a : answered.entrySet()) {
          Question q = h2.store().question(a.getKey()).orElseThrow(() -> new AssertionError("lost " + a + ", " + where));
          assertEquals(a.getValue(), q.answer(), "an acknowledged answer survives, " + where);
        }
        for (QuestionId id : appliedByChild) {
          assertEquals(Question.State.APPLIED, h2.store().question(id).orElseThrow().state(),
              "an acknowledged apply survives, " + where);
        }
        // the restarted daemon applies what was answered and not applied
        for (Question q : h2.store().questions(Set.of(Question.State.ANSWERED))) {
          assertInstanceOf(Applying.Applied.class, h2.applyAnswer(q.id(), 9_999_999), where);
          cov.saw(appliedByChild.contains(q.id()) ? "applied-twice" : "applied-after-restart");
        }
        List<Event> events = h2.store().events(0, 1_000_000);
        for (Question q : h2.store().questions(Set.of())) {
          Ticket t = h2.store().ticket(q.question().ticket()).orElseThrow();
          long cancels = events.stream().filter(e -> e.kind() == Event.Kind.CANCELLED && t.id().equals(e.ticket()))
              .count();
          if (q.state() == Question.State.OPEN) {
            assertEquals(TicketState.HELD, t.state(), "an unanswered question moves nothing, " + where);
            cov.saw("open");
            continue;
          }
          assertEquals(Question.State.APPLIED, q.state(), where);
          assertInstanceOf(Applying.Denied.class, h2.applyAnswer(q.id(), 9_999_999), "applied once, " + where);
          switch (q.answer()) {
            case "release" -> {
              assertEquals(TicketState.READY, t.state(), where);
              assertEquals(2, t.attemptsGranted(), "Q16: the grant was given exactly once, " + q.id() + ", " + where);
            }
            case "retry" -> {
              assertEquals(TicketState.READY, t.state(), where);
              assertEquals(0, t.attemptsGranted(), q.id() + ", " + where);
            }
            case "cancel" -> {
              assertEquals(TicketState.CANCELLED, t.state(), where);
              assertEquals(1, cancels, "Q16: one CANCELLED event, " + q.id() + ", " + where);
            }
            default -> throw new AssertionError(q);
          }
          cov.saw("applied-" + q.answer());
        }
        CoordinationInvariants.check(h2.store());
      }
    }
    assertEquals(0, cov.count("applied-twice"), "Q16: nothing acknowledged as applied was ANSWERED after the kill");
    cov.assertSaw("open", "applied-release", "applied-retry", "applied-cancel", "applied-after-restart");
    System.out.println(cov + ", seed " + seed);
  }
}
