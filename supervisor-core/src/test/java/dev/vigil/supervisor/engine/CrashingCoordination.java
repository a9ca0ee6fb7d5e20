package dev.vigil.supervisor.engine;

import dev.vigil.coordination.AbortClaim;
import dev.vigil.coordination.AdoptClaim;
import dev.vigil.coordination.Claim;
import dev.vigil.coordination.Claims;
import dev.vigil.coordination.Control;
import dev.vigil.coordination.Coordination;
import dev.vigil.coordination.Exit;
import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Finish;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.Owner;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.Readopt;
import dev.vigil.coordination.Renewal;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunStart;
import dev.vigil.coordination.Settlement;
import dev.vigil.coordination.Start;
import dev.vigil.coordination.Store;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.TicketId;
import java.util.function.Supplier;

/**
 * A {@link Coordination} that ends the daemon at a chosen verb: the n-th verb from now throws
 * {@link SimulatedCrash}, either before it reaches the store or after it committed (the daemon
 * died before it saw the decision). Queries never crash.
 */
final class CrashingCoordination implements Coordination {
  private final Coordination inner;
  private int countdown = -1;
  private boolean afterCommit;
  private String lastCrash;

  CrashingCoordination(Coordination inner) {
    this.inner = inner;
  }

  /** The {@code n}-th verb from now (1 = the next) crashes, before or after it commits. */
  void arm(int n, boolean afterCommit) {
    if (n < 1) {
      throw new IllegalArgumentException("n must be >= 1");
    }
    this.countdown = n;
    this.afterCommit = afterCommit;
  }

  /** No verb crashes until the next {@link #arm}; the last crash is forgotten. */
  void disarm() {
    countdown = -1;
    lastCrash = null;
  }

  boolean armed() {
    return countdown > 0;
  }

  /** The verb that crashed since the last {@link #disarm} ("name before|after commit"), or null. */
  String lastCrash() {
    return lastCrash;
  }

  private <T> T verb(String name, Supplier<T> call) {
    if (countdown > 0 && --countdown == 0) {
      countdown = -1;
      lastCrash = name + (afterCommit ? " after commit" : " before commit");
      if (afterCommit) {
        call.get();
      }
      throw new SimulatedCrash("at " + lastCrash);
    }
    return call.get();
  }

  @Override
  public Store store() {
    return inner.store();
  }

  @Override
  public Submission submit(NewTicket ticket, long nowMs) {
    return verb("submit", () -> inner.submit(ticket, nowMs));
  }

  @Override
  public java.util.List<Submission> submitAll(java.util.List<NewTicket> tickets, long nowMs) {
    return verb("submitAll", () -> inner.submitAll(tickets, nowMs));
  }

  @Override
  public void registerOwner(Owner owner) {
    verb("registerOwner", () -> {
      inner.registerOwner(owner);
      return null;
    });
  }

  @Override
  public Claim claim(TicketId ticket, OwnerId owner, long nowMs, long ttlMs) {
    return verb("claim", () -> inner.claim(ticket, owner, nowMs, ttlMs));
  }

  @Override
  public Claim claimByHand(TicketId ticket, OwnerId owner, long nowMs, long ttlMs) {
    return verb("claimByHand", () -> inner.claimByHand(ticket, owner, nowMs, ttlMs));
  }

  @Override
  public Claims claimNext(Lane lane, OwnerId owner, long nowMs, long ttlMs, int max) {
    return verb("claimNext", () -> inner.claimNext(lane, owner, nowMs, ttlMs, max));
  }

  @Override
  public Start start(RunId run, OwnerId owner, RunStart start) {
    return verb("start", () -> inner.start(run, owner, start));
  }

  @Override
  public AbortClaim abortClaim(RunId run, OwnerId owner, String why, long nowMs) {
    return verb("abortClaim", () -> inner.abortClaim(run, owner, why, nowMs));
  }

  @Override
  public AdoptClaim adoptClaim(RunId run, OwnerId newOwner, OwnerId deadOwner, long nowMs, long ttlMs) {
    return verb("adoptClaim", () -> inner.adoptClaim(run, newOwner, deadOwner, nowMs, ttlMs));
  }

  @Override
  public Renewal renew(RunId run, OwnerId owner, long nowMs, long ttlMs) {
    return verb("renew", () -> inner.renew(run, owner, nowMs, ttlMs));
  }

  @Override
  public int renewAll(OwnerId owner, long nowMs, long ttlMs) {
    return verb("renewAll", () -> inner.renewAll(owner, nowMs, ttlMs));
  }

  @Override
  public Readopt readopt(RunId run, OwnerId owner, long nowMs, long ttlMs) {
    return verb("readopt", () -> inner.readopt(run, owner, nowMs, ttlMs));
  }

  @Override
  public Exit takeExit(RunId run, ExitOwner claimant, RunExit exit) {
    return verb("takeExit", () -> inner.takeExit(run, claimant, exit));
  }

  @Override
  public Settlement finish(Finish finish, long nowMs) {
    return verb("finish", () -> inner.finish(finish, nowMs));
  }

  @Override
  public Control park(TicketId ticket) {
    return verb("park", () -> inner.park(ticket));
  }

  @Override
  public Control unpark(TicketId ticket) {
    return verb("unpark", () -> inner.unpark(ticket));
  }

  @Override
  public Control hold(TicketId ticket, String reason, long nowMs) {
    return verb("hold", () -> inner.hold(ticket, reason, nowMs));
  }

  @Override
  public Control release(TicketId ticket, java.util.OptionalInt moreAttempts) {
    return verb("release", () -> inner.release(ticket, moreAttempts));
  }

  @Override
  public dev.vigil.coordination.Retry retry(TicketId original, long nowMs) {
    return verb("retry", () -> inner.retry(original, nowMs));
  }

  @Override
  public dev.vigil.coordination.StopRequest requestStop(RunId run, dev.vigil.coordination.StopIntent intent,
                                                       String note, long nowMs) {
    return verb("requestStop", () -> inner.requestStop(run, intent, note, nowMs));
  }

  @Override
  public dev.vigil.coordination.Event serviceGivenUp(String service, String why, long nowMs) {
    return verb("serviceGivenUp", () -> inner.serviceGivenUp(service, why, nowMs));
  }

  @Override
  public Control cancel(TicketId ticket, long nowMs) {
    return verb("cancel", () -> inner.cancel(ticket, nowMs));
  }

  @Override
  public boolean parkLane(Lane lane) {
    return verb("parkLane", () -> inner.parkLane(lane));
  }

  @Override
  public boolean unparkLane(Lane lane) {
    return verb("unparkLane", () -> inner.unparkLane(lane));
  }
}
