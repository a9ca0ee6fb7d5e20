package dev.vigil.worker.process;

import java.util.Objects;

/** The decision of an identity-gated signal (C5): sent to the group, or refused with nothing sent. */
public sealed interface Signalled {
  /** The identity matched immediately before the signal, and the signal went to the whole group. */
  record Sent() implements Signalled {}

  /** Nothing was sent. */
  record Refused(Mismatch reason) implements Signalled {
    public Refused {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** Why an identity does not name a live process. */
  enum Mismatch {
    /** The identity belongs to another boot: its pid means nothing now. */
    OTHER_BOOT,
    /** No live process has the pid (it exited, possibly a zombie not yet reaped). */
    GONE,
    /** A live process has the pid but another start time: the pid was reused. */
    REUSED,
    /** The process lives but is no longer in the recorded process group. */
    REGROUPED
  }
}
