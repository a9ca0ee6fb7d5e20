package dev.vigil.supervisor.engine.port;

import dev.vigil.coordination.RunId;
import dev.vigil.supervisor.RevivalGate;
import dev.vigil.supervisor.engine.WorkerKey;
import java.util.Optional;

/**
 * The workers' directories ({@code <home>/runs/<run-id>/} for a task run, one directory per
 * service session), implemented by worker-runtime. A directory holds {@code reservation.lock}
 * (an exclusive OS lock the worker holds for its whole life), {@code identity.json},
 * {@code outcome.json}, {@code busy.json} and the logs.
 *
 * <p>Every read is permissive: a missing, truncated or corrupt file reads as a value with a
 * diagnosis, never as an exception. Threading: called only on the scheduling thread; each call is
 * a short local file operation (a lock probe, a small read) and must not block on a worker.
 */
public interface RunDirectories {
  /**
   * Creates the directory of {@code key} (0700) if it does not exist; for a service, an existing
   * directory is kept as it is (its busy record and logs belong to the session).
   */
  Prepared prepare(WorkerKey key);

  /**
   * True while some live process holds the reservation lock of {@code key}: a free lock means no
   * live worker (C5, Q4). False when the directory does not exist. Probing must not take the lock
   * in a way a worker could observe as held for longer than the probe.
   */
  boolean isReserved(WorkerKey key);

  /**
   * The worker's {@code identity.json}: its identity, build and token hash, written after it took
   * its reservation (Q3).
   */
  IdentityRecord identity(WorkerKey key);

  /** The run's {@code outcome.json} (written to a temporary file, fsynced, renamed by the worker). */
  OutcomeRecord outcome(RunId run);

  /**
   * The latest checkpoint the worker of {@code run} saved in its {@code checkpoint.json} (Q17: written to a
   * temporary file, fsynced, renamed, before the worker's {@code checkpoint} call returns); empty when there
   * is none or it cannot be read (a file a crash cut short is never one: the rename is atomic).
   */
  Optional<SavedCheckpoint> checkpoint(RunId run);

  /**
   * A checkpoint as a worker saved it in its directory.
   *
   * @param seq   its number within the run, from 1
   * @param value the saved value, JSON text of at most {@link dev.vigil.coordination.Checkpoint#MAX_BYTES}
   */
  record SavedCheckpoint(long seq, String value) {
    public SavedCheckpoint {
      dev.vigil.coordination.Checkpoint.check(seq, value);
    }
  }

  /**
   * The latest busy-evidence record of a service's worker ({@code busy.json}, S3); empty when
   * missing or unreadable (a boot never revives a worker without a readable busy record).
   */
  Optional<RevivalGate.BusyRecord> latestBusy(WorkerKey key);

  /**
   * The end of the worker's {@code stderr.log}, for the diagnosis of a worker that died before it took
   * its run lock: a JVM that could not start (no main class, a bad flag) says why only there. A few
   * lines without stack frames, joined on one line and cut to a few hundred characters from the end;
   * empty when the log is missing, empty or unreadable.
   */
  Optional<String> lastWords(WorkerKey key);

  /**
   * S7: how long the worker's output stream ({@code stdout.log}) is now, in bytes of the stream (bytes cut from
   * the middle of a bounded log counted), so that a transcript entry can say which output came before it; 0 when
   * there is none or it cannot be read.
   */
  long outputMark(WorkerKey key);
}
