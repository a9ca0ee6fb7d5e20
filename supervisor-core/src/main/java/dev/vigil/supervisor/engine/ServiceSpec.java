package dev.vigil.supervisor.engine;

import java.util.Objects;

/**
 * A service session from the configuration: one worker at a time (DESIGN.md §7).
 *
 * @param name       the session's name, as in {@link WorkerKey.Service}
 * @param workerType the configured worker type that serves it
 * @param spec       the worker's input, JSON text
 * @param activation when the engine keeps a worker running
 */
public record ServiceSpec(String name, String workerType, String spec, Activation activation) {
  /** When a service has a worker. */
  public enum Activation {
    /** Always: launched at boot, restarted after every exit under the restart budget (S1). */
    ALWAYS,
    /**
     * On demand: launched by {@link Command.StartService}, or at boot when its dead worker's busy
     * evidence revives it (S3); a worker that exits without work leaves the session down.
     */
    ON_DEMAND
  }

  public ServiceSpec {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(workerType, "workerType");
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(activation, "activation");
    new WorkerKey.Service(name); // validates the name
  }

  WorkerKey.Service key() {
    return new WorkerKey.Service(name);
  }
}
