package dev.vigil.worker.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.worker.host.RunSettings;
import dev.vigil.worker.host.WorkerArgs;
import dev.vigil.worker.process.LaunchSpec;
import dev.vigil.worker.process.LaunchedWorker;
import dev.vigil.worker.process.Processes;
import dev.vigil.worker.protocol.RunToken;
import dev.vigil.worker.rundir.RunDirectory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/** Launches real worker hosts the way the daemon will: run directory, payload, token in the environment. */
public final class Workers {
  private Workers() {}

  /** This JVM's java launcher. */
  public static Path java() {
    return Path.of(System.getProperty("java.home"), "bin", "java");
  }

  /** This JVM's classpath (worker-runtime, its dependencies, test types). */
  public static String classpath() {
    return System.getProperty("java.class.path");
  }

  /** Creates the run directory, writes the payload (when not null) and launches the worker host. */
  public static LaunchedWorker launch(WorkerArgs args, String token, JsonNode payload) throws IOException {
    return launch(args, token, payload, RunSettings.NONE);
  }

  /** As {@link #launch(WorkerArgs, String, JsonNode)}, with recorded settings in the host's environment, as the daemon passes them. */
  public static LaunchedWorker launch(WorkerArgs args, String token, JsonNode payload, RunSettings settings)
      throws IOException {
    RunDirectory dir = RunDirectory.create(args.home(), args.run());
    if (payload != null) {
      dir.writePayload(payload);
    }
    Map<String, String> env = LaunchSpec.baseEnvironment();
    env.put(RunToken.ENV, token);
    if (!settings.none()) {
      env.put(RunSettings.ENV, settings.encode());
    }
    return Processes.launch(new LaunchSpec(args.command(java(), WorkerArgs.FAST_START_FLAGS, classpath()), env,
        dir.path(), dir.stdoutLog(), dir.stderrLog()));
  }
}
