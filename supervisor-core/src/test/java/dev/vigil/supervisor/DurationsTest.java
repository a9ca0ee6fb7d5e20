package dev.vigil.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import org.junit.jupiter.api.Test;

class DurationsTest {
  @Test
  void parsesTheConfigurationForms() {
    assertEquals(250, Durations.parse("250ms"));
    assertEquals(30_000, Durations.parse("30s"));
    assertEquals(300_000, Durations.parse("5m"));
    assertEquals(3_600_000, Durations.parse("1h"));
    assertEquals(150_000, Durations.parse("2m30s"));
    assertEquals(7_750, Durations.parse("7s750ms"));
    assertEquals(30_000, Durations.parse("PT30S"));
    assertEquals(250, Durations.parse("PT0.25S"));
    assertEquals(86_400_000, Durations.parse("P1D"));
    assertEquals(0, Durations.parse("0ms"));
  }

  @Test
  void rejectsBadTextNamingIt() {
    for (String bad : new String[] {"", "30", "30x", "-1s", "1.5s", "s", "5s2m", "1m1m", "1 s", "PT-1S", "PT0.0001S",
        "P", "99999999999999999999ms", "9223372036854775807h"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Durations.parse(bad), bad);
      assertEquals(true, e.getMessage().startsWith("bad duration \"" + bad + "\""), e.getMessage());
    }
    assertThrows(NullPointerException.class, () -> Durations.parse(null));
  }

  @Test
  void formatsForMessages() {
    assertEquals("0ms", Durations.format(0));
    assertEquals("1s", Durations.format(1_000));
    assertEquals("2m30s", Durations.format(150_000));
    assertEquals("7s750ms", Durations.format(7_750));
    assertEquals("24h", Durations.format(86_400_000));
    assertEquals("25h1m1s1ms", Durations.format(90_061_001));
    assertEquals("-1s", Durations.format(-1_000));
    assertEquals(false, Durations.format(Long.MIN_VALUE).isEmpty());
  }

  @Test
  void formatThenParseIsTheIdentity() {
    qt().withExamples(5_000).forAll(longs().between(0, Long.MAX_VALUE))
        .checkAssert(ms -> assertEquals(ms.longValue(), Durations.parse(Durations.format(ms)), "ms " + ms));
  }
}
