package dev.vigil.worker.internal;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Arrays;

/**
 * Compact JSON written straight into UTF-8 bytes, for the few small records a worker host writes
 * on every run (its socket frames, {@code identity.json}, {@code busy.json}, {@code outcome.json}).
 * It writes the same bytes as {@link Json#write} writes for the same tree, so that a reader cannot
 * tell them apart, without starting Jackson's generator in a JVM that lives for one run.
 *
 * <p>Strings are escaped as Jackson escapes them by default: {@code "} and {@code \} with a
 * backslash; backspace, tab, newline, form feed and carriage return as {@code \b \t \n \f \r}; other
 * characters below U+0020, and every surrogate (paired or not), as {@code \}{@code uXXXX} with
 * upper-case hex digits; everything else as its UTF-8 bytes. Whole numbers are written as
 * {@link Long#toString(long)} writes them, other numbers as {@link Double#toString(double)} writes them.
 *
 * <p>Commas are placed by the writer: call {@link #name} before each value of an object.
 */
public final class JsonWriter {
  private static final byte[] HEX = "0123456789ABCDEF".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  /** Deepest nesting of objects and arrays this writer keeps track of. */
  private static final int MAX_DEPTH = 32;

  private byte[] buf = new byte[256];
  private int len;
  /** For each open object or array, whether a value was written in it yet. */
  private final boolean[] filled = new boolean[MAX_DEPTH];
  private int depth;
  /** A name was just written: the next value follows it without a comma. */
  private boolean afterName;

  /** Starts an object ({@code {}). */
  public JsonWriter beginObject() {
    beforeValue();
    open((byte) '{');
    return this;
  }

  /** Ends the innermost object. */
  public JsonWriter endObject() {
    return close((byte) '}');
  }

  /** Starts an array ({@code [}). */
  public JsonWriter beginArray() {
    beforeValue();
    open((byte) '[');
    return this;
  }

  /** Ends the innermost array. */
  public JsonWriter endArray() {
    return close((byte) ']');
  }

  /** The name of the next field of the innermost object. */
  public JsonWriter name(String name) {
    beforeValue();
    quoted(name);
    put((byte) ':');
    afterName = true;
    return this;
  }

  /** A string value. */
  public JsonWriter value(String s) {
    beforeValue();
    quoted(s);
    return this;
  }

  /** A whole number. */
  public JsonWriter value(long n) {
    beforeValue();
    ascii(Long.toString(n));
    return this;
  }

  /** A number with a fraction, as {@link Double#toString(double)} writes it (finite values only). */
  public JsonWriter value(double d) {
    if (!Double.isFinite(d)) {
      throw new IllegalArgumentException("JSON has no number " + d);
    }
    beforeValue();
    ascii(Double.toString(d));
    return this;
  }

  /** {@code true} or {@code false}. */
  public JsonWriter value(boolean b) {
    beforeValue();
    ascii(b ? "true" : "false");
    return this;
  }

  /** Any tree, written by {@link Json#write}. */
  public JsonWriter value(JsonNode node) {
    beforeValue();
    byte[] b = Json.write(node);
    ensure(b.length);
    System.arraycopy(b, 0, buf, len, b.length);
    len += b.length;
    return this;
  }

  /** The bytes written so far. */
  public byte[] toBytes() {
    return Arrays.copyOf(buf, len);
  }

  /** The bytes written so far and a newline: one frame of the socket protocol. */
  public byte[] toLine() {
    byte[] line = Arrays.copyOf(buf, len + 1);
    line[len] = '\n';
    return line;
  }

  private void open(byte b) {
    if (depth == MAX_DEPTH) {
      throw new IllegalStateException("nesting deeper than " + MAX_DEPTH);
    }
    put(b);
    filled[depth++] = false;
  }

  private JsonWriter close(byte b) {
    depth--;
    afterName = false;
    put(b);
    return this;
  }

  private void beforeValue() {
    if (afterName) {
      afterName = false;
      return;
    }
    if (depth > 0) {
      if (filled[depth - 1]) {
        put((byte) ',');
      }
      filled[depth - 1] = true;
    }
  }

  private void quoted(String s) {
    ensure(2);
    buf[len++] = '"';
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      ensure(6);
      if (c < 0x80) {
        if (c >= 0x20 && c != '"' && c != '\\') {
          buf[len++] = (byte) c;
        } else {
          escape(c);
        }
      } else if (c < 0x800) {
        buf[len++] = (byte) (0xC0 | (c >> 6));
        buf[len++] = (byte) (0x80 | (c & 0x3F));
      } else if (!Character.isSurrogate(c)) {
        buf[len++] = (byte) (0xE0 | (c >> 12));
        buf[len++] = (byte) (0x80 | ((c >> 6) & 0x3F));
        buf[len++] = (byte) (0x80 | (c & 0x3F));
      } else {
        unicodeEscape(c);
      }
    }
    ensure(1);
    buf[len++] = '"';
  }

  /** One escaped ASCII character (the caller made room for 6 bytes). */
  private void escape(char c) {
    char shortForm = switch (c) {
      case '"' -> '"';
      case '\\' -> '\\';
      case '\b' -> 'b';
      case '\t' -> 't';
      case '\n' -> 'n';
      case '\f' -> 'f';
      case '\r' -> 'r';
      default -> 0;
    };
    if (shortForm == 0) {
      unicodeEscape(c);
    } else {
      buf[len++] = '\\';
      buf[len++] = (byte) shortForm;
    }
  }

  /** A backslash, {@code u} and four upper-case hex digits (the caller made room for 6 bytes). */
  private void unicodeEscape(char c) {
    buf[len++] = '\\';
    buf[len++] = 'u';
    buf[len++] = HEX[c >> 12];
    buf[len++] = HEX[(c >> 8) & 0xF];
    buf[len++] = HEX[(c >> 4) & 0xF];
    buf[len++] = HEX[c & 0xF];
  }

  private void ascii(String s) {
    ensure(s.length());
    for (int i = 0; i < s.length(); i++) {
      buf[len++] = (byte) s.charAt(i);
    }
  }

  private void put(byte b) {
    ensure(1);
    buf[len++] = b;
  }

  private void ensure(int more) {
    if (len + more > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(len + more, 2 * buf.length));
    }
  }
}
