package dev.vigil.supervisor.law;

import dev.vigil.supervisor.RestoreNotices.Notice;
import java.util.ArrayList;
import java.util.List;

/**
 * S7 as written: every start over a restore is logged; the stored notices are one per restore (the
 * first start over it); each view keeps everything it ever showed and, on attach, shows the stored
 * notices it has not shown.
 */
public final class RestoreNoticeLaw {
  private final List<Notice> starts = new ArrayList<>();

  /** A worker started over a restore. */
  public void onRestore(String restoreId, String snapshot, long nowWallMs) {
    starts.add(new Notice(restoreId, snapshot, nowWallMs));
  }

  /** One notice per restore, in the order of the first start over each. */
  public List<Notice> stored() {
    List<Notice> out = new ArrayList<>();
    for (Notice n : starts) {
      if (out.stream().noneMatch(o -> o.restoreId().equals(n.restoreId()))) {
        out.add(n);
      }
    }
    return out;
  }

  /** One view's history of shown notices. */
  public static final class ViewLaw {
    private final List<Notice> everShown = new ArrayList<>();

    /** An attach: shows the stored notices not shown before. */
    public List<Notice> attach(List<Notice> stored) {
      List<Notice> now = new ArrayList<>();
      for (Notice n : stored) {
        if (everShown.stream().noneMatch(o -> o.restoreId().equals(n.restoreId()))) {
          now.add(n);
          everShown.add(n);
        }
      }
      return now;
    }

    /** Everything this view showed, in order. */
    public List<Notice> everShown() {
      return List.copyOf(everShown);
    }
  }
}
