package dev.vigil.supervisor.engine;

import dev.vigil.supervisor.QuiesceRound;
import java.util.Collections;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Where the daemon itself is in its life: one type per phase; only {@link Lifecycle}'s transition
 * moves it, and {@link Lifecycle#state()} says what status calls it. A pause (not durable, unlike a
 * park) is remembered through a shutdown, so that an abandoned one returns to it.
 */
sealed interface DaemonPhase {
  /** Whether dispatch is paused (an operator's {@link Command.Pause}); a shutdown remembers it. */
  boolean paused();

  /** Dispatching. */
  record Running() implements DaemonPhase {
    @Override
    public boolean paused() {
      return false;
    }
  }

  /** Not dispatching by an operator's pause; workers untouched. */
  record Paused() implements DaemonPhase {
    @Override
    public boolean paused() {
      return true;
    }
  }

  /**
   * An idle shutdown asks every worker to quiesce and waits for the round's decision (S5).
   *
   * @param round   the quiesce round
   * @param members the workers asked, by name (in name order, as they are asked and released)
   * @param reply   where the shutdown's answer goes
   * @param paused  whether dispatch was paused before
   */
  record Quiescing(QuiesceRound round, SortedMap<String, WorkerKey> members, ReplyTo reply, boolean paused)
      implements DaemonPhase {
    public Quiescing {
      Objects.requireNonNull(round, "round");
      members = Collections.unmodifiableSortedMap(new TreeMap<>(members));
      Objects.requireNonNull(reply, "reply");
    }
  }

  /**
   * Every worker quiesced: each was sent the idle stop; the daemon waits until all are gone, at most
   * {@code stopGrace} (S5).
   *
   * @param members        the round's workers, by name
   * @param reply          where the shutdown's answer goes
   * @param deadlineMonoMs when the shutdown is abandoned if a worker is still there
   * @param paused         whether dispatch was paused before
   */
  record DrainingIdle(SortedMap<String, WorkerKey> members, ReplyTo reply, long deadlineMonoMs, boolean paused)
      implements DaemonPhase {
    public DrainingIdle {
      members = Collections.unmodifiableSortedMap(new TreeMap<>(members));
      Objects.requireNonNull(reply, "reply");
    }
  }

  /**
   * An operator's shutdown stops every worker; the daemon waits until all are gone.
   *
   * @param reply  where the shutdown's answer goes
   * @param paused whether dispatch is paused (it does not dispatch either way)
   */
  record DrainingStop(ReplyTo reply, boolean paused) implements DaemonPhase {
    public DrainingStop {
      Objects.requireNonNull(reply, "reply");
    }
  }

  /** The shutdown completed: every worker it had to stop is gone. */
  record Stopped() implements DaemonPhase {
    @Override
    public boolean paused() {
      return false;
    }
  }
}
