package dev.vigil.coordination.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.RetryPolicy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Options are validated in the compact constructor: null names the field, bad values are rejected, never clamped. */
class H2OptionsTest {
  @Test
  void defaults_areProcessDurability_aTwoSecondLockTimeout_fourConnections_andTheDefaultPolicy() {
    H2Options o = H2Options.defaults();
    assertEquals(H2Options.Durability.PROCESS, o.durability());
    assertEquals(Duration.ofSeconds(2), o.lockTimeout());
    assertEquals(4, o.poolSize());
    assertEquals(RetryPolicy.DEFAULT, o.retryPolicy());
    assertEquals(H2Options.Durability.POWER, o.withDurability(H2Options.Durability.POWER).durability());
  }

  @Test
  void nullsAreRejected_namingTheField() {
    H2Options d = H2Options.defaults();
    assertEquals("durability", assertThrows(NullPointerException.class,
        () -> new H2Options(null, d.lockTimeout(), 4, d.retryPolicy())).getMessage());
    assertEquals("lockTimeout", assertThrows(NullPointerException.class,
        () -> new H2Options(d.durability(), null, 4, d.retryPolicy())).getMessage());
    assertEquals("retryPolicy", assertThrows(NullPointerException.class,
        () -> new H2Options(d.durability(), d.lockTimeout(), 4, null)).getMessage());
  }

  @Test
  void outOfRangeValuesAreRejected_notClamped() {
    H2Options d = H2Options.defaults();
    assertTrue(assertThrows(IllegalArgumentException.class, () -> d.withLockTimeout(Duration.ZERO)).getMessage()
        .contains("lockTimeout (0ms) must be >= 1ms"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> d.withLockTimeout(Duration.ofMinutes(11)))
        .getMessage().contains("must be <= 600000ms"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> d.withPoolSize(0)).getMessage()
        .contains("poolSize (0) must be between 1 and 64"));
    assertThrows(IllegalArgumentException.class, () -> d.withPoolSize(65));
    assertEquals(64, d.withPoolSize(64).poolSize());
    assertEquals(Duration.ofMillis(1), d.withLockTimeout(Duration.ofMillis(1)).lockTimeout());
  }
}
