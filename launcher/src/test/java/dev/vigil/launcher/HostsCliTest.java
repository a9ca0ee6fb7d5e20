package dev.vigil.launcher;

import static dev.vigil.launcher.CliEndToEndTest.json;
import static dev.vigil.launcher.CliEndToEndTest.vigil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.coordination.Claim;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.Owner;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunStart;
import dev.vigil.coordination.RunState;
import dev.vigil.coordination.Start;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.Verdict;
import dev.vigil.coordination.h2.H2Coordination;
import dev.vigil.coordination.h2.H2Options;
import dev.vigil.launcher.CliEndToEndTest.Result;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vigil hosts} and {@code vigil release-host} end to end (H1): another host's daemon claimed and started
 * tasks on this store and went silent; this host's daemon, started after it on the real jar, never touches
 * those runs (its own recovery would settle a run whose process it cannot find), however long they sit, until
 * an operator releases that host: then the started run is settled LOST and its task runs again here, and the
 * claim that never started is rolled back without spending an attempt.
 */
@Tag("slow")
class HostsCliTest {
  private static final String OTHER = "build-box-2";

  @TempDir
  Path tmp;

  private final List<Path> homes = new ArrayList<>();

  @AfterEach
  void stopDaemons() throws Exception {
    for (Path h : homes) {
      vigil(h, "down", "--stop-workers");
    }
  }

  private static TicketId submitted(Submission s) {
    return assertInstanceOf(Submission.Accepted.class, s).ticket().id();
  }

  @Test
  void anotherHostsRunsAreLeftAlone_untilAnOperatorReleasesThatHost() throws Exception {
    Path home = CliEndToEndTest.ownerOnlyHome(tmp, "h1", homes);
    Path store = home.resolve("vigil.mv.db");
    TicketId started;
    TicketId claimed;
    String startedRun;
    String claimedRun;
    long now = System.currentTimeMillis();
    try (H2Coordination h2 = H2Coordination.open(store, H2Options.defaults())) {
      OwnerId other = new OwnerId("d-" + OTHER + "-1");
      h2.registerOwner(new Owner(other, OTHER, new ProcessIdentity("another-machine", 4242, 77, 4242), "b0", now,
          OTHER));
      String payload = "{\"argv\":[\"sh\",\"-c\",\"echo ran here\"]}";
      started = submitted(h2.submit(new NewTicket(Lane.DEFAULT, "command", payload, 2, 0, 0, null,
          dev.vigil.coordination.RunSpec.DEFAULT, new java.util.TreeMap<>()), now));
      claimed = submitted(h2.submit(NewTicket.of(Lane.DEFAULT, "command", payload), now));
      Run s = assertInstanceOf(Claim.Granted.class, h2.claim(started, other, now, 60_000)).run();
      assertInstanceOf(Start.Started.class, h2.start(s.id(), other, new RunStart(
          new ProcessIdentity("another-machine", 5001, 99, 5001), "b0", "ab".repeat(32), now, 0)));
      Run c = assertInstanceOf(Claim.Granted.class, h2.claim(claimed, other, now, 60_000)).run();
      startedRun = s.id().toString();
      claimedRun = c.id().toString();
    }

    Result up = vigil(home, "up");
    assertEquals(0, up.code(), up.err());
    JsonNode hosts = json(vigil(home, "hosts", "--json"));
    assertEquals(2, hosts.size(), hosts.toString());
    assertTrue(hosts.get(0).path("thisHost").asBoolean() && hosts.get(0).path("liveRuns").asInt() == 0, hosts.toString());
    assertEquals(OTHER, hosts.get(1).path("host").asText(), hosts.toString());
    assertEquals(2, hosts.get(1).path("liveRuns").asInt(), hosts.toString());
    Result words = vigil(home, "hosts");
    assertTrue(words.out().contains("host " + OTHER + " (" + OTHER + "): 2 live runs; latest daemon d-" + OTHER + "-1"),
        words.out());

    // the daemon's boot recovery and its passes since have left both runs as the other host left them
    Thread.sleep(3_000);
    assertEquals("RUNNING", json(vigil(home, "show", started.toString(), "--json")).path("runs").get(0).path("state")
        .asText());
    assertEquals("CLAIMED", json(vigil(home, "show", claimed.toString(), "--json")).path("runs").get(0).path("state")
        .asText());

    Result unknown = vigil(home, "release-host", "no-such-host");
    assertEquals(2, unknown.code(), unknown.err());
    assertTrue(unknown.err().contains("no such host no-such-host"), unknown.err());
    Result bad = vigil(home, "release-host", "not a host");
    assertEquals(2, bad.code(), bad.err());

    Result released = vigil(home, "release-host", OTHER);
    assertEquals(0, released.code(), released.err());
    assertEquals("host " + OTHER + " released: 2 live runs rolled back or settled as lost (" + startedRun + ", "
        + claimedRun + ")", released.out().trim());

    Result waited = vigil(home, "wait", started.toString(), "--timeout", "90s");
    assertEquals(0, waited.code(), waited.out() + waited.err());
    JsonNode s = json(vigil(home, "show", started.toString(), "--json"));
    assertEquals("SUCCEEDED", s.path("state").asText(), s.toString());
    assertEquals(Verdict.LOST.name(), s.path("runs").get(0).path("verdict").asText(), s.toString());
    assertTrue(s.path("runs").get(0).path("diagnosis").asText().contains("host " + OTHER + " was released"),
        s.toString());
    assertEquals(2, s.path("runs").size(), "one attempt was lost with its host, the next ran here: " + s);
    assertEquals(0, vigil(home, "wait", claimed.toString(), "--timeout", "90s").code());
    JsonNode c = json(vigil(home, "show", claimed.toString(), "--json"));
    assertEquals(Verdict.ABANDONED.name(), c.path("runs").get(0).path("verdict").asText(), c.toString());
    assertEquals(1, c.path("attemptsUsed").asInt(), "a claim rolled back spends no attempt: " + c);
    assertEquals("SUCCEEDED", c.path("state").asText(), c.toString());

    JsonNode after = json(vigil(home, "hosts", "--json"));
    assertEquals(0, after.get(1).path("liveRuns").asInt(), after.toString());
    List<JsonNode> printed = new ArrayList<>();
    hosts.forEach(printed::add);
    after.forEach(printed::add);
    JsonShapesTest.assertDocumented("host", printed);
    assertEquals(RunState.SETTLED.name(), json(vigil(home, "show", started.toString(), "--json")).path("runs").get(0)
        .path("state").asText());
  }
}
