package dev.vigil.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.coordination.TicketId;
import dev.vigil.supervisor.WorkSet;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@link WorkContext#payload(Class)}: a payload binds to a record (java.time included) or fails with one
 * line naming the type, the field and why.
 */
class PayloadBindingTest {
  private static final ObjectMapper PLAIN = new ObjectMapper();

  /** A job as a worker type declares its input. */
  public record Job(String name, int count, Instant due, List<Item> items, Optional<String> note) {
    public Job {
      if (count < 0) {
        throw new IllegalArgumentException("count (" + count + ") must be >= 0");
      }
    }
  }

  public record Item(String sku, int n) {}

  /** A type that accepts fields it does not declare. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Lenient(String name) {}

  /** A context that only has a payload: what {@link WorkContext#payload(Class)} reads. */
  private static WorkContext withPayload(String json) throws Exception {
    JsonNode payload = PLAIN.readTree(json);
    return new WorkContext() {
      @Override
      public String runId() {
        return "t-1.1";
      }

      @Override
      public Optional<TicketId> ticketId() {
        return Optional.of(new TicketId(1));
      }

      @Override
      public Optional<String> session() {
        return Optional.empty();
      }

      @Override
      public int attempt() {
        return 1;
      }

      @Override
      public JsonNode payload() {
        return payload;
      }

      @Override
      public Path runDirectory() {
        throw new UnsupportedOperationException("not in this test");
      }

      @Override
      public Optional<Work> busy(WorkSet.Kind kind, String id) {
        throw new UnsupportedOperationException("not in this test");
      }

      @Override
      public void progress(String message) {}

      @Override
      public void progress(String message, double fraction) {}

      @Override
      public boolean stopRequested() {
        return false;
      }

      @Override
      public boolean awaitStop(long timeoutMs) {
        return false;
      }

      @Override
      public boolean quiesced() {
        return false;
      }

      @Override
      public void addListener(Listener listener) {}
    };
  }

  private static String refusal(String payload, Class<?> type) throws Exception {
    WorkContext ctx = withPayload(payload);
    PayloadBindingException e = assertThrows(PayloadBindingException.class, () -> ctx.payload(type));
    assertEquals(1, e.getMessage().lines().count(), "one line: " + e.getMessage());
    return e.getMessage();
  }

  @Test
  void aPayloadBindsToARecord_withTimesListsAndOptionals() throws Exception {
    Job job = withPayload("{\"name\":\"nightly\",\"count\":3,\"due\":\"2026-01-31T09:30:00Z\","
        + "\"items\":[{\"sku\":\"a\",\"n\":1}],\"note\":\"rush\"}").payload(Job.class);
    assertEquals(new Job("nightly", 3, Instant.parse("2026-01-31T09:30:00Z"), List.of(new Item("a", 1)),
        Optional.of("rush")), job);
    Job sparse = withPayload("{\"count\":0}").payload(Job.class);
    assertEquals(new Job(null, 0, null, null, Optional.empty()), sparse, "a missing object field reads as null or empty");
    assertEquals(Map.of("count", 0), withPayload("{\"count\":0}").payload(Map.class));
    assertEquals(PLAIN.readTree("{\"count\":0}"), withPayload("{\"count\":0}").payload(JsonNode.class));
  }

  @Test
  void aFieldOfTheWrongType_namesTheTypeAndTheField() throws Exception {
    String m = refusal("{\"name\":\"nightly\",\"count\":\"many\"}", Job.class);
    assertTrue(m.startsWith("payload does not bind to dev.vigil.worker.PayloadBindingTest.Job: field 'count': "), m);
    assertTrue(m.contains("many"), m);
  }

  @Test
  void aNestedField_isNamedByItsPath() throws Exception {
    String m = refusal("{\"count\":1,\"items\":[{\"sku\":\"a\",\"n\":1},{\"sku\":\"b\",\"n\":\"two\"}]}", Job.class);
    assertTrue(m.contains("field 'items[1].n': "), m);
  }

  @Test
  void anUnknownField_isRefusedByName_unlessTheTypeAcceptsUnknownFields() throws Exception {
    String m = refusal("{\"count\":1,\"cuont\":2}", Job.class);
    assertTrue(m.contains("field 'cuont': ") && m.contains("Unrecognized field \"cuont\""), m);
    assertEquals(new Lenient("x"), withPayload("{\"name\":\"x\",\"extra\":1}").payload(Lenient.class));
  }

  @Test
  void aMissingOrNullPrimitive_isRefused_notReadAsZero() throws Exception {
    assertTrue(refusal("{\"name\":\"nightly\"}", Job.class).contains("count"), "missing");
    assertTrue(refusal("{\"count\":null}", Job.class).contains("field 'count': "), "null");
  }

  @Test
  void aRecordThatRefusesItsValues_isABindingErrorWithItsReason() throws Exception {
    String m = refusal("{\"count\":-1}", Job.class);
    assertTrue(m.startsWith("payload does not bind to dev.vigil.worker.PayloadBindingTest.Job: "), m);
    assertTrue(m.contains("count (-1) must be >= 0"), m);
  }

  @Test
  void aPayloadOfAnotherShape_isRefusedAsAWhole() throws Exception {
    String m = refusal("{\"count\":1}", List.class);
    assertTrue(m.startsWith("payload does not bind to java.util.List: "), m);
    assertTrue(refusal("{\"count\":1,\"due\":\"next tuesday\"}", Job.class).contains("field 'due': "));
  }

  @Test
  void fromJson_saysTheSameOfAnyJson() throws Exception {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> JsonBinding.fromJson(PLAIN.readTree("{\"count\":\"x\"}"), Job.class));
    assertTrue(e.getMessage().startsWith("JSON does not bind to dev.vigil.worker.PayloadBindingTest.Job: field 'count': "),
        e.getMessage());
  }
}
