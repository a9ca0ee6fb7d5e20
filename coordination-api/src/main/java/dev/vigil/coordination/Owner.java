package dev.vigil.coordination;

import java.util.Objects;

/**
 * One daemon incarnation, registered at boot so that recovery can later tell whether it is alive.
 *
 * @param id          its owner id
 * @param host        the host name it ran on, for people
 * @param identity    its own process identity (boot id, pid, start ticks, pgid)
 * @param build       the build it runs
 * @param startedAtMs wall-clock ms of its registration
 * @param hostId      the stable id of its host (its machine and home, or as configured), whose daemons alone
 *                    recover its runs (H1); null for an owner registered before hosts had ids, when one
 *                    host used each store: such an owner is of whichever host reads it
 */
public record Owner(OwnerId id, String host, ProcessIdentity identity, String build, long startedAtMs, String hostId) {
  /** The longest host id. */
  public static final int MAX_HOST_ID = 64;

  public Owner {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(build, "build");
    if (hostId != null) {
      checkHostId(hostId);
    }
  }

  /** An owner registered without a host id (of whichever host reads it). */
  public Owner(OwnerId id, String host, ProcessIdentity identity, String build, long startedAtMs) {
    this(id, host, identity, build, startedAtMs, null);
  }

  /**
   * Whether this owner's runs are those of host {@code hostId} (H1): the same id, or none recorded; a null
   * {@code hostId} is the host of a store that one host uses, whose owners are those without an id.
   */
  public boolean ofHost(String hostId) {
    return this.hostId == null || this.hostId.equals(hostId);
  }

  /**
   * Checks a host id: 1-{@value #MAX_HOST_ID} letters, digits, '.', '_', ':' or '-'.
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  public static String checkHostId(String hostId) {
    Objects.requireNonNull(hostId, "host id");
    if (hostId.isEmpty() || hostId.length() > MAX_HOST_ID || !hostId.matches("[A-Za-z0-9._:-]+")) {
      throw new IllegalArgumentException("host id '" + hostId + "' must be 1-" + MAX_HOST_ID
          + " letters, digits, '.', '_', ':' or '-'");
    }
    return hostId;
  }
}
