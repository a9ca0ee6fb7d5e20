package dev.vigil.launcher;

import dev.vigil.coordination.TicketId;
import java.util.Objects;

/**
 * A submission's answer.
 *
 * @param id        the ticket queued, or, for a duplicate, the earlier ticket with the same key
 * @param duplicate whether a ticket with the same idempotency key existed, so nothing was queued
 */
public record Submitted(TicketId id, boolean duplicate) {
  public Submitted {
    Objects.requireNonNull(id, "id");
  }
}
