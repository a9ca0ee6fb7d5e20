package dev.vigil.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import org.junit.jupiter.api.Test;

class ByteSizesTest {
  @Test
  void parsesTheConfigurationForms() {
    assertEquals(100, ByteSizes.parse("100B"));
    assertEquals(512 * 1024, ByteSizes.parse("512KiB"));
    assertEquals(64L << 20, ByteSizes.parse("64MiB"));
    assertEquals(1L << 30, ByteSizes.parse("1GiB"));
    assertEquals(2L << 40, ByteSizes.parse("2TiB"));
    assertEquals(0, ByteSizes.parse("0B"));
  }

  @Test
  void rejectsBadTextNamingIt() {
    for (String bad : new String[] {"", "64", "64MB", "64mib", "64 MiB", "-1KiB", "1.5MiB", "MiB", "64MiB ",
        "99999999999999999999B", "9223372036854775807TiB"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ByteSizes.parse(bad), bad);
      assertTrue(e.getMessage().startsWith("bad size \"" + bad + "\""), e.getMessage());
    }
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ByteSizes.parse("64MB")).getMessage()
        .contains("binary"), "a decimal unit is named as the mistake");
    assertThrows(NullPointerException.class, () -> ByteSizes.parse(null));
  }

  @Test
  void formatsInTheLargestUnitThatDivides() {
    assertEquals("0B", ByteSizes.format(0));
    assertEquals("100B", ByteSizes.format(100));
    assertEquals("1536KiB", ByteSizes.format(1536 * 1024));
    assertEquals("64MiB", ByteSizes.format(64L << 20));
    assertEquals("1TiB", ByteSizes.format(1L << 40));
  }

  @Test
  void describesForPeople() {
    assertEquals("1 byte", ByteSizes.describe(1));
    assertEquals("900 bytes", ByteSizes.describe(900));
    assertEquals("4.0 MiB", ByteSizes.describe(4L << 20));
    assertEquals("1.5 GiB", ByteSizes.describe(3L << 29));
    assertEquals("512.0 KiB", ByteSizes.describe(512 * 1024));
  }

  @Test
  void formatThenParseIsTheIdentity() {
    qt().forAll(longs().between(0, Long.MAX_VALUE >> 1)).checkAssert(b -> assertEquals(b, ByteSizes.parse(ByteSizes.format(b))));
  }
}
