package dev.vigil.worker.protocol;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's end of the socket protocol: a Unix domain socket (0600), one thread per connection.
 * For every frame it receives:
 *
 * <ol>
 *   <li>A frame over 1 MiB closes the connection.
 *   <li>Malformed JSON, a wrong version, an unknown op or a field of the wrong type is answered with
 *       {@code error{reason}}; the handler never sees it, so it changes nothing.
 *   <li>A connection's first valid frame must be {@code hello}. A worker hello is accepted only when
 *       the SHA-256 of its token equals, in constant time, the stored hash for the run or session it
 *       names (C9); otherwise {@code error} and the connection closes. The connection then speaks for
 *       that subject only: no later frame names another run.
 *   <li>Worker ops from a worker, command ops from a client, and nothing else, reach the handler.
 * </ol>
 */
public final class ProtocolServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ProtocolServer.class);

  /** The daemon's side of the conversation; called on the connection's thread. */
  public interface Handler {
    /**
     * A valid frame from an authenticated worker or a client, including its hello. Answer a worker
     * hello with {@code welcome} or {@code adopt-denied}, a client hello with {@code capabilities}.
     */
    void onMessage(Peer peer, Message.ToDaemon message);

    /** The connection closed (either side). */
    default void onClosed(Peer peer) {}
  }

  /** The stored token hash (SHA-256 hex) of a run or session; empty when there is none. */
  @FunctionalInterface
  public interface TokenHashes {
    Optional<String> hashOf(Subject subject);
  }

  private final Path socket;
  private final ServerSocketChannel server;
  private final TokenHashes tokens;
  private final Handler handler;
  private final Set<Peer> peers = ConcurrentHashMap.newKeySet();
  /** How long {@link #close()} lets connections write what is queued, ms. */
  static final long FLUSH_MS = 2_000;

  private final AtomicLong ids = new AtomicLong();
  private volatile boolean closed;

  private ProtocolServer(Path socket, ServerSocketChannel server, TokenHashes tokens, Handler handler) {
    this.socket = socket;
    this.server = server;
    this.tokens = tokens;
    this.handler = handler;
  }

  /**
   * Listens on {@code socket}. A socket file left by a dead daemon is replaced; one with a live
   * listener is not.
   *
   * @throws IOException when another process listens there, or the socket cannot be bound
   */
  public static ProtocolServer start(Path socket, TokenHashes tokens, Handler handler) throws IOException {
    Objects.requireNonNull(socket, "socket");
    Objects.requireNonNull(tokens, "tokens");
    Objects.requireNonNull(handler, "handler");
    if (Files.exists(socket)) {
      if (listening(socket)) {
        throw new IOException("another process listens on " + socket);
      }
      Files.deleteIfExists(socket);
    }
    ServerSocketChannel ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    try {
      ch.bind(UnixDomainSocketAddress.of(socket));
      Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-------"));
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
    ProtocolServer s = new ProtocolServer(socket, ch, tokens, handler);
    Thread t = new Thread(s::acceptLoop, "vigil-protocol-accept");
    t.setDaemon(true);
    t.start();
    return s;
  }

  private static boolean listening(Path socket) {
    try {
      SocketChannel.open(UnixDomainSocketAddress.of(socket)).close();
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  public Path socket() {
    return socket;
  }

  private void acceptLoop() {
    while (!closed) {
      SocketChannel ch;
      try {
        ch = server.accept();
      } catch (IOException e) {
        if (!closed) {
          LOG.warn("accept on {} failed; the server stops: {}", socket, e.toString());
        }
        return;
      }
      Peer peer = new Peer(ids.incrementAndGet(), ch);
      peers.add(peer);
      Thread t = new Thread(() -> serve(peer, ch), "vigil-protocol-" + peer.id());
      t.setDaemon(true);
      t.start();
    }
  }

  private void serve(Peer peer, SocketChannel ch) {
    try {
      FrameIO in = new FrameIO(ChannelStreams.in(ch));
      byte[] frame;
      while ((frame = in.next()) != null) {
        if (!onFrame(peer, frame)) {
          break;
        }
      }
    } catch (FrameIO.FrameTooLong e) {
      peer.send(new Message.Error("frame longer than " + FrameIO.MAX_FRAME + " bytes: connection closed"));
    } catch (IOException e) {
      // the peer went away
    } finally {
      peer.close();
      peers.remove(peer);
      try {
        handler.onClosed(peer);
      } catch (RuntimeException e) {
        LOG.warn("handler failed on close of {}", peer, e);
      }
    }
  }

  /** Handles one frame; false when the connection must close. */
  private boolean onFrame(Peer peer, byte[] frame) {
    Codec.Decoded<Message.ToDaemon> d = Codec.decodeToDaemon(frame);
    if (d instanceof Codec.Decoded.Bad<Message.ToDaemon> bad) {
      return peer.send(new Message.Error(bad.reason()));
    } else if (d instanceof Codec.Decoded.Ok<Message.ToDaemon> ok) {
      return onMessage(peer, ok.message());
    } else {
      throw new AssertionError(d);
    }
  }

  private boolean onMessage(Peer peer, Message.ToDaemon m) {
    Peer.Role role = peer.role();
    if (role == Peer.Role.UNKNOWN) {
      if (m instanceof Message.Hello h) {
        Optional<String> hash = tokens.hashOf(h.subject());
        if (hash.isEmpty() || !RunToken.matches(h.token(), hash.get())) {
          peer.send(new Message.Error("hello: token denied for " + describe(h.subject())));
          return false;
        }
        peer.authenticated(h.subject());
      } else if (m instanceof Message.ClientHello) {
        peer.client();
      } else {
        return peer.send(new Message.Error(m.op() + ": say hello first"));
      }
    } else if (m instanceof Message.Hello || m instanceof Message.ClientHello) {
      return peer.send(new Message.Error("hello: already said"));
    } else if (role == Peer.Role.WORKER && !(m instanceof Message.FromWorker)) {
      return peer.send(new Message.Error(m.op() + ": not a worker op"));
    } else if (role == Peer.Role.CLIENT && !(m instanceof Message.FromClient)) {
      return peer.send(new Message.Error(m.op() + ": not a client op"));
    }
    try {
      handler.onMessage(peer, m);
    } catch (RuntimeException e) {
      LOG.warn("handler failed on {} from {}", m.op(), peer, e);
      return peer.send(new Message.Error(m.op() + ": internal error in the daemon"));
    }
    return true;
  }

  private static String describe(Subject s) {
    return (s instanceof Subject.Session ? "session " : "run ") + Codec.oneLine(s.id().length() > 80 ? s.id().substring(0, 80) : s.id());
  }

  /**
   * Stops listening, closes every connection and removes the socket file. Frames already queued
   * (the answer to a shutdown, say) are written first, for at most {@value #FLUSH_MS} ms in all;
   * a peer that does not read by then is cut off.
   */
  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      // closing anyway
    }
    for (Peer p : peers) {
      p.close();
    }
    long deadline = System.nanoTime() + FLUSH_MS * 1_000_000;
    for (Peer p : peers) {
      try {
        p.awaitClosed(Math.max(0, (deadline - System.nanoTime()) / 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      p.abort();
    }
    try {
      Files.deleteIfExists(socket);
    } catch (IOException e) {
      LOG.warn("cannot remove {}: {}", socket, e.toString());
    }
  }
}
