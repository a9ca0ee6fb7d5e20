package dev.vigil.worker.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

/** SLF4J in a worker host: warnings and errors as host log lines, nothing below. */
class HostLogProviderTest {
  @Test
  void warningsAndErrorsBecomeHostLogLines_andNothingBelowIsWritten() {
    HostLogProvider provider = new HostLogProvider();
    provider.initialize();
    Logger log = provider.getLoggerFactory().getLogger("dev.vigil.worker.protocol.Peer");
    PrintStream was = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      log.info("not shown");
      log.debug("not shown {}", 1);
      log.warn("{} does not read: {} bytes are waiting", "peer 7", 4096);
      log.error("broken", new IllegalStateException("why"));
    } finally {
      System.setErr(was);
    }
    List<String> lines = err.toString(StandardCharsets.UTF_8).lines().toList();
    assertEquals(2, lines.size(), lines.toString());
    assertTrue(lines.get(0).matches(".*Z vigil-worker\\[\\d+\\]: WARN Peer: peer 7 does not read: 4096 bytes are waiting"),
        lines.get(0));
    assertTrue(lines.get(1).endsWith("ERROR Peer: broken: java.lang.IllegalStateException: why"), lines.get(1));
    assertFalse(log.isInfoEnabled());
  }
}
