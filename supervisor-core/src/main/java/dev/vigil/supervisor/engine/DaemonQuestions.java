package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Action;
import dev.vigil.coordination.NewQuestion;
import dev.vigil.coordination.QuestionOption;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketState;
import java.util.List;

/**
 * The questions the daemon itself asks (Q16), and which options each offers: a pure function of what
 * happened.
 *
 * <ul>
 *   <li>A ticket HELD (attempts used up, a hand-started run, spawn failures, an operator's hold):
 *       {@code retry} (run it again now: released with one attempt if none remain), {@code release} (with
 *       {@value #RELEASE_ATTEMPTS} more attempts), {@code cancel}. Its key names the ticket, its runs and its
 *       grants so far, so a ticket held again after a release is asked about again, and one held once is
 *       asked about once, however often the daemon restarts.
 *   <li>A service given up by its restart budget (S1): {@code restart} (start it again with a fresh budget)
 *       or {@code leave} (leave it down). Its key names the event that reported the give-up.
 * </ul>
 */
final class DaemonQuestions {
  /** The attempts the {@code release} option of a held ticket grants. */
  static final int RELEASE_ATTEMPTS = 3;
  /** The longest reason quoted in a question's text, in characters. */
  private static final int QUOTED = 300;

  private DaemonQuestions() {}

  /** The idempotency key of the question about {@code held} with {@code runs} runs so far. */
  static String heldKey(Ticket held, int runs) {
    return "held:" + held.id() + ":runs=" + runs + ":granted=" + held.attemptsGranted();
  }

  /** The question about a HELD ticket. */
  static NewQuestion held(Ticket t, int runs) {
    if (t.state() != TicketState.HELD) {
      throw new IllegalArgumentException(t.id() + " is not held");
    }
    String reason = t.holdReason() == null ? "" : t.holdReason().replace('\n', ' ').replace('\r', ' ');
    if (reason.length() > QUOTED) {
      reason = reason.substring(0, QUOTED) + "…";
    }
    return new NewQuestion(heldKey(t, runs), t.id() + " (" + t.type() + " in lane " + t.lane() + ") is held"
        + (reason.isBlank() ? "" : ": " + reason) + ". What now?", null, t.id(), null, List.of(
        new QuestionOption("retry", "run it again now", List.of(new Action.RetryNow(t.id()))),
        new QuestionOption("release", "release it with " + RELEASE_ATTEMPTS + " more attempts",
            List.of(new Action.Release(t.id(), RELEASE_ATTEMPTS))),
        new QuestionOption("cancel", "cancel it", List.of(new Action.Cancel(t.id())))));
  }

  /** The question about a service given up, reported by event {@code eventId}. */
  static NewQuestion givenUp(String service, long eventId, String why) {
    String reason = why.replace('\n', ' ').replace('\r', ' ');
    if (reason.length() > QUOTED) {
      reason = reason.substring(0, QUOTED) + "…";
    }
    return new NewQuestion("given-up:" + service + ":" + eventId, "service " + service
        + " was given up after failing again and again (" + reason + "). Start it again?", null, null, service,
        List.of(new QuestionOption("restart", "start it again with a fresh restart budget",
                List.of(new Action.RestartService(service))),
            new QuestionOption("leave", "leave it down", List.of())));
  }
}
