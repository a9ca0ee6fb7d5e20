package dev.vigil.coordination;

import java.util.Objects;

/**
 * Where and how every run of a ticket runs, recorded at submission.
 *
 * @param workDir   the absolute directory the command runs in, or {@code null} for the run's own
 *                  directory. A directory that is gone at run time blocks the run (no attempt spent,
 *                  the ticket is HELD, the diagnosis names the directory).
 * @param env       the whole environment of the command, or {@code null} when none was recorded (the
 *                  worker's small default environment: PATH, HOME and LANG)
 * @param timeoutMs the longest a run may take before the daemon stops it (Q12), ms; 0 for the
 *                  lane's default (none when the lane has none)
 */
public record RunSpec(String workDir, Environment env, long timeoutMs) {
  /** The most a time limit may be: 366 days, ms. */
  public static final long MAX_TIMEOUT_MS = 366L * 24 * 3_600_000;
  /** Nothing recorded: the run directory, the default environment, the lane's time limit. */
  public static final RunSpec DEFAULT = new RunSpec(null, null, 0);

  public RunSpec {
    if (workDir != null) {
      checkWorkDir(workDir);
    }
    checkTimeout(timeoutMs);
  }

  /** The rule for a working directory: an absolute path, without NUL, at most 4096 characters. */
  public static String checkWorkDir(String workDir) {
    Objects.requireNonNull(workDir, "workDir");
    if (!workDir.startsWith("/") || workDir.indexOf('\0') >= 0 || workDir.length() > 4096) {
      throw new IllegalArgumentException("the working directory '" + workDir
          + "' must be an absolute path (without NUL, at most 4096 characters)");
    }
    return workDir;
  }

  /** The rule for a time limit: 0 (none of its own) up to {@link #MAX_TIMEOUT_MS}. */
  public static long checkTimeout(long timeoutMs) {
    if (timeoutMs < 0 || timeoutMs > MAX_TIMEOUT_MS) {
      throw new IllegalArgumentException("timeout (" + timeoutMs + " ms) must be between 0 and 366 days");
    }
    return timeoutMs;
  }

  public RunSpec withWorkDir(String dir) {
    return new RunSpec(dir, env, timeoutMs);
  }

  public RunSpec withEnv(Environment e) {
    return new RunSpec(workDir, e, timeoutMs);
  }

  public RunSpec withTimeout(long ms) {
    return new RunSpec(workDir, env, ms);
  }
}
