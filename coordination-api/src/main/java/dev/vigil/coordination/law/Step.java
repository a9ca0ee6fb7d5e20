package dev.vigil.coordination.law;

import dev.vigil.coordination.Coordination;
import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.Owner;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunStart;
import dev.vigil.coordination.StopIntent;
import dev.vigil.coordination.TicketId;
import java.util.List;
import java.util.OptionalInt;

/**
 * One call of a {@link Coordination} verb, as data: a scenario is a list of steps, applied to any
 * implementation to produce a {@link Transcript}.
 */
public sealed interface Step {
  /** Calls the verb on {@code c} and returns its decision. */
  Object apply(Coordination c);

  /** Registers (or replaces) an owner; its decision is the owner as the store then has it. */
  record RegisterOwner(Owner owner) implements Step {
    public Object apply(Coordination c) {
      c.registerOwner(owner);
      return c.store().owner(owner.id()).orElse(null);
    }
  }

  record Submit(NewTicket ticket, long nowMs) implements Step {
    public Object apply(Coordination c) {
      return c.submit(ticket, nowMs);
    }
  }

  record SubmitAll(List<NewTicket> tickets, long nowMs) implements Step {
    public SubmitAll {
      tickets = List.copyOf(tickets);
    }

    public Object apply(Coordination c) {
      return c.submitAll(tickets, nowMs);
    }
  }

  record Claim(TicketId ticket, OwnerId owner, long nowMs, long ttlMs) implements Step {
    public Object apply(Coordination c) {
      return c.claim(ticket, owner, nowMs, ttlMs);
    }
  }

  record ClaimByHand(TicketId ticket, OwnerId owner, long nowMs, long ttlMs) implements Step {
    public Object apply(Coordination c) {
      return c.claimByHand(ticket, owner, nowMs, ttlMs);
    }
  }

  record ClaimNext(Lane lane, OwnerId owner, long nowMs, long ttlMs, int max) implements Step {
    public Object apply(Coordination c) {
      return c.claimNext(lane, owner, nowMs, ttlMs, max);
    }
  }

  record Start(RunId run, OwnerId owner, RunStart start) implements Step {
    public Object apply(Coordination c) {
      return c.start(run, owner, start);
    }
  }

  record AbortClaim(RunId run, OwnerId owner, String why, long nowMs) implements Step {
    public Object apply(Coordination c) {
      return c.abortClaim(run, owner, why, nowMs);
    }
  }

  record AdoptClaim(RunId run, OwnerId newOwner, OwnerId deadOwner, long nowMs, long ttlMs) implements Step {
    public Object apply(Coordination c) {
      return c.adoptClaim(run, newOwner, deadOwner, nowMs, ttlMs);
    }
  }

  record Renew(RunId run, OwnerId owner, long nowMs, long ttlMs) implements Step {
    public Object apply(Coordination c) {
      return c.renew(run, owner, nowMs, ttlMs);
    }
  }

  record RenewAll(OwnerId owner, long nowMs, long ttlMs) implements Step {
    public Object apply(Coordination c) {
      return c.renewAll(owner, nowMs, ttlMs);
    }
  }

  record Readopt(RunId run, OwnerId owner, long nowMs, long ttlMs) implements Step {
    public Object apply(Coordination c) {
      return c.readopt(run, owner, nowMs, ttlMs);
    }
  }

  record ReadoptAll(List<RunId> runs, OwnerId owner, long nowMs, long ttlMs) implements Step {
    public ReadoptAll {
      runs = List.copyOf(runs);
    }

    public Object apply(Coordination c) {
      return c.readoptAll(runs, owner, nowMs, ttlMs);
    }
  }

  record TakeExit(RunId run, ExitOwner claimant, RunExit exit) implements Step {
    public Object apply(Coordination c) {
      return c.takeExit(run, claimant, exit);
    }
  }

  record Finish(dev.vigil.coordination.Finish finish, long nowMs) implements Step {
    public Object apply(Coordination c) {
      return c.finish(finish, nowMs);
    }
  }

  record Park(TicketId ticket) implements Step {
    public Object apply(Coordination c) {
      return c.park(ticket);
    }
  }

  record Unpark(TicketId ticket) implements Step {
    public Object apply(Coordination c) {
      return c.unpark(ticket);
    }
  }

  record Hold(TicketId ticket, String reason, long nowMs) implements Step {
    public Object apply(Coordination c) {
      return c.hold(ticket, reason, nowMs);
    }
  }

  /** A release granting {@code moreAttempts} (empty: one when none remain). */
  record Release(TicketId ticket, OptionalInt moreAttempts) implements Step {
    public Release(TicketId ticket) {
      this(ticket, OptionalInt.empty());
    }

    public Object apply(Coordination c) {
      return c.release(ticket, moreAttempts);
    }
  }

  record RequestStop(RunId run, StopIntent intent, String note, long nowMs) implements Step {
    public Object apply(Coordination c) {
      return c.requestStop(run, intent, note, nowMs);
    }
  }

  record Retry(TicketId original, long nowMs) implements Step {
    public Object apply(Coordination c) {
      return c.retry(original, nowMs);
    }
  }

  /** Its decision is the event appended. */
  record ServiceGivenUp(String service, String why, long nowMs) implements Step {
    public Object apply(Coordination c) {
      return c.serviceGivenUp(service, why, nowMs);
    }
  }

  record Cancel(TicketId ticket, long nowMs) implements Step {
    public Object apply(Coordination c) {
      return c.cancel(ticket, nowMs);
    }
  }

  record ParkLane(Lane lane) implements Step {
    public Object apply(Coordination c) {
      return c.parkLane(lane);
    }
  }

  record UnparkLane(Lane lane) implements Step {
    public Object apply(Coordination c) {
      return c.unparkLane(lane);
    }
  }
}
