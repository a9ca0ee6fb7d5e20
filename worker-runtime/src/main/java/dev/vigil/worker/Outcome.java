package dev.vigil.worker;

import dev.vigil.coordination.Verdict;
import java.util.Objects;

/**
 * How a worker type's run ended, in its own words. The worker host writes it durably to
 * {@code outcome.json} before it reports it (no outcome lost, DESIGN.md §1.4); the daemon settles the
 * run with {@link #verdict()}. A detail is prose for humans; one longer than {@link #MAX_DETAIL}
 * characters is cut there and ends with {@code …}.
 */
public sealed interface Outcome {
  /** Longest detail kept, characters. */
  int MAX_DETAIL = 4_096;

  /** The verdict the run settles with. */
  Verdict verdict();

  /** What happened, for humans; may be empty. */
  String detail();

  /** The work succeeded: the ticket is done. */
  record Succeeded(String detail) implements Outcome {
    public Succeeded {
      detail = cut(detail);
    }

    @Override
    public Verdict verdict() {
      return Verdict.SUCCEEDED;
    }
  }

  /** The work failed and may be retried: consumes an attempt (Q1). */
  record Failed(String detail) implements Outcome {
    public Failed {
      detail = cut(detail);
    }

    @Override
    public Verdict verdict() {
      return Verdict.FAILED;
    }
  }

  /** The work can never succeed: the ticket fails at once. */
  record PermanentFailure(String detail) implements Outcome {
    public PermanentFailure {
      detail = cut(detail);
    }

    @Override
    public Verdict verdict() {
      return Verdict.PERMANENT_FAILURE;
    }
  }

  /**
   * The machine hit a quota: no attempt consumed, the ticket is READY again at {@code untilMs} (Q2).
   *
   * @param untilMs wall-clock ms before which the ticket should not run again
   */
  record Stalled(long untilMs, String detail) implements Outcome {
    public Stalled {
      if (untilMs < 0) {
        throw new IllegalArgumentException("untilMs (" + untilMs + ") must be >= 0");
      }
      detail = cut(detail);
    }

    @Override
    public Verdict verdict() {
      return Verdict.STALLED;
    }
  }

  /** The work could not proceed for a reason outside it: no attempt consumed, the ticket is HELD. */
  record Blocked(String detail) implements Outcome {
    public Blocked {
      detail = cut(detail);
    }

    @Override
    public Verdict verdict() {
      return Verdict.BLOCKED;
    }
  }

  /**
   * The outcome with {@code verdict}; {@code untilMs} is read only for STALLED.
   *
   * @throws IllegalArgumentException for a verdict no worker gives (LOST, ABANDONED, SUPERSEDED, KILLED)
   */
  static Outcome of(Verdict verdict, String detail, long untilMs) {
    Objects.requireNonNull(verdict, "verdict");
    return switch (verdict) {
      case SUCCEEDED -> new Succeeded(detail);
      case FAILED -> new Failed(detail);
      case PERMANENT_FAILURE -> new PermanentFailure(detail);
      case STALLED -> new Stalled(untilMs, detail);
      case BLOCKED -> new Blocked(detail);
      case LOST, ABANDONED, SUPERSEDED, KILLED -> throw new IllegalArgumentException(
          "verdict " + verdict + " is not one a worker gives (SUCCEEDED, FAILED, PERMANENT_FAILURE, STALLED, BLOCKED)");
    };
  }

  private static String cut(String detail) {
    Objects.requireNonNull(detail, "detail");
    return detail.length() <= MAX_DETAIL ? detail : detail.substring(0, MAX_DETAIL - 1) + "…";
  }
}
