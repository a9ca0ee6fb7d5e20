package dev.vigil.supervisor.engine.port;

import java.util.Objects;

/** The decision of {@link RunDirectories#prepare}. */
public sealed interface Prepared {
  /** The directory exists, owner-only, ready for a worker to take its reservation. */
  record Ready() implements Prepared {}

  /**
   * The directory could not be made; no worker is launched.
   *
   * @param why a one-line reason naming the path
   */
  record Failed(String why) implements Prepared {
    public Failed {
      Objects.requireNonNull(why, "why");
    }
  }
}
