package dev.vigil.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.supervisor.StoreOutage.Note;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class StoreOutageTest {
  private static final String FILE = "/home/ann/.vigil/vigil.mv.db";
  private static final String[] REASONS = {"no space left on device", "an I/O error", "the file system is read-only"};

  @Test
  void D5_everyCommandGetsOneLineNamingTheCauseAndTheFile_andThatWorkGoesOn() {
    StoreOutage o = StoreOutage.begin(FILE, "no space left on device", 1_000, 1_700_000_000_000L).outage();
    assertEquals("the store is unavailable: no space left on device in /home/ann/.vigil/vigil.mv.db; running work"
        + " continues; nothing new starts", o.line());
    assertFalse(o.line().contains("\n"));
  }

  @Test
  void D5_theFirstReopenComesHalfASecondAfterTheFailure_thenEachPauseDoubles_upToFifteenSeconds() {
    assertEquals(500, StoreOutage.pauseAfter(0));
    assertEquals(1_000, StoreOutage.pauseAfter(1));
    assertEquals(8_000, StoreOutage.pauseAfter(4));
    assertEquals(15_000, StoreOutage.pauseAfter(5));
    assertEquals(15_000, StoreOutage.pauseAfter(Integer.MAX_VALUE));
    assertThrows(IllegalArgumentException.class, () -> StoreOutage.pauseAfter(-1));
    StoreOutage o = StoreOutage.begin(FILE, "an I/O error", 1_000, 5).outage();
    assertFalse(o.attemptDue(1_499));
    assertTrue(o.attemptDue(1_500));
  }

  @Test
  void D5_theLogHearsOfTheBeginning_eachChangeOfCause_andTheEnd_withTheCount_neverOfEachAttempt() {
    StoreOutage.Step s = StoreOutage.begin(FILE, "no space left on device", 0, 0);
    assertInstanceOf(Note.Began.class, s.note().orElseThrow());
    s = s.outage().attemptFailed("no space left on device", 500);
    assertEquals(Optional.empty(), s.note(), "the same cause again says nothing");
    s = s.outage().attemptFailed("an I/O error", 1_500);
    assertEquals("the store is still unavailable, now: an I/O error (was: no space left on device); 2 failed reopen"
        + " attempts so far", s.note().orElseThrow().line());
    Note.Ended end = s.outage().ended(61_500);
    assertEquals("the store is back after 1m1s500ms and 2 failed reopen attempts; recovering every run as at a start",
        end.line());
  }

  /**
   * D5 as a property: over any run of failed attempts (causes drawn from a few, at any times), the
   * pauses start at the first retry, never shrink, never pass the cap; every attempt is counted;
   * the log gets exactly one note at the beginning, one per change of cause, one at the end.
   */
  @Test
  void D5_pausesGrowToTheCap_andTheLogGetsOneNotePerBeginningChangeAndEnd() {
    Props.Coverage cov = new Props.Coverage("D5 outage", Note.Began.class, Note.Changed.class, Note.Ended.class,
        "a silent attempt", "a pause at the cap", "ended before any attempt");
    Props.forSeeds(2_000, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      long now = r.nextLong(1L << 40);
      String ctx = "seed " + seed;
      StoreOutage.Step s = StoreOutage.begin(FILE, REASONS[r.nextInt(REASONS.length)], now, 1_700_000_000_000L);
      List<Note> notes = new ArrayList<>();
      s.note().ifPresent(notes::add);
      assertEquals(now + StoreOutage.FIRST_RETRY_MS, s.outage().nextAttemptMonoMs(), ctx);
      int attempts = r.nextInt(12);
      int changes = 0;
      long lastPause = StoreOutage.FIRST_RETRY_MS;
      for (int i = 0; i < attempts; i++) {
        now = s.outage().nextAttemptMonoMs() + (r.nextBoolean() ? 0 : r.nextLong(20_000));
        assertTrue(s.outage().attemptDue(now), ctx);
        String why = r.nextInt(3) == 0 ? REASONS[r.nextInt(REASONS.length)] : s.outage().reason();
        boolean changed = !why.equals(s.outage().reason());
        s = s.outage().attemptFailed(why, now);
        long pause = s.outage().nextAttemptMonoMs() - now;
        assertTrue(pause >= lastPause && pause <= StoreOutage.MAX_RETRY_MS, ctx + ": pause " + pause + " after "
            + lastPause);
        assertFalse(s.outage().attemptDue(now + pause - 1), ctx);
        lastPause = pause;
        if (pause == StoreOutage.MAX_RETRY_MS) {
          cov.label("a pause at the cap");
        }
        assertEquals(changed, s.note().isPresent(), ctx + ": a note exactly when the cause changed");
        if (changed) {
          changes++;
        } else {
          cov.label("a silent attempt");
        }
        s.note().ifPresent(notes::add);
        assertEquals(i + 1, s.outage().failedAttempts(), ctx);
      }
      if (attempts == 0) {
        cov.label("ended before any attempt");
      }
      Note.Ended end = s.outage().ended(now);
      notes.add(end);
      assertEquals(2 + changes, notes.size(), ctx);
      assertInstanceOf(Note.Began.class, notes.get(0), ctx);
      assertInstanceOf(Note.Ended.class, notes.get(notes.size() - 1), ctx);
      assertTrue(end.line().contains(attempts + " failed reopen attempt"), ctx + ": " + end.line());
      notes.forEach(cov::saw);
      notes.forEach(n -> assertFalse(n.line().contains("\n"), ctx));
    });
    cov.assertComplete();
  }
}
