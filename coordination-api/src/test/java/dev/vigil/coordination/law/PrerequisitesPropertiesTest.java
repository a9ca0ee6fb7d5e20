package dev.vigil.coordination.law;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import dev.vigil.coordination.Lane;
import dev.vigil.coordination.Prerequisites;
import dev.vigil.coordination.RunSpec;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Q14, prerequisites first, on the reference model: the random step sequences of the other law
 * properties (whose submissions often wait for tickets in every state, and in a batch for earlier
 * ones of the batch), each transition checked by {@link Q14Check}; and the pure rule
 * {@link Prerequisites#follow} over every combination of a dependent's state and its prerequisites'.
 */
class PrerequisitesPropertiesTest {
  @Test
  void Q14_neverClaimedBeforeEveryPrerequisiteSucceeded_andAnEndOtherwiseHoldsItsDependents() {
    Coverage cov = new Coverage("Q14 model");
    LeaseLawPropertiesTest.forEveryStep((seed, t) -> Q14Check.step(seed, t, cov));
    cov.assertSaw(Q14Check.CASES);
  }

  @Test
  void Q14_aDependentFollowsItsPrerequisites_heldForTheFirstThatHoldsIt_readyWhenNoneDoes() {
    Coverage cov = new Coverage("Q14 follow");
    qt().withExamples(3_000)
        .forAll(integers().between(0, 3), lists().of(integers().between(0, TicketState.values().length - 1))
            .ofSizeBetween(0, 4), integers().between(0, 4))
        .checkAssert((dependentCase, prereqStates, heldForIx) -> {
          List<Ticket> pre = new ArrayList<>();
          for (int i = 0; i < prereqStates.size(); i++) {
            TicketState s = TicketState.values()[prereqStates.get(i)];
            pre.add(ticket(i + 1, s, s == TicketState.HELD ? "x" : null, List.of(), null));
          }
          List<TicketId> after = pre.stream().map(Ticket::id).toList();
          Ticket dependent = switch (dependentCase) {
            case 0 -> ticket(10, TicketState.READY, null, after, null);
            case 1 -> after.isEmpty() ? ticket(10, TicketState.READY, null, after, null)
                : ticket(10, TicketState.HELD, "waits", after, after.get(Math.min(heldForIx, after.size() - 1)));
            case 2 -> ticket(10, TicketState.HELD, "operator hold", after, null);
            default -> ticket(10, TicketState.LEASED, null, after, null);
          };
          Optional<Ticket> blocker = pre.stream().filter(p -> Prerequisites.holdsDependents(p.state())).findFirst();
          Optional<Ticket> next = Prerequisites.follow(dependent, pre);
          Ticket now = next.orElse(dependent);
          boolean dependencyHold = dependent.heldFor() != null;
          if (dependent.state() == TicketState.READY || dependencyHold) {
            assertEquals(blocker.isPresent() ? TicketState.HELD : TicketState.READY, now.state(), "Q14");
            assertEquals(blocker.map(Ticket::id).orElse(null), now.heldFor(), "Q14: held for the first that holds it");
            blocker.ifPresent(b -> assertEquals(Prerequisites.holdReason(b), now.holdReason(), "Q14: names it"));
            cov.saw((dependencyHold ? "dependency-held" : "ready") + "-" + (blocker.isPresent() ? "held" : "ready"));
          } else {
            assertTrue(next.isEmpty(), "Q14: a ticket held by a person, or running, is left alone");
            cov.saw("left-alone-" + dependent.state());
          }
          assertFalse(next.isPresent() && next.get().equals(dependent), "a change is a change");
          assertEquals(Prerequisites.met(pre.stream().map(Ticket::state).toList()),
              pre.stream().allMatch(p -> p.state() == TicketState.SUCCEEDED), "Q14 claim rule");
        });
    cov.assertSaw("ready-held", "ready-ready", "dependency-held-held", "dependency-held-ready", "left-alone-HELD",
        "left-alone-LEASED");
  }

  private static Ticket ticket(long id, TicketState state, String holdReason, List<TicketId> after, TicketId heldFor) {
    return new Ticket(new TicketId(id), Lane.DEFAULT, "command", "{}", state, 0, 3, 0, 0, 0, false, holdReason, 0,
        RunSpec.DEFAULT, new TreeMap<>(), 0, null, null, after, heldFor);
  }
}
