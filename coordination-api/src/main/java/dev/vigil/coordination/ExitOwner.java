package dev.vigil.coordination;

import java.util.Objects;

/**
 * Who took a run's exit checkpoint (C6): the supervisor that watched the worker exit, or crash
 * recovery that found it dead, with the owner id of the daemon that did so.
 *
 * @param role  which path took the exit
 * @param owner the daemon incarnation that took it
 */
public record ExitOwner(Role role, OwnerId owner) {
  /** The two paths that race for an exit checkpoint. */
  public enum Role {
    /** The live supervisor observed the worker's exit. */
    SUPERVISOR,
    /** Recovery found the worker dead by identity and reservation (C5, Q4). */
    RECOVERY
  }

  public ExitOwner {
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(owner, "owner");
  }

  public static ExitOwner supervisor(OwnerId owner) {
    return new ExitOwner(Role.SUPERVISOR, owner);
  }

  public static ExitOwner recovery(OwnerId owner) {
    return new ExitOwner(Role.RECOVERY, owner);
  }

  @Override
  public String toString() {
    return role + ":" + owner;
  }
}
