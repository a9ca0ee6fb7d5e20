package dev.vigil.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vigil.supervisor.RestoreNotices.Notice;
import dev.vigil.supervisor.RestoreNotices.Shown;
import dev.vigil.supervisor.RestoreNotices.Stored;
import dev.vigil.supervisor.RestoreNotices.View;
import dev.vigil.supervisor.law.RestoreNoticeLaw;
import dev.vigil.supervisor.law.SupervisorInvariants;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RestoreNoticesTest {
  @Test
  void S7_aWorkerStoresOneNoticePerRestore() {
    Step<RestoreNotices, Stored> first = RestoreNotices.none().onRestore("r1", "snap-a", 10);
    assertEquals(new Stored.Added(new Notice("r1", "snap-a", 10)), first.decision());
    Step<RestoreNotices, Stored> again = first.next().onRestore("r1", "snap-a", 20);
    assertEquals(new Stored.AlreadyStored(new Notice("r1", "snap-a", 10)), again.decision());
    assertEquals(1, again.next().notices().size());
    assertEquals("restored from snapshot snap-a", first.next().notices().get(0).text());
  }

  @Test
  void S7_aViewShowsEachNoticeOnceAcrossAttaches() {
    RestoreNotices stored = RestoreNotices.none().onRestore("r1", "a", 1).next().onRestore("r2", "b", 2).next();
    Step<View, Shown> first = View.fresh().attach(stored);
    assertEquals(new Shown.Show(stored.notices()), first.decision());
    assertEquals(new Shown.NothingNew(), first.next().attach(stored).decision());
    RestoreNotices more = stored.onRestore("r3", "c", 3).next();
    assertEquals(new Shown.Show(List.of(new Notice("r3", "c", 3))), first.next().attach(more).decision());
    assertEquals(new Shown.Show(more.notices()), View.fresh().attach(RestoreNotices.of(more.notices())).decision(),
        "a new view rebuilt from stored messages shows every restore once");
  }

  @Test
  void S7_agreesWithLawModel_andAfterEveryAttachAViewHasShownOneNoticePerRestore() {
    Props.Coverage cov = new Props.Coverage("S7 notices", Stored.Added.class, Stored.AlreadyStored.class,
        Shown.Show.class, Shown.NothingNew.class, "live notice shown", "live notice already shown");
    Props.forSeeds(3_000, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      RestoreNotices stored = RestoreNotices.none();
      RestoreNoticeLaw law = new RestoreNoticeLaw();
      int views = 1 + r.nextInt(3);
      List<View> impl = new ArrayList<>();
      List<RestoreNoticeLaw.ViewLaw> model = new ArrayList<>();
      List<List<Notice>> everShown = new ArrayList<>();
      boolean[] attached = new boolean[views];
      for (int i = 0; i < views; i++) {
        impl.add(View.fresh());
        model.add(new RestoreNoticeLaw.ViewLaw());
        everShown.add(new ArrayList<>());
      }
      long now = r.nextLong(1L << 40);
      for (int step = 0; step < 1 + r.nextInt(25); step++) {
        now += r.nextLong(1_000);
        int v = r.nextInt(views);
        String ctx = "seed " + seed + ", step " + step + ", view " + v;
        switch (r.nextInt(3)) {
          case 0 -> {
            String id = "r" + r.nextInt(4);
            Step<RestoreNotices, Stored> s = stored.onRestore(id, "snap-" + id, now);
            law.onRestore(id, "snap-" + id, now);
            stored = s.next();
            assertEquals(law.stored(), stored.notices(), ctx);
            cov.saw(s.decision());
            if (s.decision() instanceof Stored.Added a) {
              for (int w = 0; w < views; w++) {
                if (attached[w]) {
                  Step<View, Shown> live = impl.get(w).onNotice(a.notice());
                  assertEquals(new Shown.Show(List.of(a.notice())), live.decision(), ctx + ", live to view " + w);
                  model.get(w).attach(List.of(a.notice()));
                  everShown.get(w).add(a.notice());
                  impl.set(w, live.next());
                  cov.label("live notice shown");
                  assertEquals(new Shown.NothingNew(), impl.get(w).onNotice(a.notice()).decision(), ctx);
                  cov.label("live notice already shown");
                }
              }
            }
          }
          case 1 -> {
            Step<View, Shown> s = impl.get(v).attach(RestoreNotices.of(stored.notices()));
            List<Notice> expected = model.get(v).attach(law.stored());
            List<Notice> shown = s.decision() instanceof Shown.Show sh ? sh.notices() : List.of();
            assertEquals(expected, shown, ctx);
            everShown.get(v).addAll(shown);
            impl.set(v, s.next());
            attached[v] = true;
            SupervisorInvariants.s7OneNoticePerRestore(everShown.get(v), stored.notices(), ctx);
            cov.saw(s.decision());
          }
          default -> attached[v] = false;
        }
      }
    });
    cov.assertComplete();
  }

  /**
   * S7 where the store keeps the notices: the reference store's {@code restored} decides as {@link RestoreNotices}
   * does (a restore stored once, said again stores nothing and names the first notice), and a view rebuilt from the
   * store's kept entries on every attach shows each restore once.
   */
  @Test
  void S7_theStoreDecidesAsThePureModel_andAViewOfItsEntriesShowsEachRestoreOnce() {
    Props.Coverage cov = new Props.Coverage("S7 store", Stored.Added.class, Stored.AlreadyStored.class,
        Shown.Show.class, Shown.NothingNew.class);
    Props.forSeeds(1_000, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      dev.vigil.coordination.law.LeaseLaw store = new dev.vigil.coordination.law.LeaseLaw();
      RestoreNotices pure = RestoreNotices.none();
      View view = View.fresh();
      List<Notice> shown = new ArrayList<>();
      long now = r.nextLong(1L << 40);
      for (int step = 0; step < 1 + r.nextInt(20); step++) {
        now += r.nextLong(1_000);
        String ctx = "seed " + seed + ", step " + step;
        if (r.nextInt(3) > 0) {
          String id = "pid-" + r.nextInt(5);
          Step<RestoreNotices, Stored> s = pure.onRestore(id, "snap-" + id, now);
          pure = s.next();
          dev.vigil.coordination.Restore d = store.restored("web", id, "snap-" + id, 0, now);
          Notice n = new Notice(d.entry().restoreId(), d.entry().text(), d.entry().atMs());
          Stored expected = s.decision();
          assertEquals(expected, d instanceof dev.vigil.coordination.Restore.Added ? new Stored.Added(n)
              : new Stored.AlreadyStored(n), ctx);
          cov.saw(expected);
        } else {
          List<Notice> kept = store.transcript("web", 0, 10_000).stream()
              .filter(e -> e.kind() == dev.vigil.coordination.TranscriptEntry.Kind.RESTORED)
              .map(e -> new Notice(e.restoreId(), e.text(), e.atMs())).toList();
          Step<View, Shown> a = view.attach(RestoreNotices.of(kept));
          view = a.next();
          if (a.decision() instanceof Shown.Show sh) {
            shown.addAll(sh.notices());
          }
          cov.saw(a.decision());
          SupervisorInvariants.s7OneNoticePerRestore(shown, pure.notices(), ctx);
        }
      }
    });
    cov.assertComplete();
  }
}
