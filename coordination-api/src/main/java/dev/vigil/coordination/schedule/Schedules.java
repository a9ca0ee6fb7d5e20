package dev.vigil.coordination.schedule;

import dev.vigil.coordination.Submission;
import java.util.List;
import java.util.Objects;

/**
 * The port by which a store keeps recurring schedules and fires them (Q15). Each verb is one
 * transaction; time is an argument (wall-clock ms).
 *
 * <p>Q15, one ticket per fire: {@link #fireDue} reads each schedule, asks {@link Schedule#plan} (the
 * pure {@link FireRule}) and applies the decision, the tickets and the schedule's new fire state in one
 * transaction, so a crash leaves either all of it or none, and a second caller racing for the same fire
 * finds it decided. Each fire's ticket carries the key {@code schedule:NAME:FIRE_TIME}, so even a
 * schedule removed and added again never submits a fire twice.
 */
public interface Schedules {
  /** Stores a new schedule (origin COMMAND), first due after {@code nowMs}; a taken name is refused (Exists). */
  ScheduleChange add(ScheduleSpec spec, long nowMs);

  /**
   * Keeps the configuration's schedules in the store, in one transaction: each is added (origin CONFIG)
   * or redefined with its fire state kept; a schedule of origin CONFIG that the list no longer names is
   * removed. A schedule of origin COMMAND with a configured name becomes the configured one.
   *
   * @return the schedules of origin CONFIG after the verb, by name
   */
  List<Schedule> configure(List<ScheduleSpec> configured, long nowMs);

  /** No fire is decided until resumed. */
  ScheduleChange pause(ScheduleName name);

  /** Fires are decided again from {@code nowMs}: the fires of the pause are dropped. */
  ScheduleChange resume(ScheduleName name, long nowMs);

  /** Removes a schedule of origin COMMAND (a configured one is refused: Configured); its tickets stay. */
  ScheduleChange remove(ScheduleName name);

  /** Every schedule by name, with its next fire and its last fire's ticket and verdict. */
  List<ScheduleView> list();

  /**
   * Q15: decides every schedule's due fires at {@code nowMs} and applies each decision (each schedule in
   * its own transaction).
   */
  FireRound fireDue(long nowMs);

  /**
   * One look at every schedule.
   *
   * @param fired      the schedules whose decision was not {@link FireDecision.Idle}, by name
   * @param nextFireMs the earliest next fire of an unpaused schedule, or {@link Long#MAX_VALUE} for none
   * @param waiting    whether a fire waits for a live ticket to end (overlap {@code queue}): look again
   *                   when a ticket ends
   */
  record FireRound(List<Fired> fired, long nextFireMs, boolean waiting) {
    public FireRound {
      fired = List.copyOf(fired);
    }
  }

  /**
   * One schedule's decision and what it submitted.
   *
   * @param name        the schedule
   * @param decision    the decision applied
   * @param submissions one per fire of a {@link FireDecision.Submit}, in its order (a fire whose key was
   *                    already used names that ticket: {@link Submission.Duplicate})
   */
  record Fired(ScheduleName name, FireDecision decision, List<Submission> submissions) {
    public Fired {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(decision, "decision");
      submissions = List.copyOf(submissions);
    }
  }
}
