package dev.vigil.supervisor.engine;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Counts what a simulation saw (decision variants, events, faults), merged across seeds, so a
 * property cannot pass vacuously: {@link #assertSaw} fails naming every expected variant that
 * never occurred.
 */
final class Tally {
  private final String law;
  private final TreeMap<String, Long> seen = new TreeMap<>();

  Tally(String law) {
    this.law = law;
  }

  synchronized void saw(String variant) {
    seen.merge(variant, 1L, Long::sum);
  }

  synchronized void add(Tally other) {
    for (Map.Entry<String, Long> e : other.snapshot().entrySet()) {
      seen.merge(e.getKey(), e.getValue(), Long::sum);
    }
  }

  synchronized long count(String variant) {
    return seen.getOrDefault(variant, 0L);
  }

  synchronized Map<String, Long> snapshot() {
    return new TreeMap<>(seen);
  }

  synchronized void assertSaw(String... variants) {
    Set<String> missing = new TreeSet<>(Set.of(variants));
    missing.removeAll(seen.keySet());
    assertTrue(missing.isEmpty(), law + ": these variants never occurred, so the property proved nothing about them: "
        + missing + "\n  seen: " + seen);
  }

  @Override
  public synchronized String toString() {
    return law + " " + seen;
  }
}
