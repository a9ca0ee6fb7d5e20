package dev.vigil.supervisor.engine.port;

/** The signals the engine sends to a worker's process group, always identity-gated (DESIGN.md §5). */
public enum Signal {
  /** Asks the whole group to terminate; the worker host tears down and exits. */
  TERM,
  /** Ends the whole group at once; sent one {@code stopGrace} after TERM. */
  KILL
}
