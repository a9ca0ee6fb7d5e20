package dev.vigil.worker.engine;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.vigil.supervisor.StopKind;
import dev.vigil.supervisor.engine.ToWorker;
import dev.vigil.supervisor.engine.WorkerKey;
import dev.vigil.supervisor.engine.port.IdentityRecord;
import dev.vigil.supervisor.engine.port.Prepared;
import dev.vigil.worker.process.Processes;
import dev.vigil.worker.protocol.Message;
import dev.vigil.worker.protocol.Peer;
import dev.vigil.worker.protocol.ProtocolClient;
import dev.vigil.worker.protocol.ProtocolServer;
import dev.vigil.worker.protocol.RunToken;
import dev.vigil.worker.protocol.Subject;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The worker socket on a temporary home: a real {@link ProtocolServer} whose workers' hellos are
 * checked against their identity records and answered through the {@link SocketWorkerChannel}
 * under test (a welcome with {@code go=false}, or an adopt-denied for a key told to deny), and
 * workers' ends of real connections.
 */
final class WorkerSocket implements AutoCloseable {
  final SocketWorkerChannel channel = new SocketWorkerChannel();
  private final String build;
  private final Path home;
  private final DiskRunDirectories directories;
  private final ProtocolServer server;
  private final Map<WorkerKey, String> tokens = new ConcurrentHashMap<>();
  private final Set<WorkerKey> denied = ConcurrentHashMap.newKeySet();
  private final List<ProtocolClient> clients = new CopyOnWriteArrayList<>();

  /** Listens on {@code <home>/vigil.sock}; welcomes carry {@code build}, the build every worker reports. */
  WorkerSocket(Path home, String build) throws IOException {
    this.home = home;
    this.build = build;
    this.directories = new DiskRunDirectories(home);
    this.server = ProtocolServer.start(home.resolve("vigil.sock"), SocketWorkerChannel.tokenHashes(directories),
        new ProtocolServer.Handler() {
          @Override
          public void onMessage(Peer peer, Message.ToDaemon m) {
            if (m instanceof Message.Hello h) {
              WorkerKey key = SocketWorkerChannel.keyOf(h.subject()).orElseThrow();
              channel.answer(peer, key, denied.contains(key) ? new ToWorker.AdoptDenied("denied by the test")
                  : new ToWorker.Welcome(build, false));
            }
          }

          @Override
          public void onClosed(Peer peer) {
            channel.closed(peer);
          }
        });
  }

  /** Hellos of {@code key} are answered with adopt-denied from now on. */
  void deny(WorkerKey key) {
    denied.add(key);
  }

  /**
   * A worker of {@code key} connects and says hello with the token whose hash its identity record
   * (written here, as a worker host does, with this JVM's identity) carries.
   */
  Worker hello(WorkerKey key) throws IOException {
    return hello(key, tokenOf(key));
  }

  /** The token of {@code key}'s worker, whose hash its identity record carries (written on first use). */
  String tokenOf(WorkerKey key) {
    return tokens.computeIfAbsent(key, k -> {
      String t = RunToken.generate();
      assertInstanceOf(Prepared.Ready.class, directories.prepare(k));
      try {
        DiskRunDirectories.directoryOf(home, k).writeIdentity(
            new IdentityRecord.Written(Processes.self(), build, RunToken.hash(t)));
      } catch (IOException e) {
        throw new AssertionError(e);
      }
      return t;
    });
  }

  /** A worker of {@code key} connects and says hello with {@code token}. */
  Worker hello(WorkerKey key, String token) throws IOException {
    Worker w = new Worker();
    ProtocolClient c = ProtocolClient.connect(home.resolve("vigil.sock"), w);
    clients.add(c);
    w.client = c;
    c.send(new Message.Hello(subjectOf(key), token, build, ProcessHandle.current().pid()));
    return w;
  }

  private static Subject subjectOf(WorkerKey key) {
    if (key instanceof WorkerKey.Task t) {
      return new Subject.Run(t.run().toString());
    } else if (key instanceof WorkerKey.Service s) {
      return new Subject.Session(s.service());
    } else {
      throw new AssertionError(key);
    }
  }

  @Override
  public void close() {
    clients.forEach(ProtocolClient::close);
    server.close();
  }

  /** A worker's end of one connection and every frame it received. */
  static final class Worker implements ProtocolClient.Listener {
    private final List<Message.FromDaemon> messages = new CopyOnWriteArrayList<>();
    private volatile ProtocolClient client;

    @Override
    public void onMessage(Message.FromDaemon message) {
      messages.add(message);
    }

    /** Every frame received, the answer to its hello first. */
    List<Message.FromDaemon> messages() {
      return List.copyOf(messages);
    }

    /** Every frame received, as the engine sent it. */
    List<ToWorker> frames() {
      return messages().stream().map(Worker::toWorker).toList();
    }

    boolean open() {
      return client.isOpen();
    }

    void close() {
      client.close();
    }

    /** The frame as the engine sent it; the wire's {@code stop} is only ever the idle-shutdown stop. */
    private static ToWorker toWorker(Message.FromDaemon m) {
      if (m instanceof Message.Welcome w) {
        return new ToWorker.Welcome(w.build(), w.go());
      } else if (m instanceof Message.AdoptDenied d) {
        return new ToWorker.AdoptDenied(d.reason());
      } else if (m instanceof Message.Quiesce) {
        return new ToWorker.Quiesce();
      } else if (m instanceof Message.Release) {
        return new ToWorker.Release();
      } else if (m instanceof Message.Stop s) {
        return new ToWorker.Stop(s.graceMs(), StopKind.IDLE_SHUTDOWN);
      } else {
        throw new AssertionError("a worker gets no " + m);
      }
    }
  }
}
