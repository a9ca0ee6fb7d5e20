package dev.vigil.supervisor.engine;

import dev.vigil.coordination.RunId;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Where a worker lives: a task run (one directory and one worker per {@link RunId}) or a service
 * session (one directory per service name, reused by each of its workers). Every port keys its
 * worker by this value: the run directory, the reservation, the identity record, the socket
 * connection.
 */
public sealed interface WorkerKey extends Comparable<WorkerKey> {
  /** The name in messages and in quiesce rounds, e.g. {@code t-3.1} or {@code service:indexer}. */
  String name();

  @Override
  default int compareTo(WorkerKey o) {
    return name().compareTo(o.name());
  }

  /** The worker of one task run. */
  record Task(RunId run) implements WorkerKey {
    public Task {
      Objects.requireNonNull(run, "run");
    }

    @Override
    public String name() {
      return run.toString();
    }

    @Override
    public String toString() {
      return name();
    }
  }

  /** The worker of a service session named in the configuration. */
  record Service(String service) implements WorkerKey {
    private static final Pattern VALID = Pattern.compile("[a-z0-9][a-z0-9_-]{0,31}");

    public Service {
      Objects.requireNonNull(service, "service");
      if (!VALID.matcher(service).matches()) {
        throw new IllegalArgumentException(
            "service '" + service + "' must be 1-32 lower-case letters, digits, _ or - (starting with a letter or digit)");
      }
    }

    @Override
    public String name() {
      return "service:" + service;
    }

    @Override
    public String toString() {
      return name();
    }
  }
}
