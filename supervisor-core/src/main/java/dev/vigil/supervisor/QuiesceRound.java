package dev.vigil.supervisor;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One quiesce round, the supervisor side of idle shutdown (S5). The supervisor sends
 * {@code quiesce} to every worker when the round starts and collects the answers that arrive within
 * {@code quiesceAnswer} (half-open: an answer at {@code start + quiesceAnswer} exactly is late and
 * ignored).
 *
 * <ol>
 *   <li>Every worker answered {@link WorkGate.Answer.Quiesced} in the window: {@link Round.StopAll}.
 *   <li>A worker answered {@link WorkGate.Answer.Busy} in the window: {@link Round.ReleaseAll} at
 *       once, and the client is told busy.
 *   <li>The window passed with a worker silent: {@link Round.ReleaseAll}, the client told busy.
 *   <li>Otherwise {@link Round.Waiting} until the deadline; after the decision, {@link Round.Done}.
 * </ol>
 *
 * <p>The client never decides; it only hears the outcome. A worker's duplicate answers after its
 * first are ignored, as are answers from workers outside the round. An immutable value on the
 * supervisor's monotonic clock.
 */
public final class QuiesceRound {
  /** The state of the round after an event. */
  public sealed interface Round {
    /**
     * Still collecting answers.
     *
     * @param deadlineMonoMs when silence becomes a busy round, ms
     */
    record Waiting(long deadlineMonoMs) implements Round {}

    /**
     * Every worker quiesced: stop them all (idle-shutdown stop), then shut down.
     *
     * @param workers every worker of the round
     */
    record StopAll(Set<String> workers) implements Round {
      public StopAll {
        workers = Collections.unmodifiableSortedSet(new TreeSet<>(workers));
      }
    }

    /**
     * Not every worker quiesced: release every worker (each gate reopens) and tell the client busy.
     *
     * @param workers every worker of the round
     * @param busy    the workers that answered busy, with their work described
     * @param silent  the workers that did not answer within the window
     * @param answerMs the round's answer window, ms
     */
    record ReleaseAll(Set<String> workers, SortedMap<String, String> busy, Set<String> silent, long answerMs)
        implements Round {
      public ReleaseAll {
        workers = Collections.unmodifiableSortedSet(new TreeSet<>(workers));
        busy = Collections.unmodifiableSortedMap(new TreeMap<>(busy));
        silent = Collections.unmodifiableSortedSet(new TreeSet<>(silent));
      }

      /**
       * What the client is told; a worker that did not answer counts as having work (S5), e.g.
       * {@code busy: 2 workers have work: w1 (1 run); w2 (no answer within 2s)}.
       */
      public String message() {
        int n = busy.size() + silent.size();
        StringBuilder b = new StringBuilder("busy: ").append(n).append(n == 1 ? " worker has work: " : " workers have work: ");
        String sep = "";
        for (Map.Entry<String, String> e : busy.entrySet()) {
          b.append(sep).append(e.getKey()).append(" (").append(e.getValue()).append(')');
          sep = "; ";
        }
        for (String w : silent) {
          b.append(sep).append(w).append(" (no answer within ").append(Durations.format(answerMs)).append(')');
          sep = "; ";
        }
        return b.toString();
      }
    }

    /** The round was decided earlier; nothing more to do. */
    record Done() implements Round {}
  }

  private final SortedSet<String> workers;
  private final long quiesceAnswerMs;
  private final long startedAtMonoMs;
  private final SortedSet<String> quiesced;
  private final boolean decided;

  private QuiesceRound(SortedSet<String> workers, long quiesceAnswerMs, long startedAtMonoMs,
                       SortedSet<String> quiesced, boolean decided) {
    this.workers = workers;
    this.quiesceAnswerMs = quiesceAnswerMs;
    this.startedAtMonoMs = startedAtMonoMs;
    this.quiesced = quiesced;
    this.decided = decided;
  }

  /**
   * A round over {@code workers} that started (sent {@code quiesce}) at {@code nowMonoMs}. A round
   * over no workers stops at its first event.
   */
  public static QuiesceRound start(Set<String> workers, long quiesceAnswerMs, long nowMonoMs) {
    Objects.requireNonNull(workers, "workers");
    if (quiesceAnswerMs <= 0) {
      throw new IllegalArgumentException("quiesceAnswer (" + Durations.format(quiesceAnswerMs) + ") must be > 0");
    }
    return new QuiesceRound(Collections.unmodifiableSortedSet(new TreeSet<>(workers)), quiesceAnswerMs, nowMonoMs,
        Collections.emptySortedSet(), false);
  }

  /** A round with the lattice's {@code quiesceAnswer}. */
  public static QuiesceRound start(Set<String> workers, TimeoutLattice t, long nowMonoMs) {
    return start(workers, t.ms(TimeoutLattice.Timeout.QUIESCE_ANSWER), nowMonoMs);
  }

  /** Takes one worker's answer arriving at {@code nowMonoMs}. */
  public Step<QuiesceRound, Round> onAnswer(String worker, WorkGate.Answer answer, long nowMonoMs) {
    Objects.requireNonNull(worker, "worker");
    Objects.requireNonNull(answer, "answer");
    if (decided) {
      return new Step<>(this, new Round.Done());
    }
    if (late(nowMonoMs)) {
      return onTick(nowMonoMs);
    }
    if (!workers.contains(worker) || quiesced.contains(worker)) {
      return onTick(nowMonoMs);
    }
    if (answer instanceof WorkGate.Answer.Busy busy) {
      TreeSet<String> silent = new TreeSet<>(workers);
      silent.removeAll(quiesced);
      silent.remove(worker);
      return decide(new Round.ReleaseAll(workers, new TreeMap<>(Map.of(worker, busy.work().describe())), silent,
          quiesceAnswerMs));
    } else if (answer instanceof WorkGate.Answer.Quiesced) {
      TreeSet<String> q = new TreeSet<>(quiesced);
      q.add(worker);
      return new QuiesceRound(workers, quiesceAnswerMs, startedAtMonoMs, Collections.unmodifiableSortedSet(q), false)
          .onTick(nowMonoMs);
    } else {
      throw new AssertionError(answer);
    }
  }

  /** Decides the round at {@code nowMonoMs} if it can be decided. */
  public Step<QuiesceRound, Round> onTick(long nowMonoMs) {
    if (decided) {
      return new Step<>(this, new Round.Done());
    }
    if (quiesced.containsAll(workers)) {
      return decide(new Round.StopAll(workers));
    }
    if (late(nowMonoMs)) {
      TreeSet<String> silent = new TreeSet<>(workers);
      silent.removeAll(quiesced);
      return decide(new Round.ReleaseAll(workers, new TreeMap<>(), silent, quiesceAnswerMs));
    }
    return new Step<>(this, new Round.Waiting(deadlineMonoMs()));
  }

  /** When silence becomes a busy round, ms. */
  public long deadlineMonoMs() {
    return startedAtMonoMs + quiesceAnswerMs;
  }

  /** Whether the round was decided. */
  public boolean decided() {
    return decided;
  }

  private boolean late(long nowMonoMs) {
    return nowMonoMs - startedAtMonoMs >= quiesceAnswerMs;
  }

  private Step<QuiesceRound, Round> decide(Round r) {
    return new Step<>(new QuiesceRound(workers, quiesceAnswerMs, startedAtMonoMs, quiesced, true), r);
  }

  @Override
  public String toString() {
    return "QuiesceRound[workers " + workers + ", quiesced " + quiesced + (decided ? ", decided" : "") + "]";
  }
}
