package dev.vigil.coordination.schedule;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The name of a recurring schedule: lower-case letters, digits, {@code _} and {@code -}, at most 32
 * characters, starting with a letter or digit. It is part of every fire's idempotency key (Q15).
 *
 * @param name the schedule's name
 */
public record ScheduleName(String name) implements Comparable<ScheduleName> {
  private static final Pattern VALID = Pattern.compile("[a-z0-9][a-z0-9_-]{0,31}");

  public ScheduleName {
    Objects.requireNonNull(name, "name");
    if (!VALID.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "schedule name '" + name + "' must be 1-32 lower-case letters, digits, _ or - (starting with a letter or digit)");
    }
  }

  @Override
  public int compareTo(ScheduleName o) {
    return name.compareTo(o.name);
  }

  @Override
  public String toString() {
    return name;
  }
}
