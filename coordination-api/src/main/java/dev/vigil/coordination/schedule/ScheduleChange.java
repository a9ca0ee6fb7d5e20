package dev.vigil.coordination.schedule;

import java.util.Objects;

/** The decision of a verb that adds, pauses, resumes or removes a schedule. A refusal changes nothing. */
public sealed interface ScheduleChange {
  /**
   * Done: {@code schedule} as it is after the verb (as it was, for a removal).
   *
   * @param changed whether the verb changed it (a pause of a paused schedule does not)
   */
  record Done(Schedule schedule, boolean changed) implements ScheduleChange {
    public Done {
      Objects.requireNonNull(schedule, "schedule");
    }
  }

  /** An add of a name already taken: nothing changed; {@code existing} is that schedule. */
  record Exists(Schedule existing) implements ScheduleChange {
    public Exists {
      Objects.requireNonNull(existing, "existing");
    }
  }

  /** No schedule of that name. */
  record NotFound(ScheduleName name) implements ScheduleChange {
    public NotFound {
      Objects.requireNonNull(name, "name");
    }
  }

  /** A removal of a schedule defined in the configuration file: it is removed there. Nothing changed. */
  record Configured(Schedule schedule) implements ScheduleChange {
    public Configured {
      Objects.requireNonNull(schedule, "schedule");
    }
  }
}
