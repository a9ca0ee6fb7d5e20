package dev.vigil.supervisor.engine;

import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The worker types a daemon can launch, by name; submissions of other types are refused.
 *
 * @param byName each type under its own name
 */
public record WorkerTypes(SortedMap<String, WorkerTypeSpec> byName) {
  public WorkerTypes {
    Objects.requireNonNull(byName, "byName");
    byName = Collections.unmodifiableSortedMap(new TreeMap<>(byName));
    for (Map.Entry<String, WorkerTypeSpec> e : byName.entrySet()) {
      if (!e.getKey().equals(e.getValue().name())) {
        throw new IllegalArgumentException("workerTypes: '" + e.getKey() + "' holds the type '" + e.getValue().name() + "'");
      }
    }
  }

  /** These types, each under its name; two of one name are refused. */
  public static WorkerTypes of(Collection<WorkerTypeSpec> types) {
    SortedMap<String, WorkerTypeSpec> m = new TreeMap<>();
    for (WorkerTypeSpec t : types) {
      if (m.put(t.name(), t) != null) {
        throw new IllegalArgumentException("workerTypes: type '" + t.name() + "' is configured twice");
      }
    }
    return new WorkerTypes(m);
  }

  /** These types. */
  public static WorkerTypes of(WorkerTypeSpec... types) {
    return of(java.util.List.of(types));
  }

  /** These types with {@code type} added, or put in place of the type of its name. */
  public WorkerTypes with(WorkerTypeSpec type) {
    SortedMap<String, WorkerTypeSpec> m = new TreeMap<>(byName);
    m.put(type.name(), type);
    return new WorkerTypes(m);
  }

  public boolean contains(String name) {
    return byName.containsKey(name);
  }

  public Optional<WorkerTypeSpec> get(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  public SortedSet<String> names() {
    return Collections.unmodifiableSortedSet(new TreeSet<>(byName.keySet()));
  }

  /** The names, e.g. {@code [command, mine]}, as errors show them. */
  @Override
  public String toString() {
    return byName.keySet().toString();
  }
}
