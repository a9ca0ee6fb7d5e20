package dev.vigil.coordination.law;

import dev.vigil.coordination.Event;
import dev.vigil.coordination.Lease;
import dev.vigil.coordination.Prerequisites;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunState;
import dev.vigil.coordination.Snapshot;
import dev.vigil.coordination.Store;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.Verdict;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The invariants every coordination store keeps at every instant, checked on a {@link Snapshot}.
 * Each violation message states the law in English with its id. Called by every oracle:
 * properties, the contract suite, differential and concurrency tests, bridge scenarios.
 */
public final class CoordinationInvariants {
  private CoordinationInvariants() {}

  /** Throws an {@link AssertionError} listing every violation, if any. */
  public static void check(Store store) {
    Snapshot s = store.snapshot();
    List<String> v = new ArrayList<>(violations(s));
    v.addAll(checkpointViolations(store, s));
    if (!v.isEmpty()) {
      throw new AssertionError(v.size() + " coordination invariant(s) broken:\n  " + String.join("\n  ", v));
    }
  }

  /** Q17: each ticket's checkpoint was saved by a run of that ticket that the store has. */
  static List<String> checkpointViolations(Store store, Snapshot s) {
    List<String> out = new ArrayList<>();
    Set<RunId> runs = new HashSet<>();
    s.runs().forEach(r -> runs.add(r.id()));
    for (Ticket t : s.tickets()) {
      store.checkpoint(t.id()).ifPresent(c -> {
        if (!c.ticket().equals(t.id())) {
          out.add("Q17 never another ticket's: ticket " + t.id() + " keeps the checkpoint of " + c.run());
        } else if (!runs.contains(c.run())) {
          out.add("Q17: ticket " + t.id() + " keeps a checkpoint of " + c.run() + ", a run the store does not have");
        }
      });
    }
    return out;
  }

  /** Throws an {@link AssertionError} listing every violation, if any. */
  public static void check(Snapshot s) {
    List<String> v = violations(s);
    if (!v.isEmpty()) {
      throw new AssertionError(v.size() + " coordination invariant(s) broken:\n  " + String.join("\n  ", v));
    }
  }

