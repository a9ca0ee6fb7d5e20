package dev.vigil.worker.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.core.RandomnessSource;
import org.quicktheories.impl.Constraint;

/**
 * {@link Json#parse} reads plain JSON without Jackson ({@link PlainJson}): on generated texts, valid
 * and broken, whatever the plain reader reads must be the tree Jackson reads (the same node types, the
 * same names in the same order), and whatever Jackson refuses the plain reader must leave to Jackson.
 */
class PlainJsonTest {
  private final Map<String, Integer> seen = new TreeMap<>();

  @Test
  void plainReadingIsJacksonsTree_andAnythingElseIsLeftToJackson() {
    qt().withExamples(20_000).withShrinkCycles(200).forAll(texts()).checkAssert(bytes -> {
      JsonNode plain = PlainJson.read(bytes);
      JsonNode jackson;
      try {
        jackson = Json.jackson(bytes);
      } catch (IOException | RuntimeException e) { // a huge exponent fails as a NumberFormatException
        assertNull(plain, () -> "read plainly though Jackson refuses it (" + e + "): " + show(bytes));
        seen.merge("refused by Jackson", 1, Integer::sum);
        return;
      }
      if (plain == null) {
        seen.merge("valid, left to Jackson", 1, Integer::sum);
        return;
      }
      assertEquals(jackson, plain, () -> "read differently: " + show(bytes));
      assertArrayEquals(Json.write(jackson), Json.write(plain), () -> "names in another order: " + show(bytes));
      seen.merge("read plainly", 1, Integer::sum);
      String text = new String(bytes, StandardCharsets.ISO_8859_1);
      count(text.contains("\\"), "read plainly, with escapes");
      count(text.contains("\\u"), "read plainly, with a unicode escape");
      count(text.contains("[") && text.contains("{"), "read plainly, nested");
      count(text.matches("(?s).*[\\t\\n\\r ].*"), "read plainly, with whitespace");
      count(text.matches("(?s).*\\d{11}.*"), "read plainly, with a long number");
    });
    for (String k : new String[] {"refused by Jackson", "valid, left to Jackson", "read plainly", "read plainly, with escapes",
        "read plainly, with a unicode escape", "read plainly, nested", "read plainly, with whitespace",
        "read plainly, with a long number"}) {
      assertTrue(seen.getOrDefault(k, 0) >= 50, "too few texts " + k + ": " + seen);
    }
  }

  @Test
  void whatAWorkerHostReadsIsReadPlainly() throws IOException {
    for (String s : new String[] {"{\"argv\":[\"true\"]}", "{\"v\":1,\"op\":\"welcome\",\"build\":\"b-7\",\"go\":true}",
        "{\"argv\":[\"sh\",\"-c\",\"echo \\\"hi\\\" > /tmp/x\"],\"env\":{\"A\":\"1\"},\"stallCode\":75,\"stallFor\":\"5m\"}",
        " [ 1 , -2147483649 , null , false ] ", "\"\\u00e9\""}) {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      JsonNode plain = PlainJson.read(b);
      assertEquals(Json.jackson(b), plain, s);
      assertEquals(plain, Json.parse(b), s);
    }
    String longName = "{\"" + "n".repeat(60_000) + "\":1}";
    assertNull(PlainJson.read(longName.getBytes(StandardCharsets.US_ASCII)), "a name longer than Jackson reads");
    assertTrue(assertThrowsIo(longName), "and Jackson refuses it");
    String longValue = "[\"" + "v".repeat(PlainJson.MAX_STRING + 1) + "\"]";
    assertNull(PlainJson.read(longValue.getBytes(StandardCharsets.US_ASCII)), "a long string is left to Jackson");
    assertEquals(Json.jackson(longValue.getBytes(StandardCharsets.US_ASCII)),
        Json.parse(longValue.getBytes(StandardCharsets.US_ASCII)));
    assertEquals(Json.jackson(("[\"" + "v".repeat(PlainJson.MAX_STRING) + "\"]").getBytes(StandardCharsets.US_ASCII)),
        PlainJson.read(("[\"" + "v".repeat(PlainJson.MAX_STRING) + "\"]").getBytes(StandardCharsets.US_ASCII)));
    for (String s : new String[] {"{\"a\":1.5}", "{\"a\":1e3}", "{\"a\":\"é\"}", "{\"a\":1,\"a\":2}", "{\"a\":01}", "[-0]",
        "{\"a\":12345678901234567890}", "\"\\ud83d\\ude00\"", "{} {}", "", "{\"a\":1,}"}) {
      assertNull(PlainJson.read(s.getBytes(StandardCharsets.UTF_8)), s);
    }
  }

  private static boolean assertThrowsIo(String text) {
    try {
      Json.jackson(text.getBytes(StandardCharsets.US_ASCII));
      return false;
    } catch (IOException e) {
      return true;
    }
  }

  private void count(boolean happened, String what) {
    if (happened) {
      seen.merge(what, 1, Integer::sum);
    }
  }

  private static String show(byte[] b) {
    StringBuilder s = new StringBuilder();
    for (byte x : b) {
      s.append(x >= 0x20 && x < 0x7f ? String.valueOf((char) x) : String.format("<%02x>", x & 0xff));
    }
    return s.toString();
  }

  // ------------------------------------------------------------------ generators

  /** JSON texts: mostly valid, in every form the plain reader reads or leaves; a third of them then broken a little. */
  private static Gen<byte[]> texts() {
    return in -> {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      space(in, out);
      value(in, out, 0);
      space(in, out);
      byte[] b = out.toByteArray();
      return pick(in, 3) == 0 ? broken(in, b) : b;
    };
  }

