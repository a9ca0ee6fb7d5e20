package dev.vigil.bridge;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.launcher.internal.Wire;
import dev.vigil.worker.protocol.Message;
import dev.vigil.worker.protocol.ProtocolClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The control protocol as the {@code vigil} CLI speaks it (hello, capabilities, one command, its
 * reply) on a daemon's socket, from the test's own JVM: the same frames and replies as the CLI's,
 * without a JVM start per command.
 */
final class Control {
  private Control() {}

  /** No daemon answered on the socket (the CLI's exit 4). */
  static final class NoDaemon extends Exception {
    private static final long serialVersionUID = 1L;

    NoDaemon(String why) {
      super(why, null, false, false);
    }
  }

  /** Sends {@code m} after the hello and returns the reply's body (an error as kind {@code Invalid}). */
  static ObjectNode call(Path socket, Message.ToDaemon m, long waitMs) throws NoDaemon {
    if (!Files.exists(socket)) {
      throw new NoDaemon("no socket");
    }
    try (ProtocolClient c = ProtocolClient.connect(socket)) {
      c.send(new Message.ClientHello("0.0.0", "bridge", 1, false));
      Optional<Message.FromDaemon> caps = c.next(10_000);
      if (caps.isEmpty() || !(caps.get() instanceof Message.Capabilities)) {
        throw new NoDaemon("no capabilities: " + caps);
      }
      c.send(m);
      Optional<Message.FromDaemon> r = c.next(waitMs);
      if (r.isEmpty()) {
        throw new NoDaemon("the daemon went away before it replied to " + m);
      }
      if (r.get() instanceof Message.Reply reply) {
        return reply.body();
      } else if (r.get() instanceof Message.Error e) {
        return Wire.error("Invalid", e.reason());
      }
      throw new AssertionError("unexpected answer " + r.get());
    } catch (IOException e) {
      throw new NoDaemon(e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new NoDaemon("interrupted");
    }
  }

  /** A command with {@code args}. */
  static ObjectNode command(Path socket, String op, ObjectNode args) throws NoDaemon {
    return call(socket, new Message.Command(op, args), 60_000);
  }

  /** The pid the daemon that answers on {@code socket} advertises. */
  static Optional<Long> servingPid(Path socket) {
    if (!Files.exists(socket)) {
      return Optional.empty();
    }
    try (ProtocolClient c = ProtocolClient.connect(socket)) {
      c.send(new Message.ClientHello("0.0.0", "bridge", 1, false));
      Optional<Message.FromDaemon> caps = c.next(2_000);
      return caps.isPresent() && caps.get() instanceof Message.Capabilities k ? Optional.of(k.pid()) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }
}
