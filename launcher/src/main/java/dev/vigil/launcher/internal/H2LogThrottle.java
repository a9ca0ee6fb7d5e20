package dev.vigil.launcher.internal;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.spi.FilterReply;

/**
 * Lets at most one line of H2's own log through per {@value #WINDOW_MS} ms, with the count of
 * those it held back since the last one. A failing disk makes H2 log several errors, each with a
 * stack trace, at every write it tries; the daemon's own lines already say when a store outage
 * began, changed and ended (D5), so the log keeps H2's first words on it and not a copy per
 * reopen attempt. Lines of every other logger pass untouched. Used by the daemon's
 * {@code logback.xml}; an application that embeds Vigil configures its own logging.
 */
public final class H2LogThrottle extends Filter<ILoggingEvent> {
  /** The least time between two lines of H2's log that pass, ms. */
  static final long WINDOW_MS = 60_000;
  /** The logger H2 writes its own log to. */
  static final String H2_LOGGER = "h2database";

  private static final java.time.format.DateTimeFormatter TIME =
      java.time.format.DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

  private long lastPassedMs = Long.MIN_VALUE / 2;
  private long held;

  @Override
  public synchronized FilterReply decide(ILoggingEvent event) {
    if (!H2_LOGGER.equals(event.getLoggerName())) {
      return FilterReply.NEUTRAL;
    }
    long now = event.getTimeStamp();
    if (now - lastPassedMs < WINDOW_MS) {
      held++;
      return FilterReply.DENY;
    }
    lastPassedMs = now;
    if (held > 0) {
      System.err.println(java.time.LocalTime.now().format(TIME) + " WARN  h2database - " + held
          + " more lines of the database's own log were left out (at most one a minute)");
      held = 0;
    }
    return FilterReply.NEUTRAL;
  }
}
