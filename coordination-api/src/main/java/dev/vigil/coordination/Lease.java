package dev.vigil.coordination;

import java.util.Objects;

/**
 * The row that says a ticket is being worked on: one per ticket and one per run (C1). It is
 * deleted only by {@code finish} and {@code abortClaim} (C7); an expired row that is still present
 * is evidence of an owner that died mid-work, never a verdict on the worker (C5).
 *
 * @param ticket      the leased ticket
 * @param run         the run holding it
 * @param owner       the owner that renews it
 * @param expiresAtMs wall-clock ms after which {@code renew} is refused (C3)
 */
public record Lease(TicketId ticket, RunId run, OwnerId owner, long expiresAtMs) {
  public Lease {
    Objects.requireNonNull(ticket, "ticket");
    Objects.requireNonNull(run, "run");
    Objects.requireNonNull(owner, "owner");
    if (!run.ticket().equals(ticket)) {
      throw new IllegalArgumentException("lease of " + ticket + " names run " + run + " of another ticket");
    }
  }

  /**
   * Checks the arguments of a verb that grants, renews or moves a lease at {@code nowMs} for
   * {@code ttlMs}: the ttl must be positive and {@code nowMs + ttlMs} must not overflow.
   *
   * @throws IllegalArgumentException naming the bad value
   */
  public static void checkTtl(long nowMs, long ttlMs) {
    if (ttlMs <= 0) {
      throw new IllegalArgumentException("ttl (" + ttlMs + "ms) must be > 0");
    }
    if (nowMs > Long.MAX_VALUE - ttlMs) {
      throw new IllegalArgumentException("now (" + nowMs + "ms) + ttl (" + ttlMs + "ms) overflows a lease's expiry");
    }
  }
}
