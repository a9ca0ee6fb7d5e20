package dev.vigil.coordination;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The environment a ticket's command runs with, recorded at submission: every variable, not only
 * the ones added. The values may be secrets, so this type never shows them: {@link #toString()}
 * and every view (status, {@code show}, {@code --json}, the journal, events) list the names only;
 * the values leave the store only for the worker that runs the command.
 *
 * <p>A name is not empty and holds neither {@code =} nor NUL; a value holds no NUL; together they
 * take at most {@value #MAX_BYTES} bytes (UTF-8), so that they travel to the worker in one
 * environment variable.
 */
public final class Environment {
  /** The most bytes the names and values may take together (UTF-8, one byte more per pair). */
  public static final int MAX_BYTES = 100_000;
  /** The variables a clean environment keeps from the submitter's. */
  public static final List<String> CLEAN = List.of("PATH", "HOME", "LANG", "USER");

  private final SortedMap<String, String> vars;

  private Environment(SortedMap<String, String> vars) {
    this.vars = Collections.unmodifiableSortedMap(vars);
  }

  /**
   * The environment of exactly these variables.
   *
   * @throws IllegalArgumentException naming the first bad variable (never its value)
   */
  public static Environment of(Map<String, String> vars) {
    Objects.requireNonNull(vars, "vars");
    SortedMap<String, String> copy = new TreeMap<>();
    long bytes = 0;
    for (Map.Entry<String, String> e : vars.entrySet()) {
      String name = Objects.requireNonNull(e.getKey(), "a variable's name");
      String value = Objects.requireNonNull(e.getValue(), "the value of " + name);
      checkName(name);
      if (value.indexOf('\0') >= 0) {
        throw new IllegalArgumentException("environment variable " + name + ": its value holds a NUL character");
      }
      bytes += name.getBytes(StandardCharsets.UTF_8).length + value.getBytes(StandardCharsets.UTF_8).length + 2;
      copy.put(name, value);
    }
    if (bytes > MAX_BYTES) {
      throw new IllegalArgumentException("the environment is too large (" + bytes + " bytes, at most " + MAX_BYTES
          + "); submit with a clean environment");
    }
    return new Environment(copy);
  }

  /** The rule for a variable's name: not empty, no {@code =}, no NUL. */
  public static String checkName(String name) {
    if (name.isEmpty() || name.indexOf('=') >= 0 || name.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("'" + name.replace("\0", "\\0") + "' is not a variable name (not empty, "
          + "without = or NUL)");
    }
    return name;
  }

  /** The clean environment of {@code from}: only {@link #CLEAN}'s variables that it has. */
  public static Environment clean(Map<String, String> from) {
    SortedMap<String, String> kept = new TreeMap<>();
    for (String name : CLEAN) {
      if (from.containsKey(name)) {
        kept.put(name, from.get(name));
      }
    }
    return of(kept);
  }

  /** This environment with {@code more} added or replacing variables of the same names. */
  public Environment with(Map<String, String> more) {
    SortedMap<String, String> all = new TreeMap<>(vars);
    all.putAll(more);
    return of(all);
  }

  /** The variables' names, in order. */
  public SortedSet<String> names() {
    return Collections.unmodifiableSortedSet(new TreeSet<>(vars.keySet()));
  }

  /** The value of {@code name}, if set. */
  public Optional<String> value(String name) {
    return Optional.ofNullable(vars.get(name));
  }

  /** Every variable with its value, for the worker that runs the command (and the store). */
  public SortedMap<String, String> variables() {
    return vars;
  }

  /** How many variables there are. */
  public int size() {
    return vars.size();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Environment e && e.vars.equals(vars);
  }

  @Override
  public int hashCode() {
    return vars.hashCode();
  }

  /** The names only: values never appear in logs, transcripts or views. */
  @Override
  public String toString() {
    return "Environment" + vars.keySet();
  }
}
