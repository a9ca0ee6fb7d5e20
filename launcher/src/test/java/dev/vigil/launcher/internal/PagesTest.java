package dev.vigil.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.TicketId;
import dev.vigil.launcher.Vigil;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lists read page by page over the real socket: however many tickets a home holds, and however
 * large their payloads, {@code vigil tasks} gets them all, in order, without a reply over the
 * protocol's 1 MiB frame limit.
 */
class PagesTest {
  @TempDir
  Path tmp;

  @Test
  void everyTicketComesBackInIdOrder_evenWhenAPageOfThemIsLargerThanAFrame() throws Exception {
    Path home = tmp.resolve("home");
    try (Vigil v = Vigil.builder().home(home).start()) {
      long later = System.currentTimeMillis() + 3_600_000; // not due: nothing runs
      List<TicketId> ids = new ArrayList<>();
      for (int i = 0; i < 450; i++) {
        ids.add(v.submit(new NewTicket(Lane.DEFAULT, "command", "{\"argv\":[\"true\"]}", 3, 0, later, null)));
      }
      String pad = "x".repeat(200_000);
      for (int i = 0; i < 12; i++) { // 2.4 MB together: more than a frame holds
        ids.add(v.submit(new NewTicket(Lane.DEFAULT, "command", "{\"argv\":[\"true\"],\"pad\":\"" + pad + "\"}", 3, 0,
            later, null)));
      }
      try (Client c = Client.connect(new Home(home), false)) {
        List<JsonNode> all = Pages.all(c, "list", Wire.JSON.createObjectNode(), "tickets");
        assertEquals(ids.stream().map(TicketId::toString).toList(), all.stream().map(t -> t.path("id").asText()).toList());
        assertTrue(all.get(all.size() - 1).path("payload").toString().contains(pad), "the large payloads came whole");

        var bad = Wire.JSON.createObjectNode();
        bad.put("limit", 0);
        Client.Failure f = org.junit.jupiter.api.Assertions.assertThrows(Client.Failure.class, () -> Client.ok(c.call("list",
            bad)));
        assertTrue(f.getMessage().contains("limit '0' must be a whole number 1-10000"), f.getMessage());
        assertEquals(0, Pages.all(c, "runs", Wire.JSON.createObjectNode(), "runs").size(), "nothing ran");
      }
    }
  }
}
