package dev.vigil.coordination.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.law.Coverage;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Q15 on the pure fire rule ({@link FireRule} through {@link Schedule#plan} and {@link Schedule#after}):
 * over drawn crons, zones, policies and sequences of looks whose clock leaps forward and back, and whose
 * previous ticket is live or not, no fire is ever submitted twice, only real fires of the cron submit,
 * every look leaves nothing due undecided, and each policy does what it says. Every decision variant
 * must occur.
 */
class FireRulePropertiesTest {
  private static final int EXAMPLES = 400;
  /** 2026-03-20T00:00Z: the looks cross the daylight-saving changes of March and October in many zones. */
  private static final long START = 1_773_964_800_000L;
  private static final List<String> CRONS = List.of("* * * * *", "*/5 * * * *", "30 2 * * *", "0 3 * * *",
      "*/30 * * * *", "0/7 * * * * ?", "0 0 12 ? * MON-FRI", "15 */2 * * *");
  private static final List<ZoneId> ZONES = List.of(ZoneId.of("UTC"), ZoneId.of("Europe/Berlin"),
      ZoneId.of("America/New_York"), ZoneId.of("Australia/Lord_Howe"), ZoneId.of("+05:30"));

  static ScheduleSpec spec(String cron, ZoneId zone, CatchUp c, Overlap o) {
    return new ScheduleSpec(new ScheduleName("s"), Cron.parse(cron), zone,
        NewTicket.of(Lane.DEFAULT, "command", "{}"), c, o);
  }

  private static <T> T pick(SplittableRandom rnd, List<T> from) {
    return from.get(rnd.nextInt(from.size()));
  }

  private static <E extends Enum<E>> E pick(SplittableRandom rnd, E[] from) {
    return from[rnd.nextInt(from.length)];
  }

  /** A time step: mostly seconds to minutes, sometimes an outage of hours or days, sometimes a clock set back. */
  private static long step(SplittableRandom rnd) {
    return switch (rnd.nextInt(10)) {
      case 0 -> -rnd.nextLong(1, 600_000); // the wall clock set back up to 10 minutes
      case 1 -> rnd.nextLong(3_600_000, 5L * 24 * 3_600_000); // an outage: hours to days
      case 2, 3 -> rnd.nextLong(60_000, 3_600_000);
      default -> rnd.nextLong(0, 60_000);
    };
  }

  @Test
  void Q15_noFireIsSubmittedTwice_andEachPolicyDoesWhatItSays_underClockLeaps() {
    Coverage seen = new Coverage("Q15");
    qt().withExamples(EXAMPLES).withShrinkCycles(0).forAll(longs().all()).checkAssert(seed -> {
      SplittableRandom rnd = new SplittableRandom(seed);
      ScheduleSpec spec = spec(pick(rnd, CRONS), pick(rnd, ZONES), pick(rnd, CatchUp.values()), pick(rnd, Overlap.values()));
      String why = "seed " + seed + " " + spec.cron() + " " + spec.zone() + " " + spec.catchUp() + " " + spec.overlap();
      long now = START + rnd.nextLong(0, 86_400_000);
      Schedule s = Schedule.created(spec, Schedule.Origin.COMMAND, now);
      Set<Long> submitted = new HashSet<>();
      boolean live = false;
      long ticket = 0;
      for (int look = 0; look < 40; look++) {
        now += step(rnd);
        if (live && rnd.nextInt(3) == 0) {
          live = false; // the previous fire's ticket ended
        }
        long lastBefore = s.lastFireMs();
        Long pendingBefore = s.pendingFireMs();
        FireDecision d = s.plan(live, now);
        TicketId latest = null;
        if (d instanceof FireDecision.Submit sub) {
          assertFalse(live && spec.overlap() != Overlap.PARALLEL, why + ": Q15 a fire submitted beside a live ticket "
              + "under overlap " + spec.overlap());
          for (long f : sub.firesMs()) {
            assertTrue(submitted.add(f), why + ": Q15 fire " + f + " submitted twice");
            assertEquals(f, spec.cron().nextAfter(f - 1, spec.zone()).getAsLong(), why + ": Q15 " + f + " is no fire of the cron");
            boolean waited = pendingBefore != null && f == pendingBefore; // due when it was made to wait
            assertTrue(f > s.createdAtMs() && (waited || f <= now), why + ": Q15 fire " + f + " is not due");
            assertTrue(waited || f > lastBefore, why + ": Q15 fire " + f + " was decided before");
            if (spec.catchUp() == CatchUp.NONE && !waited) {
              assertTrue(now - f <= FireRule.LATE_MS, why + ": Q15 catch-up none submitted a missed fire " + f);
            }
            if (waited) {
              seen.saw("submit a waiting fire");
            }
          }
          assertTrue(sub.firesMs().size() <= FireRule.CATCH_UP_ALL_MAX, why);
          seen.saw("submit " + (sub.firesMs().size() > 1 ? "many" : "one"));
          latest = new TicketId(++ticket);
          live = true;
        } else if (d instanceof FireDecision.Skip k) {
          seen.saw("skip " + k.reason());
          if (k.reason() == FireDecision.Reason.STILL_LIVE) {
            assertTrue(live && spec.overlap() == Overlap.SKIP, why);
          } else {
            assertEquals(CatchUp.NONE, spec.catchUp(), why + ": only catch-up none drops missed fires");
          }
        } else if (d instanceof FireDecision.Wait w) {
          seen.saw("wait");
          assertTrue(live && spec.overlap() == Overlap.QUEUE, why + ": only queue waits, and only behind a live ticket");
          assertTrue(w.pendingMs() > s.createdAtMs() && w.pendingMs() <= now, why);
          assertTrue(!submitted.contains(w.pendingMs()), why + ": a waiting fire was submitted already");
        } else if (d instanceof FireDecision.Idle) {
          seen.saw("idle");
        } else {
          throw new AssertionError(d);
        }
        Schedule after = s.after(d, latest);
        assertTrue(after.lastFireMs() >= s.lastFireMs(), why + ": the last decided fire went back");
        if (!(d instanceof FireDecision.Idle)) {
          assertTrue(spec.cron().due(after.lastFireMs(), now, spec.zone(), 1).isEmpty(),
              why + ": Q15 a look left a due fire undecided");
        }
        s = after;
      }
    });
    seen.assertSaw("submit one", "submit many", "submit a waiting fire", "skip MISSED", "skip STILL_LIVE", "wait", "idle");
  }

  @Test
  void Q15_aDaemonThatLooksAtEveryFireInTime_submitsEachFireExactlyOnce() {
    Coverage seen = new Coverage("Q15");
    qt().withExamples(EXAMPLES).withShrinkCycles(0).forAll(longs().all()).checkAssert(seed -> {
      SplittableRandom rnd = new SplittableRandom(seed);
      CatchUp c = pick(rnd, CatchUp.values());
      ScheduleSpec spec = spec(pick(rnd, CRONS), pick(rnd, ZONES), c, pick(rnd, Overlap.values()));
      String why = "seed " + seed + " " + spec.cron() + " " + spec.zone() + " " + c + " " + spec.overlap();
      long created = START + rnd.nextLong(0, 86_400_000);
      Schedule s = Schedule.created(spec, Schedule.Origin.COMMAND, created);
      List<Long> fires = new ArrayList<>();
      List<Long> submitted = new ArrayList<>();
      long f = created;
      for (int i = 0; i < 30; i++) {
        f = spec.cron().nextAfter(f, spec.zone()).getAsLong();
        fires.add(f);
        long lateness = rnd.nextLong(0, Math.min(FireRule.LATE_MS, spec.cron().nextAfter(f, spec.zone()).getAsLong() - f));
        FireDecision d = s.plan(false, f + lateness); // every ticket ended before the next fire
        assertTrue(d instanceof FireDecision.Submit, why + ": fire " + f + " decided " + d);
        submitted.addAll(((FireDecision.Submit) d).firesMs());
        s = s.after(d, new TicketId(i + 1));
      }
      assertEquals(fires, submitted, why + ": Q15 every fire submits exactly one ticket while a daemon looks in time");
      seen.saw(c.name());
    });
    seen.assertSaw("NONE", "LATEST", "ALL");
  }

  @Test
  void Q15_missedFiresFollowTheCatchUpPolicy_allBoundedToTheLatestHundred() {
    Coverage seen = new Coverage("Q15");
    qt().withExamples(EXAMPLES).withShrinkCycles(0).forAll(longs().all()).checkAssert(seed -> {
      SplittableRandom rnd = new SplittableRandom(seed);
      CatchUp c = pick(rnd, CatchUp.values());
      ScheduleSpec spec = spec(pick(rnd, List.of("* * * * *", "*/5 * * * *", "0/7 * * * * ?")), pick(rnd, ZONES), c,
          Overlap.SKIP);
      long created = START + rnd.nextLong(0, 86_400_000);
      int missed = rnd.nextInt(1, 250);
      long f = created;
      List<Long> fires = new ArrayList<>();
      for (int i = 0; i < missed; i++) {
        f = spec.cron().nextAfter(f, spec.zone()).getAsLong();
        fires.add(f);
      }
      long gapToNext = spec.cron().nextAfter(f, spec.zone()).getAsLong() - f;
      long now = f + rnd.nextLong(0, gapToNext); // the daemon comes back after the missed-th fire, before the next
      String why = "seed " + seed + " " + spec.cron() + " " + c + " missed " + missed + " back " + (now - f) + " ms late";
      FireDecision d = Schedule.created(spec, Schedule.Origin.COMMAND, created).plan(false, now);
      List<Long> expected = switch (c) {
        case NONE -> now - f <= FireRule.LATE_MS ? List.of(f) : List.of();
        case LATEST -> List.of(f);
        case ALL -> fires.subList(Math.max(0, missed - FireRule.CATCH_UP_ALL_MAX), missed);
      };
      List<Long> got = d instanceof FireDecision.Submit s ? s.firesMs() : List.of();
      assertEquals(expected, got, why);
      seen.saw(c + (missed > FireRule.CATCH_UP_ALL_MAX ? " past the bound" : "") + (got.isEmpty() ? " none" : ""));
    });
    seen.assertSaw("NONE", "NONE none", "LATEST", "ALL", "ALL past the bound");
  }
}
