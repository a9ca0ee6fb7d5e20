package dev.vigil.worker.host;

import dev.vigil.worker.WorkerType;
import java.util.ServiceLoader;

/** Finds a worker type by name: the built-in {@code command}, or one found by {@link ServiceLoader}. */
final class Types {
  private Types() {}

  /**
   * The type called {@code name}.
   *
   * @throws IllegalArgumentException when none, or more than one, is called so
   */
  static WorkerType find(String name, long childDrainMs) {
    WorkerType found = name.equals(CommandWorker.NAME) ? new CommandWorker(childDrainMs) : null;
    for (WorkerType t : ServiceLoader.load(WorkerType.class)) {
      if (t.name().equals(name)) {
        if (found != null) {
          throw new IllegalArgumentException("two worker types are called '" + name + "': " + found.getClass().getName()
              + " and " + t.getClass().getName());
        }
        found = t;
      }
    }
    if (found == null) {
      throw new IllegalArgumentException("no worker type called '" + name + "' on the worker's classpath");
    }
    return found;
  }
}
