package dev.vigil.coordination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.vigil.coordination.law.Coverage;
import dev.vigil.coordination.law.LeaseLaw;
import java.util.HashSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The transcript verbs' contract (S7), kept by the reference model and every adapter: lifecycle entries numbered in
 * commit order and read per service, one notice per restore (across a reopen), the GIVEN_UP entry written with
 * its event, the bounds, and random sequences that decide as the model decides.
 */
public abstract class TranscriptContract extends StoreContract {
  protected static final long T0 = 1_700_000_000_000L;

  @Test
  void S7_lifecycleEntriesAreNumberedInCommitOrder_andReadPerService() {
    TranscriptEntry a = c.transcribe("web", TranscriptEntry.Kind.LAUNCHED, "started at boot (pid 10)", 0, T0);
    TranscriptEntry b = c.transcribe("chat", TranscriptEntry.Kind.LAUNCHED, "started at boot (pid 11)", 0, T0 + 1);
    TranscriptEntry d = c.transcribe("web", TranscriptEntry.Kind.EXITED, "worker exited (code 1)", 120, T0 + 2);
    assertEquals(new TranscriptEntry(1, "web", T0, TranscriptEntry.Kind.LAUNCHED, "started at boot (pid 10)", 0, null), a);
    assertEquals(2, b.id());
    assertEquals(new TranscriptEntry(3, "web", T0 + 2, TranscriptEntry.Kind.EXITED, "worker exited (code 1)", 120, null), d);
    assertEquals(List.of(a, d), c.store().transcript("web", 0, 10));
    assertEquals(List.of(d), c.store().transcript("web", 1, 10), "after an id: only what came after it");
    assertEquals(List.of(a), c.store().transcript("web", 0, 1), "at most limit");
    assertEquals(List.of(b), c.store().transcript("chat", 0, 10));
    assertEquals(List.of(), c.store().transcript("nosuch", 0, 10));
    String longText = "x".repeat(TranscriptEntry.MAX_TEXT + 50);
    TranscriptEntry cut = c.transcribe("web", TranscriptEntry.Kind.DOWN, longText, 120, T0 + 3);
    assertEquals(TranscriptEntry.MAX_TEXT, cut.text().length(), "text is cut to its bound");
    assertEquals(cut, c.store().transcript("web", 3, 10).get(0));
  }

  @Test
  void S7_aRestoreIsStoredOnce_evenToTheNextDaemon() throws Exception {
    Restore first = c.restored("web", "pid-7-1", "snap-3", 40, T0);
    TranscriptEntry notice = new TranscriptEntry(1, "web", T0, TranscriptEntry.Kind.RESTORED, "snap-3", 40, "pid-7-1");
    assertEquals(new Restore.Added(notice), first);
    assertEquals(new Restore.AlreadyStored(notice), c.restored("web", "pid-7-1", "snap-3", 90, T0 + 5),
        "said again: nothing stored, the earlier notice named");
    c = reopen(c);
    assertEquals(new Restore.AlreadyStored(notice), c.restored("web", "pid-7-1", "snap-3", 95, T0 + 9),
        "said again to the next daemon: nothing stored");
    assertInstanceOf(Restore.Added.class, c.restored("chat", "pid-7-1", "snap-3", 0, T0 + 10),
        "a restore id names a restore of its own service");
    assertInstanceOf(Restore.Added.class, c.restored("web", "pid-8-2", "snap-4", 100, T0 + 11));
    assertEquals(2, c.store().transcript("web", 0, 10).size());
  }

  @Test
  void S1_S7_aServiceGivenUpWritesItsEventAndItsEntryTogether_markedAtItsLatestEntry() {
    Event none = c.serviceGivenUp("fresh", "failed 6 times within 15m", T0);
    assertEquals(Event.Kind.SERVICE_GIVEN_UP, none.kind());
    assertEquals(List.of(new TranscriptEntry(1, "fresh", T0, TranscriptEntry.Kind.GIVEN_UP, "failed 6 times within 15m",
        0, null)), c.store().transcript("fresh", 0, 10), "no entry before: marked at 0");
    c.transcribe("web", TranscriptEntry.Kind.RESTARTING, "in 250ms: worker exited (code 1)", 512, T0 + 1);
    Event e = c.serviceGivenUp("web", "failed 6 times within 15m", T0 + 2);
    assertEquals(List.of(e), c.store().events(none.id(), 10));
    TranscriptEntry last = c.store().transcript("web", 0, 10).get(1);
    assertEquals(new TranscriptEntry(3, "web", T0 + 2, TranscriptEntry.Kind.GIVEN_UP, "failed 6 times within 15m",
        512, null), last);
  }

