package dev.vigil.worker.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.vigil.worker.internal.Json;
import dev.vigil.supervisor.WorkSet;
import dev.vigil.worker.Outcome;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

class CodecTest {
  static final List<Message.ToDaemon> TO_DAEMON = List.of(
      new Message.Hello(new Subject.Run("t-1.1"), RunToken.generate(), "b1", 42),
      new Message.Hello(new Subject.Session("chat"), RunToken.generate(), "b1", 43),
      new Message.Busy(WorkSet.EMPTY.plus(WorkSet.Kind.RUN, "t-1.1").plus(WorkSet.Kind.UNSETTLED_CHILD, "pid 9")),
      new Message.Busy(WorkSet.EMPTY),
      new Message.Idle(),
      new Message.Progress("half", OptionalDouble.of(0.5)),
      new Message.Progress("step", OptionalDouble.empty()),
      new Message.OutcomeReport(new Outcome.Succeeded("ok")),
      new Message.OutcomeReport(new Outcome.Stalled(12345, "quota")),
      new Message.OutcomeReport(new Outcome.PermanentFailure("no")),
      new Message.Quiesced(),
      new Message.ClientHello("0.1.0", "b1", 1, true),
      new Message.Command("submit", Json.object().put("lane", "default")),
      new Message.Command("release", Json.object().put("ticket", "t-3")),
      new Message.Shutdown(true),
      new Message.Restored("pid-42-1700000000000", "counter-7"),
      new Message.Command("transcript", Json.object().put("service", "chat").put("after", 3)),
      new Message.Ask(1, "Deploy?", List.of(new dev.vigil.coordination.QuestionOption("yes", "deploy it",
          List.of(new dev.vigil.coordination.Action.Reply("{\"deploy\":true}"),
              new dev.vigil.coordination.Action.ParkLane(dev.vigil.coordination.Lane.DEFAULT))),
          new dev.vigil.coordination.QuestionOption("no", "", List.of()))));

  static final List<Message.FromDaemon> FROM_DAEMON = List.of(
      new Message.Welcome("b1", true),
      new Message.Welcome("b1", false),
      new Message.AdoptDenied("other build"),
      new Message.Quiesce(),
      new Message.Release(),
      new Message.Stop(10_000),
      new Message.Capabilities(List.of("idle_shutdown"), "b1", "0.1.0", 1, 4242),
      new Message.Reply(Json.object().put("ticket", "t-9")),
      new Message.Error("nope"),
      new Message.Answer(1, "yes", "{\"deploy\":true}"),
      new Message.Answer(2, "no", null));

  @Test
  void everyFrameRoundTrips_asOneLineWithVersionAndOp() {
    for (Message.ToDaemon m : TO_DAEMON) {
      byte[] line = Codec.encodeLine(m);
      assertOneLine(line, m);
      assertEquals(new Codec.Decoded.Ok<>(m), Codec.decodeToDaemon(strip(line)), m.toString());
    }
    for (Message.FromDaemon m : FROM_DAEMON) {
      byte[] line = Codec.encodeLine(m);
      assertOneLine(line, m);
      assertEquals(new Codec.Decoded.Ok<>(m), Codec.decodeFromDaemon(strip(line)), m.toString());
    }
  }

  private static void assertOneLine(byte[] line, Message m) {
    String s = new String(line, StandardCharsets.UTF_8);
    assertTrue(s.endsWith("\n") && s.indexOf('\n') == s.length() - 1, s);
    assertTrue(s.startsWith("{\"v\":1,\"op\":\"" + m.op() + "\""), s);
  }

  private static byte[] strip(byte[] line) {
    return java.util.Arrays.copyOf(line, line.length - 1);
  }

