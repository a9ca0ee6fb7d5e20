package dev.vigil.coordination;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One daemon incarnation (or one hand-started client) that can hold leases: letters, digits and
 * {@code . _ : @ -}, at most 128 characters.
 *
 * @param value the owner's name
 */
public record OwnerId(String value) implements Comparable<OwnerId> {
  private static final Pattern VALID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}");

  public OwnerId {
    Objects.requireNonNull(value, "value");
    if (!VALID.matcher(value).matches()) {
      throw new IllegalArgumentException(
          "owner id '" + value + "' must be 1-128 letters, digits or . _ : @ - (starting with a letter or digit)");
    }
  }

  @Override
  public int compareTo(OwnerId o) {
    return value.compareTo(o.value);
  }

  @Override
  public String toString() {
    return value;
  }
}
