package dev.vigil.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.coordination.Verdict;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A success's result: what it keeps (any JSON value, as a copy), what it refuses (too large, not writable), and why. */
class OutcomeResultTest {
  private static final ObjectMapper PLAIN = new ObjectMapper();

  /** A worker's result as a record, with java.time and Optional components. */
  public record Summary(String name, int primes, Instant at, Duration took, LocalDate day, Optional<String> note,
                        List<Long> sample) {}

  private static JsonNode resultOf(Outcome o) {
    return assertInstanceOf(Outcome.Succeeded.class, o).result();
  }

  @Test
  void aRecordResult_isWrittenByItsComponents_withTimesAsIsoText() throws Exception {
    Summary s = new Summary("primes", 9592, Instant.parse("2026-01-31T09:30:00Z"), Duration.ofSeconds(90),
        LocalDate.of(2026, 1, 31), Optional.empty(), List.of(2L, 3L, 5L));
    Outcome o = Outcome.succeeded(s, "counted");
    assertEquals(Verdict.SUCCEEDED, o.verdict());
    assertEquals("counted", o.detail());
    assertEquals(PLAIN.readTree("{\"name\":\"primes\",\"primes\":9592,\"at\":\"2026-01-31T09:30:00Z\",\"took\":\"PT1M30S\","
        + "\"day\":\"2026-01-31\",\"note\":null,\"sample\":[2,3,5]}"), resultOf(o));
    assertEquals(s, JsonBinding.fromJson(resultOf(o), Summary.class), "what a worker writes binds back to its type");
    assertEquals("", Outcome.succeeded(s).detail());
  }

  @Test
  void aStringIsAJsonString_aNumberOrBooleanItself_andAJsonNodeACopy() throws Exception {
    assertEquals(PLAIN.getNodeFactory().textNode("{\"not\":\"parsed\"}"), resultOf(Outcome.succeeded("{\"not\":\"parsed\"}")),
        "a String result is a JSON string, never parsed");
    assertEquals(PLAIN.readTree("42"), resultOf(Outcome.succeeded(42)));
    assertEquals(PLAIN.readTree("true"), resultOf(Outcome.succeeded(true)));
    assertEquals(PLAIN.readTree("[1,\"two\",{\"three\":3}]"), resultOf(Outcome.succeeded(List.of(1, "two",
        Map.of("three", 3)))));

    ObjectNode tree = PLAIN.createObjectNode().put("n", 1);
    Outcome.Succeeded o = (Outcome.Succeeded) Outcome.succeeded(tree);
    tree.put("n", 2);
    assertEquals(1, o.result().path("n").asInt(), "the result is a copy, taken when it is given");
    ((ObjectNode) o.result()).put("n", 3);
    assertEquals(1, o.result().path("n").asInt(), "and what result() returns is a copy too");
    assertNotSame(o.result(), o.result());
    assertEquals(o, new Outcome.Succeeded("", PLAIN.createObjectNode().put("n", 1)), "equal by value");
  }

  @Test
  void nullOrAJsonNull_isNoResult_andASuccessWithADetailOnlyHasNone() {
    assertNull(resultOf(Outcome.succeeded(null)));
    assertNull(resultOf(Outcome.succeeded(PLAIN.nullNode(), "done")));
    Outcome.Succeeded detailOnly = new Outcome.Succeeded("9592 primes");
    assertEquals("9592 primes", detailOnly.detail(), "the one-argument success is a detail, as it always was");
    assertNull(detailOnly.result());
    assertEquals(new Outcome.Succeeded("9592 primes", null), detailOnly);
  }

  @Test
  void aResultOfExactly64KiB_isKept_andOneByteMoreIsRefused_countingUtf8Bytes() {
    String fits = "x".repeat(Outcome.MAX_RESULT_BYTES - 2); // with its two quotes: exactly the bound
    assertEquals(Outcome.MAX_RESULT_BYTES, utf8(resultOf(Outcome.succeeded(fits))));
    ResultRefusedException over = assertThrows(ResultRefusedException.class,
        () -> Outcome.succeeded(fits + "x"));
    assertEquals("result refused: it is 65537 bytes of JSON, more than the 65536 a run keeps (keep large output"
        + " elsewhere and return where it is)", over.getMessage());
    String wide = "\u00e9".repeat(Outcome.MAX_RESULT_BYTES / 2); // 32768 characters, 65536 bytes, + 2 quotes
    ResultRefusedException bytes = assertThrows(ResultRefusedException.class, () -> Outcome.succeeded(wide));
    assertTrue(bytes.getMessage().contains("65538 bytes"), "counted in bytes of UTF-8, not characters: "
        + bytes.getMessage());
    ObjectNode big = PLAIN.createObjectNode().put("blob", "y".repeat(Outcome.MAX_RESULT_BYTES));
    assertThrows(ResultRefusedException.class, () -> new Outcome.Succeeded("made by hand", big),
        "the bound holds however the success is made");
  }

  @Test
  void aDecimalKeepsEveryDigit_andAResultEqualsItselfReadBack() throws Exception {
    JsonNode r = resultOf(Outcome.succeeded(Map.of("amount", new java.math.BigDecimal("12345678901234567890.12"),
        "ratio", 0.1, "count", 7L)));
    assertEquals(new java.math.BigDecimal("12345678901234567890.12"), r.path("amount").decimalValue());
    assertEquals(0.1, r.path("ratio").doubleValue());
    assertEquals(PLAIN.readTree("{\"count\":7}").path("count"), r.path("count"),
        "a long that fits an int is the node a JSON reader makes of it");
  }

  /** Jackson cannot write it: its getter throws. */
  public static final class Unwritable {
    public String getValue() {
      throw new IllegalStateException("no value today");
    }
  }

  @Test
  void aResultJacksonCannotWrite_isRefusedInOneLine_namingItsType() {
    ResultRefusedException e = assertThrows(ResultRefusedException.class, () -> Outcome.succeeded(new Unwritable()));
    assertTrue(e.getMessage().startsWith("result refused: a dev.vigil.worker.OutcomeResultTest.Unwritable cannot be "
        + "written as JSON: "), e.getMessage());
    assertTrue(e.getMessage().contains("no value today"), e.getMessage());
    assertEquals(1, e.getMessage().lines().count(), e.getMessage());
    assertInstanceOf(IllegalArgumentException.class, e, "a refused result is a bad argument");
  }

  private static int utf8(JsonNode n) {
    return n.toString().getBytes(StandardCharsets.UTF_8).length;
  }
}
