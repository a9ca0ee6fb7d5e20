package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Submission;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.schedule.FireDecision;
import dev.vigil.coordination.schedule.Schedules;
import java.util.ArrayList;
import java.util.List;

/**
 * Q15: when the daemon looks at its schedules. The look itself, the decision and the tickets are the
 * store's ({@link Schedules#fireDue}, one transaction per schedule); this part only decides when to
 * look: at boot, at the earliest next fire of an unpaused schedule (a deadline of the engine, on the
 * wall clock, since fires are wall-clock instants), after a change of a schedule, and, while a fire
 * waits for a live ticket (overlap {@code queue}), whenever a ticket may have ended. A look that finds
 * nothing due changes nothing, so an early or repeated look is harmless; a wall clock set forward is
 * seen at the next tick (at least every reconcile), one set back makes no fire due twice.
 */
final class Firing {
  private final Ctx ctx;
  private final Schedules schedules;
  /** The earliest next fire, wall-clock ms, as of the last look ({@link Long#MAX_VALUE}: none). */
  private long nextFireWallMs = Long.MAX_VALUE;
  /** A look was asked for (at boot, after a change, after a ticket ended while a fire waits). */
  private boolean wanted = true;
  /** A fire waits for a live ticket to end. */
  private boolean waiting;

  Firing(Ctx ctx, Schedules schedules) {
    this.ctx = ctx;
    this.schedules = schedules;
  }

  /** Looks when a fire is due or a look was asked for; returns whether a fire submitted a ticket. */
  boolean tick(long nowWallMs) {
    if (!wanted && nowWallMs < nextFireWallMs) {
      return false;
    }
    wanted = false;
    Schedules.FireRound round = schedules.fireDue(nowWallMs);
    nextFireWallMs = round.nextFireMs();
    waiting = round.waiting();
    boolean submitted = false;
    for (Schedules.Fired f : round.fired()) {
      List<TicketId> tickets = new ArrayList<>();
      for (Submission s : f.submissions()) {
        tickets.add(s instanceof Submission.Accepted a ? a.ticket().id() : ((Submission.Duplicate) s).existing().id());
      }
      ctx.record(new EngineEvent.ScheduleFired(f.name(), f.decision(), tickets));
      submitted |= f.decision() instanceof FireDecision.Submit;
    }
    return submitted;
  }

  /** A schedule was added, resumed or changed: look at the next tick. */
  void changed() {
    wanted = true;
  }

  /** A ticket may have ended (a settlement, a cancel): look again if a fire waits for one. */
  void ticketMayHaveEnded() {
    if (waiting) {
      wanted = true;
    }
  }

  /** When to tick for the schedules: now when a look was asked for, else at the next fire. */
  long nextDeadlineMonoMs(long nowMonoMs, long nowWallMs) {
    if (wanted) {
      return nowMonoMs;
    }
    if (nextFireWallMs == Long.MAX_VALUE) {
      return Long.MAX_VALUE;
    }
    return nowMonoMs + Math.max(0, nextFireWallMs - nowWallMs);
  }
}
