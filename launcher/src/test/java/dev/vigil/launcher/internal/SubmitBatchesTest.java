package dev.vigil.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link SubmitBatches#plan}: batches by count and by size, in line order, and a submission too large to send. */
class SubmitBatchesTest {
  private static ObjectNode ticket(int payloadChars) {
    ObjectNode t = Wire.JSON.createObjectNode();
    t.putObject("payload").putArray("argv").add("echo").add("x".repeat(payloadChars));
    return t;
  }

  private static List<CommandFile.Line> lines(int n) {
    List<CommandFile.Line> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(new CommandFile.Line(2 * i + 1, List.of("echo"))); // every other line a comment
    }
    return out;
  }

  @Test
  void aThousandSmallCommandsAreOneBatch_andMoreThanTheCountLimitAreSplitInOrder() {
    List<ObjectNode> small = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      small.add(ticket(10));
    }
    List<SubmitBatches.Batch> one = SubmitBatches.plan("f", lines(1_000), small);
    assertEquals(1, one.size());
    assertEquals(1, one.get(0).firstLine());
    assertEquals(1_999, one.get(0).lastLine());

    int n = SubmitBatches.MAX_TICKETS * 2 + 5;
    List<ObjectNode> many = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      many.add(ticket(1));
    }
    List<SubmitBatches.Batch> three = SubmitBatches.plan("f", lines(n), many);
    assertEquals(List.of(SubmitBatches.MAX_TICKETS, SubmitBatches.MAX_TICKETS, 5),
        three.stream().map(b -> b.tickets().size()).toList());
    assertEquals(three.get(0).lastLine() + 2, three.get(1).firstLine(), "consecutive, in line order");
  }

  @Test
  void largeCommandsFillABatchUpToHalfAFrame_andOneTooLargeToSendIsRefusedWithItsLine() {
    List<ObjectNode> big = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      big.add(ticket(100_000));
    }
    List<SubmitBatches.Batch> batches = SubmitBatches.plan("f", lines(10), big);
    assertTrue(batches.size() >= 2, "ten commands of 100 kB do not fit in half a frame");
    assertEquals(10, batches.stream().mapToInt(b -> b.tickets().size()).sum());
    List<ObjectNode> huge = List.of(ticket(1), ticket(SubmitBatches.LARGEST_BYTES));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> SubmitBatches.plan("jobs.txt", lines(2), huge));
    assertTrue(e.getMessage().startsWith("--file jobs.txt: line 3: the command is too long to send ("), e.getMessage());
  }

  @Test
  void Q14_aLineWaitingForALineOfAnEarlierBatch_waitsForItsTicket_andForOneOfItsOwnBatch_byItsPlace() {
    ObjectNode t = ticket(1);
    t.putArray("afterLines").add(1).add(7);
    t.putArray("after").add("t-40");
    SubmitBatches.Batch batch = new SubmitBatches.Batch(5, 9, List.of(ticket(1), ticket(1), t), List.of(5, 7, 9));
    ObjectNode sent = SubmitBatches.waitsResolved(t, batch, java.util.Map.of(1, "t-12", 3, "t-13"));
    assertEquals("[\"t-40\",\"t-12\"]", sent.get("after").toString(), "line 1 was queued in an earlier batch as t-12");
    assertEquals("[1]", sent.get("afterIndex").toString(), "line 7 is the second of this batch");
    assertTrue(!sent.has("afterLines"), "line numbers stay in the client");
    assertTrue(t.has("afterLines"), "the planned submission is left as it was");
  }
}
