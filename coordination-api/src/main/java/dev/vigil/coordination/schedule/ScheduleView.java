package dev.vigil.coordination.schedule;

import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunState;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.Verdict;
import java.util.List;
import java.util.Objects;

/**
 * A schedule as {@code vigil schedule list} and {@code vigil status} show it.
 *
 * @param schedule    the schedule
 * @param nextFireMs  its next fire (at or before now when one is due), or null when paused or never again
 * @param lastTicket  the ticket of its latest fire as it is now, or null when no fire submitted one
 * @param lastVerdict the verdict of that ticket's latest settled run, or null when none settled
 */
public record ScheduleView(Schedule schedule, Long nextFireMs, Ticket lastTicket, Verdict lastVerdict) {
  public ScheduleView {
    Objects.requireNonNull(schedule, "schedule");
  }

  /**
   * The view of {@code s}, whose last ticket is {@code last} (null when none) with the runs {@code runs}
   * (in run order): the verdict shown is the latest settled run's.
   */
  public static ScheduleView of(Schedule s, Ticket last, List<Run> runs) {
    Verdict v = null;
    for (Run r : runs) {
      if (r.state() == RunState.SETTLED) {
        v = r.verdict();
      }
    }
    long next = s.nextFireMs().orElse(Long.MIN_VALUE);
    return new ScheduleView(s, next == Long.MIN_VALUE ? null : next, last, v);
  }
}
