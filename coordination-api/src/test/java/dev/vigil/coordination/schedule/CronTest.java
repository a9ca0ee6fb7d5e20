package dev.vigil.coordination.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Cron expressions through cron-utils: the two syntaxes, plain errors, and what zones and daylight saving do. */
class CronTest {
  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

  private static long at(String iso) {
    return Instant.parse(iso).toEpochMilli();
  }

  private static List<Long> fires(Cron c, ZoneId zone, String from, int n) {
    long f = at(from);
    java.util.ArrayList<Long> out = new java.util.ArrayList<>();
    for (int i = 0; i < n; i++) {
      f = c.nextAfter(f, zone).getAsLong();
      out.add(f);
    }
    return out;
  }

  @Test
  void fiveFieldsAreUnix_andSixAreQuartzWithSecondsFirst() {
    assertEquals(at("2026-12-03T03:00:00Z"), Cron.parse("0 3 * * *").nextAfter(at("2026-12-02T03:00:00Z"), ZoneId.of("UTC")).getAsLong());
    assertEquals(at("2026-12-02T03:00:02Z"), Cron.parse("*/2 * * * * ?").nextAfter(at("2026-12-02T03:00:00Z"), ZoneId.of("UTC")).getAsLong());
  }

  @Test
  void aBadExpressionIsRefusedWithOneLineNamingIt() {
    for (String bad : List.of("0 3 * *", "61 3 * * *", "* * * * * *", "", "0 0 30 2 *", "every day")) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Cron.parse(bad), bad);
      assertTrue(e.getMessage().startsWith("cron '" + bad + "'"), e.getMessage());
      assertTrue(!e.getMessage().contains("\n"), e.getMessage());
    }
    assertTrue(assertThrows(IllegalArgumentException.class, () -> Cron.parse("0 0 30 2 *")).getMessage().endsWith("never fires"));
    String tooLong = "0 3 * * " + "MON,".repeat(60) + "MON";
    assertTrue(assertThrows(IllegalArgumentException.class, () -> Cron.parse(tooLong)).getMessage()
        .endsWith("is longer than " + Cron.MAX_LENGTH + " characters"));
  }

  @Test
  void aLocalTimeThatClocksSkipDoesNotFireThatDay() {
    // 2026-03-29: Berlin goes from 02:00 to 03:00; 02:30 does not exist that day
    List<Long> f = fires(Cron.parse("30 2 * * *"), BERLIN, "2026-03-27T12:00:00Z", 3);
    assertEquals(List.of(at("2026-03-28T01:30:00Z"), at("2026-03-30T00:30:00Z"), at("2026-03-31T00:30:00Z")), f);
  }

  @Test
  void aLocalTimeThatHappensTwiceFiresOnceForADailyCron_andAtBothInstantsForOneThatNamesBoth() {
    // 2026-10-25: Berlin goes from 03:00 back to 02:00; 02:30 happens at 00:30Z and at 01:30Z
    assertEquals(List.of(at("2026-10-25T00:30:00Z"), at("2026-10-26T01:30:00Z")),
        fires(Cron.parse("30 2 * * *"), BERLIN, "2026-10-24T12:00:00Z", 2));
    assertEquals(List.of(at("2026-10-25T00:00:00Z"), at("2026-10-25T00:30:00Z"), at("2026-10-25T01:00:00Z"),
            at("2026-10-25T01:30:00Z"), at("2026-10-25T02:00:00Z")),
        fires(Cron.parse("*/30 * * * *"), BERLIN, "2026-10-24T23:45:00Z", 5));
  }

  @Test
  void dueFiresAcrossTheDoubledHourAreEachListedOnce_walkingBackFromNow() {
    Cron c = Cron.parse("*/30 * * * *");
    Cron.Due d = c.due(at("2026-10-24T23:45:00Z"), at("2026-10-25T02:00:00Z"), BERLIN, 100);
    assertEquals(List.of(at("2026-10-25T00:00:00Z"), at("2026-10-25T00:30:00Z"), at("2026-10-25T01:00:00Z"),
        at("2026-10-25T01:30:00Z"), at("2026-10-25T02:00:00Z")), d.firesMs());
    Cron.Due cut = c.due(at("2026-10-24T23:45:00Z"), at("2026-10-25T02:00:00Z"), BERLIN, 2);
    assertEquals(List.of(at("2026-10-25T01:30:00Z"), at("2026-10-25T02:00:00Z")), cut.firesMs());
    assertTrue(cut.earlierCut());
  }

  @Test
  void theSameLocalTimeIsADifferentInstantInEachZone() {
    Cron c = Cron.parse("0 3 * * *");
    long from = at("2026-06-01T00:00:00Z");
    assertEquals(ZonedDateTime.parse("2026-06-01T03:00+02:00[Europe/Berlin]").toInstant().toEpochMilli(),
        c.nextAfter(from, BERLIN).getAsLong());
    assertEquals(at("2026-06-01T07:00:00Z"), c.nextAfter(from, ZoneId.of("America/New_York")).getAsLong());
  }

  @Test
  void Q15_aFiresKeyNamesTheScheduleAndTheFireAsAUtcInstant() {
    assertEquals("schedule:nightly:2026-12-02T03:00:00Z", Schedule.key(new ScheduleName("nightly"), at("2026-12-02T03:00:00Z")));
  }
}
