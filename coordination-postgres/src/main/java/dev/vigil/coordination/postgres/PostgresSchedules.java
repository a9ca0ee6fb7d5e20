package dev.vigil.coordination.postgres;

import dev.vigil.coordination.Environment;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.RunSpec;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.schedule.CatchUp;
import dev.vigil.coordination.schedule.Cron;
import dev.vigil.coordination.schedule.FireDecision;
import dev.vigil.coordination.schedule.Overlap;
import dev.vigil.coordination.schedule.Schedule;
import dev.vigil.coordination.schedule.ScheduleChange;
import dev.vigil.coordination.schedule.ScheduleName;
import dev.vigil.coordination.schedule.ScheduleSpec;
import dev.vigil.coordination.schedule.ScheduleView;
import dev.vigil.coordination.schedule.Schedules;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * {@link Schedules} on the PostgreSQL store ({@code schedules}), with the decisions of the
 * reference model {@code ScheduleLaw}.
 *
 * <p>Q15, one ticket per fire: a look at a schedule is one transaction that locks its row
 * ({@code SELECT … FOR NO KEY UPDATE}), reads its last ticket's state, asks {@link Schedule#plan} (the pure
 * {@link dev.vigil.coordination.schedule.FireRule}), inserts the tickets through the single insert path
 * of submissions (with the key {@code schedule:NAME:FIRE_TIME}, {@code tickets.idempotency_key} UNIQUE)
 * and writes the new fire state with a conditional UPDATE on the state it read: 1 row, the decision
 * stands; 0, a concurrent look committed first, and the transaction (tickets included) runs again and
 * finds the fire decided. A crash before the commit leaves nothing of the look; after it, all of it.
 */
final class PostgresSchedules implements Schedules {
  private static final String COLUMNS = "name, cron, zone, lane, type, payload, max_attempts, priority, work_dir, env, "
      + "timeout_ms, labels, catch_up, overlap, origin, paused, created_at_ms, last_fire_ms, pending_fire_ms, "
      + "last_ticket_id, last_ticket_fire_ms";

  private final Transactions tx;

  PostgresSchedules(Transactions tx) {
    this.tx = tx;
  }

  @Override
  public ScheduleChange add(ScheduleSpec spec, long nowMs) {
    Objects.requireNonNull(spec, "spec");
    return tx.run("scheduleAdd", c -> {
      Optional<Schedule> existing = read(c, spec.name(), true);
      if (existing.isPresent()) {
        c.rollback();
        return new ScheduleChange.Exists(existing.get());
      }
      Schedule s = Schedule.created(spec, Schedule.Origin.COMMAND, nowMs);
      insert(c, s);
      return new ScheduleChange.Done(s, true);
    });
  }

  @Override
  public List<Schedule> configure(List<ScheduleSpec> configured, long nowMs) {
    List<ScheduleSpec> all = List.copyOf(configured);
    Set<ScheduleName> named = new HashSet<>();
    for (ScheduleSpec spec : all) {
      if (!named.add(spec.name())) {
        throw new IllegalArgumentException("schedule " + spec.name() + " is configured twice");
      }
    }
    return tx.run("scheduleConfigure", c -> {
      for (Schedule s : readAll(c)) {
        if (s.origin() == Schedule.Origin.CONFIG && !named.contains(s.name())) {
          update(c, "DELETE FROM schedules WHERE name = ?", s.name().name());
        }
      }
      List<Schedule> out = new ArrayList<>();
      for (ScheduleSpec spec : all) {
        Optional<Schedule> old = read(c, spec.name(), true);
        Schedule s = old.isEmpty() ? Schedule.created(spec, Schedule.Origin.CONFIG, nowMs)
            : old.get().redefined(spec, Schedule.Origin.CONFIG);
        if (old.isPresent()) {
          update(c, "DELETE FROM schedules WHERE name = ?", spec.name().name());
        }
        insert(c, s);
        out.add(s);
      }
      out.sort((a, b) -> a.name().compareTo(b.name()));
      return out;
    });
  }

  @Override
  public ScheduleChange pause(ScheduleName name) {
    return change("schedulePause", name, s -> s.withPaused(true));
  }

