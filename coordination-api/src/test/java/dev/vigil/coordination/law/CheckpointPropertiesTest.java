package dev.vigil.coordination.law;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.vigil.coordination.Checkpoint;
import dev.vigil.coordination.Checkpointing;
import dev.vigil.coordination.Claim;
import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Finish;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.Resumption;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunStart;
import dev.vigil.coordination.Settlement;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.Verdict;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Q17 on the reference model: random sequences of attempts over two tickets, whose workers save checkpoints
 * (numbered, sometimes offered again or out of order, sometimes by a run that settled meanwhile or by no run
 * at all), settle and are launched again by resumable or other types. After every step the store's checkpoint
 * of each ticket is the one an oracle written from the law's words expects, and the launch decision
 * ({@link Resumption}) hands exactly that one to a resumable type and none to another. Every decision variant
 * is counted.
 */
class CheckpointPropertiesTest {
  static final long T0 = 1_700_000_000_000L;
  static final OwnerId OWNER = new OwnerId("d-checkpoints");

  /** What the oracle expects a ticket to keep: the latest offer by a live run, by run and then number. */
  record Expected(RunId run, long seq, String value) {}

  @Test
  void Q17_anAttemptResumesFromTheLatestKeptCheckpoint_neverAnOlderOne_neverAnotherTickets() {
    Coverage cov = new Coverage("Q17 checkpoints");
    int[] cases = {0};
    qt().withExamples(400).withShrinkCycles(0).forAll(longs().all()).checkAssert(seed -> {
      cases[0]++;
      run(seed, cov);
    });
    assertEquals(400, cases[0], "every generated case ran");
    cov.assertSaw("kept", "kept by a later run", "denied RUN_SETTLED", "denied NOT_NEWER", "denied UNKNOWN_RUN",
        "resume", "fresh NOT_RESUMABLE", "fresh NO_CHECKPOINT", "a checkpoint kept across attempts");
  }

