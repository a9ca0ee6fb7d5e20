package dev.vigil.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.vigil.coordination.law.Coverage;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@link When}: {@code --at}, {@code --in} and {@code --not-before} to a due time. */
class WhenTest {
  private static final ZoneId PARIS = ZoneId.of("Europe/Paris");
  private static final ZonedDateTime NOW = ZonedDateTime.of(2025, 5, 20, 14, 29, 59, 0, PARIS);

  private static long at(String text, ZonedDateTime now) {
    return When.dueAtMs(text, null, null, now).orElseThrow();
  }

  private static long ms(ZonedDateTime t) {
    return t.toInstant().toEpochMilli();
  }

  private static String refusal(String at, String in, String notBefore) {
    return assertThrows(IllegalArgumentException.class, () -> When.dueAtMs(at, in, notBefore, NOW)).getMessage();
  }

  @Test
  void aTimeOfDayIsTheNextTimeTheLocalClockShowsIt() {
    assertEquals(ms(NOW.withHour(14).withMinute(30).withSecond(0)), at("14:30", NOW), "still ahead today");
    assertEquals(ms(NOW.plusDays(1).withHour(14).withMinute(29).withSecond(0)), at("14:29", NOW), "passed: tomorrow");
    assertEquals(ms(NOW.plusDays(1).withHour(14).withMinute(29).withSecond(59)), at("14:29:59", NOW), "now: tomorrow");
    assertEquals(ms(NOW.plusDays(1).withHour(9).withMinute(5).withSecond(0)), at("9:05", NOW));
    assertEquals(ms(NOW.plusDays(1).withHour(0).withMinute(0).withSecond(0)), at("00:00", NOW));
    ZonedDateTime beforeTheGap = ZonedDateTime.of(2025, 3, 30, 1, 30, 0, 0, PARIS);
    assertEquals(ms(ZonedDateTime.of(2025, 3, 30, 3, 30, 0, 0, PARIS)), at("02:30", beforeTheGap),
        "a time the clock skips moves forward by the gap");
  }

  @Test
  void aDateAndTimeIsLocalUnlessItNamesAnOffsetOrZone() {
    long local = ms(ZonedDateTime.of(2025, 6, 1, 9, 30, 0, 0, PARIS));
    assertEquals(local, at("2025-06-01T09:30", NOW));
    assertEquals(local, at("2025-06-01 09:30:00", NOW));
    assertEquals(local, at("2025-06-01t09:30", NOW));
    assertEquals(ms(ZonedDateTime.of(2025, 6, 1, 9, 30, 0, 0, ZoneId.of("Z"))), at("2025-06-01T09:30Z", NOW));
    assertEquals(ms(ZonedDateTime.of(2025, 6, 1, 9, 30, 0, 0, ZoneId.of("+05:30"))), at("2025-06-01T09:30+05:30", NOW));
    assertEquals(ms(ZonedDateTime.of(2025, 6, 1, 9, 30, 0, 0, ZoneId.of("Europe/London"))),
        at("2025-06-01T09:30+01:00[Europe/London]", NOW));
  }

  @Test
  void inAndItsOlderNameNotBefore_countFromNow_andNoneMeansDueNow() {
    assertEquals(Optional.of(ms(NOW) + 90 * 60_000), When.dueAtMs(null, "90m", null, NOW));
    assertEquals(Optional.of(ms(NOW) + 2_500), When.dueAtMs(null, null, "2s500ms", NOW));
    assertEquals(Optional.of(ms(NOW)), When.dueAtMs(null, "0s", null, NOW));
    assertEquals(Optional.empty(), When.dueAtMs(null, null, null, NOW));
  }

