package dev.vigil.supervisor;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as written in configuration and on the command line: {@code 250ms}, {@code 30s},
 * {@code 5m}, {@code 1h}, compounds in descending units such as {@code 2m30s} (what
 * {@link #format(long)} writes), and ISO-8601 such as {@code PT30S}. Negative durations, bare
 * numbers, fractions of a millisecond and values beyond a {@code long} of milliseconds are rejected,
 * never rounded.
 */
public final class Durations {
  /** One second, ms. */
  private static final long SECOND_MS = 1_000;
  /** One minute, ms. */
  private static final long MINUTE_MS = 60 * SECOND_MS;
  /** One hour, ms. */
  private static final long HOUR_MS = 60 * MINUTE_MS;

  private static final Pattern PART = Pattern.compile("(\\d+)(ms|h|m|s)");
  private static final String EXPECTED = "write e.g. 250ms, 30s, 5m, 1h, 2m30s or PT30S";

  private Durations() {}

  /**
   * Parses a duration to milliseconds.
   *
   * @throws IllegalArgumentException naming the text when it is not a non-negative duration in
   *                                  whole milliseconds
   */
  public static long parse(String text) {
    Objects.requireNonNull(text, "text");
    if (text.startsWith("P") || text.startsWith("p")) {
      return parseIso(text);
    }
    Matcher m = PART.matcher(text);
    int at = 0;
    int lastRank = Integer.MAX_VALUE;
    long total = 0;
    while (at < text.length()) {
      if (!m.find(at) || m.start() != at) {
        throw bad(text, "");
      }
      long unitMs = unitMs(m.group(2));
      int rank = rank(m.group(2));
      if (rank >= lastRank) {
        throw bad(text, ": units must appear once each, largest first");
      }
      lastRank = rank;
      try {
        total = Math.addExact(total, Math.multiplyExact(Long.parseLong(m.group(1)), unitMs));
      } catch (ArithmeticException | NumberFormatException e) {
        throw bad(text, ": too long");
      }
      at = m.end();
    }
    if (at == 0) {
      throw bad(text, "");
    }
    return total;
  }

  /**
   * Writes milliseconds in the units {@link #parse(String)} reads, largest first, omitting zero
   * parts: {@code 0ms}, {@code 1s}, {@code 2m30s}, {@code 7s750ms}, {@code 24h}. A negative value
   * is written with a leading {@code -} (for messages; {@code parse} rejects it).
   */
  public static String format(long ms) {
    if (ms == 0) {
      return "0ms";
    }
    StringBuilder b = new StringBuilder(ms < 0 ? "-" : "");
    long h = Math.abs(ms / HOUR_MS);
    long rest = ms % HOUR_MS;
    long m = Math.abs(rest / MINUTE_MS);
    rest %= MINUTE_MS;
    long s = Math.abs(rest / SECOND_MS);
    long milli = Math.abs(rest % SECOND_MS);
    append(b, h, "h");
    append(b, m, "m");
    append(b, s, "s");
    append(b, milli, "ms");
    return b.toString();
  }

  private static void append(StringBuilder b, long n, String unit) {
    if (n != 0) {
      b.append(n).append(unit);
    }
  }

  private static long parseIso(String text) {
    Duration d;
    try {
      d = Duration.parse(text);
    } catch (DateTimeParseException e) {
      throw bad(text, "");
    }
    if (d.isNegative()) {
      throw bad(text, ": must not be negative");
    }
    if (d.getNano() % 1_000_000 != 0) {
      throw bad(text, ": must be whole milliseconds");
    }
    try {
      return d.toMillis();
    } catch (ArithmeticException e) {
      throw bad(text, ": too long");
    }
  }

  private static long unitMs(String unit) {
    return switch (unit) {
      case "h" -> HOUR_MS;
      case "m" -> MINUTE_MS;
      case "s" -> SECOND_MS;
      case "ms" -> 1;
      default -> throw new AssertionError(unit);
    };
  }

  private static int rank(String unit) {
    return switch (unit) {
      case "h" -> 3;
      case "m" -> 2;
      case "s" -> 1;
      case "ms" -> 0;
      default -> throw new AssertionError(unit);
    };
  }

  private static IllegalArgumentException bad(String text, String detail) {
    return new IllegalArgumentException("bad duration \"" + text + "\"" + detail + ": " + EXPECTED);
  }
}
