package dev.vigil.worker.protocol;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection to the daemon's server, as the daemon sees it: who it is once it said hello, and a
 * way to answer. A worker peer speaks only for its own {@link #subject()} (C9). Frames are written
 * by the connection's own writer thread, in the order they were sent, so no sender ever waits for
 * a peer.
 */
public final class Peer {
  private static final Logger LOG = LoggerFactory.getLogger(Peer.class);

  /** Who is on the other end. */
  public enum Role {
    /** Has not said a valid hello yet: only {@code hello} is accepted. */
    UNKNOWN,
    /** A worker whose token matched its subject's. */
    WORKER,
    /** A control client. */
    CLIENT
  }

  /** The most bytes a peer may have waiting to be written before it is called stuck and closed (8 MiB). */
  static final long MAX_QUEUED = 8L << 20;

  private final long id;
  private final SocketChannel channel;
  private final Object lock = new Object();
  private final ArrayDeque<byte[]> queue = new ArrayDeque<>();
  private long queuedBytes;
  private boolean closing;
  private boolean closed;
  private Thread writer;
  private volatile Role role = Role.UNKNOWN;
  private volatile Subject subject;

  Peer(long id, SocketChannel channel) {
    this.id = id;
    this.channel = channel;
  }

  /** A number for logs, unique within one server. */
  public long id() {
    return id;
  }

  public Role role() {
    return role;
  }

  /** The run or session a worker peer proved its token for; empty for other peers. */
  public Optional<Subject> subject() {
    return Optional.ofNullable(subject);
  }

  void authenticated(Subject s) {
    this.subject = Objects.requireNonNull(s, "subject");
    this.role = Role.WORKER;
  }

  void client() {
    this.role = Role.CLIENT;
  }

  /**
   * Queues a frame for this connection's writer thread and returns at once: a peer that does not
   * read never blocks the sender. A peer with more than {@link #MAX_QUEUED} bytes waiting is stuck
   * and is closed. A frame longer than the protocol allows is not sent; an {@code error} frame
   * naming its size goes instead.
   *
   * @return true when the frame (or the error that replaces it) was queued, false when the
   *         connection is closed or closing, or was closed now because its peer does not read
   */
  public boolean send(Message.FromDaemon message) {
    byte[] line = Codec.encodeLine(message);
    if (line.length - 1 > FrameIO.MAX_FRAME) {
      LOG.warn("{}: a {} frame of {} bytes is longer than the protocol allows; an error goes instead", this,
          message.op(), line.length - 1);
      line = Codec.encodeLine(Message.Error.tooLong(message.op(), line.length - 1));
    }
    synchronized (lock) {
      if (closed || closing) {
        return false;
      }
      if (queuedBytes + line.length > MAX_QUEUED) {
        LOG.warn("{} does not read: {} bytes are waiting; the connection is closed", this, queuedBytes);
        closeNow();
        return false;
      }
      queue.add(line);
      queuedBytes += line.length;
      if (writer == null) {
        writer = new Thread(this::writeLoop, "vigil-protocol-" + id + "-writer");
        writer.setDaemon(true);
        writer.start();
      }
      lock.notifyAll();
      return true;
    }
  }

  private void writeLoop() {
    while (true) {
      byte[] next;
      synchronized (lock) {
        while (queue.isEmpty() && !closing && !closed) {
          try {
            lock.wait();
          } catch (InterruptedException e) {
            closeNow();
            return;
          }
        }
        if (closed) {
          return;
        }
        if (queue.isEmpty()) {
          closeNow(); // closing, and everything queued was written
          return;
        }
        next = queue.poll();
        queuedBytes -= next.length;
      }
      try {
        FrameIO.write(channel, next);
      } catch (IOException e) {
        synchronized (lock) {
          closeNow();
        }
        return;
      }
    }
  }

  /** True until the connection is closed or closing. */
  public boolean isOpen() {
    synchronized (lock) {
      return !closed && !closing && channel.isOpen();
    }
  }

  /**
   * Closes the connection once every frame queued before this call was written (at once when none
   * is waiting); idempotent. A peer that does not read keeps its connection until it reads or goes
   * away, or until {@link #abort()}.
   */
  public void close() {
    synchronized (lock) {
      if (closed || closing) {
        return;
      }
      closing = true;
      if (writer == null) {
        closeNow();
      } else {
        lock.notifyAll();
      }
    }
  }

  /**
   * Waits until the connection is closed (after {@link #close()}, once the writer wrote what was
   * queued), at most {@code timeoutMs}.
   *
   * @return true when it is closed
   */
  boolean awaitClosed(long timeoutMs) throws InterruptedException {
    long deadline = System.nanoTime() + timeoutMs * 1_000_000;
    synchronized (lock) {
      while (!closed) {
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
          return false;
        }
        lock.wait(left);
      }
      return true;
    }
  }

  /** Closes the connection now, dropping whatever is still queued; idempotent. */
  public void abort() {
    synchronized (lock) {
      closeNow();
    }
  }

  /** Holds {@code lock}. */
  private void closeNow() {
    if (closed) {
      return;
    }
    closed = true;
    queue.clear();
    queuedBytes = 0;
    lock.notifyAll();
    try {
      channel.close();
    } catch (IOException e) {
      // already closed or broken: nothing to do
    }
  }

  @Override
  public String toString() {
    return "peer " + id + " (" + role + (subject == null ? "" : " " + subject.id()) + ")";
  }
}