  @Override
  public ScheduleChange resume(ScheduleName name, long nowMs) {
    return change("scheduleResume", name, s -> s.paused() ? s.resumedAt(nowMs) : s);
  }

  private ScheduleChange change(String verb, ScheduleName name, UnaryOperator<Schedule> f) {
    Objects.requireNonNull(name, "name");
    return tx.run(verb, c -> {
      Optional<Schedule> s = read(c, name, true);
      if (s.isEmpty()) {
        c.rollback();
        return new ScheduleChange.NotFound(name);
      }
      Schedule after = f.apply(s.get());
      if (after.equals(s.get())) {
        c.rollback();
        return new ScheduleChange.Done(after, false);
      }
      requireOne(update(c, "UPDATE schedules SET paused = ?, last_fire_ms = ? WHERE name = ?", after.paused(),
          after.lastFireMs(), name.name()), verb);
      return new ScheduleChange.Done(after, true);
    });
  }

  @Override
  public ScheduleChange remove(ScheduleName name) {
    Objects.requireNonNull(name, "name");
    return tx.run("scheduleRemove", c -> {
      Optional<Schedule> s = read(c, name, true);
      if (s.isEmpty()) {
        c.rollback();
        return new ScheduleChange.NotFound(name);
      }
      if (s.get().origin() == Schedule.Origin.CONFIG) {
        c.rollback();
        return new ScheduleChange.Configured(s.get());
      }
      requireOne(update(c, "DELETE FROM schedules WHERE name = ?", name.name()), "scheduleRemove");
      return new ScheduleChange.Done(s.get(), true);
    });
  }

  @Override
  public List<ScheduleView> list() {
    return tx.read("scheduleList", c -> {
      List<ScheduleView> out = new ArrayList<>();
      for (Schedule s : readAll(c)) {
        Optional<Ticket> last = s.lastTicket() == null ? Optional.empty() : Rows.ticket(c, s.lastTicket());
        out.add(ScheduleView.of(s, last.orElse(null), last.isPresent() ? Rows.runsOf(c, s.lastTicket()) : List.of()));
      }
      return out;
    });
  }

  @Override
  public FireRound fireDue(long nowMs) {
    List<ScheduleName> names = tx.read("scheduleNames", c -> readAll(c).stream().map(Schedule::name).toList());
    List<Fired> fired = new ArrayList<>();
    long next = Long.MAX_VALUE;
    boolean waiting = false;
    for (ScheduleName name : names) {
      Look look = tx.run("scheduleFire", c -> fire(c, name, nowMs));
      if (look.fired() != null) {
        fired.add(look.fired());
      }
      if (look.after() != null) {
        next = Math.min(next, look.after().nextFireMs().orElse(Long.MAX_VALUE));
        waiting |= look.after().pendingFireMs() != null && !look.after().paused();
      }
    }
    return new FireRound(fired, next, waiting);
  }

  /** One look: the schedule after it (null when it was removed meanwhile) and its decision (null when Idle). */
  private record Look(Schedule after, Fired fired) {}

  private static Look fire(Connection c, ScheduleName name, long nowMs) throws SQLException {
    Optional<Schedule> found = read(c, name, true);
    if (found.isEmpty()) {
      c.rollback();
      return new Look(null, null);
    }
    Schedule s = found.get();
    boolean previousLive = s.lastTicket() != null
        && Rows.ticket(c, s.lastTicket()).map(t -> Schedule.live(t.state())).orElse(false);
    FireDecision d = s.plan(previousLive, nowMs);
    if (d instanceof FireDecision.Idle) {
      c.rollback();
      return new Look(s, null);
    }
    List<Submission> submissions = new ArrayList<>();
    TicketId latest = null;
    if (d instanceof FireDecision.Submit sub) {
      for (long fire : sub.firesMs()) {
        Submission r = PostgresCoordination.insert(c, s.ticketFor(fire), nowMs);
        submissions.add(r);
        latest = r instanceof Submission.Accepted a ? a.ticket().id() : ((Submission.Duplicate) r).existing().id();
      }
    }
    Schedule after = s.after(d, latest);
    int rows = update(c, "UPDATE schedules SET last_fire_ms = ?, pending_fire_ms = ?, last_ticket_id = ?,"
            + " last_ticket_fire_ms = ? WHERE name = ? AND last_fire_ms = ? AND paused = FALSE"
            + " AND COALESCE(pending_fire_ms, -1) = ?",
        after.lastFireMs(), after.pendingFireMs(), after.lastTicket() == null ? null : after.lastTicket().seq(),
        after.lastTicketFireMs(), name.name(), s.lastFireMs(),
        s.pendingFireMs() == null ? -1L : s.pendingFireMs());
    if (rows == 0) {
      throw new Transactions.RaceLost("schedule " + name + " was looked at by a concurrent transaction");
    }
    requireOne(rows, "scheduleFire");
    return new Look(after, new Fired(name, d, submissions));
  }

