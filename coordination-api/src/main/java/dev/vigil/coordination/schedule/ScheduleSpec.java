package dev.vigil.coordination.schedule;

import dev.vigil.coordination.NewTicket;
import java.time.ZoneId;
import java.util.Objects;

/**
 * What a schedule is: its name, when it fires, in which zone, what each fire submits and its two
 * policies. Its fire state is in {@link Schedule}.
 *
 * @param name     the schedule's name
 * @param cron     when it fires
 * @param zone     the zone its cron is read in
 * @param template the ticket each fire submits, without an idempotency key (each fire gets
 *                 {@code schedule:NAME:FIRE_TIME}) and due at once
 * @param catchUp  what it does with missed fires
 * @param overlap  what it does with a fire while the previous fire's ticket is live
 */
public record ScheduleSpec(ScheduleName name, Cron cron, ZoneId zone, NewTicket template, CatchUp catchUp,
                           Overlap overlap) {
  public ScheduleSpec {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(cron, "cron");
    Objects.requireNonNull(zone, "zone");
    Objects.requireNonNull(template, "template");
    Objects.requireNonNull(catchUp, "catchUp");
    Objects.requireNonNull(overlap, "overlap");
    if (template.key() != null) {
      throw new IllegalArgumentException("a schedule's ticket has no key of its own: each fire gets schedule:"
          + name + ":FIRE_TIME");
    }
    for (String reserved : new String[] {Schedule.LABEL, Schedule.FIRE_LABEL}) {
      if (template.labels().containsKey(reserved)) {
        throw new IllegalArgumentException("label '" + reserved + "' is set by the schedule on each fire's task: "
            + "choose another name");
      }
    }
    if (template.labels().size() > dev.vigil.coordination.Labels.MAX_LABELS - 2) {
      throw new IllegalArgumentException("a schedule's task has at most " + (dev.vigil.coordination.Labels.MAX_LABELS - 2)
          + " labels of its own (each fire adds two)");
    }
    if (template.notBeforeMs() != 0) {
      throw new IllegalArgumentException("a schedule's ticket is due when it fires (notBeforeMs must be 0)");
    }
  }

  /**
   * A zone by its id ({@code UTC}, {@code Europe/Berlin}, {@code +02:00}).
   *
   * @throws IllegalArgumentException one line naming the zone
   */
  public static ZoneId zone(String id) {
    try {
      return ZoneId.of(id);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("zone '" + id + "' is not a time zone (like UTC, Europe/Berlin or +02:00)");
    }
  }
}
