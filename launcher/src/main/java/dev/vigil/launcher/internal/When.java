package dev.vigil.launcher.internal;

import dev.vigil.supervisor.Durations;
import java.time.DateTimeException;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * When a submitted task becomes due: {@code --at TIME}, {@code --in DURATION} or its older name
 * {@code --not-before DURATION}, at most one of them.
 *
 * <ul>
 *   <li>{@code --at HH:MM} (or {@code HH:MM:SS}): the next time the local clock shows it, today if
 *       that is still ahead, else tomorrow. A time that the clock skips (a daylight-saving gap)
 *       moves forward by the gap; a time it shows twice means the first.
 *   <li>{@code --at 2025-06-01T09:30} (seconds optional, a space may stand for the {@code T}): a
 *       local date and time; with an offset or zone ({@code 2025-06-01T09:30+02:00},
 *       {@code …Z}, {@code …+02:00[Europe/Paris]}) that instant.
 *   <li>A date and time that has passed is refused, not run at once: a task meant for later that
 *       runs now may be expensive, and a script that wants it now leaves {@code --at} out.
 *   <li>{@code --in 90m}: that long from now ({@link Durations}: {@code 250ms}, {@code 30s},
 *       {@code 5m}, {@code 2h30m}, {@code PT1H}).
 * </ul>
 */
public final class When {
  private static final Pattern TIME_OF_DAY = Pattern.compile("[0-9]{1,2}:[0-9]{2}(:[0-9]{2})?");
  private static final Pattern DATE_SPACE_TIME = Pattern.compile("([0-9]{4}-[0-9]{2}-[0-9]{2}) +(.*)");
  private static final Pattern DATE_ONLY = Pattern.compile("[0-9]{4}-[0-9]{2}-[0-9]{2}");
  private static final String AT_FORMS = "like 14:30, 2025-06-01T09:30 or 2025-06-01T09:30+02:00";

  private When() {}

  /**
   * The wall-clock ms at which the task becomes due, or empty when none of the options is given
   * (due now).
   *
   * @param at        {@code --at}, or null
   * @param in        {@code --in}, or null
   * @param notBefore {@code --not-before}, or null
   * @param now       now, in the local time zone
   * @throws IllegalArgumentException one line naming the option and its value
   */
  public static Optional<Long> dueAtMs(String at, String in, String notBefore, ZonedDateTime now) {
    Objects.requireNonNull(now, "now");
    List<String> given = new ArrayList<>();
    if (at != null) {
      given.add("--at");
    }
    if (in != null) {
      given.add("--in");
    }
    if (notBefore != null) {
      given.add("--not-before");
    }
    if (given.size() > 1) {
      throw new IllegalArgumentException(String.join(" and ", given) + " exclude each other: give one time"
          + (in != null && notBefore != null ? " (--not-before is another name for --in)" : ""));
    }
    if (at != null) {
      return Optional.of(at(at, now).toInstant().toEpochMilli());
    }
    if (in != null || notBefore != null) {
      String option = in != null ? "--in" : "--not-before";
      String text = in != null ? in : notBefore;
      long ms;
      try {
        ms = Durations.parse(text);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(option + " '" + text + "' is not a duration (like 30s, 5m, 1h, 2h30m)");
      }
      try {
        return Optional.of(Math.addExact(now.toInstant().toEpochMilli(), ms));
      } catch (ArithmeticException e) {
        throw new IllegalArgumentException(option + " '" + text + "' is too far ahead");
      }
    }
    return Optional.empty();
  }

  /** The moment {@code --at text} names, seen from {@code now}. */
  static ZonedDateTime at(String text, ZonedDateTime now) {
    String t = text.strip();
    if (TIME_OF_DAY.matcher(t).matches()) {
      LocalTime time;
      try {
        time = LocalTime.parse(t.length() == 4 || t.length() == 7 ? "0" + t : t);
      } catch (DateTimeParseException e) {
        throw new IllegalArgumentException("--at '" + text + "' is not a time of day (00:00 to 23:59)");
      }
      ZonedDateTime today = ZonedDateTime.of(now.toLocalDate(), time, now.getZone());
      return today.isAfter(now) ? today : ZonedDateTime.of(now.toLocalDate().plusDays(1), time, now.getZone());
    }
    if (DATE_ONLY.matcher(t).matches()) {
      throw new IllegalArgumentException("--at '" + text + "' needs a time of day too (like " + t + "T09:00)");
    }
    var spaced = DATE_SPACE_TIME.matcher(t);
    if (spaced.matches()) {
      t = spaced.group(1) + "T" + spaced.group(2);
    }
    ZonedDateTime when;
    try {
      TemporalAccessor parsed = DateTimeFormatter.ISO_DATE_TIME.parseBest(t, ZonedDateTime::from, LocalDateTime::from);
      when = parsed instanceof ZonedDateTime z ? z : ((LocalDateTime) parsed).atZone(now.getZone());
    } catch (DateTimeException e) {
      throw new IllegalArgumentException("--at '" + text + "' is not a time (" + AT_FORMS + ")");
    }
    if (!when.isAfter(now)) {
      throw new IllegalArgumentException("--at '" + text + "' has passed (it is now "
          + now.truncatedTo(ChronoUnit.SECONDS).toOffsetDateTime() + "); leave out --at to run it now");
    }
    return when;
  }
}
