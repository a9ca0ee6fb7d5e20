package dev.vigil.supervisor;

import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a worker has in flight: the one definition of "work" (S3) read by every gate — the quiesce
 * answer ({@link WorkGate}, S5), the busy evidence ({@link RevivalGate}, S3) and the orphan exit
 * ({@link OrphanPolicy}, S4). Work is a run, a queued input, an admitted run start, a background
 * job or an unsettled child. A withdrawn input is not work: {@link #withdraw(String)} removes it.
 *
 * @param items the pieces of work, each named by kind and id
 */
public record WorkSet(Set<Item> items) {
  /** No work. */
  public static final WorkSet EMPTY = new WorkSet(Set.of());

  /** The kinds of work (S3). */
  public enum Kind {
    /** A run in progress. */
    RUN("run"),
    /** An input queued for the worker and not withdrawn. */
    QUEUED_INPUT("queued input"),
    /** A run start the worker admitted and has not begun yet. */
    ADMITTED_RUN_START("admitted run start"),
    /** A job the worker runs in the background. */
    BACKGROUND_JOB("background job"),
    /** A child process whose exit the worker has not settled. */
    UNSETTLED_CHILD("child process that has not ended", "child processes that have not ended");

    private final String noun;
    private final String plural;

    Kind(String noun) {
      this(noun, noun + "s");
    }

    Kind(String noun, String plural) {
      this.noun = noun;
      this.plural = plural;
    }

    /** The kind in prose, plural. */
    public String plural() {
      return plural;
    }

    /** The kind in prose, singular. */
    public String noun() {
      return noun;
    }
  }

  /**
   * One piece of work.
   *
   * @param kind what it is
   * @param id   its id, unique within its kind
   */
  public record Item(Kind kind, String id) {
    public Item {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(id, "id");
    }
  }

  private static final Comparator<Item> ORDER = Comparator.comparing(Item::kind).thenComparing(Item::id);

  public WorkSet {
    Objects.requireNonNull(items, "items");
    TreeSet<Item> sorted = new TreeSet<>(ORDER);
    for (Item i : items) {
      sorted.add(Objects.requireNonNull(i, "item"));
    }
    items = Collections.unmodifiableSet(sorted);
  }

  /** This set with one more piece of work. */
  public WorkSet plus(Kind kind, String id) {
    TreeSet<Item> next = new TreeSet<>(ORDER);
    next.addAll(items);
    next.add(new Item(kind, id));
    return new WorkSet(next);
  }

  /** This set without a piece of work (ended, settled or started as a run). */
  public WorkSet minus(Kind kind, String id) {
    TreeSet<Item> next = new TreeSet<>(ORDER);
    next.addAll(items);
    next.remove(new Item(kind, id));
    return new WorkSet(next);
  }

  /** This set without the queued input {@code inputId}: a withdrawn input is not work (S3). */
  public WorkSet withdraw(String inputId) {
    return minus(Kind.QUEUED_INPUT, inputId);
  }

  /** Whether there is any work. */
  public boolean isBusy() {
    return !items.isEmpty();
  }

  /** Whether there is no work. */
  public boolean isIdle() {
    return items.isEmpty();
  }

  /** The work in prose, e.g. {@code 1 run, 2 queued inputs}, or {@code no work}. */
  public String describe() {
    if (items.isEmpty()) {
      return "no work";
    }
    Map<Kind, Integer> counts = new EnumMap<>(Kind.class);
    for (Item i : items) {
      counts.merge(i.kind(), 1, Integer::sum);
    }
    StringBuilder b = new StringBuilder();
    for (Map.Entry<Kind, Integer> e : counts.entrySet()) {
      b.append(b.length() == 0 ? "" : ", ").append(e.getValue()).append(' ')
          .append(e.getValue() == 1 ? e.getKey().noun() : e.getKey().plural());
    }
    return b.toString();
  }
}
