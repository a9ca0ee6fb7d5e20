package dev.vigil.supervisor.engine.port;

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
 */
public record LaunchRequest(WorkerKey key, WorkerTypeSpec type, String payload, int attempt, String build) {
  public LaunchRequest {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(build, "build");
    if (attempt < 0) {
      throw new IllegalArgumentException("attempt (" + attempt + ") must be >= 0");
    }
  }
}
