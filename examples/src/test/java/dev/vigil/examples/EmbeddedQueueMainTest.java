package dev.vigil.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import dev.vigil.launcher.Vigil;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedded-queue example runs as written, on a real daemon in this JVM with real worker processes. */
class EmbeddedQueueMainTest {
  @TempDir
  Path tmp;

  @Test
  void itQueuesThreeCommands_printsEachSettlementAndEnd_andTheTicketsStayInItsHome() throws Exception {
    Path home = tmp.resolve("home");
    List<String> out = Stdout.of(() -> EmbeddedQueueMain.main(new String[] {home.toString()}));
    assertEquals(List.of("t-1: SUCCEEDED after 1 attempt(s)", "t-2: SUCCEEDED after 1 attempt(s)",
        "t-3: HELD after 1 attempt(s)"), out.stream().filter(l -> l.startsWith("t-")).toList());
    for (String settled : List.of("settled: t-1 SUCCEEDED", "settled: t-2 SUCCEEDED", "settled: t-3 FAILED")) {
      assertTrue(out.contains(settled), "the listener heard '" + settled + "': " + out);
    }
    assertEquals(6, out.size(), "one line per settlement and per ticket: " + out);

    try (Vigil again = Vigil.builder().home(home).start()) {
      assertEquals(TicketState.SUCCEEDED, again.ticket(new TicketId(1)).orElseThrow().state());
      assertEquals(TicketState.HELD, again.ticket(new TicketId(3)).orElseThrow().state(), "held for a person, durably");
      assertEquals("nap", again.ticket(new TicketId(2)).orElseThrow().labels().get("kind"));
    }
  }
}