  /** Every violated invariant, one line each; empty when all hold. */
  public static List<String> violations(Snapshot s) {
    List<String> out = new ArrayList<>();
    Map<TicketId, Ticket> tickets = new HashMap<>(s.tickets().size() * 4 / 3 + 1);
    for (Ticket t : s.tickets()) {
      tickets.put(t.id(), t);
    }
    Map<RunId, Run> runs = new HashMap<>(s.runs().size() * 4 / 3 + 1);
    Map<TicketId, List<Run>> runsByTicket = new HashMap<>(s.tickets().size() * 4 / 3 + 1);
    for (Run r : s.runs()) {
      runs.put(r.id(), r);
      runsByTicket.computeIfAbsent(r.ticket(), k -> new ArrayList<>()).add(r);
    }

    Set<TicketId> leasedTickets = new HashSet<>();
    Set<RunId> leasedRuns = new HashSet<>();
    for (Lease l : s.leases()) {
      if (!leasedTickets.add(l.ticket())) {
        out.add("C1 one lease: ticket " + l.ticket() + " has more than one lease");
      }
      if (!leasedRuns.add(l.run())) {
        out.add("C1 one lease: run " + l.run() + " has more than one lease");
      }
      Run r = runs.get(l.run());
      if (r == null) {
        out.add("C1 one lease: lease of " + l.ticket() + " names unknown run " + l.run());
      } else if (!r.state().holdsLease()) {
        out.add("C7 release on settle: run " + l.run() + " is " + r.state() + " but still holds a lease");
      } else if (!r.owner().equals(l.owner())) {
        out.add("C3 strict renewal: the lease of run " + l.run() + " is held by " + l.owner()
            + " but the run names owner " + r.owner() + " (a run and its lease change owner together)");
      }
      Ticket t = tickets.get(l.ticket());
      if (t == null || t.state() != TicketState.LEASED) {
        out.add("C1 one lease: lease of " + l.ticket() + " exists but the ticket is "
            + (t == null ? "unknown" : t.state()));
      }
    }

    for (Run r : s.runs()) {
      Ticket t = tickets.get(r.ticket());
      if (t == null) {
        out.add("C2 claim only ready: run " + r.id() + " belongs to unknown ticket " + r.ticket());
        continue;
      }
      if (r.state().holdsLease() && !leasedRuns.contains(r.id())) {
        out.add("C7 release on settle: unsettled run " + r.id() + " (" + r.state() + ") holds no lease");
      }
      if (r.state() == RunState.RUNNING && r.start() == null) {
        out.add("Q3 running before execution: RUNNING run " + r.id() + " has no recorded identity");
      }
      boolean mustHaveExitOwner = r.state() == RunState.EXITED
          || (r.state() == RunState.SETTLED && r.verdict() != Verdict.ABANDONED);
      if (mustHaveExitOwner && (r.exitOwner() == null || r.exit() == null)) {
        out.add("C6 one aftercare: run " + r.id() + " is " + r.state() + " without an exit owner and exit");
      }
      if (r.verdict() == Verdict.ABANDONED && (r.start() != null || r.exitOwner() != null)) {
        out.add("C8 settle once: run " + r.id() + " is ABANDONED but had started or exited");
      }
      boolean killed = r.stopIntent() != null && r.stopIntent().kill();
      if (r.verdict() == Verdict.KILLED && !killed) {
        out.add("Q13 a kill is settled once: run " + r.id() + " is KILLED but nobody asked to kill it");
      }
      if (killed && r.state() == RunState.SETTLED && r.verdict() != Verdict.KILLED
          && r.verdict() != Verdict.ABANDONED) {
        out.add("Q13 a kill is settled once: run " + r.id() + " was killed but settled " + r.verdict());
      }
      if (r.attempt() > t.attemptsUsed() + 1) {
        out.add("Q1 bounded attempts: run " + r.id() + " runs as attempt " + r.attempt() + " but ticket "
            + t.id() + " has used only " + t.attemptsUsed());
      }
    }

    for (Ticket t : s.tickets()) {
      List<Run> rs = runsByTicket.getOrDefault(t.id(), List.of());
      long unsettled = 0;
      long charged = 0;
      for (Run r : rs) {
        if (r.state().holdsLease()) {
          unsettled++;
        }
        if (r.verdict() != null && r.verdict().chargesAttempt()) {
          charged++;
        }
      }
      if (t.state() == TicketState.LEASED && (unsettled != 1 || !leasedTickets.contains(t.id()))) {
        out.add("C1 one lease: LEASED ticket " + t.id() + " has " + unsettled + " unsettled runs and "
            + (leasedTickets.contains(t.id()) ? "a" : "no") + " lease");
      }
      if (t.state() != TicketState.LEASED && unsettled != 0) {
        out.add("C7 release on settle: " + t.state() + " ticket " + t.id() + " has " + unsettled + " unsettled runs");
      }
      if (t.attemptsUsed() != charged) {
        out.add("Q1 bounded attempts: ticket " + t.id() + " counts " + t.attemptsUsed()
            + " attempts used but " + charged + " settled runs were charged");
      }
      for (int i = 0; i < rs.size(); i++) {
        if (rs.get(i).id().number() != i + 1) {
          out.add("C2 claim only ready: ticket " + t.id() + " has run numbers with a gap at " + rs.get(i).id());
          break;
        }
      }
      if ((t.state() == TicketState.READY || t.state() == TicketState.LEASED)
          && t.attemptsUsed() >= t.allowedAttempts()) {
        out.add("Q1 bounded attempts: " + t.state() + " ticket " + t.id() + " has used " + t.attemptsUsed() + " of "
            + t.allowedAttempts() + " attempts and may still run");
      }
      if (t.retriedAs() != null) {
        Ticket newer = tickets.get(t.retriedAs());
        if (newer == null || !t.id().equals(newer.retryOf())) {
          out.add("retry: ticket " + t.id() + " names " + t.retriedAs() + " as its retry, which does not name it back");
        }
        if (t.state() == TicketState.READY || t.state() == TicketState.LEASED || t.state() == TicketState.HELD) {
          out.add("retry: ticket " + t.id() + " is " + t.state() + " beside its retry " + t.retriedAs());
        }
      }
      if (t.retryOf() != null) {
        Ticket older = tickets.get(t.retryOf());
        if (older == null || !t.id().equals(older.retriedAs())) {
          out.add("retry: ticket " + t.id() + " retries " + t.retryOf() + ", which does not name it as its retry");
        }
      }
      prerequisites(t, rs, tickets, out);
      if (t.state() == TicketState.SUCCEEDED) {
        for (Run r : rs) {
          if (r.verdict() == Verdict.BLOCKED || r.verdict() == Verdict.STALLED) {
            out.add("Q7 supersede: ticket " + t.id() + " succeeded but run " + r.id() + " is still " + r.verdict());
          }
        }
      }
    }
    long settledRuns = s.runs().stream()
        .filter(r -> r.state() == RunState.SETTLED && r.verdict() != Verdict.ABANDONED).count();
    long settledEvents = 0;
    Set<TicketId> cancelReported = new HashSet<>();
    long previousId = 0;
    for (int i = 0; i < s.events().size(); i++) {
      Event e = s.events().get(i);
      if (e.id() <= previousId) {
        out.add("events: event " + (i + 1) + " has id " + e.id() + " after " + previousId
            + " (ids count from 1 in order; only a prune leaves gaps, Q18)");
        break;
      }
      previousId = e.id();
      if (e.ticket() != null && !tickets.containsKey(e.ticket())) {
        out.add("events: event " + e.id() + " is about " + e.ticket() + ", which the store does not have"
            + " (a prune deletes a ticket's events with it, Q18)");
      }
      if (e.kind() == Event.Kind.CANCELLED || e.kind() == Event.Kind.SETTLED && e.ticketState() == TicketState.CANCELLED) {
        Ticket t = tickets.get(e.ticket());
        if (t == null || t.state() != TicketState.CANCELLED) {
          out.add("events: event " + e.id() + " reports " + e.ticket() + " cancelled, but it is not");
        } else if (!cancelReported.add(e.ticket())) {
          out.add("events: event " + e.id() + " reports " + e.ticket() + " cancelled again (a ticket is cancelled once)");
        }
      }
      if (e.kind() == Event.Kind.SETTLED) {
        settledEvents++;
        Run r = runs.get(e.run());
        if (r == null || r.state() != RunState.SETTLED) {
          out.add("events: event " + e.id() + " reports the settlement of " + e.run() + ", which is not settled");
        }
      }
    }
    if (settledEvents != settledRuns) {
      out.add("events: " + settledRuns + " runs were settled but " + settledEvents
          + " settlements were reported (each exactly once, in its own transaction)");
    }
    return out;
  }

