package dev.vigil.supervisor.engine;

import dev.vigil.supervisor.StopKind;
import java.util.Objects;

/** A frame from the daemon to a worker (DESIGN.md §6). */
public sealed interface ToWorker {
  /**
   * The daemon accepts the worker's hello.
   *
   * @param build the daemon's build
   * @param go    true when the worker may begin (or continue) its user work: its run is RUNNING
   *              with its identity recorded (Q3). A worker welcomed with {@code go=false} waits for
   *              a later welcome with {@code go=true}, and exits without doing any work if none
   *              comes within its handoff window.
   */
  record Welcome(String build, boolean go) implements ToWorker {
    public Welcome {
      Objects.requireNonNull(build, "build");
    }
  }

  /**
   * The daemon refuses the worker: it exits without starting work (a run that is settled or
   * abandoned, a wrong token, a worker another owner supervises).
   *
   * @param reason one line for the worker's log
   */
  record AdoptDenied(String reason) implements ToWorker {
    public AdoptDenied {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** Close your gate if idle and answer quiesced, else answer busy (S5). */
  record Quiesce() implements ToWorker {}

  /** Reopen your gate (S5). */
  record Release() implements ToWorker {}

  /**
   * Stop. The kind tells the worker how (see {@link StopKind}); a socket adapter whose wire protocol
   * has fewer frames maps them: {@code IDLE_SHUTDOWN} to the idle-shutdown {@code stop{graceMs}},
   * {@code LOST} to {@code adopt-denied} (the worker then leaves as an orphan does, S4, S6), and a
   * kind the wire cannot carry may be reported undelivered: TERM follows after the grace anyway.
   *
   * @param graceMs how long the worker has before TERM follows, ms (for kinds that escalate)
   * @param kind    why, and so how the worker must stop
   */
  record Stop(long graceMs, StopKind kind) implements ToWorker {
    public Stop {
      Objects.requireNonNull(kind, "kind");
      if (graceMs <= 0) {
        throw new IllegalArgumentException("graceMs (" + graceMs + ") must be > 0");
      }
    }
  }

  /**
   * Q16: the answer to the worker's question {@code seq}, once applied: the chosen option and its reply
   * value as JSON text ({@code null} when it has none).
   */
  record Answer(long seq, String option, String reply) implements ToWorker {
    public Answer {
      java.util.Objects.requireNonNull(option, "option");
    }
  }
}
