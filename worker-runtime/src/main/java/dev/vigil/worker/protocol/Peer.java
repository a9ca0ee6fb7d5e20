package dev.vigil.worker.protocol;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.util.Objects;
import java.util.Optional;

/**
 * One connection to the daemon's server, as the daemon sees it: who it is once it said hello, and a
 * way to answer. A worker peer speaks only for its own {@link #subject()} (C9).
 */
public final class Peer {
  /** Who is on the other end. */
  public enum Role {
    /** Has not said a valid hello yet: only {@code hello} is accepted. */
    UNKNOWN,
    /** A worker whose token matched its subject's. */
    WORKER,
    /** A control client. */
    CLIENT
  }

  private final long id;
  private final SocketChannel channel;
  private final Object writeLock = new Object();
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

  /** Sends a frame; false when the connection is closed (the frame is dropped). */
  public boolean send(Message.FromDaemon message) {
    byte[] line = Codec.encodeLine(message);
    synchronized (writeLock) {
      try {
        FrameIO.write(channel, line);
        return true;
      } catch (IOException e) {
        close();
        return false;
      }
    }
  }

  public boolean isOpen() {
    return channel.isOpen();
  }

  /** Closes the connection; idempotent. */
  public void close() {
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
