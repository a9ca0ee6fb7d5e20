package dev.vigil.supervisor;

import java.util.Objects;
import java.util.Optional;

/**
 * A store outage of the daemon (D5): the store failed (no space, an I/O error, closed after a failed
 * write), so the daemon decides nothing until it can record decisions again. It keeps every worker
 * running and connected, answers every command with {@link #line()}, and tries to reopen the store
 * at {@link #nextAttemptMonoMs()}: the first attempt {@value #FIRST_RETRY_MS} ms after the failure,
 * each later one twice as far after the one before, at most {@value #MAX_RETRY_MS} ms apart.
 *
 * <p>What it says in the daemon's log is a {@link Note}: one when the outage begins, one when its
 * cause changes, one when it ends with the count of failed reopens; never one per attempt.
 *
 * <p>An immutable value; time is an argument (a monotonic clock for the attempts, the wall clock
 * only for {@code since}).
 *
 * @param file              the store's file, as people read it
 * @param reason            why it is unavailable, in a few plain words (like {@code no space left on device})
 * @param sinceWallMs       when the outage began, wall clock ms
 * @param sinceMonoMs       when the outage began, monotonic ms
 * @param failedAttempts    reopen attempts that failed so far
 * @param nextAttemptMonoMs when to try to reopen the store next, monotonic ms
 */
public record StoreOutage(String file, String reason, long sinceWallMs, long sinceMonoMs, int failedAttempts,
    long nextAttemptMonoMs) {
  /** The pause before the first reopen attempt, ms. */
  public static final long FIRST_RETRY_MS = 500;
  /** The longest pause between two reopen attempts, ms. */
  public static final long MAX_RETRY_MS = 15_000;

  public StoreOutage {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(reason, "reason");
    if (failedAttempts < 0) {
      throw new IllegalArgumentException("failedAttempts (" + failedAttempts + ") must be ≥ 0");
    }
    if (nextAttemptMonoMs < sinceMonoMs) {
      throw new IllegalArgumentException("nextAttemptMonoMs (" + nextAttemptMonoMs + ") must be ≥ sinceMonoMs ("
          + sinceMonoMs + ")");
    }
  }

  /** What the daemon's log says of an outage: when it began, when its cause changed, when it ended. */
  public sealed interface Note {
    /** One line for the log. */
    String line();

    /** The outage began. */
    record Began(StoreOutage outage) implements Note {
      @Override
      public String line() {
        return outage.line() + "; reopening it every " + Durations.format(FIRST_RETRY_MS) + " to "
            + Durations.format(MAX_RETRY_MS);
      }
    }

    /** The store still cannot be opened, for another reason than before. */
    record Changed(String from, StoreOutage outage) implements Note {
      @Override
      public String line() {
        return "the store is still unavailable, now: " + outage.reason() + " (was: " + from + "); "
            + attempts(outage.failedAttempts()) + " so far";
      }
    }

    /** The store opened again: the daemon recovers as at a start. */
    record Ended(StoreOutage outage, long lastedMs) implements Note {
      @Override
      public String line() {
        return "the store is back after " + Durations.format(lastedMs) + " and " + attempts(outage.failedAttempts())
            + "; recovering every run as at a start";
      }
    }
  }

  /** A next state and what to log of the step, if anything. */
  public record Step(StoreOutage outage, Optional<Note> note) {
    public Step {
      Objects.requireNonNull(outage, "outage");
      Objects.requireNonNull(note, "note");
    }
  }

  /** The store failed at {@code nowMonoMs}: an outage begins, and the log says so. */
  public static Step begin(String file, String reason, long nowMonoMs, long nowWallMs) {
    StoreOutage o = new StoreOutage(file, reason, nowWallMs, nowMonoMs, 0, nowMonoMs + pauseAfter(0));
    return new Step(o, Optional.of(new Note.Began(o)));
  }

  /**
   * The pause after {@code failedAttempts} failed attempts, ms: {@value #FIRST_RETRY_MS} doubled per
   * attempt, at most {@value #MAX_RETRY_MS}.
   */
  public static long pauseAfter(int failedAttempts) {
    if (failedAttempts < 0) {
      throw new IllegalArgumentException("failedAttempts (" + failedAttempts + ") must be ≥ 0");
    }
    int doublings = Math.min(failedAttempts, 30);
    return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS << doublings);
  }

  /** Whether a reopen attempt is due at {@code nowMonoMs}. */
  public boolean attemptDue(long nowMonoMs) {
    return nowMonoMs >= nextAttemptMonoMs;
  }

  /**
   * A reopen attempt at {@code nowMonoMs} failed for {@code why}: the next one is due after the
   * next pause; the log hears of it only when the reason changed.
   */
  public Step attemptFailed(String why, long nowMonoMs) {
    Objects.requireNonNull(why, "why");
    int failed = failedAttempts + 1;
    StoreOutage next = new StoreOutage(file, why, sinceWallMs, sinceMonoMs, failed,
        Math.max(sinceMonoMs, nowMonoMs + pauseAfter(failed)));
    return new Step(next, why.equals(reason) ? Optional.empty() : Optional.of(new Note.Changed(reason, next)));
  }

  /** The store opened again at {@code nowMonoMs}: the outage ends, and the log says after how long. */
  public Note.Ended ended(long nowMonoMs) {
    return new Note.Ended(this, Math.max(0, nowMonoMs - sinceMonoMs));
  }

  /**
   * The one line every command gets while the store is unavailable, like {@code the store is
   * unavailable: no space left on device in /home/ann/.vigil/vigil.mv.db; running work continues;
   * nothing new starts}.
   */
  public String line() {
    return "the store is unavailable: " + reason + " in " + file + "; running work continues; nothing new starts";
  }

  private static String attempts(int n) {
    return n + " failed reopen attempt" + (n == 1 ? "" : "s");
  }
}
