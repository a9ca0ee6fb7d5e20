package dev.vigil.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.spi.FilterReply;
import org.junit.jupiter.api.Test;

class H2LogThrottleTest {
  private static LoggingEvent event(String logger, long atMs) {
    LoggerContext ctx = new LoggerContext();
    LoggingEvent e = new LoggingEvent("x", ctx.getLogger(logger), Level.ERROR, "vigil:database flush", null, null);
    e.setTimeStamp(atMs);
    return e;
  }

  @Test
  void D5_theDatabasesOwnLog_passesOneLineAMinute_andEveryOtherLoggerPassesUntouched() {
    H2LogThrottle t = new H2LogThrottle();
    assertEquals(FilterReply.NEUTRAL, t.decide(event("h2database", 1_000)), "the first line passes");
    assertEquals(FilterReply.DENY, t.decide(event("h2database", 1_001)));
    assertEquals(FilterReply.DENY, t.decide(event("h2database", 60_999)));
    assertEquals(FilterReply.NEUTRAL, t.decide(event("Daemon", 1_002)), "the daemon's own lines are never held back");
    assertEquals(FilterReply.NEUTRAL, t.decide(event("h2database", 61_000)), "a minute later the next passes");
    assertEquals(FilterReply.DENY, t.decide(event("h2database", 61_001)));
  }
}
