package dev.vigil.supervisor.engine.port;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RunExit;
import java.util.Objects;

/**
 * A worker process the shell launched has exited (the shell learns this from its own child,
 * {@code Process.onExit}); adopted workers, which are not the shell's children, produce no such
 * event and are found dead by identity and reservation instead (C5).
 *
 * @param identity the identity {@link Launch.Started} reported
 * @param exitCode the exit status, or {@code null} when a signal ended it
 * @param signal   the signal that ended it, or {@code null}
 */
public record ProcessExit(ProcessIdentity identity, Integer exitCode, Integer signal) {
  public ProcessExit {
    Objects.requireNonNull(identity, "identity");
    new RunExit(exitCode, signal, 0); // validates the code/signal pair
  }

  public static ProcessExit code(ProcessIdentity identity, int exitCode) {
    return new ProcessExit(identity, exitCode, null);
  }

  public static ProcessExit signal(ProcessIdentity identity, int signal) {
    return new ProcessExit(identity, null, signal);
  }

  /** As the facts {@code takeExit} records. */
  public RunExit at(long nowWallMs) {
    return new RunExit(exitCode, signal, nowWallMs);
  }

  /** Whether the worker ended with status 0. */
  public boolean clean() {
    return exitCode != null && exitCode == 0;
  }

  @Override
  public String toString() {
    return exitCode != null ? "code " + exitCode : "signal " + signal;
  }
}
