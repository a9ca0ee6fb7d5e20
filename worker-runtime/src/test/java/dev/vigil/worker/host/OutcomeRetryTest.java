package dev.vigil.worker.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The outcome write's retry decision ({@link OutcomeRetry}): whole histories of failed tries drawn
 * from a seed (QuickTheories draws the seed; every message names it).
 */
class OutcomeRetryTest {
  private static void forSeeds(int examples, java.util.function.LongConsumer body) {
    qt().withExamples(examples).withShrinkCycles(0).forAll(longs().all()).checkAssert(body::accept);
  }

  /** A history: the first failure, then tries that take {@code 0..tryMs} each and all fail, until it gives up. */
  private record History(OutcomeRetry first, OutcomeRetry last, List<Long> tryStarts, List<Long> pauses,
      long givenUpAt, OutcomeRetry.Next.GiveUp giveUp, long stopAt) {}

  private static History run(SplittableRandom r) {
    long since = r.nextLong(-(1L << 40), 1L << 40);
    long bound = 1 + (r.nextBoolean() ? r.nextLong(20_000) : r.nextLong(1_200_000));
    long grace = r.nextBoolean() ? r.nextLong(10_000) : 0;
    long stopAt = r.nextInt(3) == 0 ? since + r.nextLong(bound + 10_000) : Long.MAX_VALUE;
    long tryMs = r.nextBoolean() ? 0 : r.nextLong(300);
    OutcomeRetry retry = OutcomeRetry.afterFirstFailure(since, bound, grace);
    OutcomeRetry first = retry;
    List<Long> tryStarts = new ArrayList<>(List.of(since));
    List<Long> pauses = new ArrayList<>();
    long now = since + (tryMs == 0 ? 0 : r.nextLong(tryMs + 1));
    while (true) {
      if (now >= stopAt) {
        retry = retry.stopped(now);
      }
      OutcomeRetry.Next next = retry.next(now);
      if (next instanceof OutcomeRetry.Next.GiveUp g) {
        return new History(first, retry, tryStarts, pauses, now, g, stopAt);
      }
      long pause = ((OutcomeRetry.Next.Pause) next).ms();
      if (now < stopAt && now + pause > stopAt) {
        pause = stopAt - now; // the host wakes at a stop request
        retry = retry.stopped(stopAt);
      }
      pauses.add(pause);
      now += pause;
      tryStarts.add(now);
      now += tryMs == 0 ? 0 : r.nextLong(tryMs + 1);
      retry = retry.failedAgain();
    }
  }

  @Test
  void triesGoOnUntilTheBoundOrTheGraceAfterAStop_neverPastIt_andGiveUpOnlyThen() {
    Map<String, Integer> seen = new TreeMap<>();
    forSeeds(2_000, seed -> {
      History h = run(new SplittableRandom(seed));
      OutcomeRetry f = h.first();
      long boundEnd = f.sinceMonoMs() + f.boundMs();
      String s = "seed " + seed + ": " + h;
      boolean stopSeen = h.stopAt() <= h.givenUpAt();
      assertEquals(stopSeen, h.last().stoppedAtMonoMs().isPresent(), s);
      long stoppedAt = h.last().stoppedAtMonoMs().orElse(Long.MAX_VALUE);
      assertTrue(!stopSeen || stoppedAt >= h.stopAt() && stoppedAt <= h.stopAt() + 300, s + ": the stop counts when seen");
      long end = stopSeen ? Math.min(boundEnd, stoppedAt + f.graceMs()) : boundEnd;
      for (long t : h.tryStarts()) {
        assertTrue(t <= end, s + ": a try at " + t + " past the end " + end);
      }
      assertTrue(h.givenUpAt() >= end, s + ": gave up before the end " + end);
      assertEquals(end < boundEnd, h.giveUp().stopped(), s + ": says whether the stop's grace ended the tries");
      for (long p : h.pauses()) {
        assertTrue(p >= 0 && p <= OutcomeRetry.MAX_PAUSE_MS, s + ": pause " + p);
      }
      for (int i = 1; i < h.tryStarts().size(); i++) {
        assertTrue(h.tryStarts().get(i) - h.tryStarts().get(i - 1) <= OutcomeRetry.MAX_PAUSE_MS + 300,
            s + ": room made at any time is found within one longest pause (and a try)");
      }
      seen.merge(h.giveUp().stopped() ? "stopped" : "bound", 1, Integer::sum);
      if (h.tryStarts().size() > 8) {
        seen.merge("capped", 1, Integer::sum);
      }
    });
    System.out.println("outcome retry histories " + seen);
    assertTrue(seen.keySet().containsAll(List.of("stopped", "bound", "capped")), "every case occurred: " + seen);
  }

  @Test
  void pausesDoubleFromTheFirstToTheLongest_cutOnlyByTheEnd() {
    forSeeds(1_000, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      long since = r.nextLong(-(1L << 40), 1L << 40);
      OutcomeRetry retry = OutcomeRetry.afterFirstFailure(since, 1 + r.nextLong(OutcomeRetry.MAX_PAUSE_MS * 40), 0);
      long now = since;
      long expected = OutcomeRetry.FIRST_PAUSE_MS;
      while (retry.next(now) instanceof OutcomeRetry.Next.Pause p) {
        long left = retry.endMonoMs() - now;
        assertEquals(Math.min(expected, left), p.ms(), "seed " + seed + ", after " + retry.failures() + " failures");
        assertTrue(p.ms() >= 1, "seed " + seed);
        now += p.ms();
        retry = retry.failedAgain();
        expected = Math.min(OutcomeRetry.MAX_PAUSE_MS, expected * 2);
      }
      assertEquals(retry.endMonoMs(), now, "seed " + seed + ": the last try falls on the end");
      long tries = retry.failures();
      long span = retry.endMonoMs() - since;
      assertTrue(tries <= 8 + span / OutcomeRetry.MAX_PAUSE_MS, "seed " + seed + ": a disk that stays full costs "
          + "one try per longest pause: " + tries + " tries in " + span + " ms");
    });
  }

  @Test
  void onlyTheFirstStopCounts_andAStopNeverMovesTheEndLater() {
    forSeeds(1_000, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      long since = r.nextLong(-(1L << 40), 1L << 40);
      OutcomeRetry retry = OutcomeRetry.afterFirstFailure(since, 1 + r.nextLong(1_000_000), r.nextLong(100_000));
      for (int i = r.nextInt(20); i > 0; i--) {
        retry = retry.failedAgain();
      }
      long t1 = since + r.nextLong(2_000_000);
      long t2 = t1 + r.nextLong(2_000_000);
      OutcomeRetry once = retry.stopped(t1);
      assertEquals(once, once.stopped(t2), "seed " + seed);
      assertTrue(once.endMonoMs() <= retry.endMonoMs(), "seed " + seed);
      assertEquals(retry.failures(), once.failures(), "seed " + seed);
    });
  }

  @Test
  void theBoundMustBePositive_theGraceNotNegative() {
    assertThrows(IllegalArgumentException.class, () -> OutcomeRetry.afterFirstFailure(0, 0, 0));
    assertThrows(IllegalArgumentException.class, () -> OutcomeRetry.afterFirstFailure(0, 1, -1));
    assertEquals(new OutcomeRetry.Next.GiveUp(true), OutcomeRetry.afterFirstFailure(0, 10_000, 0).stopped(0).next(0),
        "no grace: a stop ends the tries at once");
  }
}
