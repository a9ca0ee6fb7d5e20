package dev.vigil.worker.host;

import dev.vigil.coordination.RunId;
import dev.vigil.coordination.TicketId;
import dev.vigil.supervisor.engine.WorkerTypeSpec;
import dev.vigil.worker.internal.Json;
import dev.vigil.worker.protocol.Message;
import dev.vigil.worker.protocol.Peer;
import dev.vigil.worker.protocol.ProtocolServer;
import dev.vigil.worker.protocol.RunToken;
import dev.vigil.worker.protocol.Subject;
import dev.vigil.worker.rundir.RunDirectory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The start of a worker host, played once so that the JVM running it can write the hosts' class
 * archive at its exit ({@code dev.vigil.worker.process.StartArchive}): {@code WorkerMain
 * --train-archive DIR} runs a real host for the built-in command type on {@code true}, in a run
 * directory under DIR (a fresh, private directory that is no Vigil home), against a stand-in
 * daemon in the same JVM that welcomes it with go. The host's path is the real one: reservation,
 * identity, payload, hello, the command, the outcome and its report.
 */
final class ArchiveTraining {
  /** The build the stand-in daemon and the host name. */
  static final String BUILD = "archive-training";

  private ArchiveTraining() {}

  /** Plays one host start in {@code dir}; returns the host's exit status (0 when all went well). */
  static int run(Path dir) throws IOException, InterruptedException {
    RunId run = new RunId(new TicketId(1), 1);
    String token = RunToken.generate();
    String hash = RunToken.hash(token);
    Subject subject = new Subject.Run(run.toString());
    RunDirectory rd = RunDirectory.create(dir, run.toString());
    rd.writePayload(Json.parse("{\"argv\":[\"true\"]}".getBytes(StandardCharsets.UTF_8)));
    try (ProtocolServer server = ProtocolServer.start(dir.resolve("vigil.sock"),
        s -> s.equals(subject) ? Optional.of(hash) : Optional.empty(), new ProtocolServer.Handler() {
          @Override
          public void onMessage(Peer peer, Message.ToDaemon m) {
            if (m instanceof Message.Hello) {
              peer.send(new Message.Welcome(BUILD, true));
            }
          }
        })) {
      WorkerArgs args = WorkerArgs.task(dir, run, 1, "command", WorkerTypeSpec.Command.DEFAULT, BUILD);
      return new Host(args, token, RunSettings.NONE).run();
    }
  }
}
