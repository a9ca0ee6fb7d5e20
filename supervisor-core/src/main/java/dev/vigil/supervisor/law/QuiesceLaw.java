package dev.vigil.supervisor.law;

import dev.vigil.supervisor.QuiesceRound.Round;
import dev.vigil.supervisor.WorkGate.Admission;
import dev.vigil.supervisor.WorkGate.Answer;
import dev.vigil.supervisor.WorkGate.StopAnswer;
import dev.vigil.supervisor.WorkSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** S5 as written, for one worker's gate ({@link Gate}) and one supervisor round ({@link Round}). */
public final class QuiesceLaw {
  private QuiesceLaw() {}

  /**
   * A worker's gate as a log: an idle worker asked to quiesce closes its gate and answers quiesced;
   * a busy one answers busy; the gate is open unless its latest close is younger than the hold and
   * no release came after it; after an idle-shutdown stop it admits nothing again.
   */
  public static final class Gate {
    private final long holdMs;
    private final List<long[]> closes = new ArrayList<>();
    private int releasedAfter = -1;
    private boolean stopping;

    public Gate(long holdMs) {
      this.holdMs = holdMs;
    }

    /** {@code quiesce} arrives. */
    public Answer onQuiesce(WorkSet work, long nowMonoMs) {
      if (work.isBusy()) {
        return new Answer.Busy(work);
      }
      if (!stopping) {
        closes.add(new long[] {nowMonoMs});
      }
      return new Answer.Quiesced();
    }

    /** {@code release} arrives. */
    public void onRelease() {
      releasedAfter = closes.size() - 1;
    }

    /** Whether the gate is open at {@code nowMonoMs}. */
    public boolean isOpen(long nowMonoMs) {
      if (stopping) {
        return false;
      }
      if (closes.isEmpty() || releasedAfter == closes.size() - 1) {
        return true;
      }
      return nowMonoMs - closes.get(closes.size() - 1)[0] >= holdMs;
    }

    /** New work asks to enter. */
    public Admission admit(long nowMonoMs) {
      if (isOpen(nowMonoMs)) {
        return new Admission.Admit();
      }
      return new Admission.Refuse(stopping ? OptionalLong.empty()
          : OptionalLong.of(closes.get(closes.size() - 1)[0] + holdMs));
    }

    /** The idle-shutdown stop arrives: a worker with work is never stopped. */
    public StopAnswer onIdleStop(WorkSet work) {
      if (work.isBusy()) {
        return new StopAnswer.Refuse(work);
      }
      stopping = true;
      return new StopAnswer.Comply();
    }
  }

  /**
   * A round as a log of answers: stop only if every worker quiesced within the answer window; a
   * busy answer within the window, or the window passing with a worker silent, releases every
   * worker; an answer at or after the window's end is ignored; the first answer of each worker
   * counts.
   */
  public static final class RoundLaw {
    private final Set<String> workers;
    private final long answerMs;
    private final long startMonoMs;
    private final Map<String, Answer> firstInWindow = new LinkedHashMap<>();
    private boolean decided;

    public RoundLaw(Set<String> workers, long answerMs, long startMonoMs) {
      this.workers = new TreeSet<>(workers);
      this.answerMs = answerMs;
      this.startMonoMs = startMonoMs;
    }

    /** An answer arrives. */
    public Round onAnswer(String worker, Answer answer, long nowMonoMs) {
      if (decided) {
        return new Round.Done();
      }
      boolean inWindow = nowMonoMs - startMonoMs < answerMs;
      if (inWindow && workers.contains(worker) && !firstInWindow.containsKey(worker)) {
        firstInWindow.put(worker, answer);
        if (answer instanceof Answer.Busy busy) {
          decided = true;
          Set<String> silent = new TreeSet<>(workers);
          silent.removeAll(firstInWindow.keySet());
          return new Round.ReleaseAll(workers, new TreeMap<>(Map.of(worker, busy.work().describe())), silent, answerMs);
        }
      }
      return onTick(nowMonoMs);
    }

    /** Time passes. */
    public Round onTick(long nowMonoMs) {
      if (decided) {
        return new Round.Done();
      }
      if (firstInWindow.keySet().containsAll(workers)) {
        decided = true;
        return new Round.StopAll(workers);
      }
      if (nowMonoMs - startMonoMs >= answerMs) {
        decided = true;
        Set<String> silent = new TreeSet<>(workers);
        silent.removeAll(firstInWindow.keySet());
        return new Round.ReleaseAll(workers, new TreeMap<>(), silent, answerMs);
      }
      return new Round.Waiting(startMonoMs + answerMs);
    }
  }
}
