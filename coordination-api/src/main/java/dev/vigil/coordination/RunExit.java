package dev.vigil.coordination;

/**
 * The facts of a worker's end as observed by whoever took the exit checkpoint. A supervisor that
 * launched the worker knows its exit code or signal; recovery, which finds a process dead by
 * identity, knows neither.
 *
 * @param exitCode the exit status, or {@code null} if unknown or killed by a signal
 * @param signal   the signal that ended it, or {@code null}
 * @param atMs     wall-clock ms at which the exit was observed
 */
public record RunExit(Integer exitCode, Integer signal, long atMs) {
  public RunExit {
    if (exitCode != null && signal != null) {
      throw new IllegalArgumentException("an exit has a code or a signal, not both");
    }
    if (exitCode != null && (exitCode < 0 || exitCode > 255)) {
      throw new IllegalArgumentException("exitCode (" + exitCode + ") must be 0-255");
    }
    if (signal != null && (signal < 1 || signal > 128)) {
      throw new IllegalArgumentException("signal (" + signal + ") must be 1-128");
    }
  }

  public static RunExit code(int exitCode, long atMs) {
    return new RunExit(exitCode, null, atMs);
  }

  public static RunExit signal(int signal, long atMs) {
    return new RunExit(null, signal, atMs);
  }

  /** The process was found dead by identity; how it ended is unknown. */
  public static RunExit unknown(long atMs) {
    return new RunExit(null, null, atMs);
  }

  @Override
  public String toString() {
    return exitCode != null ? "code " + exitCode : signal != null ? "signal " + signal : "unknown";
  }
}
