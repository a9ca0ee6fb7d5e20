package dev.vigil.worker.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.worker.internal.Json;
import dev.vigil.supervisor.WorkSet;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProtocolServerTest {
  @TempDir Path tmp;

  /** Every message the daemon's handler saw: the state a bad frame must not change. */
  private final List<String> seen = Collections.synchronizedList(new ArrayList<>());
  private final Map<Subject, String> hashes = new ConcurrentHashMap<>();
  private ProtocolServer server;
  private Path socket;

  @BeforeEach
  void start() throws IOException {
    socket = tmp.resolve("vigil.sock");
    server = ProtocolServer.start(socket, s -> Optional.ofNullable(hashes.get(s)), (peer, m) -> {
      seen.add(peer.subject().map(Subject::id).orElse("-") + " " + m.op());
      if (m instanceof Message.Hello) {
        peer.send(new Message.Welcome("b1", true));
      } else if (m instanceof Message.ClientHello) {
        peer.send(new Message.Capabilities(List.of("idle_shutdown"), "b1", "0.1.0", 1, 4242));
      }
    });
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private String register(Subject s) {
    String token = RunToken.generate();
    hashes.put(s, RunToken.hash(token));
    return token;
  }

  private static Message.FromDaemon reply(ProtocolClient c) throws InterruptedException {
    return c.next(10_000).orElseThrow(() -> new AssertionError("no reply (connection closed or silent)"));
  }

  @Test
  void theSocketIsPrivate_aLiveServerIsNotReplaced_andAStaleSocketFileIs() throws Exception {
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(socket)));
    IOException e = assertThrows(IOException.class, () -> ProtocolServer.start(socket, s -> Optional.empty(), (p, m) -> {}));
    assertTrue(e.getMessage().startsWith("another process listens"), e.getMessage());
    Path stale = tmp.resolve("stale.sock");
    try (var ch = java.nio.channels.ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
      ch.bind(java.net.UnixDomainSocketAddress.of(stale));
    }
    assertTrue(Files.exists(stale), "a dead server leaves its socket file");
    ProtocolServer.start(stale, s -> Optional.empty(), (p, m) -> {}).close();
    assertFalse(Files.exists(stale));
  }

  @Test
  void aClientSaysHelloAndGetsCapabilities() throws Exception {
    try (ProtocolClient c = ProtocolClient.connect(socket)) {
      c.send(new Message.ClientHello("0.1.0", "b1", 1, true));
      assertEquals(new Message.Capabilities(List.of("idle_shutdown"), "b1", "0.1.0", 1, 4242), reply(c));
      c.send(new Message.Command("status", Json.object()));
      c.send(new Message.Busy(WorkSet.EMPTY));
      assertEquals(new Message.Error("busy: not a client op"), reply(c));
    }
    assertEquals(List.of("- hello", "- status"), seen);
  }

  @Test
  void C9_aTokenOfAnotherRunIsDenied_andAWorkerSpeaksOnlyForItsOwnRun() throws Exception {
    Subject a = new Subject.Run("t-1.1");
    Subject b = new Subject.Run("t-2.1");
    String tokenA = register(a);
    String tokenB = register(b);
    register(new Subject.Session("t-1.1"));
    for (Message.Hello wrong : List.of(new Message.Hello(a, tokenB, "b1", 5), new Message.Hello(new Subject.Session("t-1.1"), tokenA, "b1", 5),
        new Message.Hello(new Subject.Run("t-3.1"), tokenA, "b1", 5), new Message.Hello(a, tokenA.toUpperCase(), "b1", 5))) {
      try (ProtocolClient c = ProtocolClient.connect(socket)) {
        c.send(wrong);
        Message.Error e = assertInstanceOf(Message.Error.class, reply(c));
        assertTrue(e.reason().startsWith("hello: token denied"), e.reason());
        assertEquals(Optional.empty(), c.next(10_000), "a denied worker is disconnected");
      }
    }
    assertEquals(List.of(), seen, "a denied hello changes nothing");
    try (ProtocolClient c = ProtocolClient.connect(socket)) {
      c.send(new Message.Busy(WorkSet.EMPTY));
      assertEquals(new Message.Error("busy: say hello first"), reply(c));
      c.send(new Message.Hello(a, tokenA, "b1", 5));
      assertEquals(new Message.Welcome("b1", true), reply(c));
      c.send(new Message.Hello(b, tokenB, "b1", 5));
      assertEquals(new Message.Error("hello: already said"), reply(c));
      c.send(new Message.Command("cancel", Json.object().put("ticket", "t-2")));
      assertEquals(new Message.Error("cancel: not a worker op"), reply(c));
      c.send(new Message.Idle());
      c.send(new Message.Quiesced());
      c.send(new Message.ClientHello("0.1.0", "b1", 1, false));
      assertEquals(new Message.Error("hello: already said"), reply(c));
    }
    assertEquals(List.of("t-1.1 hello", "t-1.1 idle", "t-1.1 quiesced"), seen);
  }

  @Test
  void aFrameOverOneMebibyteClosesTheConnection_andOneOfExactlyOneMebibyteIsRead() throws Exception {
    try (ProtocolClient c = ProtocolClient.connect(socket)) {
      byte[] exact = pad("{\"v\":1,\"op\":\"idle\"}", FrameIO.MAX_FRAME);
      c.sendRaw(exact);
      assertEquals(new Message.Error("idle: say hello first"), reply(c));
      c.sendRaw(pad("{\"v\":1,\"op\":\"idle\"}", FrameIO.MAX_FRAME + 1));
      Message.Error e = assertInstanceOf(Message.Error.class, reply(c));
      assertTrue(e.reason().startsWith("frame longer than"), e.reason());
      assertEquals(Optional.empty(), c.next(10_000), "the connection is closed");
    }
    try (ProtocolClient c = ProtocolClient.connect(socket)) {
      c.send(new Message.ClientHello("0.1.0", "b1", 1, true));
      assertInstanceOf(Message.Capabilities.class, reply(c), "the server stays up");
    }
  }

  private static byte[] pad(String json, int length) {
    byte[] b = new byte[length + 1];
    Arrays.fill(b, (byte) ' ');
    byte[] j = json.getBytes(StandardCharsets.UTF_8);
    System.arraycopy(j, 0, b, 0, j.length);
    b[length] = '\n';
    return b;
  }

  // ------------------------------------------------------------------ fuzzing

  /** The kinds of bad frame the fuzzer makes; each must get an error and change nothing. */
  enum Bad {
    RANDOM_BYTES, TRUNCATED, WRONG_FIELD_TYPE, UNKNOWN_OP, BAD_VERSION, BYTE_FLIPPED, DEEP_NESTING, DUPLICATE_KEY,
    NOT_AN_OBJECT, MISDIRECTED
  }

  /** Valid non-hello frames; before a hello each is refused, and byte flips of them stay refused. */
  private static final List<Message.ToDaemon> NON_HELLO = CodecTest.TO_DAEMON.stream()
      .filter(m -> !(m instanceof Message.Hello || m instanceof Message.ClientHello)).toList();

  /** Frames with their required fields; a required field of the wrong type is always refused. */
  private static final List<Map.Entry<Message.ToDaemon, List<String>>> REQUIRED = List.of(
      Map.entry(CodecTest.TO_DAEMON.get(0), List.of("run", "token", "build", "pid")),
      Map.entry(CodecTest.TO_DAEMON.get(1), List.of("session", "token", "build", "pid")),
      Map.entry(CodecTest.TO_DAEMON.get(2), List.of("work")),
      Map.entry(CodecTest.TO_DAEMON.get(5), List.of("message")),
      Map.entry(CodecTest.TO_DAEMON.get(8), List.of("verdict", "detail", "untilMs")),
      Map.entry(CodecTest.TO_DAEMON.get(11), List.of("version", "build", "protocol", "interactive")),
      Map.entry(CodecTest.TO_DAEMON.get(14), List.of("ifIdle")));

  private static final List<JsonNode> VALUES_OF_EVERY_TYPE = List.of(JsonNodeFactory.instance.nullNode(),
      JsonNodeFactory.instance.textNode("x"), JsonNodeFactory.instance.numberNode(7),
      JsonNodeFactory.instance.numberNode(2.5), JsonNodeFactory.instance.booleanNode(true),
      JsonNodeFactory.instance.arrayNode().add(1), Json.object().put("k", 1));

  static byte[] badFrame(Bad kind, long seed, boolean authenticated) {
    Random r = new Random(seed);
    return switch (kind) {
      case RANDOM_BYTES -> {
        byte[] b = new byte[r.nextInt(300)];
        r.nextBytes(b);
        for (int i = 0; i < b.length; i++) {
          if (b[i] == '\n') {
            b[i] = ' ';
          }
        }
        if (b.length > 0 && b[0] == '{') {
          b[0] = '(';
        }
        yield b;
      }
      case TRUNCATED -> {
        byte[] full = json(CodecTest.TO_DAEMON.get(r.nextInt(CodecTest.TO_DAEMON.size())));
        yield Arrays.copyOf(full, r.nextInt(full.length));
      }
      case WRONG_FIELD_TYPE -> {
        var e = REQUIRED.get(r.nextInt(REQUIRED.size()));
        ObjectNode n = Codec.encode(e.getKey());
        String field = e.getValue().get(r.nextInt(e.getValue().size()));
        JsonNode old = n.get(field);
        JsonNode v;
        do {
          v = VALUES_OF_EVERY_TYPE.get(r.nextInt(VALUES_OF_EVERY_TYPE.size()));
        } while (v.getNodeType() == old.getNodeType() || (old.isTextual() && v.isTextual())
            || (old.isIntegralNumber() && v.isIntegralNumber()));
        if (r.nextBoolean()) {
          n.set(field, v);
        } else {
          n.remove(field);
        }
        yield bytes(n);
      }
      case UNKNOWN_OP -> {
        String op;
        do {
          op = Long.toString(r.nextLong() & Long.MAX_VALUE, 36);
        } while (Message.Command.OPS.contains(op));
        yield ("{\"v\":1,\"op\":\"" + op + "\"}").getBytes(StandardCharsets.UTF_8);
      }
      case BAD_VERSION -> {
        ObjectNode n = Codec.encode(CodecTest.TO_DAEMON.get(r.nextInt(CodecTest.TO_DAEMON.size())));
        JsonNode v = List.of(JsonNodeFactory.instance.numberNode(0), JsonNodeFactory.instance.numberNode(2),
            JsonNodeFactory.instance.textNode("1"), JsonNodeFactory.instance.numberNode(1.0),
            JsonNodeFactory.instance.nullNode(), JsonNodeFactory.instance.numberNode(4294967297L)).get(r.nextInt(6));
        if (r.nextInt(7) == 0) {
          n.remove("v");
        } else {
          n.set("v", v);
        }
        yield bytes(n);
      }
      case BYTE_FLIPPED -> {
        List<Message.ToDaemon> pool = authenticated ? List.of(new Message.Command("submit", Json.object()),
            new Message.Shutdown(false)) : NON_HELLO;
        byte[] b = json(pool.get(r.nextInt(pool.size())));
        int at = r.nextInt(b.length);
        byte x;
        do {
          x = (byte) r.nextInt(256);
        } while (x == '\n');
        b[at] = x;
        yield b;
      }
      case DEEP_NESTING -> {
        int depth = 2 + r.nextInt(3_000); // "work":[] (depth 1) would be a valid busy frame
        yield ("{\"v\":1,\"op\":\"busy\",\"work\":" + "[".repeat(depth) + "]".repeat(depth) + "}").getBytes(StandardCharsets.UTF_8);
      }
      case DUPLICATE_KEY -> {
        String j = new String(json(CodecTest.TO_DAEMON.get(r.nextInt(CodecTest.TO_DAEMON.size()))), StandardCharsets.UTF_8);
        yield ("{\"v\":1," + j.substring(1)).getBytes(StandardCharsets.UTF_8);
      }
      case NOT_AN_OBJECT -> List.of("1", "\"idle\"", "[{\"v\":1,\"op\":\"idle\"}]", "null", "true", "  ").get(r.nextInt(6))
          .getBytes(StandardCharsets.UTF_8);
      case MISDIRECTED -> authenticated
          ? json(List.of(new Message.Command("park", Json.object()), new Message.Shutdown(true),
              new Message.ClientHello("1", "b", 1, true)).get(r.nextInt(3)))
          : json(NON_HELLO.get(r.nextInt(NON_HELLO.size())));
    };
  }

  private static byte[] json(Message m) {
    byte[] line = Codec.encodeLine(m);
    return Arrays.copyOf(line, line.length - 1);
  }

  private static byte[] bytes(JsonNode n) {
    return Json.write(n);
  }

  private static byte[] line(byte[] frame) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(frame.length + 1);
    out.writeBytes(frame);
    out.write('\n');
    return out.toByteArray();
  }

  /** Sends thousands of bad frames on one connection: each gets one error, and none reaches the handler. */
  private void fuzz(ProtocolClient c, int examples, boolean authenticated, List<String> before) {
    Map<Bad, Integer> hits = new java.util.EnumMap<>(Bad.class);
    qt().withExamples(examples).withShrinkCycles(50)
        .forAll(integers().between(0, Bad.values().length - 1), longs().all())
        .checkAssert((k, seed) -> {
          Bad kind = Bad.values()[k];
          hits.merge(kind, 1, Integer::sum);
          byte[] frame = badFrame(kind, seed, authenticated);
          try {
            c.sendRaw(line(frame));
            Message.FromDaemon reply = reply(c);
            assertInstanceOf(Message.Error.class, reply, kind + " frame " + new String(frame, StandardCharsets.UTF_8));
            assertFalse(((Message.Error) reply).reason().contains("\n"));
          } catch (IOException | InterruptedException e) {
            throw new AssertionError(kind + " seed " + seed + " broke the connection", e);
          }
          assertEquals(before, seen, kind + " seed " + seed + " changed what the daemon saw");
        });
    for (Bad b : Bad.values()) {
      assertTrue(hits.getOrDefault(b, 0) > 0, "the fuzzer made no " + b + " frame");
    }
  }

  @Test
  void thousandsOfBadFrames_eachGetAnError_changeNothing_andTheServerStaysUp() throws Exception {
    try (ProtocolClient c = ProtocolClient.connect(socket)) {
      fuzz(c, 4_000, false, List.of());
    }
    Subject run = new Subject.Run("t-5.1");
    String token = register(run);
    try (ProtocolClient c = ProtocolClient.connect(socket)) {
      c.send(new Message.Hello(run, token, "b1", 9));
      assertEquals(new Message.Welcome("b1", true), reply(c));
      fuzz(c, 2_000, true, List.of("t-5.1 hello"));
      c.send(new Message.Idle());
      Poll_untilSeen("t-5.1 idle");
    }
    try (ProtocolClient c = ProtocolClient.connect(socket)) {
      c.send(new Message.ClientHello("0.1.0", "b1", 1, true));
      assertInstanceOf(Message.Capabilities.class, reply(c), "the server stays up");
    }
  }

  private void Poll_untilSeen(String entry) {
    dev.vigil.worker.testkit.Poll.until("the daemon saw " + entry, () -> seen.contains(entry));
  }
}
