package dev.vigil.coordination;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The rule for a ticket's labels: names of 1-64 letters, digits, {@code _}, {@code .} or
 * {@code -} (starting with a letter or digit), values of at most 200 printable characters, at
 * most {@value #MAX_LABELS} labels.
 */
public final class Labels {
  /** The most labels one ticket may have. */
  public static final int MAX_LABELS = 32;
  /** The longest value, characters. */
  public static final int MAX_VALUE = 200;
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

  private Labels() {}

  /**
   * An unmodifiable sorted copy of {@code labels}.
   *
   * @throws IllegalArgumentException naming the first bad label
   */
  public static SortedMap<String, String> check(Map<String, String> labels) {
    Objects.requireNonNull(labels, "labels");
    if (labels.size() > MAX_LABELS) {
      throw new IllegalArgumentException("a ticket has at most " + MAX_LABELS + " labels, not " + labels.size());
    }
    SortedMap<String, String> out = new TreeMap<>();
    for (Map.Entry<String, String> e : labels.entrySet()) {
      out.put(checkName(e.getKey()), checkValue(e.getKey(), e.getValue()));
    }
    return Collections.unmodifiableSortedMap(out);
  }

  /** The rule for a label's name. */
  public static String checkName(String name) {
    Objects.requireNonNull(name, "a label's name");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("label name '" + name + "' must be 1-64 letters, digits, _, . or - "
          + "(starting with a letter or digit)");
    }
    return name;
  }

  private static String checkValue(String name, String value) {
    Objects.requireNonNull(value, "the value of label " + name);
    if (value.length() > MAX_VALUE || value.chars().anyMatch(Character::isISOControl)) {
      throw new IllegalArgumentException("label " + name + ": a value is at most " + MAX_VALUE
          + " characters without control characters");
    }
    return value;
  }

  /**
   * Reads {@code NAME=VALUE}.
   *
   * @throws IllegalArgumentException when there is no {@code =} or either part breaks its rule
   */
  public static Map.Entry<String, String> parse(String text) {
    int eq = text.indexOf('=');
    if (eq < 0) {
      throw new IllegalArgumentException("'" + text + "' is not NAME=VALUE");
    }
    String name = checkName(text.substring(0, eq));
    return Map.entry(name, checkValue(name, text.substring(eq + 1)));
  }
}