  // ---- rows ----

  private static void insert(Connection c, Schedule s) throws SQLException {
    ScheduleSpec spec = s.spec();
    NewTicket t = spec.template();
    update(c, "INSERT INTO schedules(" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        spec.name().name(), spec.cron().text(), spec.zone().getId(), t.lane().name(), t.type(), t.payload(),
        t.maxAttempts(), t.priority(), t.spec().workDir(),
        t.spec().env() == null ? null : Rows.encode(t.spec().env().variables()), t.spec().timeoutMs(),
        Rows.encode(t.labels()), spec.catchUp().name(), spec.overlap().name(), s.origin().name(), s.paused(),
        s.createdAtMs(), s.lastFireMs(), s.pendingFireMs(), s.lastTicket() == null ? null : s.lastTicket().seq(),
        s.lastTicketFireMs());
  }

  private static Optional<Schedule> read(Connection c, ScheduleName name, boolean lock) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT " + COLUMNS + " FROM schedules WHERE name = ?"
        + (lock ? " FOR NO KEY UPDATE" : ""))) {
      p.setString(1, name.name());
      try (ResultSet rs = p.executeQuery()) {
        return rs.next() ? Optional.of(schedule(rs)) : Optional.empty();
      }
    }
  }

  private static List<Schedule> readAll(Connection c) throws SQLException {
    List<Schedule> out = new ArrayList<>();
    try (PreparedStatement p = c.prepareStatement("SELECT " + COLUMNS + " FROM schedules ORDER BY name");
         ResultSet rs = p.executeQuery()) {
      while (rs.next()) {
        out.add(schedule(rs));
      }
    }
    return out;
  }

  private static Schedule schedule(ResultSet rs) throws SQLException {
    String env = rs.getString("env");
    RunSpec run = new RunSpec(rs.getString("work_dir"), env == null ? null : Environment.of(Rows.decode(env)),
        rs.getLong("timeout_ms"));
    NewTicket template = new NewTicket(new Lane(rs.getString("lane")), rs.getString("type"), rs.getString("payload"),
        rs.getInt("max_attempts"), rs.getInt("priority"), 0, null, run, Rows.decode(rs.getString("labels")));
    ScheduleSpec spec = new ScheduleSpec(new ScheduleName(rs.getString("name")), Cron.parse(rs.getString("cron")),
        ZoneId.of(rs.getString("zone")), template, CatchUp.valueOf(rs.getString("catch_up")),
        Overlap.valueOf(rs.getString("overlap")));
    long lastTicket = rs.getLong("last_ticket_id");
    TicketId last = rs.wasNull() ? null : new TicketId(lastTicket);
    return new Schedule(spec, Schedule.Origin.valueOf(rs.getString("origin")), rs.getBoolean("paused"),
        rs.getLong("created_at_ms"), rs.getLong("last_fire_ms"), nullableLong(rs, "pending_fire_ms"), last,
        nullableLong(rs, "last_ticket_fire_ms"));
  }

  private static Long nullableLong(ResultSet rs, String column) throws SQLException {
    long v = rs.getLong(column);
    return rs.wasNull() ? null : v;
  }

  private static int update(Connection c, String sql, Object... args) throws SQLException {
    try (PreparedStatement p = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        Object a = args[i];
        if (a == null) {
          p.setNull(i + 1, java.sql.Types.NULL);
        } else {
          p.setObject(i + 1, a);
        }
      }
      return p.executeUpdate();
    }
  }

  private static void requireOne(int rows, String what) {
    if (rows != 1) {
      throw new IllegalStateException(what + " touched " + rows + " rows, expected 1: the store is inconsistent");
    }
  }
}