  @Test
  void S7_aServiceKeepsItsLastEntriesWithinItsBounds() {
    c.transcribe("other", TranscriptEntry.Kind.LAUNCHED, "started at boot", 0, T0);
    int lifecycle = TranscriptEntry.KEEP_LIFECYCLE + 5;
    int restores = TranscriptEntry.KEEP_RESTORES + 3;
    for (int i = 0; i < lifecycle; i++) {
      c.transcribe("web", TranscriptEntry.Kind.LAUNCHED, "launch " + i, i, T0 + i);
      if (i < restores) {
        assertInstanceOf(Restore.Added.class, c.restored("web", "r-" + i, "snap-" + i, i, T0 + i));
      }
    }
    List<TranscriptEntry> kept = c.store().transcript("web", 0, 10_000);
    List<TranscriptEntry> launches = kept.stream().filter(e -> e.kind() == TranscriptEntry.Kind.LAUNCHED).toList();
    List<TranscriptEntry> notices = kept.stream().filter(e -> e.kind() == TranscriptEntry.Kind.RESTORED).toList();
    assertEquals(TranscriptEntry.KEEP_LIFECYCLE, launches.size(), "the last lifecycle entries are kept");
    assertEquals("launch 5", launches.get(0).text(), "the oldest went first");
    assertEquals(TranscriptEntry.KEEP_RESTORES, notices.size(), "the last restore notices are kept");
    assertEquals("r-3", notices.get(0).restoreId());
    assertEquals(1, c.store().transcript("other", 0, 10).size(), "another service keeps its own");
    assertInstanceOf(Restore.AlreadyStored.class, c.restored("web", "r-50", "snap-50", 0, T0));
  }

  @Test
  void S7_badArgumentsAreRefusedBeforeAnythingChanges() {
    assertThrows(IllegalArgumentException.class, () -> c.transcribe("web", TranscriptEntry.Kind.RESTORED, "x", 0, T0));
    assertThrows(IllegalArgumentException.class, () -> c.transcribe("web", TranscriptEntry.Kind.GIVEN_UP, "x", 0, T0));
    assertThrows(IllegalArgumentException.class, () -> c.transcribe("web", TranscriptEntry.Kind.LAUNCHED, "x", -1, T0));
    assertThrows(IllegalArgumentException.class, () -> c.restored("web", "", "snap", 0, T0));
    assertThrows(IllegalArgumentException.class, () -> c.restored("web", "r", "s".repeat(201), 0, T0));
    assertThrows(NullPointerException.class, () -> c.restored("web", null, "snap", 0, T0));
    assertThrows(IllegalArgumentException.class, () -> c.store().transcript("web", 0, 0));
    assertEquals(List.of(), c.store().transcript("web", 0, 10), "nothing was written");
  }

  /**
   * S7 on random sequences of lifecycle entries, restores (new and said again, to this store and after a reopen)
   * and give-ups over two services: every decision and every read equals the reference model's, and the store never
   * holds two notices of one restore.
   */
  @Test
  void S7_randomSequences_decideAsTheModel_andKeepOneNoticePerRestore() {
    Coverage cov = new Coverage("S7 transcripts");
    qt().withExamples(40).withShrinkCycles(0).forAll(longs().all()).checkAssert(seed -> {
      try {
        dispose(c);
        c = create();
      } catch (Exception e) {
        throw new AssertionError(e);
      }
      LeaseLaw model = new LeaseLaw();
      SplittableRandom r = new SplittableRandom(seed);
      long now = T0;
      for (int step = 0; step < 30; step++) {
        now += r.nextInt(1_000);
        String service = r.nextBoolean() ? "web" : "chat";
        String ctx = "seed " + seed + ", step " + step;
        int dice = r.nextInt(10);
        if (dice < 4) {
          TranscriptEntry.Kind kind = List.of(TranscriptEntry.Kind.LAUNCHED, TranscriptEntry.Kind.ADOPTED,
              TranscriptEntry.Kind.EXITED, TranscriptEntry.Kind.RESTARTING, TranscriptEntry.Kind.DOWN).get(r.nextInt(5));
          long mark = r.nextInt(10_000);
          assertEquals(model.transcribe(service, kind, "t" + step, mark, now), c.transcribe(service, kind, "t" + step,
              mark, now), ctx);
          cov.saw("transcribed");
        } else if (dice < 8) {
          String id = "pid-" + r.nextInt(4);
          Restore expected = model.restored(service, id, "snap-" + step, step, now);
          assertEquals(expected, c.restored(service, id, "snap-" + step, step, now), ctx);
          cov.saw(expected.getClass().getSimpleName());
        } else if (dice < 9) {
          Event expected = model.serviceGivenUp(service, "given up " + step, now);
          assertEquals(expected.kind(), c.serviceGivenUp(service, "given up " + step, now).kind(), ctx);
          cov.saw("given up");
        } else {
          try {
            c = reopen(c);
          } catch (Exception e) {
            throw new AssertionError(e);
          }
          cov.saw("reopened");
        }
        for (String s : List.of("web", "chat")) {
          List<TranscriptEntry> kept = c.store().transcript(s, 0, 10_000);
          assertEquals(model.transcript(s, 0, 10_000), kept, ctx + ", " + s);
          Set<String> restores = new HashSet<>();
          for (TranscriptEntry e : kept) {
            assertTrue(e.restoreId() == null || restores.add(e.restoreId()),
                "S7 one notice per restore: " + e.restoreId() + " twice, " + ctx);
          }
        }
      }
    });
    cov.assertSaw("transcribed", "Added", "AlreadyStored", "given up", "reopened");
  }
}
