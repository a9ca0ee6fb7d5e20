package dev.vigil.worker.rundir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RunExit;
import dev.vigil.supervisor.WorkSet;
import dev.vigil.supervisor.engine.port.IdentityRecord;
import dev.vigil.worker.Outcome;
import dev.vigil.worker.internal.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.quicktheories.core.Gen;
import org.quicktheories.core.RandomnessSource;
import org.quicktheories.impl.Constraint;

/**
 * The worker host writes {@code identity.json}, {@code busy.json} and {@code outcome.json} by hand
 * ({@code JsonWriter}); the daemon reads them with Jackson. Each generated record must be written
 * byte for byte as Jackson writes the tree the files always held, and read back as the record written.
 */
class RunFileBytesTest {
  private static final String RUN = "t-7.2";

  @TempDir
  Path home;

  private final Map<String, Integer> seen = new TreeMap<>();

  @Test
  void identityJsonIsJacksonsBytes_andReadsBack() throws IOException {
    RunDirectory dir = RunDirectory.create(home, RUN);
    qt().withExamples(200).forAll(identities()).checkAssert(r -> {
      ObjectNode n = Json.object().put("v", RunDirectory.SCHEMA).put("bootId", r.identity().bootId())
          .put("pid", r.identity().pid()).put("startTicks", r.identity().startTicks()).put("pgid", r.identity().pgid());
      if (r.build() != null) {
        n.put("build", r.build());
      }
      if (r.tokenHash() != null) {
        n.put("tokenHash", r.tokenHash());
      }
      assertArrayEquals(Json.write(n), RunDirectory.identityJson(r), () -> "identity.json of " + r);
      write(() -> dir.writeIdentity(r));
      assertEquals(r, dir.readIdentity(), "identity.json reads back");
      seen.merge((r.build() == null ? "no build" : "build") + (r.tokenHash() == null ? ", no hash" : ", hash"), 1,
          Integer::sum);
    });
    assertEquals(4, seen.size(), "every shape of identity.json occurred: " + seen);
  }

  @Test
  void busyJsonIsJacksonsBytes_andReadsBack() throws IOException {
    RunDirectory dir = RunDirectory.create(home, RUN);
    qt().withExamples(200).forAll(busy()).checkAssert(b -> {
      ObjectNode n = Json.object().put("v", RunDirectory.SCHEMA).put("busy", b.busy()).put("atMs", b.atWallMs());
      ArrayNode work = n.putArray("work");
      for (WorkSet.Item i : b.work().items()) {
        work.addObject().put("kind", i.kind().name()).put("id", i.id());
      }
      assertArrayEquals(Json.write(n), RunDirectory.busyJson(b), () -> "busy.json of " + b);
      write(() -> dir.writeBusy(b));
      assertEquals(Optional.of(b), dir.readBusy(), "busy.json reads back");
      seen.merge(b.work().items().size() + " items", 1, Integer::sum);
    });
    for (int items = 0; items <= 3; items++) {
      assertTrue(seen.getOrDefault(items + " items", 0) >= 10, "too few busy.json with " + items + " items: " + seen);
    }
  }

  @Test
  void outcomeJsonIsJacksonsBytes_andReadsBack() throws IOException {
    RunDirectory dir = RunDirectory.create(home, RUN);
    qt().withExamples(400).forAll(outcomes()).checkAssert(r -> {
      Outcome o = r.outcome();
      ObjectNode n = Json.object().put("v", RunDirectory.SCHEMA).put("run", r.runId()).put("verdict", o.verdict().name())
          .put("detail", o.detail()).put("atMs", r.atWallMs());
      if (o instanceof Outcome.Stalled s) {
        n.put("untilMs", s.untilMs());
      }
      if (o instanceof Outcome.Succeeded s && s.result() != null) {
        n.set("result", s.result());
      }
      if (r.exit() != null && r.exit().exitCode() != null) {
        n.put("exitCode", r.exit().exitCode());
      } else if (r.exit() != null && r.exit().signal() != null) {
        n.put("signal", r.exit().signal());
      }
      assertArrayEquals(Json.write(n), RunDirectory.outcomeJson(r), () -> "outcome.json of " + r);
      write(() -> dir.writeOutcome(r));
      OutcomeRead.Recorded back = (OutcomeRead.Recorded) dir.readOutcome();
      assertEquals(o, back.outcome().outcome(), "the outcome reads back");
      assertEquals(r.atWallMs(), back.outcome().atWallMs());
      assertEquals(r.exit() == null ? null : r.exit().exitCode(), back.outcome().exit() == null ? null
          : back.outcome().exit().exitCode());
      assertEquals(r.exit() == null ? null : r.exit().signal(), back.outcome().exit() == null ? null
          : back.outcome().exit().signal());
      seen.merge(o.verdict() + (o instanceof Outcome.Succeeded s && s.result() != null ? " with a result" : "")
          + (r.exit() == null ? "" : r.exit().exitCode() != null ? ", exit code" : ", signal"), 1, Integer::sum);
    });
    for (String verdict : new String[] {"SUCCEEDED", "SUCCEEDED with a result", "FAILED", "PERMANENT_FAILURE",
        "STALLED", "BLOCKED"}) {
      for (String exit : new String[] {"", ", exit code", ", signal"}) {
        assertTrue(seen.containsKey(verdict + exit), "no outcome.json of " + verdict + exit + ": " + seen);
      }
    }
  }

