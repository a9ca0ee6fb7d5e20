package dev.vigil.worker.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vigil.supervisor.engine.ToWorker;
import dev.vigil.supervisor.engine.WorkerChannelContract;
import dev.vigil.supervisor.engine.WorkerKey;
import dev.vigil.supervisor.engine.port.WorkerChannel;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** The worker channel contract on a real Unix socket, with hellos authenticated by identity records. */
class SocketWorkerChannelContractTest extends WorkerChannelContract {
  @TempDir
  Path home;
  private WorkerSocket socket;

  @BeforeEach
  void listen() throws IOException {
    socket = new WorkerSocket(home, BUILD);
  }

  @AfterEach
  void closeSocket() {
    socket.close();
  }

  @Override
  protected WorkerChannel channel() {
    return socket.channel;
  }

  @Override
  protected Connection welcomed(WorkerKey key) {
    WorkerSocket.Worker w;
    try {
      w = socket.hello(key);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    await("the worker of " + key + " is welcomed", () -> !w.frames().isEmpty());
    assertEquals(new ToWorker.Welcome(BUILD, false), w.frames().get(0), "the adapter wrote the engine's welcome");
    return new Connection() {
      @Override
      public List<ToWorker> received() {
        List<ToWorker> all = w.frames();
        return all.subList(1, all.size());
      }

      @Override
      public boolean open() {
        return w.open();
      }

      @Override
      public void close() {
        w.close();
      }
    };
  }

  @Override
  protected void await(String what, BooleanSupplier condition) {
    RealPorts.await(what, condition);
  }
}
