package dev.vigil.coordination;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The rule for a worker type's name, as tickets, services, configurations and the worker's command
 * line carry it: 1-64 letters, digits, {@code .}, {@code _} or {@code -}, starting with a letter or
 * digit. Every place that takes a type name checks it by constructing this value, so there is one
 * rule.
 *
 * @param name the name
 */
public record WorkerTypeName(String name) implements Comparable<WorkerTypeName> {
  private static final Pattern VALID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

  public WorkerTypeName {
    Objects.requireNonNull(name, "name");
    if (!VALID.matcher(name).matches()) {
      throw new IllegalArgumentException("worker type '" + name
          + "' must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit");
    }
  }

  @Override
  public int compareTo(WorkerTypeName o) {
    return name.compareTo(o.name);
  }

  @Override
  public String toString() {
    return name;
  }
}
