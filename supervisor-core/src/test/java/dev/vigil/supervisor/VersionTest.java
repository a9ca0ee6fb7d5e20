package dev.vigil.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.supervisor.law.VersionLaw;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class VersionTest {
  private static Version v(String text) {
    return Version.parse(text);
  }

  @Test
  void S8_aDevBuildIsBelowTheReleaseOfItsSeries_1_2_0_devBelow1_2_0() {
    assertTrue(v("1.2.0-dev").compareTo(v("1.2.0")) < 0);
    assertTrue(v("1.2.0-dev").compareTo(v("1.1.9")) > 0);
    assertTrue(v("1.2.0-dev").compareTo(v("1.2.1-dev")) < 0);
  }

  @Test
  void S8_anOlderSchemeBuildIsBelowTheReleaseOfItsSeries_0_9_9_main_46Below0_9_9() {
    assertTrue(v("0.9.9-main.46").compareTo(v("0.9.9")) < 0);
    assertTrue(v("0.9.9-main.46").compareTo(v("0.9.8")) > 0);
    assertTrue(v("0.9.9-main.9").compareTo(v("0.9.9-main.46")) < 0, "numeric identifiers compare numerically");
    assertEquals(v("0.9.9"), v("0.9.9-main.46").release());
  }

  @Test
  void S8_parsesAndPrintsVersions() {
    Version x = v("v1.20.3-rc.1+sha.abc");
    assertEquals(1, x.major());
    assertEquals(20, x.minor());
    assertEquals(3, x.patch());
    assertEquals(List.of("rc", "1"), x.preRelease());
    assertEquals("sha.abc", x.buildMetadata());
    assertEquals("1.20.3-rc.1+sha.abc", x.toString());
    assertEquals(v("1.20.3-rc.1"), x, "build metadata takes no part in precedence");
    for (String bad : new String[] {"", "1", "1.2", "1.2.3.4", "01.2.3", "1.2.3-", "1.2.3-01", "1.2.3-a..b", "x1.2.3",
        "1.2.3+", "1.2.3 "}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> v(bad), bad);
      assertTrue(e.getMessage().startsWith("bad version \"" + bad + "\""), e.getMessage());
    }
  }

  /** A version text biased to shared series, -dev, older-scheme and mixed identifiers. */
  static String randomVersion(SplittableRandom r) {
    String core = r.nextInt(3) + "." + r.nextInt(3) + "." + r.nextInt(3);
    return switch (r.nextInt(7)) {
      case 0, 1 -> core;
      case 2 -> core + "-dev";
      case 3 -> core + "-main." + r.nextInt(60);
      case 4 -> core + "-" + Props.pick(r, "alpha", "beta", "rc", "dev", "main", "1", "2", "10", "a-b") + "."
          + Props.pick(r, "1", "2", "11", "x", "1.0");
      case 5 -> core + "-" + Props.pick(r, "alpha", "rc", "0", "7") + (r.nextBoolean() ? "+build." + r.nextInt(9) : "");
      default -> r.nextInt(2) + "." + (r.nextInt(200)) + "." + r.nextInt(4000000) + "-rc." + r.nextInt(3);
    };
  }

  @Test
  void S8_orderAgreesWithLawModel() {
    Props.Coverage cov = new Props.Coverage("S8 version order", "below", "equal", "above", "pre-release vs release",
        "numeric vs alphanumeric");
    Props.forSeeds(6_000, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      String a = randomVersion(r);
      String b = r.nextInt(8) == 0 ? a : randomVersion(r);
      String ctx = "seed " + seed + ": " + a + " vs " + b;
      int c = Integer.signum(v(a).compareTo(v(b)));
      assertEquals(VersionLaw.compare(a, b), c, ctx);
      assertEquals(-c, Integer.signum(v(b).compareTo(v(a))), ctx);
      assertEquals(c == 0, v(a).equals(v(b)), ctx);
      assertEquals(v(a), v(v(a).toString()), ctx);
      cov.label(c < 0 ? "below" : c == 0 ? "equal" : "above");
      if (v(a).release().equals(v(b).release()) && v(a).isRelease() != v(b).isRelease()) {
        cov.label("pre-release vs release");
      }
      if (!v(a).isRelease() && !v(b).isRelease() && Character.isDigit(v(a).preRelease().get(0).charAt(0))
          != Character.isDigit(v(b).preRelease().get(0).charAt(0))) {
        cov.label("numeric vs alphanumeric");
      }
    });
    cov.assertComplete();
  }

  @Test
  void S8_orderIsTransitiveAndEveryPreReleaseIsBelowItsRelease() {
    Props.Coverage cov = new Props.Coverage("S8 order laws", "chain a ≤ b ≤ c", "pre-release below its release",
        "pre-release above the previous patch");
    Props.forSeeds(3_000, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      Version a = v(randomVersion(r));
      Version b = v(randomVersion(r));
      Version c = v(randomVersion(r));
      String ctx = "seed " + seed + ": " + a + ", " + b + ", " + c;
      if (a.compareTo(b) <= 0 && b.compareTo(c) <= 0) {
        assertTrue(a.compareTo(c) <= 0, ctx);
        cov.label("chain a ≤ b ≤ c");
      }
      if (!a.isRelease()) {
        assertTrue(a.compareTo(a.release()) < 0, "S8: a pre-release is below the release of its series; " + ctx);
        cov.label("pre-release below its release");
        if (a.patch() > 0) {
          Version previousPatch = new Version(a.major(), a.minor(), a.patch() - 1, List.of(), "");
          assertTrue(a.compareTo(previousPatch) > 0, ctx);
          cov.label("pre-release above the previous patch");
        }
      }
    });
    cov.assertComplete();
  }
}
