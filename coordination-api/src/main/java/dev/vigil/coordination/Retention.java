package dev.vigil.coordination;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Q18, only what is finished and forgotten is pruned: the one rule that decides which tickets a prune
 * deletes, for every store (the reference model and the H2 store both call {@link #decide}).
 *
 * <ol>
 *   <li>A ticket may go only when it is finished (SUCCEEDED, FAILED or CANCELLED: settled, no lease, no
 *       live run) and it ended before the cutoff ({@link Entry#endedAtMs}: its submission or the
 *       latest claim or exit of its runs, whichever is last). A READY, LEASED or HELD ticket is
 *       never pruned, and neither are its runs.
 *   <li>A ticket a schedule names as its last ticket (its overlap rule reads it), or one that a question
 *       not yet applied is about, is pinned: it stays.
 *   <li>Tickets linked to each other (one waits for the other, or one retries the other) form a group;
 *       a group is pruned whole or not at all. So no ticket that stays names one that is gone: a
 *       waiting ticket keeps its prerequisites, a retry keeps its original, with no tombstone needed.
 * </ol>
 *
 * Pure: no clock; the cutoff is an argument.
 */
public final class Retention {
  private Retention() {}

  /** Why a ticket stays. */
  public enum Reason {
    /** It is READY, LEASED or HELD: live work, or work a person must decide on. */
    NOT_FINISHED,
    /** It ended at or after the cutoff. */
    TOO_RECENT,
    /** A schedule names it as its last ticket, or a question not yet applied is about it. */
    PINNED,
    /** It could go, but a ticket linked to it (a prerequisite, a dependent, a retry) stays. */
    LINKED
  }

  /** What happens to one ticket. */
  public sealed interface Fate permits Prune, Keep {}

  /** The ticket, its runs and its events are deleted; its run directories are removed after. */
  public record Prune() implements Fate {}

  /** The ticket stays, for {@code why}. */
  public record Keep(Reason why) implements Fate {
    public Keep {
      Objects.requireNonNull(why, "why");
    }
  }

  private static final Prune PRUNE = new Prune();

  /**
   * One ticket as the rule sees it.
   *
   * @param id        the ticket
   * @param state     its state
   * @param endedAtMs wall-clock ms of its last activity ({@link #endedAt})
   * @param links     the tickets it names or that name it: prerequisites, dependents, retry links
   * @param pinned    named by a schedule as its last ticket, or by a question not yet applied
   */
  public record Entry(TicketId id, TicketState state, long endedAtMs, Set<TicketId> links, boolean pinned) {
    public Entry {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(state, "state");
      links = Set.copyOf(links);
      if (links.contains(id)) {
        throw new IllegalArgumentException("ticket " + id + " cannot be linked to itself");
      }
    }
  }

  /** The last activity of a ticket: its submission, or the latest claim or exit of one of its runs. */
  public static long endedAt(Ticket t, Collection<Run> runs) {
    long at = t.createdAtMs();
    for (Run r : runs) {
      at = Math.max(at, r.claimedAtMs());
      if (r.exit() != null) {
        at = Math.max(at, r.exit().atMs());
      }
    }
    return at;
  }

  /** The tickets {@code t} names: its prerequisites and its retry links (the reverse links come from the others). */
  public static Set<TicketId> namedBy(Ticket t) {
    Set<TicketId> out = new TreeSet<>(t.after());
    if (t.retryOf() != null) {
      out.add(t.retryOf());
    }
    if (t.retriedAs() != null) {
      out.add(t.retriedAs());
    }
    return out;
  }

  /** The tickets a question names: the one it is about and those its options' actions act on. */
  public static Set<TicketId> namedBy(NewQuestion q) {
    Set<TicketId> out = new TreeSet<>();
    if (q.ticket() != null) {
      out.add(q.ticket());
    }
    for (QuestionOption o : q.options()) {
      for (Action a : o.actions()) {
        if (a.ticket() != null) {
          out.add(a.ticket());
        }
      }
    }
    return out;
  }

  /**
   * The fate of every ticket of {@code entries}, by id. A link to a ticket not among the entries is a
   * ticket that stays (the caller passes every ticket that could be linked), so the group stays.
   *
   * @param cutoffMs tickets that ended strictly before this wall-clock ms may go
   */
  public static SortedMap<TicketId, Fate> decide(Collection<Entry> entries, long cutoffMs) {
    Map<TicketId, Entry> byId = new HashMap<>();
    for (Entry e : entries) {
      if (byId.put(e.id(), e) != null) {
        throw new IllegalArgumentException("ticket " + e.id() + " given twice");
      }
    }
    // links are symmetric: a ticket named by another is linked to it
    Map<TicketId, Set<TicketId>> graph = new HashMap<>();
    for (Entry e : entries) {
      graph.computeIfAbsent(e.id(), k -> new TreeSet<>()).addAll(e.links());
      for (TicketId l : e.links()) {
        graph.computeIfAbsent(l, k -> new TreeSet<>()).add(e.id());
      }
    }
    SortedMap<TicketId, Fate> out = new TreeMap<>();
    for (Entry e : entries) {
      Reason own = own(e, cutoffMs);
      if (own != null) {
        out.put(e.id(), new Keep(own));
      }
    }
    Set<TicketId> seen = new java.util.HashSet<>();
    for (Entry e : entries) {
      if (out.containsKey(e.id()) || seen.contains(e.id())) {
        continue;
      }
      List<TicketId> group = new ArrayList<>();
      boolean whole = true;
      Deque<TicketId> todo = new ArrayDeque<>(List.of(e.id()));
      seen.add(e.id());
      while (!todo.isEmpty()) {
        TicketId t = todo.pop();
        group.add(t);
        Entry te = byId.get(t);
        if (te == null || own(te, cutoffMs) != null) {
          whole = false;
        }
        for (TicketId n : graph.getOrDefault(t, Set.of())) {
          if (seen.add(n)) {
            todo.push(n);
          }
        }
      }
      for (TicketId t : group) {
        if (byId.containsKey(t) && !out.containsKey(t)) {
          out.put(t, whole ? PRUNE : new Keep(Reason.LINKED));
        }
      }
    }
    return out;
  }

  /** Why {@code e} stays on its own, or null when it may go. */
  private static Reason own(Entry e, long cutoffMs) {
    if (!e.state().terminal()) {
      return Reason.NOT_FINISHED;
    } else if (e.endedAtMs() >= cutoffMs) {
      return Reason.TOO_RECENT;
    } else if (e.pinned()) {
      return Reason.PINNED;
    }
    return null;
  }

  /** How many tickets stay for each reason (every reason present, zero included). */
  public static Map<Reason, Integer> kept(Map<TicketId, Fate> fates) {
    Map<Reason, Integer> out = new EnumMap<>(Reason.class);
    for (Reason r : Reason.values()) {
      out.put(r, 0);
    }
    for (Fate f : fates.values()) {
      if (f instanceof Keep k) {
        out.merge(k.why(), 1, Integer::sum);
      }
    }
    return out;
  }

  /** The tickets to prune, in id order. */
  public static List<TicketId> pruned(Map<TicketId, Fate> fates) {
    return fates.entrySet().stream().filter(e -> e.getValue() instanceof Prune).map(Map.Entry::getKey).sorted().toList();
  }
}
