package dev.vigil.coordination.law;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Counts which decision variants a property produced, so that it cannot pass vacuously: after
 * the run, {@link #assertSaw} fails naming every expected variant that never occurred.
 */
public final class Coverage {
  private final String law;
  private final TreeMap<String, Integer> seen = new TreeMap<>();

  public Coverage(String law) {
    this.law = law;
  }

  public synchronized void saw(String variant) {
    seen.merge(variant, 1, Integer::sum);
  }

  public synchronized int count(String variant) {
    return seen.getOrDefault(variant, 0);
  }

  public synchronized void assertSaw(String... variants) {
    Set<String> missing = new TreeSet<>(Set.of(variants));
    missing.removeAll(seen.keySet());
    assertTrue(missing.isEmpty(), law + ": these decision variants never occurred, so the property proved nothing "
        + "about them: " + missing + " (seen: " + seen + ")");
  }

  @Override
  public synchronized String toString() {
    return law + " " + seen;
  }
}
