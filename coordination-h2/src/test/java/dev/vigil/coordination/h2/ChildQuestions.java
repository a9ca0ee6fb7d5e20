package dev.vigil.coordination.h2;

import dev.vigil.coordination.Action;
import dev.vigil.coordination.Answering;
import dev.vigil.coordination.Applying;
import dev.vigil.coordination.Asking;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewQuestion;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.QuestionId;
import dev.vigil.coordination.QuestionOption;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.TicketId;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The child side of {@link H2QuestionCrashTest}, run by {@link ChildDatabase} as {@code questions <file> <round>}:
 * in a loop until it is killed, holds a new ticket, asks about it, answers (release, retry or cancel) and
 * mostly applies the answer, printing each acknowledged decision as one flushed line: {@code HOLD t-N},
 * {@code ASK q-K t-N}, {@code ANSWER q-K OPTION}, {@code APPLY q-K}.
 */
final class ChildQuestions {
  /** The options every question offers. */
  static final List<String> OPTIONS = List.of("release", "retry", "cancel");

  private ChildQuestions() {}

  static NewQuestion about(TicketId t) {
    return new NewQuestion("held:" + t, t + " is held: what now?", null, t, null, List.of(
        new QuestionOption("release", "", List.of(new Action.Release(t, 2))),
        new QuestionOption("retry", "", List.of(new Action.RetryNow(t))),
        new QuestionOption("cancel", "", List.of(new Action.Cancel(t)))));
  }

  static void run(Path file, int round, PrintStream out) {
    H2Coordination h2 = H2Coordination.open(file, H2Options.defaults());
    out.println("OPEN round " + round);
    out.flush();
    SplittableRandom rnd = new SplittableRandom(round);
    long now = 1_000L * round;
    while (true) {
      now++;
      TicketId t = ((Submission.Accepted) h2.submit(new NewTicket(Lane.DEFAULT, "command", "{}", 2, 0, 0, null), now))
          .ticket().id();
      h2.hold(t, "attempts used up", now);
      ack(out, "HOLD " + t);
      QuestionId q = ((Asking.Asked) h2.ask(about(t), now)).question().id();
      ack(out, "ASK " + q + " " + t);
      if (rnd.nextInt(5) == 0) {
        continue; // left OPEN
      }
      String option = OPTIONS.get(rnd.nextInt(OPTIONS.size()));
      if (!(h2.answer(q, option, now) instanceof Answering.Answered)) {
        throw new AssertionError("answer of " + q);
      }
      ack(out, "ANSWER " + q + " " + option);
      if (rnd.nextInt(4) == 0) {
        continue; // left ANSWERED: the daemon died before it applied
      }
      if (!(h2.applyAnswer(q, now) instanceof Applying.Applied)) {
        throw new AssertionError("apply of " + q);
      }
      ack(out, "APPLY " + q);
    }
  }

  private static void ack(PrintStream out, String line) {
    out.println(line);
    out.flush();
  }
}
