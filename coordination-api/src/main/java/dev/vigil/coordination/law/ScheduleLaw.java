package dev.vigil.coordination.law;

import dev.vigil.coordination.Submission;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.schedule.FireDecision;
import dev.vigil.coordination.schedule.Schedule;
import dev.vigil.coordination.schedule.ScheduleChange;
import dev.vigil.coordination.schedule.ScheduleName;
import dev.vigil.coordination.schedule.ScheduleSpec;
import dev.vigil.coordination.schedule.ScheduleView;
import dev.vigil.coordination.schedule.Schedules;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The reference model of {@link Schedules} over a {@link LeaseLaw}: a map of schedules, one lock, and
 * each look at a schedule done in the most direct way. Q15: a look reads the schedule and its last
 * ticket, asks {@link Schedule#plan} and applies the decision (the tickets through
 * {@link LeaseLaw#submit}, whose idempotency key stands behind it, and the new fire state) under the
 * lock, so nothing can fall between the submission and the new state.
 */
public final class ScheduleLaw implements Schedules {
  private final LeaseLaw law;
  private final SortedMap<ScheduleName, Schedule> schedules = new TreeMap<>();

  public ScheduleLaw(LeaseLaw law) {
    this.law = Objects.requireNonNull(law, "law");
  }

  @Override
  public synchronized ScheduleChange add(ScheduleSpec spec, long nowMs) {
    Objects.requireNonNull(spec, "spec");
    Schedule existing = schedules.get(spec.name());
    if (existing != null) {
      return new ScheduleChange.Exists(existing);
    }
    Schedule s = Schedule.created(spec, Schedule.Origin.COMMAND, nowMs);
    schedules.put(spec.name(), s);
    return new ScheduleChange.Done(s, true);
  }

  @Override
  public synchronized List<Schedule> configure(List<ScheduleSpec> configured, long nowMs) {
    List<ScheduleSpec> all = List.copyOf(configured);
    Set<ScheduleName> named = new HashSet<>();
    for (ScheduleSpec spec : all) {
      if (!named.add(spec.name())) {
        throw new IllegalArgumentException("schedule " + spec.name() + " is configured twice");
      }
    }
    schedules.values().removeIf(s -> s.origin() == Schedule.Origin.CONFIG && !named.contains(s.name()));
    List<Schedule> out = new ArrayList<>();
    for (ScheduleSpec spec : all) {
      Schedule old = schedules.get(spec.name());
      Schedule s = old == null ? Schedule.created(spec, Schedule.Origin.CONFIG, nowMs)
          : old.redefined(spec, Schedule.Origin.CONFIG);
      schedules.put(spec.name(), s);
      out.add(s);
    }
    out.sort((a, b) -> a.name().compareTo(b.name()));
    return out;
  }

  @Override
  public synchronized ScheduleChange pause(ScheduleName name) {
    return change(name, s -> s.withPaused(true));
  }

  @Override
  public synchronized ScheduleChange resume(ScheduleName name, long nowMs) {
    return change(name, s -> s.paused() ? s.resumedAt(nowMs) : s);
  }

  private ScheduleChange change(ScheduleName name, java.util.function.UnaryOperator<Schedule> f) {
    Objects.requireNonNull(name, "name");
    Schedule s = schedules.get(name);
    if (s == null) {
      return new ScheduleChange.NotFound(name);
    }
    Schedule after = f.apply(s);
    schedules.put(name, after);
    return new ScheduleChange.Done(after, !after.equals(s));
  }

  @Override
  public synchronized ScheduleChange remove(ScheduleName name) {
    Objects.requireNonNull(name, "name");
    Schedule s = schedules.get(name);
    if (s == null) {
      return new ScheduleChange.NotFound(name);
    }
    if (s.origin() == Schedule.Origin.CONFIG) {
      return new ScheduleChange.Configured(s);
    }
    schedules.remove(name);
    return new ScheduleChange.Done(s, true);
  }

  @Override
  public synchronized List<ScheduleView> list() {
    List<ScheduleView> out = new ArrayList<>();
    for (Schedule s : schedules.values()) {
      Optional<Ticket> last = s.lastTicket() == null ? Optional.empty() : law.ticket(s.lastTicket());
      out.add(ScheduleView.of(s, last.orElse(null), last.isPresent() ? law.runsOf(s.lastTicket()) : List.of()));
    }
    return out;
  }

  @Override
  public synchronized FireRound fireDue(long nowMs) {
    List<Fired> fired = new ArrayList<>();
    long next = Long.MAX_VALUE;
    boolean waiting = false;
    for (ScheduleName name : List.copyOf(schedules.keySet())) {
      Schedule s = schedules.get(name);
      boolean previousLive = s.lastTicket() != null
          && law.ticket(s.lastTicket()).map(t -> Schedule.live(t.state())).orElse(false);
      FireDecision d = s.plan(previousLive, nowMs);
      List<Submission> submissions = new ArrayList<>();
      TicketId latest = null;
      if (d instanceof FireDecision.Submit sub) {
        for (long fire : sub.firesMs()) {
          Submission r = law.submit(s.ticketFor(fire), nowMs);
          submissions.add(r);
          latest = r instanceof Submission.Accepted a ? a.ticket().id() : ((Submission.Duplicate) r).existing().id();
        }
      }
      Schedule after = s.after(d, latest);
      schedules.put(name, after);
      if (!(d instanceof FireDecision.Idle)) {
        fired.add(new Fired(name, d, submissions));
      }
      next = Math.min(next, after.nextFireMs().orElse(Long.MAX_VALUE));
      waiting |= after.pendingFireMs() != null && !after.paused();
    }
    return new FireRound(fired, next, waiting);
  }
}
