package dev.vigil.coordination;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Q14, prerequisites first: the one rule of tickets that wait for other tickets, for every store.
 * The reference model and the H2 store both decide with these functions; the H2 store's claim
 * statements say {@link #met} in SQL ({@code NOT EXISTS} a prerequisite not SUCCEEDED), and the
 * differential test holds them to the model.
 *
 * <ol>
 *   <li>A ticket is claimable only when every one of its prerequisites SUCCEEDED ({@link #met}).
 *   <li>A prerequisite that is HELD, FAILED or CANCELLED ({@link #holdsDependents}) holds its READY
 *       dependents, with a reason naming it, and they hold theirs in turn; such a dependency hold
 *       records the prerequisite it waits on ({@link Ticket#heldFor()}) ({@link #follow}).
 *   <li>When no prerequisite holds it any more (the prerequisite was released, or retried), a
 *       dependency hold ends: the ticket is READY again, and so are its own dependents in turn.
 *   <li>A retry of a prerequisite that did not succeed stands for it: the dependents that have not
 *       run (READY or HELD) wait for the retry instead ({@link #retryCarriesDependents}); a
 *       submission naming a ticket that was retried waits for its newest retry ({@link #current}).
 *   <li>A submission names only tickets that exist, or earlier tickets of its own batch, so the
 *       graph has no cycle; anything else is refused before anything changes ({@link #resolve}).
 * </ol>
 */
public final class Prerequisites {
  /** The most prerequisites one ticket may have. */
  public static final int MAX = 100;

  private Prerequisites() {}

  /** Whether a prerequisite in {@code state} holds its dependents: HELD, FAILED or CANCELLED. */
  public static boolean holdsDependents(TicketState state) {
    return state == TicketState.HELD || state == TicketState.FAILED || state == TicketState.CANCELLED;
  }

  /** The claim rule's part of Q14: every prerequisite SUCCEEDED (true when there is none). */
  public static boolean met(Collection<TicketState> prerequisiteStates) {
    return prerequisiteStates.stream().allMatch(s -> s == TicketState.SUCCEEDED);
  }

  /** The first prerequisite, by id, that holds its dependents, if any. */
  public static Optional<Ticket> blocker(List<Ticket> prerequisites) {
    return prerequisites.stream().filter(p -> holdsDependents(p.state()))
        .min(java.util.Comparator.comparing(Ticket::id));
  }

  /** The hold reason of a dependent that {@code prerequisite} holds, in plain words. */
  public static String holdReason(Ticket prerequisite) {
    String how = switch (prerequisite.state()) {
      case HELD -> "which is held";
      case FAILED -> "which failed";
      case CANCELLED -> "which was cancelled";
      default -> throw new IllegalArgumentException(prerequisite.id() + " holds nothing: it is " + prerequisite.state());
    };
    return "waits for " + prerequisite.id() + ", " + how;
  }

  /**
   * How {@code dependent} follows its prerequisites (rules 2 and 3): the ticket after, or empty when
   * it stays as it is. A READY ticket with a prerequisite that holds it becomes HELD for that one; a
   * ticket held for a prerequisite is held for the first one that holds it now, or READY when none
   * does. Any other ticket (LEASED, finished, held for another reason) is left alone.
   *
   * @param prerequisites the tickets {@code dependent.after()} names, as they are now
   */
  public static Optional<Ticket> follow(Ticket dependent, List<Ticket> prerequisites) {
    Optional<Ticket> b = blocker(prerequisites);
    if (dependent.state() == TicketState.READY && b.isPresent()) {
      return Optional.of(dependent.heldFor(b.get().id(), holdReason(b.get())));
    } else if (dependent.state() == TicketState.HELD && dependent.heldFor() != null) {
      if (b.isEmpty()) {
        return Optional.of(dependent.withState(TicketState.READY, null));
      }
      Ticket after = dependent.heldFor(b.get().id(), holdReason(b.get()));
      return after.equals(dependent) ? Optional.empty() : Optional.of(after);
    }
    return Optional.empty();
  }

  /** Whether a retry of {@code original} stands for it in its dependents' prerequisites: when it did not succeed. */
  public static boolean retryCarriesDependents(Ticket original) {
    return original.state() != TicketState.SUCCEEDED;
  }

  /** Whether a dependent moves onto the retry of its prerequisite: when it has not run (READY or HELD). */
  public static boolean movesToRetry(Ticket dependent) {
    return dependent.state() == TicketState.READY || dependent.state() == TicketState.HELD;
  }

  /**
   * The ticket a submission naming {@code named} waits for: {@code named}, or, while the ticket
   * reached did not succeed and was retried, its retry.
   *
   * @throws IllegalArgumentException when there is no such ticket
   */
  public static TicketId current(TicketId named, Function<TicketId, Optional<Ticket>> lookup) {
    Ticket t = lookup.apply(named).orElseThrow(() -> new IllegalArgumentException(
        "no ticket " + named + " to wait for"));
    while (t.retriedAs() != null && retryCarriesDependents(t)) {
      t = lookup.apply(t.retriedAs()).orElseThrow();
    }
    return t.id();
  }

  /**
   * The prerequisites of the submission at {@code index} of a batch, as ticket ids in id order
   * without repeats: an existing ticket through {@link #current}, an earlier submission of the batch
   * as the ticket it was given ({@code batch}, one id per submission before {@code index}).
   *
   * @throws IllegalArgumentException naming the prerequisite: a ticket that does not exist, or a
   *                                  place in the batch that is not before {@code index}
   */
  public static List<TicketId> resolve(NewTicket n, int index, List<TicketId> batch,
                                       Function<TicketId, Optional<Ticket>> lookup) {
    Objects.requireNonNull(batch, "batch");
    TreeSet<TicketId> out = new TreeSet<>();
    for (Prerequisite p : n.after()) {
      if (p instanceof Prerequisite.Existing e) {
        out.add(current(e.ticket(), lookup));
      } else if (p instanceof Prerequisite.Earlier e) {
        if (e.index() >= index || e.index() >= batch.size()) {
          throw new IllegalArgumentException("submission " + (index + 1) + " may wait only for earlier ones, not for "
              + (e.index() + 1));
        }
        out.add(batch.get(e.index()));
      } else {
        throw new AssertionError(p);
      }
    }
    return new ArrayList<>(out);
  }

  /**
   * Checks a batch's prerequisites before anything is queued: every ticket named exists, every place
   * named is an earlier one of the batch.
   *
   * @throws IllegalArgumentException naming the first that is wrong
   */
  public static void check(List<NewTicket> batch, Function<TicketId, Optional<Ticket>> lookup) {
    for (int i = 0; i < batch.size(); i++) {
      for (Prerequisite p : batch.get(i).after()) {
        if (p instanceof Prerequisite.Existing e) {
          if (lookup.apply(e.ticket()).isEmpty()) {
            throw new IllegalArgumentException("no ticket " + e.ticket() + " to wait for");
          }
        } else if (p instanceof Prerequisite.Earlier e) {
          if (e.index() >= i) {
            throw new IllegalArgumentException("submission " + (i + 1) + " may wait only for earlier ones, not for "
                + (e.index() + 1));
          }
        } else {
          throw new AssertionError(p);
        }
      }
    }
  }
}
