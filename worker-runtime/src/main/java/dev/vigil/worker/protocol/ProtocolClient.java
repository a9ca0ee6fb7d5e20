package dev.vigil.worker.protocol;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The worker's or a control client's end of the socket protocol. Frames from the daemon are read on
 * a thread of the client's own and given to a {@link Listener}, or queued for {@link #next(long)}.
 * A frame the client cannot decode is skipped (the daemon is trusted to speak the protocol).
 */
public final class ProtocolClient implements AutoCloseable {
  /** Receives the daemon's frames on the client's reader thread. */
  public interface Listener {
    void onMessage(Message.FromDaemon message);

    /** The connection closed; called once, after the last message. */
    default void onClosed() {}
  }

  private static final Object CLOSED = new Object();

  private final SocketChannel channel;
  private final Object writeLock = new Object();
  private final BlockingQueue<Object> queue;

  private ProtocolClient(SocketChannel channel, BlockingQueue<Object> queue) {
    this.channel = channel;
    this.queue = queue;
  }

  /**
   * Connects and delivers every frame to {@code listener}.
   *
   * @throws IOException when nothing listens on {@code socket}
   */
  public static ProtocolClient connect(Path socket, Listener listener) throws IOException {
    Objects.requireNonNull(listener, "listener");
    ProtocolClient c = new ProtocolClient(SocketChannel.open(UnixDomainSocketAddress.of(socket)), null);
    c.startReader(listener);
    return c;
  }

  /** Connects and queues every frame for {@link #next(long)}. */
  public static ProtocolClient connect(Path socket) throws IOException {
    BlockingQueue<Object> q = new LinkedBlockingQueue<>();
    ProtocolClient c = new ProtocolClient(SocketChannel.open(UnixDomainSocketAddress.of(socket)), q);
    c.startReader(new Listener() {
      @Override
      public void onMessage(Message.FromDaemon message) {
        q.add(message);
      }

      @Override
      public void onClosed() {
        q.add(CLOSED);
      }
    });
    return c;
  }

  private void startReader(Listener listener) {
    Thread t = new Thread(() -> {
      try {
        FrameIO in = new FrameIO(ChannelStreams.in(channel));
        byte[] frame;
        while ((frame = in.next()) != null) {
          if (Codec.decodeFromDaemon(frame) instanceof Codec.Decoded.Ok<Message.FromDaemon> ok) {
            listener.onMessage(ok.message());
          }
        }
      } catch (IOException e) {
        // closed
      } finally {
        close();
        listener.onClosed();
      }
    }, "vigil-protocol-client");
    t.setDaemon(true);
    t.start();
  }

  /** Sends one frame. */
  public void send(Message.ToDaemon message) throws IOException {
    sendLine(Codec.encodeLine(message));
  }

  /** Sends raw bytes as they are (protocol tests). */
  void sendRaw(byte[] bytes) throws IOException {
    synchronized (writeLock) {
      ChannelStreams.write(channel, bytes);
    }
  }

  private void sendLine(byte[] line) throws IOException {
    synchronized (writeLock) {
      FrameIO.write(channel, line);
    }
  }

  /**
   * The next frame from the daemon within {@code timeoutMs}; empty on timeout or once the
   * connection closed and every frame was taken. Only for a client connected without a listener.
   */
  public Optional<Message.FromDaemon> next(long timeoutMs) throws InterruptedException {
    if (queue == null) {
      throw new IllegalStateException("this client delivers to its listener");
    }
    Object o = queue.poll(timeoutMs, TimeUnit.MILLISECONDS);
    if (o == CLOSED) {
      queue.add(CLOSED);
      return Optional.empty();
    }
    return Optional.ofNullable((Message.FromDaemon) o);
  }

  public boolean isOpen() {
    return channel.isOpen();
  }

  @Override
  public void close() {
    try {
      channel.close();
    } catch (IOException e) {
      // already closed
    }
  }
}
