package dev.vigil.coordination.law;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import dev.vigil.coordination.Retention;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Q18, only what is finished and forgotten is pruned: the pure rule {@link Retention#decide} over random
 * tickets in every state, of every age, pinned or not, linked to each other at random (and to tickets the
 * caller did not pass).
 */
class RetentionPropertiesTest {
  private static final long CUTOFF = 1_000;

  @Test
  void Q18_onlyFinishedOldUnpinnedTicketsGo_andALinkedGroupGoesWholeOrNotAtAll() {
    Coverage cov = new Coverage("Q18 retention");
    int[] cases = {0};
    qt().withExamples(3_000)
        .forAll(lists().of(integers().between(0, 10_000)).ofSizeBetween(0, 12),
            lists().of(integers().between(0, 14)).ofSizeBetween(0, 10))
        .checkAssert((codes, linkCodes) -> {
          cases[0]++;
          List<Retention.Entry> entries = new ArrayList<>();
          Map<TicketId, Set<TicketId>> links = new HashMap<>();
          int n = codes.size();
          for (int i = 0; i < linkCodes.size() / 2 * 2 && n > 0; i += 2) {
            TicketId a = new TicketId(linkCodes.get(i) % n + 1);
            TicketId b = new TicketId(linkCodes.get(i + 1) % (n + 2) + 1); // n+1, n+2: tickets not passed
            if (!a.equals(b)) {
              links.computeIfAbsent(a, k -> new TreeSet<>()).add(b);
            }
          }
          for (int i = 0; i < n; i++) {
            int c = codes.get(i);
            TicketState s = TicketState.values()[c % TicketState.values().length];
            long ended = (c / 7) % 3 == 0 ? CUTOFF : (c / 7) % 3 == 1 ? CUTOFF - 1 : CUTOFF - 500;
            boolean pinned = (c / 21) % 5 == 0;
            TicketId id = new TicketId(i + 1);
            entries.add(new Retention.Entry(id, s, ended, links.getOrDefault(id, Set.of()), pinned));
          }
          Map<TicketId, Retention.Fate> fates = Retention.decide(entries, CUTOFF);
          assertEquals(n, fates.size(), "Q18: every ticket passed has a fate");
          Map<TicketId, Retention.Entry> byId = new HashMap<>();
          entries.forEach(e -> byId.put(e.id(), e));
          // the undirected link graph, to check groups
          Map<TicketId, Set<TicketId>> graph = new HashMap<>();
          for (Retention.Entry e : entries) {
            for (TicketId l : e.links()) {
              graph.computeIfAbsent(e.id(), k -> new HashSet<>()).add(l);
              graph.computeIfAbsent(l, k -> new HashSet<>()).add(e.id());
            }
          }
          for (Retention.Entry e : entries) {
            Retention.Fate f = fates.get(e.id());
            boolean own = e.state().terminal() && e.endedAtMs() < CUTOFF && !e.pinned();
            if (f instanceof Retention.Prune) {
              assertTrue(e.state().terminal(), "Q18: only a finished ticket is pruned: " + e);
              assertTrue(e.endedAtMs() < CUTOFF, "Q18: only one that ended before the cutoff: " + e);
              assertTrue(!e.pinned(), "Q18: never a pinned one: " + e);
              for (TicketId l : graph.getOrDefault(e.id(), Set.of())) {
                assertInstanceOf(Retention.Prune.class, fates.get(l),
                    "Q18: a ticket linked to a pruned one is pruned with it (no ticket names one that is gone): "
                        + e.id() + " and " + l);
              }
              cov.saw("pruned");
            } else if (f instanceof Retention.Keep k) {
              Retention.Reason expected = !e.state().terminal() ? Retention.Reason.NOT_FINISHED
                  : e.endedAtMs() >= CUTOFF ? Retention.Reason.TOO_RECENT
                  : e.pinned() ? Retention.Reason.PINNED : Retention.Reason.LINKED;
              assertEquals(expected, k.why(), "Q18: the reason a ticket stays: " + e);
              if (own) {
                assertTrue(graph.containsKey(e.id()), "Q18: a ticket that could go stays only for a link: " + e);
              }
              cov.saw("kept-" + k.why());
              if (e.state() == TicketState.LEASED) {
                cov.saw("kept-leased");
              }
            } else {
              throw new AssertionError(f);
            }
          }
          assertEquals(Retention.pruned(fates).size(),
              fates.values().stream().filter(f -> f instanceof Retention.Prune).count(), "pruned lists every pruned");
          assertEquals(n - Retention.pruned(fates).size(),
              Retention.kept(fates).values().stream().mapToInt(Integer::intValue).sum(), "kept counts every kept");
        });
    assertTrue(cases[0] > 2_500, "cases run: " + cases[0]);
    cov.assertSaw("pruned", "kept-NOT_FINISHED", "kept-TOO_RECENT", "kept-PINNED", "kept-LINKED", "kept-leased");
  }

  @Test
  void Q18_aRetryAndItsOriginal_orAPrerequisiteAndItsDependent_goTogether() {
    TicketId a = new TicketId(1);
    TicketId b = new TicketId(2);
    TicketId c = new TicketId(3);
    // b waits for a; c is a retry of b that is still held: the whole chain stays
    List<Retention.Entry> held = List.of(
        new Retention.Entry(a, TicketState.SUCCEEDED, 0, Set.of(), false),
        new Retention.Entry(b, TicketState.FAILED, 0, Set.of(a, c), false),
        new Retention.Entry(c, TicketState.HELD, 0, Set.of(b), false));
    Map<TicketId, Retention.Fate> f = Retention.decide(held, CUTOFF);
    assertEquals(new Retention.Keep(Retention.Reason.LINKED), f.get(a));
    assertEquals(new Retention.Keep(Retention.Reason.LINKED), f.get(b));
    assertEquals(new Retention.Keep(Retention.Reason.NOT_FINISHED), f.get(c));
    // once the retry is finished too, all three go
    List<Retention.Entry> done = List.of(held.get(0), held.get(1),
        new Retention.Entry(c, TicketState.CANCELLED, 0, Set.of(b), false));
    assertEquals(List.of(a, b, c), Retention.pruned(Retention.decide(done, CUTOFF)));
  }
}
