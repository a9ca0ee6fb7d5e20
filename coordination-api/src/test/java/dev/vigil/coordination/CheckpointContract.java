package dev.vigil.coordination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.law.CoordinationInvariants;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The checkpoint verb's contract (Q17), kept by the reference model and every adapter: named examples of
 * {@code keepCheckpoint} and the {@code checkpoint} read, across a reopen where a daemon would restart, with
 * {@link CoordinationInvariants} checked after each test.
 */
public abstract class CheckpointContract extends StoreContract {
  protected static final long T0 = 1_700_000_000_000L;
  protected static final OwnerId A = new OwnerId("d-a");

  private TicketId submit() {
    return ((Submission.Accepted) c.submit(new NewTicket(Lane.DEFAULT, "command", "{}", 3, 0, 0, null), T0))
        .ticket().id();
  }

  private RunId started(TicketId t, long now) {
    RunId run = assertInstanceOf(Claim.Granted.class, c.claim(t, A, now, 30_000)).run().id();
    assertInstanceOf(Start.Started.class, c.start(run, A, new RunStart(new ProcessIdentity("boot-1", 4242, 99, 4242),
        "1.0.0", "ab".repeat(32), now)));
    return run;
  }

  private void failed(RunId run, long now) {
    assertInstanceOf(Exit.Taken.class, c.takeExit(run, ExitOwner.supervisor(A), RunExit.code(1, now)));
    assertInstanceOf(Settlement.Settled.class, c.finish(Finish.as(ExitOwner.supervisor(A), run, Verdict.FAILED, null), now));
  }

  private Checkpoint kept(RunId run, long seq, String value, long now) {
    return assertInstanceOf(Checkpointing.Kept.class, c.keepCheckpoint(run, seq, value, now)).checkpoint();
  }

  private Checkpointing.Reason denied(RunId run, long seq, String value) {
    return assertInstanceOf(Checkpointing.Denied.class, c.keepCheckpoint(run, seq, value, T0 + 99)).reason();
  }

  @Test
  void Q17_theLatestCheckpointOfARunIsKept_andReadBackAfterAReopen() throws Exception {
    TicketId t = submit();
    RunId run = started(t, T0);
    assertEquals(Optional.empty(), c.store().checkpoint(t), "no checkpoint before one is saved");
    kept(run, 1, "{\"done\":1}", T0 + 1);
    Checkpoint second = kept(run, 2, "{\"done\":2}", T0 + 2);
    assertEquals(new Checkpoint(run, 2, "{\"done\":2}", T0 + 2), second);
    c = reopen(c);
    assertEquals(Optional.of(second), c.store().checkpoint(t), "Q17: the latest kept checkpoint survives a restart");
    assertEquals(10, second.bytes());
  }

  @Test
  void Q17_anOfferThatIsNotNewerChangesNothing_soOfferingAgainIsSafe() {
    TicketId t = submit();
    RunId run = started(t, T0);
    Checkpoint two = kept(run, 2, "{\"done\":2}", T0 + 1);
    assertEquals(Checkpointing.Reason.NOT_NEWER, denied(run, 2, "{\"done\":2}"), "the same offer again");
    assertEquals(Checkpointing.Reason.NOT_NEWER, denied(run, 1, "{\"done\":1}"), "an older offer of the same run");
    assertEquals(Optional.of(two), c.store().checkpoint(t), "Q17: never an older one");
  }

  @Test
  void Q17_aSettledRunOffersNothing_andALaterAttemptReplacesItsCheckpoint() {
    TicketId t = submit();
    RunId first = started(t, T0);
    kept(first, 5, "{\"done\":5}", T0 + 1);
    failed(first, T0 + 2);
    assertEquals(Checkpointing.Reason.RUN_SETTLED, denied(first, 6, "{\"done\":6}"),
        "Q17: a settled run may have a later attempt, which an offer of the earlier one must not replace");
    RunId second = started(t, T0 + 86_400_000L); // past the retry's backoff
    assertEquals(first, c.store().checkpoint(t).orElseThrow().run(), "a new attempt starts with the earlier one kept");
    Checkpoint again = kept(second, 1, "{\"done\":6}", T0 + 86_400_001L);
    assertEquals(Optional.of(again), c.store().checkpoint(t), "a later run's first checkpoint is newer than any earlier run's");
  }

  @Test
  void Q17_checkpointsBelongToTheirTicket_andAnUnknownRunOffersNothing() {
    TicketId t = submit();
    TicketId u = submit();
    RunId onT = started(t, T0);
    RunId onU = started(u, T0);
    kept(onT, 1, "\"t\"", T0 + 1);
    kept(onU, 1, "\"u\"", T0 + 1);
    assertEquals("\"t\"", c.store().checkpoint(t).orElseThrow().value(), "Q17: never another ticket's");
    assertEquals("\"u\"", c.store().checkpoint(u).orElseThrow().value(), "Q17: never another ticket's");
    assertEquals(Checkpointing.Reason.UNKNOWN_RUN, denied(new RunId(t, 9), 1, "{}"));
    assertEquals(Checkpointing.Reason.UNKNOWN_RUN, denied(new RunId(new TicketId(999), 1), 1, "{}"));
    assertEquals(Optional.empty(), c.store().checkpoint(new TicketId(999)));
  }

  @Test
  void aCheckpointOverTheBound_orBlank_isRefusedBeforeAnythingChanges() {
    TicketId t = submit();
    RunId run = started(t, T0);
    String big = "\"" + "x".repeat(Checkpoint.MAX_BYTES) + "\"";
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.keepCheckpoint(run, 1, big, T0));
    assertTrue(e.getMessage().contains((Checkpoint.MAX_BYTES + 2) + " bytes"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> c.keepCheckpoint(run, 1, " ", T0));
    assertThrows(IllegalArgumentException.class, () -> c.keepCheckpoint(run, 0, "{}", T0));
    String widest = "\"" + "x".repeat(Checkpoint.MAX_BYTES - 2) + "\"";
    assertEquals(Checkpoint.MAX_BYTES, kept(run, 1, widest, T0).bytes(), "exactly the bound is kept");
    assertEquals(widest, c.store().checkpoint(t).orElseThrow().value());
  }
}
