package dev.vigil.supervisor.engine.port;

import dev.vigil.coordination.RunSpec;
import dev.vigil.supervisor.OutputBound;
import dev.vigil.supervisor.engine.WorkerKey;
import dev.vigil.supervisor.engine.WorkerTypeSpec;
import java.util.Objects;

/**
 * What {@link ProcessTable#launch} starts: one worker host for {@code key}.
 *
 * @param key     the run or service the worker serves; its directory exists ({@link RunDirectories#prepare})
 * @param type    the configured worker type the host runs: what it runs and the classpath it gets
 * @param payload the worker's input, JSON text (a ticket's payload or a service's spec)
 * @param attempt the attempt number of a task run; 0 for a service
 * @param build   the build of the launching daemon, which the worker reports in its hello (S6)
 * @param spec    where and with what environment a task's command runs, as recorded at submission;
 *                {@link RunSpec#DEFAULT} for a service. The environment's values are secrets: an
 *                adapter passes them to the worker only, never in its command line or a file
 * @param output  how much of the worker's stdout and of its stderr is kept: its lane's bound, the
 *                default bound for a service
 * @param previousCheckpoint the checkpoint this attempt resumes from (Q17): its ticket's latest, when its
 *                type is resumable and the ticket keeps one ({@link dev.vigil.coordination.Resumption});
 *                else {@code null}. The adapter hands it to the worker through its directory
 */
public record LaunchRequest(WorkerKey key, WorkerTypeSpec type, String payload, int attempt, String build,
                            RunSpec spec, OutputBound output, dev.vigil.coordination.Checkpoint previousCheckpoint) {
  /** A request that resumes from nothing. */
  public LaunchRequest(WorkerKey key, WorkerTypeSpec type, String payload, int attempt, String build,
                       RunSpec spec, OutputBound output) {
    this(key, type, payload, attempt, build, spec, output, null);
  }

  public LaunchRequest {
    if (previousCheckpoint != null && !(key instanceof WorkerKey.Task t
        && t.run().ticket().equals(previousCheckpoint.ticket()) && previousCheckpoint.run().compareTo(t.run()) < 0)) {
      throw new IllegalArgumentException("the checkpoint of " + previousCheckpoint.run() + " given to " + key
          + ": an attempt resumes only from an earlier run of its own ticket"); // Q17
    }
    Objects.requireNonNull(output, "output");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(build, "build");
    Objects.requireNonNull(spec, "spec");
    if (attempt < 0) {
      throw new IllegalArgumentException("attempt (" + attempt + ") must be >= 0");
    }
  }

  /** A request with the default spec (a service's, or a task's that recorded none) and the default output bound. */
  public LaunchRequest(WorkerKey key, WorkerTypeSpec type, String payload, int attempt, String build) {
    this(key, type, payload, attempt, build, RunSpec.DEFAULT, OutputBound.DEFAULT);
  }
}
