package dev.vigil.coordination;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A queue with its own concurrency limit: lower-case letters, digits, {@code _} and {@code -},
 * at most 32 characters.
 *
 * @param name the lane's name
 */
public record Lane(String name) implements Comparable<Lane> {
  private static final Pattern VALID = Pattern.compile("[a-z0-9][a-z0-9_-]{0,31}");

  /** The lane a ticket goes to when none is named. */
  public static final Lane DEFAULT = new Lane("default");

  public Lane {
    Objects.requireNonNull(name, "name");
    if (!VALID.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "lane '" + name + "' must be 1-32 lower-case letters, digits, _ or - (starting with a letter or digit)");
    }
  }

  @Override
  public int compareTo(Lane o) {
    return name.compareTo(o.name);
  }

  @Override
  public String toString() {
    return name;
  }
}
