package dev.vigil.supervisor.engine.port;

import dev.vigil.coordination.ProcessIdentity;
import java.util.Objects;
import java.util.regex.Pattern;

/** The decision of {@link ProcessTable#launch}. */
public sealed interface Launch {
  /**
   * A worker process exists, in its own session and process group.
   *
   * @param identity  the launched process (the group leader; the pid Java holds after {@code setsid})
   * @param tokenHash SHA-256 of the capability token given to the worker through its environment,
   *                  64 lower-case hex digits (C9); the token itself never reaches the engine
   */
  record Started(ProcessIdentity identity, String tokenHash) implements Launch {
    private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");

    public Started {
      Objects.requireNonNull(identity, "identity");
      Objects.requireNonNull(tokenHash, "tokenHash");
      if (!SHA256_HEX.matcher(tokenHash).matches()) {
        throw new IllegalArgumentException("tokenHash must be 64 lower-case hex digits (a SHA-256)");
      }
    }
  }

  /**
   * No process was started (or it was gone before its identity could be read); nothing to stop.
   *
   * @param why a one-line reason for the journal and the claim's diagnosis
   */
  record Failed(String why) implements Launch {
    public Failed {
      Objects.requireNonNull(why, "why");
    }
  }
}
