package dev.vigil.worker.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.Map;

/**
 * JSON trees ({@link JsonNode}) read and written with Jackson's streaming parser and generator.
 * Not {@code ObjectMapper}: building one loads ~800 classes and costs a worker host ~10 MB of
 * resident memory and tens of milliseconds of start-up, for trees this class builds the same way
 * ({@code int}, {@code long} and big integers; floating point as {@code double}, or as the exact
 * decimal when a {@code double} would lose digits).
 *
 * <p>Reading is strict: duplicate keys, trailing data and empty input are errors, and nesting is
 * bounded by Jackson's default read constraints (depth 1000). Plain text (ASCII, whole numbers, no
 * repeated names: what a worker host reads on every run) is read by {@link PlainJson} into the same
 * tree, and Jackson's parser starts only for the rest.
 */
public final class Json {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** Jackson's factory, made at its first use: a worker host that reads and writes only plain JSON never makes it. */
  private static final class Jackson {
    static final JsonFactory FACTORY = JsonFactory.builder()
        .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
        .build();
  }

  private Json() {}

  /** A new empty object. */
  public static ObjectNode object() {
    return NODES.objectNode();
  }

  /**
   * Reads one JSON value that fills {@code bytes}.
   *
   * @throws IOException (a {@link com.fasterxml.jackson.core.JsonProcessingException} for bad JSON)
   *                     whose {@code getOriginalMessage()} says what is wrong on one line
   */
  public static JsonNode parse(byte[] bytes) throws IOException {
    JsonNode plain = PlainJson.read(bytes);
    return plain != null ? plain : jackson(bytes);
  }

  /** {@link #parse} by Jackson's parser alone. */
  static JsonNode jackson(byte[] bytes) throws IOException {
    try (JsonParser p = Jackson.FACTORY.createParser(bytes)) {
      if (p.nextToken() == null) {
        throw new JsonParseException(p, "no content");
      }
      JsonNode root = read(p);
      if (p.nextToken() != null) {
        throw new JsonParseException(p, "trailing data after the JSON value");
      }
      return root;
    }
  }

  private static JsonNode read(JsonParser p) throws IOException {
    JsonToken t = p.currentToken();
    switch (t) {
      case START_OBJECT -> {
        ObjectNode o = NODES.objectNode();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String name = p.currentName();
          p.nextToken();
          o.set(name, read(p));
        }
        return o;
      }
      case START_ARRAY -> {
        ArrayNode a = NODES.arrayNode();
        while (p.nextToken() != JsonToken.END_ARRAY) {
          a.add(read(p));
        }
        return a;
      }
      case VALUE_STRING -> {
        return NODES.textNode(p.getText());
      }
      case VALUE_NUMBER_INT -> {
        return switch (p.getNumberType()) {
          case INT -> NODES.numberNode(p.getIntValue());
          case LONG -> NODES.numberNode(p.getLongValue());
          default -> NODES.numberNode(p.getBigIntegerValue());
        };
      }
      case VALUE_NUMBER_FLOAT -> {
        try {
          return floating(p.getText());
        } catch (NumberFormatException e) { // an exponent beyond what a decimal holds, like 1e99999999999
          throw new JsonParseException(p, "number out of range: " + abbreviated(p.getText()));
        }
      }
      case VALUE_TRUE -> {
        return NODES.booleanNode(true);
      }
      case VALUE_FALSE -> {
        return NODES.booleanNode(false);
      }
      case VALUE_NULL -> {
        return NODES.nullNode();
      }
      default -> throw new JsonParseException(p, "unexpected " + t);
    }
  }

  /**
   * A number with a fraction or an exponent: a {@code double} when one holds its value as written
   * ({@code 0.1}, {@code 2.50}), else the exact decimal ({@code 12345678901234567890.12}, {@code 1e400}),
   * so that no digit a writer gave is lost.
   */
  private static JsonNode floating(String text) {
    BigDecimal exact = new BigDecimal(text);
    double d = exact.doubleValue();
    if (Double.isFinite(d) && BigDecimal.valueOf(d).compareTo(exact) == 0) {
      return NODES.numberNode(d);
    }
    return NODES.numberNode(exact);
  }

  private static String abbreviated(String text) {
    return text.length() <= 40 ? text : text.substring(0, 40) + "...";
  }

  /** {@code node} as compact JSON text. */
  public static String text(JsonNode node) {
    return new String(write(node), java.nio.charset.StandardCharsets.UTF_8);
  }

  /** Writes {@code node} as compact JSON in UTF-8. */
  public static byte[] write(JsonNode node) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(128);
    try (JsonGenerator g = Jackson.FACTORY.createGenerator(out)) {
      write(g, node);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write JSON to memory", e);
    }
    return out.toByteArray();
  }

  private static void write(JsonGenerator g, JsonNode n) throws IOException {
    if (n.isObject()) {
      g.writeStartObject();
      for (Map.Entry<String, JsonNode> e : n.properties()) {
        g.writeFieldName(e.getKey());
        write(g, e.getValue());
      }
      g.writeEndObject();
    } else if (n.isArray()) {
      g.writeStartArray();
      for (JsonNode c : n) {
        write(g, c);
      }
      g.writeEndArray();
    } else if (n.isTextual()) {
      g.writeString(n.textValue());
    } else if (n.isBigInteger()) {
      g.writeNumber(n.bigIntegerValue());
    } else if (n.isIntegralNumber()) {
      g.writeNumber(n.longValue());
    } else if (n.isBigDecimal()) {
      g.writeNumber(n.decimalValue());
    } else if (n.isNumber()) {
      g.writeNumber(n.doubleValue());
    } else if (n.isBoolean()) {
      g.writeBoolean(n.booleanValue());
    } else if (n.isNull() || n.isMissingNode()) {
      g.writeNull();
    } else {
      throw new IllegalArgumentException("cannot write a " + n.getNodeType() + " node as JSON");
    }
  }
}
