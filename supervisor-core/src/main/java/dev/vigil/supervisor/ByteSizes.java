package dev.vigil.supervisor;

import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Sizes as written in configuration: a whole number and one binary unit, {@code 512KiB},
 * {@code 64MiB}, {@code 1GiB}, {@code 100B} (what {@link #format(long)} writes). Decimal units
 * ({@code MB}), bare numbers, fractions and negative values are rejected, never rounded.
 */
public final class ByteSizes {
  /** One kibibyte, bytes. */
  public static final long KIB = 1L << 10;
  /** One mebibyte, bytes. */
  public static final long MIB = 1L << 20;
  /** One gibibyte, bytes. */
  public static final long GIB = 1L << 30;
  /** One tebibyte, bytes. */
  public static final long TIB = 1L << 40;

  private static final Pattern SIZE = Pattern.compile("(\\d{1,19})(B|KiB|MiB|GiB|TiB)");
  private static final String EXPECTED = "write e.g. 512KiB, 64MiB or 1GiB";

  private ByteSizes() {}

  /**
   * Parses a size to bytes.
   *
   * @throws IllegalArgumentException naming the text when it is not a whole number of one of the units
   */
  public static long parse(String text) {
    Objects.requireNonNull(text, "text");
    Matcher m = SIZE.matcher(text);
    if (!m.matches()) {
      String hint = text.matches("\\d+(kB|KB|MB|GB|TB|k|K|M|G|T)") ? " (units are binary: KiB, MiB, GiB)" : "";
      throw new IllegalArgumentException("bad size \"" + text + "\"" + hint + ": " + EXPECTED);
    }
    long unit = switch (m.group(2)) {
      case "B" -> 1;
      case "KiB" -> KIB;
      case "MiB" -> MIB;
      case "GiB" -> GIB;
      case "TiB" -> TIB;
      default -> throw new AssertionError(m.group(2));
    };
    try {
      return Math.multiplyExact(Long.parseLong(m.group(1)), unit);
    } catch (ArithmeticException | NumberFormatException e) {
      throw new IllegalArgumentException("bad size \"" + text + "\": too large");
    }
  }

  /** Writes bytes in the largest unit that divides them: {@code 0B}, {@code 100B}, {@code 1536KiB}, {@code 64MiB}. */
  public static String format(long bytes) {
    if (bytes < 0) {
      return "-" + format(-bytes);
    }
    if (bytes != 0) {
      for (long unit : new long[] {TIB, GIB, MIB, KIB}) {
        if (bytes % unit == 0) {
          return bytes / unit + name(unit);
        }
      }
    }
    return bytes + "B";
  }

  /**
   * A size for people, rounded to one decimal in the largest unit it reaches: {@code 900 bytes},
   * {@code 4.0 MiB}, {@code 1.5 GiB}. Only for messages; {@link #parse} does not read it.
   */
  public static String describe(long bytes) {
    if (bytes < KIB) {
      return bytes + (bytes == 1 ? " byte" : " bytes");
    }
    for (long unit : new long[] {TIB, GIB, MIB, KIB}) {
      if (bytes >= unit) {
        long tenths = Math.round(bytes * 10.0 / unit);
        return tenths / 10 + "." + tenths % 10 + " " + name(unit);
      }
    }
    throw new AssertionError(bytes);
  }

  private static String name(long unit) {
    return unit == TIB ? "TiB" : unit == GIB ? "GiB" : unit == MIB ? "MiB" : "KiB";
  }
}