  @Test
  void badFramesAreRefusedWithAOneLineReasonNamingTheField() {
    assertBad("{\"v\":1,\"op\":\"hello\",\"run\":\"t-1.1\",\"token\":7,\"build\":\"b\",\"pid\":1}", "hello: field 'token' must be a string");
    assertBad("{\"v\":1,\"op\":\"hello\",\"run\":\"t-1.1\",\"session\":\"s\",\"token\":\"x\",\"build\":\"b\",\"pid\":1}",
        "hello: names both 'run' and 'session'");
    assertBad("{\"v\":1,\"op\":\"hello\",\"run\":\"t-1.1\",\"token\":\"x\",\"build\":\"b\",\"pid\":0}", "hello: field 'pid' must be > 0");
    assertBad("{\"v\":1,\"op\":\"hello\",\"run\":\"t-1.1\",\"token\":\"x\",\"build\":\"b\",\"pid\":1.5}",
        "hello: field 'pid' must be an integer");
    assertBad("{\"v\":1,\"op\":\"busy\",\"work\":[{\"kind\":\"nap\",\"id\":\"x\"}]}", "busy: work kind 'nap'");
    assertBad("{\"v\":1,\"op\":\"progress\",\"message\":\"m\",\"fraction\":2}", "progress: field 'fraction' must be a number in [0, 1]");
    assertBad("{\"v\":1,\"op\":\"outcome\",\"verdict\":\"LOST\",\"detail\":\"\"}", "outcome: verdict 'LOST'");
    assertBad("{\"v\":1,\"op\":\"outcome\",\"verdict\":\"STALLED\",\"detail\":\"\"}", "outcome: field 'untilMs' must be an integer");
    assertBad("{\"v\":1,\"op\":\"shutdown\",\"ifIdle\":\"yes\"}", "shutdown: field 'ifIdle' must be true or false");
    assertBad("{\"v\":2,\"op\":\"idle\"}", "field 'v' must be 1");
    assertBad("{\"v\":\"1\",\"op\":\"idle\"}", "field 'v' must be 1");
    assertBad("{\"op\":\"idle\"}", "field 'v' must be 1");
    assertBad("{\"v\":1}", "field 'op' must be a string");
    assertBad("{\"v\":1,\"op\":\"dance\"}", "unknown op 'dance'");
    assertBad("{\"v\":1,\"v\":1,\"op\":\"idle\"}", "malformed JSON");
    assertBad("{\"v\":1,\"op\":\"idle\"} {}", "malformed JSON");
    assertBad("[1,2]", "a frame must be a JSON object");
    assertBad("", "malformed JSON: no content");
    assertBad("{\"v\":1,\"op\":\"idle\",\"x\":1e99999999999}", "malformed JSON: number out of range: 1e99999999999");
    assertBad("{\"v\":1,\"op\":\"id", "malformed JSON");
    assertEquals(new Codec.Decoded.Ok<>(new Message.Idle()), Codec.decodeToDaemon(
        "{\"v\":1,\"op\":\"idle\",\"future\":{\"x\":1}}".getBytes(StandardCharsets.UTF_8)), "unknown fields are ignored");
    assertInstanceOf(Codec.Decoded.Bad.class, Codec.decodeFromDaemon("{\"v\":1,\"op\":\"stop\",\"graceMs\":-1}".getBytes(StandardCharsets.UTF_8)));
    assertInstanceOf(Codec.Decoded.Bad.class, Codec.decodeFromDaemon("{\"v\":1,\"op\":\"busy\",\"work\":[]}".getBytes(StandardCharsets.UTF_8)),
        "a worker op is not a daemon op");
  }

  private static void assertBad(String frame, String reasonStart) {
    var d = Codec.decodeToDaemon(frame.getBytes(StandardCharsets.UTF_8));
    Codec.Decoded.Bad<?> bad = assertInstanceOf(Codec.Decoded.Bad.class, d, frame);
    assertTrue(bad.reason().startsWith(reasonStart), frame + " -> " + bad.reason());
    assertFalse(bad.reason().contains("\n"), bad.reason());
  }

  @Test
  void C9_tokensAre256RandomBits_storedAsSha256_andMatchOnlyThemselves() {
    String a = RunToken.generate();
    String b = RunToken.generate();
    assertTrue(a.matches("[0-9a-f]{64}"));
    assertFalse(a.equals(b));
    String hash = RunToken.hash(a);
    assertTrue(hash.matches("[0-9a-f]{64}"));
    assertFalse(hash.equals(a), "the hash is stored, not the token");
    assertTrue(RunToken.matches(a, hash));
    assertFalse(RunToken.matches(b, hash));
    assertFalse(RunToken.matches(a, hash.substring(1)));
    assertFalse(RunToken.matches(a, "zz" + hash.substring(2)));
    assertFalse(RunToken.matches(null, hash));
  }
}
