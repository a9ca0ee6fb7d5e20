package dev.vigil.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How {@code vigil show} prints a run's result for people: one line of compact JSON, cut when long, saying so. */
class ResultViewTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void aShortResult_isShownWhole_asCompactJson() throws Exception {
    assertEquals("{\"below\":30,\"primes\":10}", Views.result(JSON.readTree("{ \"below\": 30,\n \"primes\": 10 }"), "t-1"));
    assertEquals("\"done\"", Views.result(JSON.readTree("\"done\""), "t-1"), "a string result keeps its quotes");
  }

  @Test
  void aLongResult_isCutToOneReadableLine_withItsWholeLengthAndWhereToSeeIt() throws Exception {
    JsonNode big = JSON.createObjectNode().put("text", "y".repeat(5_000));
    String line = Views.result(big, "t-12");
    assertTrue(line.startsWith("{\"text\":\"yyy"), line);
    assertEquals(Views.RESULT_WIDTH - 1, line.indexOf('…'), "cut at the width: " + line);
    assertTrue(line.endsWith("… (cut: 5,011 characters in all; vigil show t-12 --json shows it whole)"), line);
    assertEquals(1, line.lines().count());
  }

  @Test
  void aTicketsDetail_showsEachResultUnderItsRun_andNothingForARunWithout() throws Exception {
    JsonNode t = JSON.readTree("{\"id\":\"t-3\",\"state\":\"SUCCEEDED\",\"lane\":\"default\",\"type\":\"count\","
        + "\"payload\":{},\"attemptsUsed\":2,\"maxAttempts\":3,\"spec\":{},\"labels\":{},\"runs\":["
        + "{\"id\":\"t-3.1\",\"attempt\":1,\"state\":\"SETTLED\",\"verdict\":\"FAILED\",\"diagnosis\":\"exit code 1\","
        + "\"result\":null},"
        + "{\"id\":\"t-3.2\",\"attempt\":2,\"state\":\"SETTLED\",\"verdict\":\"SUCCEEDED\",\"result\":[1,2,3]}]}");
    List<String> lines = Views.ticketDetail(t);
    int second = lines.indexOf(lines.stream().filter(l -> l.startsWith("  t-3.2")).findFirst().orElseThrow());
    assertEquals("    result   [1,2,3]", lines.get(second + 1));
    assertEquals(1, lines.stream().filter(l -> l.contains("result")).count(), String.join("\n", lines));
  }
}
