package dev.vigil.worker.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.worker.internal.Json;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A peer's frames go through its own writer: a peer that does not read never blocks whoever answers
 * it (the daemon's scheduling thread), a stuck one is closed, and a frame too long for the protocol
 * becomes an error.
 */
class PeerWriterTest {
  private static final int BIG = 512 * 1024;

  @TempDir Path tmp;

  private ProtocolServer server;
  private Path socket;
  /** What the handler's sends to the "flood" peer returned, completed once it sent them all. */
  private final CompletableFuture<List<Boolean>> flood = new CompletableFuture<>();

  @BeforeEach
  void start() throws Exception {
    socket = tmp.resolve("vigil.sock");
    server = ProtocolServer.start(socket, s -> Optional.empty(), (peer, m) -> {
      if (!(m instanceof Message.Command c)) {
        return;
      }
      switch (c.args().path("what").asText()) {
        case "flood" -> {
          List<Boolean> sent = new ArrayList<>();
          for (int i = 0; i < 40; i++) { // 20 MiB, well over the queue's 8 MiB
            sent.add(peer.send(reply(i, BIG)));
          }
          flood.complete(sent);
        }
        case "many" -> {
          for (int i = 0; i < 200; i++) {
            peer.send(reply(i, 100));
          }
          peer.close();
        }
        case "huge" -> peer.send(reply(0, 2 << 20));
        case "bye" -> {
          for (int i = 0; i < 50; i++) {
            peer.send(reply(i, 10_000));
          }
          server.close(); // as a daemon does right after it answered a shutdown
        }
        default -> peer.send(reply(-1, 10));
      }
    });
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private static Message.Reply reply(int n, int size) {
    ObjectNode o = Json.object();
    o.put("n", n);
    o.put("pad", "x".repeat(size));
    return new Message.Reply(o);
  }

  private static final Message.ClientHello HELLO = new Message.ClientHello("0.1.0", "b1", 1, false);

  private static ProtocolClient client(Path socket) throws java.io.IOException {
    ProtocolClient c = ProtocolClient.connect(socket);
    c.send(HELLO);
    return c;
  }

  private static Message.Command command(String what) {
    ObjectNode o = Json.object();
    o.put("what", what);
    return new Message.Command("status", o);
  }

  @Test
  void aPeerThatDoesNotReadNeverBlocksTheSender_andIsClosedOnceTooMuchWaits() throws Exception {
    try (SocketChannel silent = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      silent.connect(UnixDomainSocketAddress.of(socket));
      silent.write(ByteBuffer.wrap(Codec.encodeLine(HELLO)));
      silent.write(ByteBuffer.wrap(Codec.encodeLine(command("flood"))));
      // it never reads: the sends must all return, without waiting for it
      List<Boolean> sent = flood.get(60, TimeUnit.SECONDS);
      assertEquals(40, sent.size());
      assertTrue(sent.get(0), "the first frames are queued");
      assertFalse(sent.get(sent.size() - 1), "once more than 8 MiB wait, the peer is closed and sends say so");
      long queued = sent.stream().filter(b -> b).count();
      assertTrue(queued * BIG <= Peer.MAX_QUEUED + 2L * BIG * 4, "bounded: " + queued + " frames queued");

      // the server still answers everybody else
      try (ProtocolClient other = client(socket)) {
        other.send(command("ping"));
        Message.FromDaemon m = other.next(10_000).orElseThrow();
        assertEquals(-1, ((Message.Reply) m).body().path("n").asInt());
      }
    }
  }

  @Test
  void framesArriveInTheOrderSent_andACloseWaitsForThemToBeWritten() throws Exception {
    try (ProtocolClient c = client(socket)) {
      c.send(command("many"));
      for (int i = 0; i < 200; i++) {
        Message.FromDaemon m = c.next(10_000).orElseThrow(() -> new AssertionError("a frame was lost"));
        assertEquals(i, ((Message.Reply) m).body().path("n").asInt());
      }
      assertTrue(c.next(10_000).isEmpty(), "then the connection closes");
    }
  }

  @Test
  void closingTheServerWritesWhatWasQueuedFirst() throws Exception {
    try (ProtocolClient c = client(socket)) {
      c.send(command("bye"));
      for (int i = 0; i < 50; i++) {
        Message.FromDaemon m = c.next(10_000).orElseThrow(() -> new AssertionError("a queued answer was dropped"));
        assertEquals(i, ((Message.Reply) m).body().path("n").asInt());
      }
      assertTrue(c.next(10_000).isEmpty(), "then the connection closes");
    }
  }

  @Test
  void aFrameLongerThanTheProtocolAllowsBecomesAnErrorNamingItsSize() throws Exception {
    try (ProtocolClient c = client(socket)) {
      c.send(command("huge"));
      Message.Error e = assertInstanceOf(Message.Error.class, c.next(10_000).orElseThrow());
      assertTrue(e.reason().startsWith("reply of ") && e.reason().contains("longer than the protocol allows (1048576 bytes)")
          && Message.Error.isTooLong(e.reason()), e.reason());
      c.send(command("ping"));
      assertEquals(-1, ((Message.Reply) c.next(10_000).orElseThrow()).body().path("n").asInt(), "the connection stays");
    }
  }
}