  private interface Write {
    void run() throws IOException;
  }

  private static void write(Write w) {
    try {
      w.run();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // ------------------------------------------------------------------ generators

  private static int pick(RandomnessSource in, int n) {
    return (int) in.next(Constraint.between(0, n - 1));
  }

  /** Up to 10 characters of every kind JSON writes differently: quotes, escapes, controls, non-ASCII, surrogates. */
  private static String text(RandomnessSource in) {
    String kinds = "a\"\\\b\t\n\f\r\u0000\u001f\u007fé\u2028€";
    StringBuilder b = new StringBuilder();
    for (int i = pick(in, 11); i > 0; i--) {
      switch (pick(in, 4)) {
        case 0 -> b.append(kinds.charAt(pick(in, kinds.length())));
        case 1 -> b.appendCodePoint((int) in.next(Constraint.between(0x10000, 0x10FFFF)));
        case 2 -> b.append((char) in.next(Constraint.between(0xD800, 0xDFFF)));
        default -> b.append((char) in.next(Constraint.between(0x20, 0x7E)));
      }
    }
    return b.toString();
  }

  private static long natural(RandomnessSource in) {
    return pick(in, 4) == 0 ? Long.MAX_VALUE - pick(in, 2) : in.next(Constraint.between(1, 1L << 40));
  }

  private static Gen<IdentityRecord.Written> identities() {
    return in -> new IdentityRecord.Written(new ProcessIdentity("b" + text(in), natural(in), natural(in) - 1, natural(in)),
        pick(in, 2) == 0 ? null : "v" + text(in),
        pick(in, 2) == 0 ? null : dev.vigil.worker.protocol.RunToken.hash(text(in)));
  }

  private static Gen<BusyEvidence> busy() {
    return in -> {
      WorkSet w = WorkSet.EMPTY;
      for (int i = pick(in, 4); i > 0; i--) {
        w = w.plus(WorkSet.Kind.values()[pick(in, WorkSet.Kind.values().length)], text(in) + i);
      }
      return new BusyEvidence(pick(in, 2) == 0, in.next(Constraint.none()), w);
    };
  }

  private static Gen<RecordedOutcome> outcomes() {
    return in -> {
      Outcome o = switch (pick(in, 6)) {
        case 0 -> new Outcome.Succeeded(text(in));
        case 1 -> new Outcome.Succeeded(text(in), result(in));
        case 2 -> new Outcome.Failed(text(in));
        case 3 -> new Outcome.PermanentFailure(text(in));
        case 4 -> new Outcome.Stalled(natural(in), text(in));
        default -> new Outcome.Blocked(text(in));
      };
      RunExit exit = switch (pick(in, 3)) {
        case 0 -> null;
        case 1 -> RunExit.code(pick(in, 256), 0);
        default -> RunExit.signal(1 + pick(in, 128), 0);
      };
      return new RecordedOutcome(RUN, o, in.next(Constraint.none()), exit);
    };
  }

  /** A result: an object with text, numbers, a flag and a list (never JSON null, which means no result). */
  private static JsonNode result(RandomnessSource in) {
    ObjectNode r = Json.object().put("name", text(in)).put("count", in.next(Constraint.none()))
        .put("share", pick(in, 1000) / 7.0).put("ok", pick(in, 2) == 0);
    r.putArray("items").add(text(in)).add(pick(in, 10));
    return pick(in, 3) == 0 ? Json.object().textNode(text(in)) : r;
  }
}
