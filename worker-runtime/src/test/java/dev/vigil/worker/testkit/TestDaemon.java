package dev.vigil.worker.testkit;

import dev.vigil.worker.protocol.Message;
import dev.vigil.worker.protocol.Peer;
import dev.vigil.worker.protocol.ProtocolServer;
import dev.vigil.worker.protocol.RunToken;
import dev.vigil.worker.protocol.Subject;
import dev.vigil.worker.rundir.OutcomeRead;
import dev.vigil.worker.rundir.RunDirectory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * A stand-in daemon for worker tests: a real {@link ProtocolServer} on {@code <home>/vigil.sock}
 * that knows the token hashes of registered subjects, answers every worker hello by its
 * {@link Welcome} policy, and records every message for the test to await. It can be stopped and
 * started again on the same socket (a supervisor lost and back).
 */
public final class TestDaemon implements AutoCloseable {
  /** How a worker hello is answered. */
  public enum Welcome {
    /** {@code welcome{go:true}}: the start is recorded, work may begin. */
    GO,
    /** {@code welcome{go:false}}: connected, but never confirmed. */
    HOLD,
    /** {@code adopt-denied}. */
    DENY
  }

  /** One message as received. */
  public record Received(Subject subject, Message.ToDaemon message) {}

  public static final String BUILD = "test-build";

  private final Path socket;
  private final Map<Subject, String> hashes = new ConcurrentHashMap<>();
  private final Map<Subject, Peer> peers = new ConcurrentHashMap<>();
  private final List<Received> received = new ArrayList<>();
  private final Set<Received> taken = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
  private volatile Welcome policy = Welcome.GO;
  private final Map<Subject, Welcome> policies = new ConcurrentHashMap<>();
  private final Map<Subject, Boolean> outcomeOnDiskAtReport = new ConcurrentHashMap<>();
  private ProtocolServer server;

  private TestDaemon(Path socket) {
    this.socket = socket;
  }

  /** Starts listening on {@code <home>/vigil.sock}. */
  public static TestDaemon start(Path home) throws IOException {
    TestDaemon d = new TestDaemon(home.resolve("vigil.sock"));
    d.listen();
    return d;
  }

  /** Listens again after {@link #stop()} (a new supervisor). */
  public synchronized void listen() throws IOException {
    if (server == null) {
      server = ProtocolServer.start(socket, s -> Optional.ofNullable(hashes.get(s)), new ProtocolServer.Handler() {
        @Override
        public void onMessage(Peer peer, Message.ToDaemon m) {
          Subject s = peer.subject().orElse(null);
          if (m instanceof Message.Hello h) {
            peers.put(h.subject(), peer);
            switch (policies.getOrDefault(h.subject(), policy)) {
              case GO -> peer.send(new Message.Welcome(BUILD, true));
              case HOLD -> peer.send(new Message.Welcome(BUILD, false));
              case DENY -> peer.send(new Message.AdoptDenied("test daemon denies adoption"));
            }
          }
          if (m instanceof Message.OutcomeReport && s instanceof Subject.Run) {
            outcomeOnDiskAtReport.put(s, RunDirectory.of(socket.getParent(), s.id()).readOutcome() instanceof OutcomeRead.Recorded);
          }
          record(new Received(s, m));
        }
      });
    }
  }

  /** Stops listening and drops every connection (the supervisor is lost). */
  public synchronized void stop() {
    if (server != null) {
      server.close();
      server = null;
    }
    peers.clear();
  }

  public void policy(Welcome p) {
    this.policy = p;
  }

  /** The policy for one subject. */
  public void policy(Subject subject, Welcome p) {
    policies.put(subject, p);
  }

  /** Whether outcome.json was durable when the outcome report arrived (effect before receipt); empty before. */
  public Optional<Boolean> outcomeWasOnDiskAtReport(Subject subject) {
    return Optional.ofNullable(outcomeOnDiskAtReport.get(subject));
  }

  /** A fresh token for {@code subject}; the daemon keeps only its hash. */
  public String register(Subject subject) {
    String token = RunToken.generate();
    hashes.put(subject, RunToken.hash(token));
    return token;
  }

  /** Sends to the worker connected for {@code subject}. */
  public void send(Subject subject, Message.FromDaemon m) {
    Poll.until(subject.id() + " is connected", () -> peers.containsKey(subject) && peers.get(subject).isOpen());
    if (!peers.get(subject).send(m)) {
      throw new AssertionError("could not send " + m.op() + " to " + subject.id());
    }
  }

  /** Whether a worker for {@code subject} is connected now. */
  public boolean connected(Subject subject) {
    Peer p = peers.get(subject);
    return p != null && p.isOpen();
  }

  private synchronized void record(Received r) {
    received.add(r);
    notifyAll();
  }

  /** The first message not awaited before from {@code subject} of type {@code type} matching {@code test}. */
  public synchronized <T extends Message.ToDaemon> T await(Subject subject, Class<T> type, Predicate<T> test, long timeoutMs)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeoutMs * 1_000_000;
    while (true) {
      for (Received r : received) {
        if (!taken.contains(r) && subject.equals(r.subject()) && type.isInstance(r.message())
            && test.test(type.cast(r.message()))) {
          taken.add(r);
          return type.cast(r.message());
        }
      }
      long left = (deadline - System.nanoTime()) / 1_000_000;
      if (left <= 0) {
        throw new AssertionError("no " + type.getSimpleName() + " from " + subject.id() + " within " + timeoutMs
            + " ms; received: " + received);
      }
      wait(left);
    }
  }

  public <T extends Message.ToDaemon> T await(Subject subject, Class<T> type) throws InterruptedException {
    return await(subject, type, m -> true, Poll.PATIENCE_MS);
  }

  /** Every message received so far. */
  public synchronized List<Received> received() {
    return List.copyOf(received);
  }

  @Override
  public void close() {
    stop();
  }
}