  private static void run(long seed, Coverage cov) {
    SplittableRandom r = new SplittableRandom(seed);
    LeaseLaw m = new LeaseLaw();
    long now = T0;
    List<TicketId> tickets = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      tickets.add(((Submission.Accepted) m.submit(new NewTicket(Lane.DEFAULT, "command", "{}", 1_000, 0, 0, null), now))
          .ticket().id());
    }
    Map<TicketId, RunId> live = new HashMap<>();
    Map<TicketId, RunId> settled = new HashMap<>();
    Map<TicketId, Long> lastSeq = new HashMap<>();
    Map<TicketId, Expected> expected = new HashMap<>();
    int steps = 10 + r.nextInt(40);
    for (int step = 0; step < steps; step++) {
      now += 3_600_000;
      TicketId t = tickets.get(r.nextInt(tickets.size()));
      String why = "seed " + seed + ", step " + step + ", ticket " + t;
      switch (r.nextInt(6)) {
        case 0 -> { // an attempt starts: the launch decision, then the claim
          if (live.containsKey(t)) {
            break;
          }
          boolean resumable = r.nextBoolean();
          Resumption d = Resumption.decide(t, resumable, m.checkpoint(t));
          Expected e = expected.get(t);
          if (!resumable) {
            assertEquals(new Resumption.Fresh(Resumption.Reason.NOT_RESUMABLE), d, why);
            cov.saw("fresh NOT_RESUMABLE");
          } else if (e == null) {
            assertEquals(new Resumption.Fresh(Resumption.Reason.NO_CHECKPOINT), d, why);
            cov.saw("fresh NO_CHECKPOINT");
          } else {
            Checkpoint c = ((Resumption.Resume) d).checkpoint();
            assertEquals(e, new Expected(c.run(), c.seq(), c.value()), "Q17: resumes from the latest kept, " + why);
            cov.saw("resume");
          }
          RunId run = ((Claim.Granted) m.claim(t, OWNER, now, 30_000)).run().id();
          m.start(run, OWNER, new RunStart(new ProcessIdentity("b", 7, 7, 7), "1", "0".repeat(64), now));
          live.put(t, run);
          lastSeq.put(t, 0L);
        }
        case 1, 2 -> { // the live run saves a checkpoint: usually its next, sometimes one offered again or older
          RunId run = live.get(t);
          if (run == null) {
            break;
          }
          long next = lastSeq.get(t) + 1;
          long seq = r.nextInt(4) == 0 ? Math.max(1, next - 1 - r.nextInt(2)) : next;
          lastSeq.put(t, Math.max(lastSeq.get(t), seq));
          offer(m, cov, expected, run, seq, now, why);
        }
        case 3 -> { // the live run settles, or a settled one offers late, or a run the store has not
          RunId run = live.remove(t);
          if (run != null) {
            m.takeExit(run, ExitOwner.supervisor(OWNER), RunExit.code(1, now));
            Verdict v = r.nextBoolean() ? Verdict.FAILED : Verdict.STALLED;
            Finish f = new Finish(run, ExitOwner.supervisor(OWNER), v, null, 0, false);
            if (!(m.finish(f, now) instanceof Settlement.Settled)) {
              throw new AssertionError("the settlement of " + run + " was refused, " + why);
            }
            settled.put(t, run);
            if (expected.containsKey(t)) {
              cov.saw("a checkpoint kept across attempts");
            }
          } else if (settled.containsKey(t) && r.nextBoolean()) {
            offer(m, cov, expected, settled.get(t), 1 + r.nextInt(100), now, why);
          } else {
            offer(m, cov, expected, new RunId(t, 500 + r.nextInt(5)), 1, now, why);
          }
        }
        default -> { } // time passes
      }
      for (TicketId u : tickets) {
        Optional<Checkpoint> kept = m.checkpoint(u);
        assertEquals(Optional.ofNullable(expected.get(u)), kept.map(c -> new Expected(c.run(), c.seq(), c.value())),
            "Q17: the store keeps the latest checkpoint of " + u + ", " + why);
        kept.ifPresent(c -> assertEquals(u, c.ticket(), "Q17: never another ticket's, " + why));
      }
    }
  }

  /** Offers checkpoint {@code seq} of {@code run} and checks the decision against the oracle's words. */
  private static void offer(LeaseLaw m, Coverage cov, Map<TicketId, Expected> expected, RunId run, long seq, long now,
                            String why) {
    TicketId t = run.ticket();
    String value = "{\"run\":\"" + run + "\",\"seq\":" + seq + "}";
    Checkpointing d = m.keepCheckpoint(run, seq, value, now);
    Optional<dev.vigil.coordination.Run> row = m.run(run);
    Expected e = expected.get(t);
    Checkpointing.Reason want;
    if (row.isEmpty()) {
      want = Checkpointing.Reason.UNKNOWN_RUN;
    } else if (row.get().state() == dev.vigil.coordination.RunState.SETTLED) {
      want = Checkpointing.Reason.RUN_SETTLED;
    } else if (e != null && (e.run().compareTo(run) > 0 || e.run().equals(run) && e.seq() >= seq)) {
      want = Checkpointing.Reason.NOT_NEWER;
    } else {
      want = null;
    }
    if (want == null) {
      assertEquals(new Checkpointing.Kept(new Checkpoint(run, seq, value, now)), d, why);
      cov.saw(e != null && !e.run().equals(run) ? "kept by a later run" : "kept");
      expected.put(t, new Expected(run, seq, value));
    } else {
      assertEquals(new Checkpointing.Denied(want), d, why);
      cov.saw("denied " + want);
    }
  }

  @Test
  void Q17_theLaunchDecision_refusesAnotherTicketsCheckpoint() {
    Checkpoint other = new Checkpoint(new RunId(new TicketId(2), 1), 1, "{}", T0);
    org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> Resumption.decide(new TicketId(1), true, Optional.of(other)));
  }
}
