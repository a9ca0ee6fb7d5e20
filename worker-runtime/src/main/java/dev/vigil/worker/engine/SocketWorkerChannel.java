package dev.vigil.worker.engine;

import dev.vigil.coordination.RunId;
import dev.vigil.supervisor.StopKind;
import dev.vigil.supervisor.engine.ToWorker;
import dev.vigil.supervisor.engine.WorkerKey;
import dev.vigil.supervisor.engine.port.IdentityRecord;
import dev.vigil.supervisor.engine.port.RunDirectories;
import dev.vigil.supervisor.engine.port.WorkerChannel;
import dev.vigil.worker.protocol.Message;
import dev.vigil.worker.protocol.Peer;
import dev.vigil.worker.protocol.ProtocolServer;
import dev.vigil.worker.protocol.Subject;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's {@link WorkerChannel} over the worker socket ({@link ProtocolServer}): which
 * connection speaks for which {@link WorkerKey}, and the engine's frames as protocol messages.
 *
 * <ol>
 *   <li>{@link #answer} writes the engine's answer to a worker's hello on the connection that said
 *       it. A welcome binds the connection to its key, replacing and closing an older connection of
 *       that key; an adopt-denied closes it.
 *   <li>{@link #closed} unbinds a connection that closed, so frames for its key are reported
 *       undelivered until the worker's next hello is welcomed.
 *   <li>{@link #send} maps a frame to the wire: welcome, adopt-denied (then closes), quiesce,
 *       release; a stop of kind {@code IDLE_SHUTDOWN} is {@code stop{graceMs}}, one of kind
 *       {@code LOST} is {@code adopt-denied} (then closes: the worker leaves as an orphan does, S4,
 *       S6); the wire has no frame for the other kinds, which are reported undelivered (TERM follows
 *       after the grace).
 * </ol>
 *
 * <p>Threading: safe on any thread; the daemon calls every method on its scheduling thread, so
 * hellos are answered and closes seen in the order the connections produced them. A frame is
 * queued for the connection's writer thread ({@link Peer#send}) and the call returns at once; a
 * connection that is closed, or whose peer stopped reading, reports the frame undelivered.
 */
public final class SocketWorkerChannel implements WorkerChannel {
  private static final Logger LOG = LoggerFactory.getLogger(SocketWorkerChannel.class);

  // guarded by this
  private final Map<WorkerKey, Peer> bound = new HashMap<>();
  private final Map<Long, WorkerKey> keys = new HashMap<>();

  /** The worker key a hello's subject names, or empty when it names none (a malformed run id or service name). */
  public static Optional<WorkerKey> keyOf(Subject subject) {
    try {
      if (subject instanceof Subject.Run r) {
        return Optional.of(new WorkerKey.Task(RunId.parse(r.id())));
      } else if (subject instanceof Subject.Session s) {
        return Optional.of(new WorkerKey.Service(s.id()));
      } else {
        throw new AssertionError(subject);
      }
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /**
   * The token hashes the server checks a worker's hello against (C9): the one in the identity
   * record the worker wrote into its directory; none for a subject that names no worker key or
   * whose record carries no hash. The engine then checks the token again against the one it
   * launched the worker with or recorded at its start.
   */
  public static ProtocolServer.TokenHashes tokenHashes(RunDirectories directories) {
    return subject -> keyOf(subject)
        .map(directories::identity)
        .flatMap(r -> r instanceof IdentityRecord.Written w ? Optional.ofNullable(w.tokenHash()) : Optional.empty());
  }

  /**
   * Writes the engine's answer to the hello that {@code peer} said for {@code key}: binds the
   * connection to {@code key} on a welcome (closing an older connection of the key), closes it
   * after an adopt-denied.
   */
  public void answer(Peer peer, WorkerKey key, ToWorker answer) {
    if (answer instanceof ToWorker.Welcome w) {
      Peer old;
      synchronized (this) {
        old = bound.put(key, peer);
        if (old != null && old != peer) {
          keys.remove(old.id());
        }
        keys.put(peer.id(), key);
      }
      if (old != null && old != peer) {
        LOG.info("{}: {} replaces {}", key, peer, old);
        old.close();
      }
      peer.send(new Message.Welcome(w.build(), w.go()));
    } else if (answer instanceof ToWorker.AdoptDenied d) {
      peer.send(new Message.AdoptDenied(d.reason()));
      peer.close();
    } else {
      throw new IllegalArgumentException("a hello is answered with welcome or adopt-denied, not " + answer);
    }
  }

  /** The key a welcomed connection speaks for; empty before its welcome and after it was replaced or closed. */
  public synchronized Optional<WorkerKey> boundKey(Peer peer) {
    return Optional.ofNullable(keys.get(peer.id()));
  }

  /**
   * Closes every welcomed connection and forgets its key: each worker finds its daemon gone and
   * says hello again, to be welcomed by whoever answers then (a daemon whose store came back).
   */
  public void closeAll() {
    java.util.List<Peer> open;
    synchronized (this) {
      open = java.util.List.copyOf(bound.values());
      bound.clear();
      keys.clear();
    }
    open.forEach(Peer::close);
  }

  /** The connection {@code peer} closed: it no longer speaks for its key. */
  public synchronized void closed(Peer peer) {
    WorkerKey key = keys.remove(peer.id());
    if (key != null && bound.get(key) == peer) {
      bound.remove(key);
    }
  }

  @Override
  public boolean send(WorkerKey key, ToWorker message) {
    Peer p;
    synchronized (this) {
      p = bound.get(key);
    }
    if (p == null || !p.isOpen()) {
      return false;
    }
    if (message instanceof ToWorker.Welcome w) {
      return p.send(new Message.Welcome(w.build(), w.go()));
    } else if (message instanceof ToWorker.AdoptDenied d) {
      return sendAndClose(p, new Message.AdoptDenied(d.reason()));
    } else if (message instanceof ToWorker.Quiesce) {
      return p.send(new Message.Quiesce());
    } else if (message instanceof ToWorker.Release) {
      return p.send(new Message.Release());
    } else if (message instanceof ToWorker.Answer a) {
      return p.send(new Message.Answer(a.seq(), a.option(), a.reply()));
    } else if (message instanceof ToWorker.Stop s) {
      if (s.kind() == StopKind.IDLE_SHUTDOWN) {
        return p.send(new Message.Stop(s.graceMs()));
      } else if (s.kind() == StopKind.LOST) {
        return sendAndClose(p, new Message.AdoptDenied("lost: this daemon runs another build"));
      }
      return false;
    } else {
      throw new AssertionError(message);
    }
  }

  private static boolean sendAndClose(Peer p, Message.FromDaemon last) {
    boolean sent = p.send(last);
    p.close();
    return sent;
  }
}
