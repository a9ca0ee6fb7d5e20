package dev.vigil.coordination;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Function;

/**
 * What applying an answer does (Q16), decided from the chosen option's actions and the store as it is at the
 * apply: each action is {@link Step.Done} or {@link Step.Skipped} with why. An answer is applied "as far as it
 * still makes sense": a ticket that was released or cancelled by hand since the question was asked, a lane
 * already parked, is skipped with a reason, and the rest is done. A pure function: every store applies the
 * same plan to the same rows.
 *
 * @param steps one step per action of the option, in order
 */
public record QuestionPlan(List<Step> steps) {
  public QuestionPlan {
    steps = List.copyOf(steps);
  }

  /** One action's fate. */
  public sealed interface Step {
    Action action();

    /** The store does it in the apply's transaction (ticket and lane actions), or the daemon right after (service actions, replies). */
    record Done(Action action) implements Step {
      public Done {
        Objects.requireNonNull(action, "action");
      }
    }

    /** Not done: {@code why} says what changed since the question was asked. */
    record Skipped(Action action, String why) implements Step {
      public Skipped {
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(why, "why");
      }
    }
  }

  /**
   * Decides each action of {@code actions} against the store as it is now.
   *
   * @param tickets     the ticket of an id as it is now (empty when there is none)
   * @param parkedLanes the lanes parked now
   */
  public static QuestionPlan decide(List<Action> actions, Function<TicketId, Optional<Ticket>> tickets,
                                    Set<Lane> parkedLanes) {
    List<Step> out = new ArrayList<>(actions.size());
    for (Action a : actions) {
      Optional<Ticket> t = a.ticket() == null ? Optional.empty() : tickets.apply(a.ticket());
      List<Ticket> prerequisites = t.map(x -> x.after().stream().map(tickets).flatMap(Optional::stream).toList())
          .orElse(List.of());
      out.add(step(a, t, prerequisites, parkedLanes));
    }
    return new QuestionPlan(out);
  }

  private static Step step(Action a, Optional<Ticket> t, List<Ticket> prerequisites, Set<Lane> parkedLanes) {
    if (a instanceof Action.Release r) {
      Optional<Control.Reason> denial = Denials.release(t, OptionalInt.of(r.moreAttempts()), prerequisites);
      return denial.isEmpty() ? new Step.Done(a) : new Step.Skipped(a, why(r.ticket(), t, denial.get()));
    } else if (a instanceof Action.Cancel c) {
      Optional<Control.Reason> denial = Denials.cancel(t);
      return denial.isEmpty() ? new Step.Done(a) : new Step.Skipped(a, why(c.ticket(), t, denial.get()));
    } else if (a instanceof Action.RetryNow r) {
      if (t.isPresent() && t.get().state() == TicketState.HELD) {
        Optional<Control.Reason> denial = Denials.release(t, OptionalInt.empty(), prerequisites);
        return denial.isEmpty() ? new Step.Done(a) : new Step.Skipped(a, why(r.ticket(), t, denial.get()));
      } else if (t.isPresent() && t.get().state() == TicketState.READY) {
        return new Step.Done(a);
      }
      return new Step.Skipped(a, why(r.ticket(), t, t.isEmpty() ? Control.Reason.NOT_FOUND
          : t.get().state() == TicketState.LEASED ? Control.Reason.LEASED : Control.Reason.TERMINAL));
    } else if (a instanceof Action.ParkLane p) {
      return parkedLanes.contains(p.lane()) ? new Step.Skipped(a, "lane " + p.lane() + " is parked already")
          : new Step.Done(a);
    } else if (a instanceof Action.UnparkLane u) {
      return parkedLanes.contains(u.lane()) ? new Step.Done(a)
          : new Step.Skipped(a, "lane " + u.lane() + " is not parked");
    } else if (a instanceof Action.RestartService || a instanceof Action.StopService
        || a instanceof Action.ResetRestartBudget || a instanceof Action.Reply) {
      return new Step.Done(a);
    } else {
      throw new AssertionError(a);
    }
  }

  private static String why(TicketId id, Optional<Ticket> t, Control.Reason reason) {
    return switch (reason) {
      case NOT_FOUND -> "there is no ticket " + id;
      case TERMINAL -> id + " has ended (" + t.orElseThrow().state().name().toLowerCase(java.util.Locale.ROOT) + ")";
      case LEASED -> id + " is running";
      case NOT_HELD -> id + " is not held (" + t.orElseThrow().state().name().toLowerCase(java.util.Locale.ROOT)
          + ")";
      case ATTEMPTS_LIMIT -> id + " would be allowed more than " + NewTicket.MAX_ATTEMPTS + " attempts";
      case WAITING -> id + " waits for a task that has not succeeded (" + t.orElseThrow().after() + ")";
    };
  }

  /** The steps done. */
  public List<Action> done() {
    return steps.stream().filter(s -> s instanceof Step.Done).map(Step::action).toList();
  }

  /** The steps skipped. */
  public List<Step.Skipped> skipped() {
    return steps.stream().filter(s -> s instanceof Step.Skipped).map(s -> (Step.Skipped) s).toList();
  }

  /**
   * The outcome line stored with the APPLIED question: {@code "done: release t-5 with 1 more attempt; skipped:
   * cancel t-6 (t-6 is running)"}, or {@code "nothing to do"} for an option without actions.
   */
  public String outcome() {
    List<String> parts = new ArrayList<>();
    List<Action> done = done();
    if (!done.isEmpty()) {
      parts.add("done: " + String.join(", ", done.stream().map(Action::describe).toList()));
    }
    List<Step.Skipped> skipped = skipped();
    if (!skipped.isEmpty()) {
      parts.add("skipped: " + String.join(", ", skipped.stream().map(s -> s.action().describe() + " (" + s.why() + ")")
          .toList()));
    }
    return parts.isEmpty() ? "nothing to do" : String.join("; ", parts);
  }
}
