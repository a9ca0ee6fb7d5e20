package dev.vigil.benchmarks;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

/** Medians, percentiles and ratios of repeated measurements. */
public final class Stats {
  private Stats() {}

  /** The median (the mean of the two middle values for an even count). */
  public static double median(Collection<? extends Number> xs) {
    List<Double> s = sorted(xs);
    int n = s.size();
    return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
  }

  /** The nearest-rank percentile {@code p} (0-100). */
  public static double percentile(Collection<? extends Number> xs, double p) {
    List<Double> s = sorted(xs);
    int rank = (int) Math.ceil(p / 100.0 * s.size());
    return s.get(Math.max(0, Math.min(s.size() - 1, rank - 1)));
  }

  public static double max(Collection<? extends Number> xs) {
    return sorted(xs).get(xs.size() - 1);
  }

  public static double min(Collection<? extends Number> xs) {
    return sorted(xs).get(0);
  }

  private static List<Double> sorted(Collection<? extends Number> xs) {
    if (xs.isEmpty()) {
      throw new IllegalArgumentException("no measurements");
    }
    List<Double> s = new ArrayList<>();
    for (Number x : xs) {
      s.add(x.doubleValue());
    }
    Collections.sort(s);
    return s;
  }

  /** {@code a / b} as {@code 0.19×}, or {@code n/a} when b is 0. */
  public static String ratio(double a, double b) {
    return b == 0 ? "n/a" : String.format("%.2f×", a / b);
  }

  /** A figure with a sensible number of digits. */
  public static String fmt(double x) {
    double a = Math.abs(x);
    if (a >= 100) {
      return String.format("%,.0f", x);
    } else if (a >= 10) {
      return String.format("%.1f", x);
    } else if (a >= 1) {
      return String.format("%.2f", x);
    }
    return String.format("%.3f", x);
  }

  /** The median with the spread of the repetitions, e.g. {@code 737 (712-760)}. */
  public static String spread(Collection<? extends Number> xs) {
    if (xs.size() == 1) {
      return fmt(median(xs));
    }
    return fmt(median(xs)) + " (" + fmt(min(xs)) + "–" + fmt(max(xs)) + ")";
  }
}
