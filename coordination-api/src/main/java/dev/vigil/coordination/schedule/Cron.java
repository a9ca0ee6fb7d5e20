package dev.vigil.coordination.schedule;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A cron expression, parsed and evaluated by cron-utils (never by hand). Five fields are Unix cron
 * ({@code minute hour day-of-month month day-of-week}, like {@code 0 3 * * *}); six or seven fields are
 * Quartz, whose first field is the second ({@code 0/10 * * * * ?}, every ten seconds; one of day-of-month and day-of-week
 * must be {@code ?}). Fire times are instants: a local time is read in a zone, and what clocks do on a
 * daylight-saving change is cron-utils' rule: a local time that does not exist that day (clocks go
 * forward) does not fire that day; a local time that happens twice (clocks go back) fires once for a
 * daily expression, and an expression that names both instants (every 30 minutes) fires at both.
 *
 * <p>Pure: every time is an argument, wall-clock ms.
 */
public final class Cron {
  private static final CronParser UNIX = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));
  private static final CronParser QUARTZ = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.QUARTZ));
  /** A fixed instant from which a new expression must fire at least once (2000-01-01T00:00Z), to refuse one that never does. */
  private static final long PROBE_FROM_MS = 946_684_800_000L;

  /** The longest expression kept, characters (as the store's column holds it). */
  public static final int MAX_LENGTH = 200;

  private final String text;
  private final ExecutionTime execution;

  private Cron(String text, ExecutionTime execution) {
    this.text = text;
    this.execution = execution;
  }

  /**
   * The expression {@code text}: Unix with five fields, Quartz with six or seven.
   *
   * @throws IllegalArgumentException one line naming the expression and what is wrong with it
   */
  public static Cron parse(String text) {
    Objects.requireNonNull(text, "text");
    String t = text.trim().replaceAll("\\s+", " ");
    if (t.length() > MAX_LENGTH) {
      throw new IllegalArgumentException("cron '" + text + "' is longer than " + MAX_LENGTH + " characters");
    }
    int fields = t.isEmpty() ? 0 : t.split(" ").length;
    CronParser parser;
    if (fields == 5) {
      parser = UNIX;
    } else if (fields == 6 || fields == 7) {
      parser = QUARTZ;
    } else {
      throw new IllegalArgumentException("cron '" + text + "' has " + fields + " fields: write 5 (minute hour "
          + "day-of-month month day-of-week, like '0 3 * * *') or, with seconds first, 6 as Quartz does (like '*/10 * * * * ?')");
    }
    ExecutionTime e;
    try {
      e = ExecutionTime.forCron(parser.parse(t));
    } catch (RuntimeException ex) {
      throw new IllegalArgumentException("cron '" + text + "': " + oneLine(ex.getMessage())
          + (parser == QUARTZ ? " (six fields are Quartz: seconds first, and one of day-of-month and day-of-week is ?)" : ""));
    }
    Cron c = new Cron(t, e);
    if (c.nextAfter(PROBE_FROM_MS, ZoneId.of("UTC")).isEmpty()) {
      throw new IllegalArgumentException("cron '" + text + "' never fires");
    }
    return c;
  }

  private static String oneLine(String s) {
    if (s == null) {
      return "not a cron expression";
    }
    int i = s.indexOf('\n');
    return (i < 0 ? s : s.substring(0, i)).trim();
  }

  /** The expression as parsed (blanks folded to one space). */
  public String text() {
    return text;
  }

  /** The first fire strictly after {@code afterMs}, wall-clock ms; empty when there is none. */
  public OptionalLong nextAfter(long afterMs, ZoneId zone) {
    Optional<ZonedDateTime> n = execution.nextExecution(at(afterMs, zone));
    return n.isPresent() ? OptionalLong.of(n.get().toInstant().toEpochMilli()) : OptionalLong.empty();
  }

  /**
   * The fires {@code f} with {@code afterMs < f <= nowMs}: the latest {@code max} of them, oldest first,
   * and whether earlier ones were left out. Walks back from {@code nowMs}, so a long outage under a
   * per-second expression costs at most {@code max + 1} steps.
   *
   * @throws IllegalArgumentException when {@code max < 1}
   */
  public Due due(long afterMs, long nowMs, ZoneId zone, int max) {
    if (max < 1) {
      throw new IllegalArgumentException("max (" + max + ") must be >= 1");
    }
    Deque<Long> fires = new ArrayDeque<>();
    ZonedDateTime cursor = at(nowMs + 1, zone); // lastExecution is strictly before its argument
    while (true) {
      Optional<ZonedDateTime> p = execution.lastExecution(cursor);
      if (p.isEmpty()) {
        return new Due(List.copyOf(fires), false);
      }
      long f = p.get().toInstant().toEpochMilli();
      if (f <= afterMs) {
        return new Due(List.copyOf(fires), false);
      }
      if (fires.size() == max) {
        return new Due(List.copyOf(fires), true);
      }
      fires.addFirst(f);
      cursor = p.get();
    }
  }

  private static ZonedDateTime at(long ms, ZoneId zone) {
    return Instant.ofEpochMilli(ms).atZone(zone);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Cron c && c.text.equals(text);
  }

  @Override
  public int hashCode() {
    return text.hashCode();
  }

  @Override
  public String toString() {
    return text;
  }

  /**
   * Due fire times.
   *
   * @param firesMs     wall-clock ms, oldest first, none twice
   * @param earlierCut  whether fires before the first one were left out (more than the bound were due)
   */
  public record Due(List<Long> firesMs, boolean earlierCut) {
    public Due {
      firesMs = List.copyOf(firesMs);
      for (int i = 1; i < firesMs.size(); i++) {
        if (firesMs.get(i) <= firesMs.get(i - 1)) {
          throw new IllegalArgumentException("fires must be strictly increasing: " + firesMs);
        }
      }
      if (earlierCut && firesMs.isEmpty()) {
        throw new IllegalArgumentException("fires were cut but none is listed");
      }
    }

    /** The latest due fire; only when some is due. */
    public long latest() {
      return firesMs.get(firesMs.size() - 1);
    }

    public boolean isEmpty() {
      return firesMs.isEmpty();
    }
  }
}
