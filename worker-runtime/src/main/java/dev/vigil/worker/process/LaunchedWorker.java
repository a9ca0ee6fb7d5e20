package dev.vigil.worker.process;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RunExit;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A worker this JVM launched: its identity (the pid is its session and group leader) and the
 * {@link Process} whose exit code only the launching JVM can learn.
 *
 * @param pid      the worker's pid
 * @param identity the worker's identity, with {@code pgid == pid}; empty only when the process
 *                 ended before its identity could be read (nothing is left to signal, only its exit)
 * @param process  the child process
 */
public record LaunchedWorker(long pid, Optional<ProcessIdentity> identity, Process process) {
  /** Highest signal number an exit status of {@code 128 + signal} is read as. */
  private static final int MAX_SIGNAL = 64;

  public LaunchedWorker {
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(process, "process");
    if (identity.isPresent() && identity.get().pid() != pid) {
      throw new IllegalArgumentException("identity " + identity.get() + " is not of pid " + pid);
    }
  }

  /**
   * Completes when the worker exits. Java reports death by signal {@code n} as status {@code 128 + n};
   * a status in {@code 129..192} is read as that signal (a worker host never exits with such a code).
   */
  public CompletableFuture<RunExit> onExit() {
    return process.onExit().thenApply(p -> exitOf(p.exitValue(), System.currentTimeMillis()));
  }

  static RunExit exitOf(int status, long atMs) {
    if (status > 128 && status <= 128 + MAX_SIGNAL) {
      return RunExit.signal(status - 128, atMs);
    }
    return RunExit.code(status & 0xff, atMs);
  }
}
