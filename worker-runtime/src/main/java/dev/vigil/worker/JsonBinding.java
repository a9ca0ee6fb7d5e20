package dev.vigil.worker;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Objects;

/**
 * How payloads and results turn into Java values and back: one Jackson configuration for both ends,
 * so that what one side writes the other binds. A submitter's typed payload
 * ({@code Task.worker(type, payload)}) and a worker's result ({@link Outcome#succeeded(Object)}) are
 * written with {@link #toJson}; {@link WorkContext#payload(Class)} and the embedding façade's
 * {@code runResult(runId, type)} bind with {@link #fromJson}.
 *
 * <p>The configuration:
 * <ul>
 *   <li>Records and ordinary beans bind as Jackson binds them by default (a record by its components).
 *   <li>{@code java.time} values are written as ISO-8601 text ({@code "2026-01-31T09:30:00Z"},
 *       {@code "PT30S"}), not as numbers, and read from it; {@code Optional} is its value or
 *       {@code null}.
 *   <li>Unknown properties are refused: a field the type does not declare fails the binding, naming
 *       the field, so that a misspelt field is an error and not a silent default. A type that should
 *       accept more than it declares (a payload written by a newer submitter) says so with
 *       {@code @JsonIgnoreProperties(ignoreUnknown = true)}.
 *   <li>A missing or {@code null} value for a primitive ({@code int}, {@code long}, {@code boolean},
 *       {@code double}…) is refused, not read as 0 or false; a missing field of any other type reads as
 *       {@code null} ({@code Optional.empty()} for an {@code Optional}).
 *   <li>A bean or record without properties is written as {@code {}}.
 * </ul>
 *
 * <p>The mapper is built on first use only: a worker host whose type reads and returns JSON trees (as
 * the built-in command type does) never loads it, and keeps its quick start.
 */
public final class JsonBinding {
  /** The longest reason a binding error quotes from Jackson, characters. */
  static final int MAX_REASON = 300;

  private JsonBinding() {}

  /** The one mapper, built when first needed. */
  private static final class Mapper {
    static final ObjectMapper INSTANCE = new ObjectMapper()
        .registerModule(new JavaTimeModule())
        .registerModule(new Jdk8Module())
        .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
        .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
        .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
        .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
  }

  /**
   * {@code value} as a JSON tree: a {@link JsonNode} as a copy of itself, a {@code String} as a JSON
   * string, a number or a boolean as itself, {@code null} as JSON {@code null}, and anything else as
   * Jackson writes it with the configuration above.
   *
   * @throws IllegalArgumentException one line naming the value's class and why, when Jackson cannot
   *                                  write it
   */
  public static JsonNode toJson(Object value) {
    JsonNodeFactory nodes = JsonNodeFactory.instance;
    if (value == null) {
      return nodes.nullNode();
    } else if (value instanceof JsonNode n) {
      return n.deepCopy();
    } else if (value instanceof String s) {
      return nodes.textNode(s);
    } else if (value instanceof Boolean b) {
      return nodes.booleanNode(b);
    } else if (value instanceof Integer i) {
      return nodes.numberNode(i);
    } else if (value instanceof Long l) {
      return nodes.numberNode(l);
    } else if (value instanceof BigInteger i) {
      return nodes.numberNode(i);
    } else if (value instanceof BigDecimal d) {
      return nodes.numberNode(d);
    } else if (value instanceof Double d) {
      return nodes.numberNode(d);
    }
    try {
      JsonNode n = Mapper.INSTANCE.valueToTree(value);
      return n == null ? nodes.nullNode() : n;
    } catch (IllegalArgumentException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      throw new IllegalArgumentException("a " + typeName(value.getClass()) + " cannot be written as JSON: "
          + reason(cause), cause);
    }
  }

  /**
   * {@code json} bound to {@code type} with the configuration above.
   *
   * @throws IllegalArgumentException one line: {@code JSON does not bind to TYPE: field 'PATH': WHY}
   *                                  (the field left out when the value as a whole does not fit)
   */
  public static <T> T fromJson(JsonNode json, Class<T> type) {
    return bind(json, type, "JSON", IllegalArgumentException::new);
  }

  /** What a binding failure is turned into: its one-line message and Jackson's exception. */
  interface Failure<X extends RuntimeException> {
    X of(String message, Throwable cause);
  }

  /** {@link #fromJson}, failing with {@code failure} and a message about {@code subject} ("payload"). */
  static <T, X extends RuntimeException> T bind(JsonNode json, Class<T> type, String subject, Failure<X> failure) {
    Objects.requireNonNull(json, "json");
    Objects.requireNonNull(type, "type");
    try {
      return Mapper.INSTANCE.treeToValue(json, type);
    } catch (JsonMappingException e) {
      String path = path(e);
      throw failure.of(subject + " does not bind to " + typeName(type) + ": " + (path.isEmpty() ? ""
          : "field '" + path + "': ") + reason(e), e);
    } catch (JsonProcessingException | IllegalArgumentException e) {
      throw failure.of(subject + " does not bind to " + typeName(type) + ": " + reason(e), e);
    }
  }

  /** Where in the value binding failed, like {@code items[2].name}; empty for the value as a whole. */
  static String path(JsonMappingException e) {
    StringBuilder b = new StringBuilder();
    for (JsonMappingException.Reference r : e.getPath()) {
      if (r.getFieldName() != null) {
        if (b.length() > 0) {
          b.append('.');
        }
        b.append(r.getFieldName());
      } else if (r.getIndex() >= 0) {
        b.append('[').append(r.getIndex()).append(']');
      }
    }
    return b.toString();
  }

  /** Jackson's own words, on one line and at most {@value #MAX_REASON} characters. */
  static String reason(Throwable e) {
    String m = e instanceof JsonProcessingException p ? p.getOriginalMessage() : e.getMessage();
    if (m == null || m.isBlank()) {
      m = e.getClass().getSimpleName();
    }
    m = m.strip().replaceAll("\\s*[\\r\\n]+\\s*", " ");
    return m.length() <= MAX_REASON ? m : m.substring(0, MAX_REASON - 1) + "…";
  }

  /** {@code com.example.Report.Line} for a nested class, its plain name otherwise. */
  static String typeName(Class<?> type) {
    String canonical = type.getCanonicalName();
    return canonical != null ? canonical : type.getName();
  }
}
