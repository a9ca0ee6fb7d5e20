package dev.vigil.coordination.schedule;

import dev.vigil.coordination.Labels;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import java.time.Instant;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * A schedule as stored: what it is and where its fires stand. Immutable; the pure steps of a look
 * ({@link #plan}, {@link #after}) are the same for the reference model and for every store.
 *
 * @param spec             what the schedule is
 * @param origin           where it was defined
 * @param paused           a paused schedule decides no fire; a resume drops the fires of the pause
 * @param createdAtMs      when it was first stored, wall-clock ms
 * @param lastFireMs       the latest fire decided (submitted, skipped or made to wait); fires after it
 *                         are due once now reaches them. A new schedule starts at its creation time.
 * @param pendingFireMs    the fire waiting for the previous ticket to end (overlap {@code queue}), or null
 * @param lastTicket       the ticket of the latest fire that submitted one, or null
 * @param lastTicketFireMs that fire's time, or null exactly when {@code lastTicket} is
 */
public record Schedule(ScheduleSpec spec, Origin origin, boolean paused, long createdAtMs, long lastFireMs,
                       Long pendingFireMs, TicketId lastTicket, Long lastTicketFireMs) {
  /** The label every fire's ticket carries, with the schedule's name as its value. */
  public static final String LABEL = "schedule";
  /** The label every fire's ticket carries, with its fire time as a UTC instant ({@code 2026-12-02T03:00:00Z}). */
  public static final String FIRE_LABEL = "fire";

  public Schedule {
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(origin, "origin");
    if ((lastTicket == null) != (lastTicketFireMs == null)) {
      throw new IllegalArgumentException("lastTicket and lastTicketFireMs are set together");
    }
  }

  /** Where a schedule was defined. */
  public enum Origin {
    /** In the daemon's configuration file: kept in step with it at each start. */
    CONFIG,
    /** By a command ({@code vigil schedule add}) or the embedding API. */
    COMMAND
  }

  /** A new schedule, first due after {@code nowMs}. */
  public static Schedule created(ScheduleSpec spec, Origin origin, long nowMs) {
    return new Schedule(spec, origin, false, nowMs, nowMs, null, null, null);
  }

  public ScheduleName name() {
    return spec.name();
  }

  /** Q15: the idempotency key of one fire, {@code schedule:NAME:FIRE_TIME} with the fire as a UTC instant. */
  public static String key(ScheduleName name, long fireMs) {
    return "schedule:" + name + ":" + Instant.ofEpochMilli(fireMs);
  }

  /** Whether a ticket in {@code state} is still live for the overlap policy: waiting, running or held. */
  public static boolean live(TicketState state) {
    return state == TicketState.READY || state == TicketState.LEASED || state == TicketState.HELD;
  }

  /**
   * The ticket fire {@code fireMs} submits: the template with the fire's key and the labels
   * {@value #LABEL} (the schedule) and {@value #FIRE_LABEL} (the fire time).
   */
  public NewTicket ticketFor(long fireMs) {
    TreeMap<String, String> labels = new TreeMap<>(spec.template().labels());
    labels.put(LABEL, name().name());
    labels.put(FIRE_LABEL, Instant.ofEpochMilli(fireMs).toString());
    NewTicket t = spec.template();
    return new NewTicket(t.lane(), t.type(), t.payload(), t.maxAttempts(), t.priority(), 0, key(name(), fireMs),
        t.spec(), Labels.check(labels));
  }

  /** Q15: what this schedule does at {@code nowMs} ({@link FireRule}); a paused schedule does nothing. */
  public FireDecision plan(boolean previousLive, long nowMs) {
    if (paused) {
      return new FireDecision.Idle();
    }
    Cron.Due due = spec.cron().due(lastFireMs, nowMs, spec.zone(), FireRule.CATCH_UP_ALL_MAX);
    OptionalLong pending = pendingFireMs == null ? OptionalLong.empty() : OptionalLong.of(pendingFireMs);
    return FireRule.decide(due, pending, previousLive, nowMs, spec.catchUp(), spec.overlap());
  }

  /**
   * This schedule after {@code d} was applied: the last decided fire moves forward (never back) to the
   * decision's, a waiting fire is set or cleared, and {@code submitted} (the ticket of the decision's
   * latest fire, new or named by its key) becomes the last ticket.
   *
   * @param submitted the ticket of the latest fire of a {@link FireDecision.Submit}; null otherwise
   */
  public Schedule after(FireDecision d, TicketId submitted) {
    if (d instanceof FireDecision.Idle) {
      return this;
    } else if (d instanceof FireDecision.Submit s) {
      Objects.requireNonNull(submitted, "submitted");
      long last = s.firesMs().get(s.firesMs().size() - 1);
      return new Schedule(spec, origin, paused, createdAtMs, Math.max(lastFireMs, s.throughMs()), null, submitted, last);
    } else if (d instanceof FireDecision.Skip s) {
      return new Schedule(spec, origin, paused, createdAtMs, Math.max(lastFireMs, s.throughMs()), pendingFireMs,
          lastTicket, lastTicketFireMs);
    } else if (d instanceof FireDecision.Wait w) {
      return new Schedule(spec, origin, paused, createdAtMs, Math.max(lastFireMs, w.throughMs()), w.pendingMs(),
          lastTicket, lastTicketFireMs);
    } else {
      throw new AssertionError(d);
    }
  }

  /**
   * The next fire to decide: the first after the last decided one (at or before now when one is due);
   * empty when paused or when the cron fires no more.
   */
  public OptionalLong nextFireMs() {
    return paused ? OptionalLong.empty() : spec.cron().nextAfter(lastFireMs, spec.zone());
  }

  /** Paused, or not. */
  public Schedule withPaused(boolean p) {
    return new Schedule(spec, origin, p, createdAtMs, lastFireMs, pendingFireMs, lastTicket, lastTicketFireMs);
  }

  /** Resumed at {@code nowMs}: the fires of the pause are dropped, a fire waiting before it still waits. */
  public Schedule resumedAt(long nowMs) {
    return new Schedule(spec, origin, false, createdAtMs, Math.max(lastFireMs, nowMs), pendingFireMs, lastTicket,
        lastTicketFireMs);
  }

  /** Redefined by {@code s} (a changed configuration) and from {@code origin}; its fire state is kept. */
  public Schedule redefined(ScheduleSpec s, Origin o) {
    return new Schedule(s, o, paused, createdAtMs, lastFireMs, s.overlap() == Overlap.QUEUE ? pendingFireMs : null,
        lastTicket, lastTicketFireMs);
  }
}
