package dev.vigil.supervisor;

import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.LongConsumer;

/**
 * Property plumbing shared by the law tests: QuickTheories draws a seed, the test builds its
 * history from {@code new SplittableRandom(seed)} and names the seed in every message; a
 * {@link Coverage} counts the decision variants a property produced so it cannot pass vacuously.
 */
final class Props {
  private Props() {}

  /** Runs {@code body} once per drawn seed. */
  static void forSeeds(int examples, LongConsumer body) {
    qt().withExamples(examples).withShrinkCycles(0).forAll(longs().all()).checkAssert(body::accept);
  }

  /**
   * A clock value biased to the edges: with equal odds exactly at {@code edge}, one ms before,
   * one ms after, or anywhere in {@code [edge − spread, edge + spread]}.
   */
  static long near(SplittableRandom r, long edge, long spread) {
    return switch (r.nextInt(4)) {
      case 0 -> edge;
      case 1 -> edge - 1;
      case 2 -> edge + 1;
      default -> edge - spread + r.nextLong(2 * spread + 1);
    };
  }

  /** One of the values. */
  @SafeVarargs
  static <T> T pick(SplittableRandom r, T... values) {
    return values[r.nextInt(values.length)];
  }

  /** Counts what a property produced, by name, and demands every expected name occurred. */
  static final class Coverage {
    private final String property;
    private final List<String> expected = new ArrayList<>();
    private final Map<String, Integer> seen = new TreeMap<>();

    Coverage(String property, Object... expected) {
      this.property = property;
      for (Object e : expected) {
        this.expected.add(e instanceof Class<?> c ? c.getSimpleName() : e.toString());
      }
    }

    /** Counts a decision by its variant (its class's simple name). */
    void saw(Object decision) {
      label(decision.getClass().getSimpleName());
    }

    /** Counts a named case (e.g. a boundary). */
    void label(String name) {
      seen.merge(name, 1, Integer::sum);
    }

    /** Fails unless every expected variant or case occurred at least once. */
    void assertComplete() {
      System.out.println(this);
      for (String e : expected) {
        if (!seen.containsKey(e)) {
          throw new AssertionError(property + ": variant " + e + " never occurred; seen " + seen);
        }
      }
    }

    @Override
    public String toString() {
      return property + " " + seen;
    }
  }
}
