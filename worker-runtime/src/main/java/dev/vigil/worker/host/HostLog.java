package dev.vigil.worker.host;

/**
 * The worker host's log: one line per event on stderr, which the launcher appends to {@code stderr.log}.
 * Each line starts with the time in UTC to the millisecond, as {@code Instant.toString()} writes it
 * ({@code 2026-12-07T15:25:02.120Z}), written here rather than through {@code java.time}, which a host
 * would otherwise start for its one or two lines.
 */
final class HostLog {
  private HostLog() {}

  static void info(String message) {
    System.err.println(timestamp(System.currentTimeMillis()) + " vigil-worker[" + ProcessHandle.current().pid()
        + "]: " + message);
  }

  /** {@code epochMs} as {@code Instant.ofEpochMilli(epochMs).toString()} writes it. */
  static String timestamp(long epochMs) {
    long days = Math.floorDiv(epochMs, 86_400_000L);
    int msOfDay = (int) Math.floorMod(epochMs, 86_400_000L);
    // the civil date of a day count (proleptic Gregorian calendar, days since 1970-01-01), by eras of 400 years
    long z = days + 719_468;
    long era = Math.floorDiv(z, 146_097);
    long dayOfEra = z - era * 146_097;
    long yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365;
    long dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
    long monthFromMarch = (5 * dayOfYear + 2) / 153;
    int day = (int) (dayOfYear - (153 * monthFromMarch + 2) / 5 + 1);
    int month = (int) (monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9);
    long year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
    if (year < 0 || year > 9999) {
      return java.time.Instant.ofEpochMilli(epochMs).toString(); // signed and five-digit years: as java.time writes them
    }
    StringBuilder b = new StringBuilder(24);
    digits(b, year, 4).append('-');
    digits(b, month, 2).append('-');
    digits(b, day, 2).append('T');
    digits(b, msOfDay / 3_600_000, 2).append(':');
    digits(b, msOfDay / 60_000 % 60, 2).append(':');
    digits(b, msOfDay / 1_000 % 60, 2);
    if (msOfDay % 1_000 != 0) {
      digits(b.append('.'), msOfDay % 1_000, 3);
    }
    return b.append('Z').toString();
  }

  private static StringBuilder digits(StringBuilder b, long value, int width) {
    String s = Long.toString(value);
    for (int i = s.length(); i < width; i++) {
      b.append('0');
    }
    return b.append(s);
  }
}
