package dev.vigil.supervisor.law;

import dev.vigil.supervisor.WorkSet.Kind;
import java.util.ArrayList;
import java.util.List;

/**
 * S3's definition of work as written: a log of every arrival, end and withdrawal; a piece is work
 * when its latest entry is an arrival; a withdrawn input is not work.
 */
public final class WorkLaw {
  private record Entry(Kind kind, String id, boolean arrived) {}

  private final List<Entry> log = new ArrayList<>();

  /** A piece of work arrived. */
  public void arrived(Kind kind, String id) {
    log.add(new Entry(kind, id, true));
  }

  /** A piece of work ended. */
  public void ended(Kind kind, String id) {
    log.add(new Entry(kind, id, false));
  }

  /** A queued input was withdrawn. */
  public void withdrawn(String inputId) {
    log.add(new Entry(Kind.QUEUED_INPUT, inputId, false));
  }

  /** Whether any piece's latest entry is an arrival. */
  public boolean isBusy() {
    return size() > 0;
  }

  /** How many pieces are work now. */
  public int size() {
    int n = 0;
    for (int i = 0; i < log.size(); i++) {
      Entry e = log.get(i);
      boolean latest = true;
      for (int j = i + 1; j < log.size(); j++) {
        if (log.get(j).kind() == e.kind() && log.get(j).id().equals(e.id())) {
          latest = false;
          break;
        }
      }
      if (latest && e.arrived()) {
        n++;
      }
    }
    return n;
  }
}