  /**
   * Q14 on one ticket: it was never claimed before every prerequisite SUCCEEDED (a ticket with a run
   * has only SUCCEEDED prerequisites, which never change again); a READY ticket has no prerequisite
   * that holds it; a dependency hold names the first prerequisite that holds it now.
   */
  private static void prerequisites(Ticket t, List<Run> rs, Map<TicketId, Ticket> tickets, List<String> out) {
    if (t.after().isEmpty()) {
      // no prerequisite: met, and none holds it
      if (t.heldFor() != null) {
        out.add("Q14 prerequisites first: ticket " + t.id() + " is held for " + t.heldFor() + " but the first"
            + " prerequisite that holds it is none");
      }
      return;
    }
    List<Ticket> pre = new ArrayList<>();
    for (TicketId p : t.after()) {
      Ticket found = tickets.get(p);
      if (found == null) {
        out.add("Q14 prerequisites first: ticket " + t.id() + " waits for unknown ticket " + p);
        return;
      }
      pre.add(found);
    }
    if (!rs.isEmpty() && !Prerequisites.met(pre.stream().map(Ticket::state).toList())) {
      out.add("Q14 prerequisites first: ticket " + t.id() + " has run " + rs.get(0).id() + " but its prerequisites are "
          + pre.stream().map(p -> p.id() + " " + p.state()).toList() + " (a ticket is claimed only after every one"
          + " of them SUCCEEDED)");
    }
    java.util.Optional<Ticket> blocker = Prerequisites.blocker(pre);
    if (t.state() == TicketState.READY && blocker.isPresent()) {
      out.add("Q14 prerequisites first: READY ticket " + t.id() + " waits for " + blocker.get().id() + ", which is "
          + blocker.get().state() + " (a prerequisite that ends otherwise holds its dependents)");
    }
    if (t.heldFor() != null && (blocker.isEmpty() || !blocker.get().id().equals(t.heldFor()))) {
      out.add("Q14 prerequisites first: ticket " + t.id() + " is held for " + t.heldFor() + " but the first prerequisite"
          + " that holds it is " + blocker.map(b -> b.id().toString()).orElse("none"));
    }
  }
}