  @Test
  void badValuesAndTwoTimes_areRefusedInOneLineNamingTheOption() {
    assertEquals("--at '2025-05-20T14:00' has passed (it is now 2025-05-20T14:29:59+02:00); leave out --at to run it now",
        refusal("2025-05-20T14:00", null, null));
    assertEquals("--at '24:00' is not a time of day (00:00 to 23:59)", refusal("24:00", null, null));
    assertEquals("--at '2025-06-01' needs a time of day too (like 2025-06-01T09:00)", refusal("2025-06-01", null, null));
    assertEquals("--at 'tomorrow' is not a time (like 14:30, 2025-06-01T09:30 or 2025-06-01T09:30+02:00)",
        refusal("tomorrow", null, null));
    assertEquals("--at '2025-02-30T10:00' is not a time (like 14:30, 2025-06-01T09:30 or 2025-06-01T09:30+02:00)",
        refusal("2025-02-30T10:00", null, null));
    assertEquals("--in 'soon' is not a duration (like 30s, 5m, 1h, 2h30m)", refusal(null, "soon", null));
    assertEquals("--not-before '-5m' is not a duration (like 30s, 5m, 1h, 2h30m)", refusal(null, null, "-5m"));
    assertEquals("--in '9223372036854775807ms' is too far ahead", refusal(null, "9223372036854775807ms", null));
    assertEquals("--at and --in exclude each other: give one time", refusal("14:30", "5m", null));
    assertEquals("--in and --not-before exclude each other: give one time (--not-before is another name for --in)",
        refusal(null, "5m", "5m"));
    assertEquals("--at and --in and --not-before exclude each other: give one time (--not-before is another name for "
        + "--in)", refusal("14:30", "5m", "5m"));
  }

  @Test
  void theNextTimeOfDay_isAheadByAtMostADay_andShowsThatTimeUnlessTheClockSkipsIt() {
    Coverage cov = new Coverage("--at HH:MM");
    List<ZoneId> zones = List.of(PARIS, ZoneId.of("America/New_York"), ZoneId.of("Australia/Lord_Howe"),
        ZoneId.of("UTC"), ZoneId.of("Asia/Kolkata"));
    qt().withExamples(3_000).withShrinkCycles(0)
        .forAll(longs().between(946_684_800L, 4_102_444_800L), integers().between(0, 23 * 60 + 59),
            integers().between(0, zones.size() - 1))
        .checkAssert((epochSecond, minuteOfDay, zone) -> {
          // now often lands on a minute boundary, and often an hour or two before the clock changes,
          // asking for a time the change skips
          ZoneId z = zones.get(zone);
          Instant base = Instant.ofEpochSecond(epochSecond % 7 == 0 ? epochSecond / 60 * 60 : epochSecond);
          ZoneOffsetTransition change = epochSecond % 3 == 0 ? z.getRules().nextTransition(base) : null;
          ZonedDateTime now = base.atZone(z);
          LocalTime time = LocalTime.of(minuteOfDay / 60, minuteOfDay % 60);
          if (change != null) {
            now = change.getInstant().minusSeconds(3_600 + epochSecond % 3_600).atZone(z);
            if (change.isGap() && minuteOfDay % 2 == 0) {
              long gapMinutes = change.getDuration().toMinutes();
              time = change.getDateTimeBefore().toLocalTime().plusMinutes(minuteOfDay % gapMinutes);
            }
          }
          ZonedDateTime due = Instant.ofEpochMilli(at(String.format("%02d:%02d", time.getHour(), time.getMinute()), now))
              .atZone(now.getZone());
          String where = "now " + now + ", --at " + time + " -> " + due;
          assertTrue(due.isAfter(now), where);
          assertTrue(!due.isAfter(now.plus(Duration.ofHours(25))), where);
          if (due.toLocalTime().equals(time)) {
            cov.saw(due.toLocalDate().equals(now.toLocalDate()) ? "today" : "tomorrow");
          } else {
            assertTrue(now.getZone().getRules().getValidOffsets(due.toLocalDate().atTime(time)).isEmpty(),
                where + ": only a skipped time is shown otherwise");
            cov.saw("skipped by the clock");
          }
        });
    cov.assertSaw("today", "tomorrow", "skipped by the clock");
    System.out.println(cov);
  }
}
