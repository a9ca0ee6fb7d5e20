package dev.vigil.worker.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Reads the plain JSON that a worker host reads on every run (its payload, the daemon's frames)
 * into the same tree {@link Json#parse} builds, without starting Jackson's parser. Plain means:
 * ASCII text; strings with the escapes {@code \" \\ \/ \b \f \n \r \t} and {@code \}{@code uXXXX}
 * of a character that is not a surrogate; whole numbers of at most 18 digits without a leading zero
 * or a minus zero; objects without repeated names; strings and names of at most
 * {@value #MAX_STRING} characters (far within Jackson's read constraints); nesting at most
 * {@value #MAX_DEPTH} deep; JSON's four whitespace characters. Anything else, valid JSON or not, gets {@code null}, and the caller asks
 * Jackson, which then builds the tree or says what is wrong exactly as before.
 */
final class PlainJson {
  /** Deepest nesting read here; deeper text goes to Jackson. */
  static final int MAX_DEPTH = 64;
  /** Longest string or name read here, characters; longer ones go to Jackson, whose limits apply to them. */
  static final int MAX_STRING = 10_000;
  /** Most digits of a whole number read here: any 18 digits fit in a {@code long}. */
  private static final int MAX_DIGITS = 18;
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final byte[] in;
  private int pos;

  private PlainJson(byte[] in) {
    this.in = in;
  }

  /** Not plain JSON: the caller asks Jackson. */
  private static final class NotPlain extends Exception {
    private static final long serialVersionUID = 1L;
    static final NotPlain INSTANCE = new NotPlain();

    private NotPlain() {
      super(null, null, false, false);
    }
  }

  /** The tree of {@code bytes}, or {@code null} when they are not plain JSON filling the whole input. */
  static JsonNode read(byte[] bytes) {
    PlainJson r = new PlainJson(bytes);
    try {
      r.skipWhitespace();
      JsonNode root = r.value(0);
      r.skipWhitespace();
      return r.pos == bytes.length ? root : null;
    } catch (NotPlain e) {
      return null;
    }
  }

  private JsonNode value(int depth) throws NotPlain {
    if (pos >= in.length) {
      throw NotPlain.INSTANCE;
    }
    byte b = in[pos];
    return switch (b) {
      case '{' -> object(depth + 1);
      case '[' -> array(depth + 1);
      case '"' -> NODES.textNode(string());
      case 't' -> literal("true", NODES.booleanNode(true));
      case 'f' -> literal("false", NODES.booleanNode(false));
      case 'n' -> literal("null", NODES.nullNode());
      default -> number();
    };
  }

  private ObjectNode object(int depth) throws NotPlain {
    if (depth > MAX_DEPTH) {
      throw NotPlain.INSTANCE;
    }
    pos++; // '{'
    ObjectNode o = NODES.objectNode();
    skipWhitespace();
    if (peek() == '}') {
      pos++;
      return o;
    }
    while (true) {
      if (peek() != '"') {
        throw NotPlain.INSTANCE;
      }
      String name = string();
      skipWhitespace();
      expect(':');
      skipWhitespace();
      JsonNode v = value(depth);
      if (o.has(name)) {
        throw NotPlain.INSTANCE; // Jackson refuses a repeated name
      }
      o.set(name, v);
      skipWhitespace();
      byte b = next();
      if (b == '}') {
        return o;
      }
      if (b != ',') {
        throw NotPlain.INSTANCE;
      }
      skipWhitespace();
    }
  }

  private ArrayNode array(int depth) throws NotPlain {
    if (depth > MAX_DEPTH) {
      throw NotPlain.INSTANCE;
    }
    pos++; // '['
    ArrayNode a = NODES.arrayNode();
    skipWhitespace();
    if (peek() == ']') {
      pos++;
      return a;
    }
    while (true) {
      a.add(value(depth));
      skipWhitespace();
      byte b = next();
      if (b == ']') {
        return a;
      }
      if (b != ',') {
        throw NotPlain.INSTANCE;
      }
      skipWhitespace();
    }
  }

  private String string() throws NotPlain {
    pos++; // '"'
    StringBuilder s = null;
    int start = pos;
    while (true) {
      byte b = next();
      if (b == '"') {
        if (s == null) {
          if (pos - 1 - start > MAX_STRING) {
            throw NotPlain.INSTANCE;
          }
          return new String(in, start, pos - 1 - start, java.nio.charset.StandardCharsets.ISO_8859_1);
        }
        if (s.length() > MAX_STRING) {
          throw NotPlain.INSTANCE;
        }
        return s.toString();
      }
      if (b < 0x20) { // a control character, or (as a negative byte) anything beyond ASCII
        throw NotPlain.INSTANCE;
      }
      if (s == null && b == '\\') {
        s = new StringBuilder(pos - start + 16);
        s.append(new String(in, start, pos - 1 - start, java.nio.charset.StandardCharsets.ISO_8859_1));
      }
      if (s == null) {
        continue;
      }
      if (b != '\\') {
        s.append((char) b);
        continue;
      }
      byte e = next();
      switch (e) {
        case '"', '\\', '/' -> s.append((char) e);
        case 'b' -> s.append('\b');
        case 'f' -> s.append('\f');
        case 'n' -> s.append('\n');
        case 'r' -> s.append('\r');
        case 't' -> s.append('\t');
        case 'u' -> {
          int c = 0;
          for (int i = 0; i < 4; i++) {
            c = c << 4 | hex(next());
          }
          if (Character.isSurrogate((char) c)) {
            throw NotPlain.INSTANCE; // Jackson pairs surrogates, and refuses some: its answer, not ours
          }
          s.append((char) c);
        }
        default -> throw NotPlain.INSTANCE;
      }
    }
  }

  private static int hex(byte b) throws NotPlain {
    if (b >= '0' && b <= '9') {
      return b - '0';
    }
    if (b >= 'a' && b <= 'f') {
      return b - 'a' + 10;
    }
    if (b >= 'A' && b <= 'F') {
      return b - 'A' + 10;
    }
    throw NotPlain.INSTANCE;
  }

  private JsonNode number() throws NotPlain {
    boolean negative = peek() == '-';
    if (negative) {
      pos++;
    }
    int start = pos;
    long v = 0;
    while (pos < in.length && in[pos] >= '0' && in[pos] <= '9') {
      v = v * 10 + (in[pos++] - '0');
    }
    int digits = pos - start;
    if (digits == 0 || digits > MAX_DIGITS || (digits > 1 && in[start] == '0') || (negative && v == 0)) {
      throw NotPlain.INSTANCE; // no number, too long for here, a leading zero, or minus zero
    }
    if (pos < in.length && (in[pos] == '.' || in[pos] == 'e' || in[pos] == 'E')) {
      throw NotPlain.INSTANCE; // a fraction or an exponent: Jackson's reading decides its type
    }
    long n = negative ? -v : v;
    return n == (int) n ? NODES.numberNode((int) n) : NODES.numberNode(n);
  }

  private JsonNode literal(String word, JsonNode node) throws NotPlain {
    for (int i = 0; i < word.length(); i++) {
      if (next() != word.charAt(i)) {
        throw NotPlain.INSTANCE;
      }
    }
    if (pos < in.length && Character.isLetterOrDigit(in[pos])) {
      throw NotPlain.INSTANCE;
    }
    return node;
  }

  private void skipWhitespace() {
    while (pos < in.length && (in[pos] == ' ' || in[pos] == '\n' || in[pos] == '\r' || in[pos] == '\t')) {
      pos++;
    }
  }

  private byte peek() throws NotPlain {
    if (pos >= in.length) {
      throw NotPlain.INSTANCE;
    }
    return in[pos];
  }

  private byte next() throws NotPlain {
    if (pos >= in.length) {
      throw NotPlain.INSTANCE;
    }
    return in[pos++];
  }

  private void expect(char c) throws NotPlain {
    if (next() != c) {
      throw NotPlain.INSTANCE;
    }
  }
}
