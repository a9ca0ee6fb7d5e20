package dev.vigil.worker.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;

import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.impl.Constraint;

/** The host log's time is written without java.time, as {@code Instant.toString()} writes it. */
class HostLogTest {
  /** 9999-12-31T23:59:59.999Z, the last instant with a four-digit year. */
  private static final long LAST_FOUR_DIGIT_MS = 253_402_300_799_999L;

  @Test
  void timestampIsInstantToString_forEveryMillisecond() {
    Map<String, Integer> seen = new TreeMap<>();
    qt().withExamples(20_000).forAll(instants()).checkAssert(ms -> {
      String expected = Instant.ofEpochMilli(ms).toString();
      assertEquals(expected, HostLog.timestamp(ms), "epoch ms " + ms);
      seen.merge(ms < -62_167_219_200_000L || ms > LAST_FOUR_DIGIT_MS ? "year beyond 0-9999"
          : ms < 0 ? "before 1970" : "from 1970", 1, Integer::sum);
      seen.merge(Math.floorMod(ms, 1000) == 0 ? "whole second" : "with milliseconds", 1, Integer::sum);
      if (expected.contains("-02-29T")) {
        seen.merge("leap day", 1, Integer::sum);
      }
      if (expected.contains("-12-31T23:59:59")) {
        seen.merge("last second of a year", 1, Integer::sum);
      }
    });
    for (String k : new String[] {"year beyond 0-9999", "before 1970", "from 1970", "whole second", "with milliseconds",
        "leap day", "last second of a year"}) {
      assertTrue(seen.getOrDefault(k, 0) >= 10, "too few instants " + k + ": " + seen);
    }
  }

  /** Any instant of years 0-9999 and a little beyond, whole seconds, leap days and the ends of years often. */
  private static Gen<Long> instants() {
    return in -> {
      long ms = in.next(Constraint.between(-62_200_000_000_000L, LAST_FOUR_DIGIT_MS + 100_000_000_000L));
      return switch ((int) in.next(Constraint.between(0, 5))) {
        case 0 -> Math.floorDiv(ms, 1000) * 1000;
        case 1 -> leapDay(in.next(Constraint.between(0, 2_499)) * 4, in.next(Constraint.between(0, 86_399_999)));
        case 2 -> yearEnd(in.next(Constraint.between(0, 9_999)), in.next(Constraint.between(0, 1_999)));
        case 3 -> in.next(Constraint.between(0, 1)) == 0 ? -62_167_219_200_001L - in.next(Constraint.between(0, 1L << 40))
            : LAST_FOUR_DIGIT_MS + 1 + in.next(Constraint.between(0, 1L << 40));
        default -> ms;
      };
    };
  }

  private static long leapDay(long year, long msOfDay) {
    if (year % 100 == 0 && year % 400 != 0) {
      year += 4;
    }
    return Instant.parse(String.format("%04d-02-29T00:00:00Z", year)).toEpochMilli() + msOfDay;
  }

  private static long yearEnd(long year, long msBack) {
    return Instant.parse(String.format("%04d-12-31T23:59:59.999Z", year)).toEpochMilli() - msBack + 1_000;
  }
}
