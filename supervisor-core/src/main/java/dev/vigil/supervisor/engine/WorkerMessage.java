package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Verdict;
import dev.vigil.supervisor.WorkSet;
import dev.vigil.supervisor.engine.port.ProcessTable;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A frame from a worker (DESIGN.md §6), as the socket adapter decodes it. {@link Hello} goes to
 * {@link Engine#onHello}; every other message comes from a connection the engine welcomed and goes
 * to {@link Engine#onMessage} with that connection's {@link WorkerKey}.
 */
public sealed interface WorkerMessage {
  /**
   * A worker introduces itself: after it took its reservation and wrote its identity, and again
   * after every reconnect (a worker outlives a lost daemon and says hello to the next one, S4).
   *
   * @param key       the run or service it claims to serve
   * @param tokenHash SHA-256 (64 lower-case hex digits) of the token it presented; the adapter
   *                  hashes the token, the engine compares hashes in constant time (C9)
   * @param build     the build the worker runs (S6)
   * @param pid       its pid; the engine resolves the full identity through {@link ProcessTable#identity}
   */
  record Hello(WorkerKey key, String tokenHash, String build, long pid) implements WorkerMessage {
    private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");

    public Hello {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(tokenHash, "tokenHash");
      Objects.requireNonNull(build, "build");
      if (!SHA256_HEX.matcher(tokenHash).matches()) {
        throw new IllegalArgumentException("tokenHash must be 64 lower-case hex digits (a SHA-256)");
      }
      if (pid <= 0) {
        throw new IllegalArgumentException("pid (" + pid + ") must be > 0");
      }
    }
  }

  /**
   * The worker has work: busy evidence (S3), or its answer to {@code quiesce} or to the
   * idle-shutdown stop (S5), which it refuses while it has work.
   *
   * @param work the work in flight (S3: one definition of work everywhere)
   */
  record Busy(WorkSet work) implements WorkerMessage {
    public Busy {
      Objects.requireNonNull(work, "work");
    }
  }

  /** The worker has no work (S3). */
  record Idle() implements WorkerMessage {}

  /** The answer to {@code quiesce} of an idle worker: its gate is closed (S5). */
  record Quiesced() implements WorkerMessage {}

  /**
   * Progress for humans; decides nothing.
   *
   * @param text what the worker says
   */
  record Progress(String text) implements WorkerMessage {
    public Progress {
      Objects.requireNonNull(text, "text");
    }
  }

  /**
   * The worker reports the outcome it has already written durably; decides nothing by itself: the
   * run is settled from {@code outcome.json} once the worker is dead (C5).
   *
   * @param verdict the verdict it wrote
   */
  record OutcomeReported(Verdict verdict) implements WorkerMessage {
    public OutcomeReported {
      Objects.requireNonNull(verdict, "verdict");
    }
  }

  /**
   * S7: the worker started over a restored snapshot: restore {@code restoreId} of {@code snapshot}. Said again,
   * with the same id, after every reconnect: the store keeps one notice per restore.
   */
  record Restored(String restoreId, String snapshot) implements WorkerMessage {
    public Restored {
      Objects.requireNonNull(restoreId, "restoreId");
      Objects.requireNonNull(snapshot, "snapshot");
    }
  }

  /**
   * The worker asks a person (Q16): its {@code seq}-th question within its run (asked again, with the same
   * number, after every reconnect).
   */
  record Ask(long seq, String text, java.util.List<dev.vigil.coordination.QuestionOption> options)
      implements WorkerMessage {
    public Ask {
      Objects.requireNonNull(text, "text");
      options = java.util.List.copyOf(options);
      if (seq < 1) {
        throw new IllegalArgumentException("seq (" + seq + ") must be >= 1");
      }
    }
  }
}