  private static byte[] broken(RandomnessSource in, byte[] b) {
    int at = b.length == 0 ? 0 : pick(in, b.length);
    String junk = "{}[],:\"\\0-1.eE tfn\u0000\u007f\f";
    return switch (pick(in, 5)) {
      case 0 -> Arrays.copyOf(b, at); // cut short
      case 1 -> { // a byte left out
        byte[] c = new byte[Math.max(0, b.length - 1)];
        System.arraycopy(b, 0, c, 0, Math.min(at, c.length));
        System.arraycopy(b, Math.min(at + 1, b.length), c, Math.min(at, c.length), Math.max(0, b.length - at - 1));
        yield c;
      }
      case 2 -> { // a byte put in
        byte[] c = new byte[b.length + 1];
        System.arraycopy(b, 0, c, 0, at);
        c[at] = (byte) junk.charAt(pick(in, junk.length()));
        System.arraycopy(b, at, c, at + 1, b.length - at);
        yield c;
      }
      case 3 -> { // a byte changed
        byte[] c = b.clone();
        if (c.length > 0) {
          c[at] = (byte) junk.charAt(pick(in, junk.length()));
        }
        yield c;
      }
      default -> { // something after the value
        byte[] c = Arrays.copyOf(b, b.length + 2);
        c[b.length] = ' ';
        c[b.length + 1] = (byte) junk.charAt(pick(in, junk.length()));
        yield c;
      }
    };
  }

  private static void value(RandomnessSource in, ByteArrayOutputStream out, int depth) {
    switch (pick(in, depth < 3 ? 9 : 6)) {
      case 0, 1 -> string(in, out);
      case 2 -> number(in, out);
      case 3 -> write(out, new String[] {"true", "false", "null"}[pick(in, 3)]);
      case 4 -> write(out, odd(in));
      case 5 -> number(in, out);
      case 6, 7 -> {
        out.write('{');
        space(in, out);
        int n = pick(in, 4);
        String repeated = null;
        for (int i = 0; i < n; i++) {
          if (i > 0) {
            out.write(',');
            space(in, out);
          }
          if (repeated != null && pick(in, 6) == 0) {
            write(out, repeated); // a name given twice
          } else {
            repeated = "\"k" + i + (pick(in, 4) == 0 ? "\\u00" + "e9" : "") + "\"";
            write(out, repeated);
          }
          space(in, out);
          out.write(':');
          space(in, out);
          value(in, out, depth + 1);
          space(in, out);
        }
        out.write('}');
      }
      default -> {
        out.write('[');
        space(in, out);
        int n = pick(in, 4);
        for (int i = 0; i < n; i++) {
          if (i > 0) {
            out.write(',');
            space(in, out);
          }
          value(in, out, depth + 1);
          space(in, out);
        }
        out.write(']');
      }
    }
  }

  /** Values the plain reader leaves to Jackson: fractions, exponents, big numbers, minus zero, leading zeros. */
  private static String odd(RandomnessSource in) {
    return new String[] {"1.5", "-0.25", "1e3", "2E-2", "12345678901234567890", "-9223372036854775809", "-0", "007",
        "123456789012345678", "-123456789012345678", "9223372036854775807"}[pick(in, 11)];
  }

  private static void number(RandomnessSource in, ByteArrayOutputStream out) {
    long n = switch (pick(in, 4)) {
      case 0 -> pick(in, 10);
      case 1 -> in.next(Constraint.between(Integer.MIN_VALUE - 10L, Integer.MAX_VALUE + 10L));
      case 2 -> in.next(Constraint.between(-999_999_999_999_999_999L, 999_999_999_999_999_999L));
      default -> in.next(Constraint.none());
    };
    write(out, Long.toString(n));
  }

  private static void string(RandomnessSource in, ByteArrayOutputStream out) {
    out.write('"');
    for (int i = pick(in, 10); i > 0; i--) {
      switch (pick(in, 10)) {
        case 0 -> write(out, new String[] {"\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t"}[pick(in, 8)]);
        case 1 -> { // a unicode escape, in either case, sometimes of a surrogate
          int c = pick(in, 4) == 0 ? (int) in.next(Constraint.between(0xD800, 0xDFFF)) : pick(in, 0x3000);
          String hex = String.format("%04x", c);
          write(out, "\\u" + (pick(in, 2) == 0 ? hex : hex.toUpperCase(java.util.Locale.ROOT)));
        }
        case 2 -> { // not ASCII: UTF-8 bytes
          byte[] b = new String(Character.toChars((int) in.next(Constraint.between(0x80, 0x10FFFF))))
              .getBytes(StandardCharsets.UTF_8);
          out.write(b, 0, b.length);
        }
        case 3 -> out.write(pick(in, 8) == 0 ? pick(in, 0x20) : 0x7f); // a raw control character, or DEL
        default -> {
          int c = (int) in.next(Constraint.between(0x20, 0x7E));
          out.write(c == '"' ? 'q' : c == '\\' ? 'r' : c);
        }
      }
    }
    out.write('"');
  }

  /** Whitespace between tokens: none mostly, else JSON's four characters (and rarely a form feed, which JSON refuses). */
  private static void space(RandomnessSource in, ByteArrayOutputStream out) {
    if (pick(in, 3) == 0) {
      for (int i = pick(in, 3); i >= 0; i--) {
        out.write(pick(in, 40) == 0 ? '\f' : " \t\n\r".charAt(pick(in, 4)));
      }
    }
  }

  private static int pick(RandomnessSource in, int n) {
    return (int) in.next(Constraint.between(0, n - 1));
  }

  private static void write(ByteArrayOutputStream out, String ascii) {
    byte[] b = ascii.getBytes(StandardCharsets.ISO_8859_1);
    out.write(b, 0, b.length);
  }
}
