package dev.vigil.worker.host;

import dev.vigil.supervisor.engine.WorkerTypeSpec;
import dev.vigil.worker.WorkerType;

/** The worker type a host runs: the built-in command type, or the class its arguments declare. */
final class Types {
  private Types() {}

  /**
   * What {@code implementation} names, loaded from the host's own classpath (Vigil's classpath plus
   * the type's entries, as the daemon launched it).
   *
   * @throws IllegalArgumentException with a one-line reason when the class cannot be run
   */
  static WorkerType load(WorkerTypeSpec.Implementation implementation, long childDrainMs) {
    if (implementation instanceof WorkerTypeSpec.Command c) {
      return new CommandWorker(childDrainMs, c);
    } else if (implementation instanceof WorkerTypeSpec.Declared d) {
      return TypeLoader.instantiate(d.className(), Types.class.getClassLoader());
    } else {
      throw new AssertionError(implementation);
    }
  }
}
