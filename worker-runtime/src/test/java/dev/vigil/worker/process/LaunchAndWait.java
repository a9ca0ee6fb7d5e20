package dev.vigil.worker.process;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.coordination.RunId;
import dev.vigil.supervisor.engine.WorkerTypeSpec;
import dev.vigil.worker.host.WorkerArgs;
import dev.vigil.worker.protocol.RunToken;
import dev.vigil.worker.testkit.TestDaemon;
import dev.vigil.worker.testkit.Workers;
import java.nio.file.Path;

/**
 * A stand-in launcher JVM for the kill -9 test: launches one worker host for run {@code args[1]}
 * under home {@code args[0]} with the token from its own environment, prints
 * {@code launched <pid>}, and waits to be killed.
 */
public final class LaunchAndWait {
  private LaunchAndWait() {}

  public static void main(String[] args) throws Exception {
    Path home = Path.of(args[0]);
    RunId run = RunId.parse(args[1]);
    LaunchedWorker w = Workers.launch(WorkerArgs.task(home, run, 1, "command", WorkerTypeSpec.Command.DEFAULT, TestDaemon.BUILD), System.getenv(RunToken.ENV),
        new ObjectMapper().readTree(args[2]));
    System.out.println("launched " + w.pid());
    System.out.flush();
    Thread.sleep(600_000);
  }
}
