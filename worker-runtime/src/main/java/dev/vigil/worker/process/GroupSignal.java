package dev.vigil.worker.process;

/** The two signals Vigil sends to a worker's process group. */
public enum GroupSignal {
  /** Asks the group to end; the worker host tears down its work (stop grace, S2). */
  TERM,
  /** Ends the group at once, after the stop grace. */
  KILL
}
