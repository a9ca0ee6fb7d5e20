package dev.vigil.launcher;

import static dev.vigil.launcher.CliEndToEndTest.json;
import static dev.vigil.launcher.CliEndToEndTest.vigil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.launcher.CliEndToEndTest.Result;
import dev.vigil.supervisor.OutputBound;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A lane's output bound through the real daemon and CLI: the run settles as it ended, its logs are cut and say so. */
class BoundedOutputCliTest {
  private static final OutputBound ONE_MIB = new OutputBound(1L << 20);

  @TempDir Path tmp;
  private final List<Path> homes = new ArrayList<>();

  @AfterEach
  void stopDaemons() throws Exception {
    for (Path h : homes) {
      vigil(h, "down", "--stop-workers");
    }
  }

  /** {@code seq 1 n} as text. */
  private static String seq(int n) {
    StringBuilder b = new StringBuilder();
    for (int i = 1; i <= n; i++) {
      b.append(i).append('\n');
    }
    return b.toString();
  }

  private static String finalForm(String stream, OutputBound bound) {
    byte[] s = stream.getBytes(StandardCharsets.US_ASCII);
    int head = (int) bound.headBytes();
    int tail = (int) bound.tailBytes();
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.write(s, 0, head);
    b.writeBytes(OutputBound.marker(s.length - head - tail, s[head - 1] == '\n').getBytes(StandardCharsets.UTF_8));
    b.write(s, s.length - tail, tail);
    return b.toString(StandardCharsets.UTF_8);
  }

  @Test
  void aRunPrintingFiveTimesItsLanesBound_succeedsWithExit0_andLogsPrintsHeadMarkerAndTail_sayingItWasCut()
      throws Exception {
    Path home = CliEndToEndTest.ownerOnlyHome(tmp, "h", homes);
    Path config = Files.writeString(tmp.resolve("vigil.json"),
        "{\"lanes\": {\"default\": {\"concurrency\": 2, \"maxOutput\": \"1MiB\"}}}");
    Result up = vigil(home, "up", "--config", config.toString());
    assertEquals(0, up.code(), up.err());

    String big = vigil(home, "submit", "--", "sh", "-c", "seq 1 900000; echo done >&2").line();
    String small = vigil(home, "submit", "--", "seq", "1", "1000").line();
    assertEquals(0, vigil(home, "wait", big, "--timeout", "90s").code());
    assertEquals(0, vigil(home, "wait", small, "--timeout", "90s").code());
    JsonNode run = json(vigil(home, "show", big, "--json")).path("runs").get(0);
    assertEquals("SUCCEEDED", run.path("verdict").asText());
    assertEquals(0, run.path("exitCode").asInt(), "the run's own exit, whatever it printed");

    String stream = seq(900_000);
    assertTrue(stream.length() > 5 * ONE_MIB.maxBytes(), "it printed more than five bounds");
    String expected = finalForm(stream, ONE_MIB);
    Path dir = home.resolve("runs").resolve(big + ".1");
    assertEquals(expected, Files.readString(dir.resolve("stdout.log")), "the file: head, marker, tail, exactly");

    Result logs = vigil(home, "logs", big);
    assertEquals(0, logs.code(), logs.err());
    assertEquals(expected, logs.out(), "logs prints what was kept, the marker in place of the rest");
    long dropped = stream.length() - ONE_MIB.maxBytes();
    assertTrue(logs.err().contains("vigil: " + big + ".1 wrote more stdout than is kept (1.0 MiB: the first 512.0 KiB "
        + "and the last 512.0 KiB): ") && logs.err().contains("(" + dropped + " bytes) in between were dropped"), logs.err());
    assertTrue(logs.err().contains("done\n"), "its stderr is there too: " + logs.err());

    Result follow = vigil(home, "logs", big + ".1", "--follow");
    assertEquals(0, follow.code(), follow.err());
    assertEquals(expected, follow.out());
    assertTrue(follow.err().contains("(" + dropped + " bytes) in between were dropped"), follow.err());
    assertTrue(follow.err().contains("vigil: " + big + ".1 SUCCEEDED"), follow.err());

    Result within = vigil(home, "logs", small);
    assertEquals(seq(1000), within.out(), "a run within its bound is shown as it printed");
    assertFalse(within.err().contains("dropped"), within.err());
  }
}
