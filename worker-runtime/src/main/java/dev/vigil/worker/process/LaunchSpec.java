package dev.vigil.worker.process;

import dev.vigil.worker.protocol.RunToken;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What to launch as a worker. The process gets exactly {@code environment} (nothing is inherited),
 * stdin from {@code /dev/null}, and stdout/stderr appended to the two files, never a pipe to the
 * launcher (DESIGN.md §5). Secrets travel only in the environment: the compact constructor rejects a
 * command line that contains the run token, the value of {@link RunToken#ENV} (C9).
 *
 * @param command          the program and its arguments (no secrets), e.g. from
 *                         {@code WorkerArgs.command(…)}
 * @param environment      the whole environment of the worker
 * @param workingDirectory the worker's working directory (its run directory)
 * @param stdout           file the worker's stdout is appended to (created 0600 by the run directory)
 * @param stderr           file the worker's stderr is appended to
 */
public record LaunchSpec(List<String> command, Map<String, String> environment, Path workingDirectory, Path stdout,
    Path stderr) {
  /** Variables {@link #baseEnvironment()} copies from this process, when set. */
  private static final List<String> BASE_VARIABLES = List.of("PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TZ",
      "TMPDIR", "JAVA_HOME");

  public LaunchSpec {
    Objects.requireNonNull(command, "command");
    Objects.requireNonNull(environment, "environment");
    Objects.requireNonNull(workingDirectory, "workingDirectory");
    Objects.requireNonNull(stdout, "stdout");
    Objects.requireNonNull(stderr, "stderr");
    command = List.copyOf(command);
    environment = Map.copyOf(environment);
    if (command.isEmpty()) {
      throw new IllegalArgumentException("command must not be empty");
    }
    String token = environment.get(RunToken.ENV);
    if (token != null && !token.isEmpty()) {
      for (String arg : command) {
        if (arg.contains(token)) {
          throw new IllegalArgumentException("command must not contain the run token: it goes only in the environment");
        }
      }
    }
  }

  /**
   * A starting point for a worker's environment: {@code PATH}, {@code HOME}, {@code USER},
   * {@code LOGNAME}, {@code LANG}, {@code LC_ALL}, {@code TZ}, {@code TMPDIR} and {@code JAVA_HOME}
   * of this process, when set. Add the run token and anything else explicitly.
   */
  public static Map<String, String> baseEnvironment() {
    Map<String, String> env = new java.util.TreeMap<>();
    for (String name : BASE_VARIABLES) {
      String value = System.getenv(name);
      if (value != null) {
        env.put(name, value);
      }
    }
    return env;
  }
}
