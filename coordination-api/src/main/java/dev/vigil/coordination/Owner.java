package dev.vigil.coordination;

import java.util.Objects;

/**
 * One daemon incarnation, registered at boot so that recovery can later tell whether it is alive.
 *
 * @param id          its owner id
 * @param host        the host name it ran on
 * @param identity    its own process identity (boot id, pid, start ticks, pgid)
 * @param build       the build it runs
 * @param startedAtMs wall-clock ms of its registration
 */
public record Owner(OwnerId id, String host, ProcessIdentity identity, String build, long startedAtMs) {
  public Owner {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(build, "build");
  }
}
