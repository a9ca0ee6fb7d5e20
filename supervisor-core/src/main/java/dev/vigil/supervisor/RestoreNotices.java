package dev.vigil.supervisor;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Restore notices (S7). A worker that starts over a restored snapshot stores one notice per
 * restore: storing the same restore again (a restart over it) stores nothing. Each attach rebuilds
 * the transcript from the stored notices; a {@link View} shows each notice once, however often it
 * attaches, so after an attach it has shown exactly one notice per restore.
 *
 * <p>Immutable values: the stored notices belong with the session's stored messages; a view
 * belongs to the client that shows it and lives across its attaches.
 */
public final class RestoreNotices {
  private static final RestoreNotices NONE = new RestoreNotices(List.of());

  /**
   * One restore notice.
   *
   * @param restoreId the restore it tells of, unique per restore
   * @param snapshot  the snapshot restored
   * @param atWallMs  when the worker started over it, wall clock
   */
  public record Notice(String restoreId, String snapshot, long atWallMs) {
    public Notice {
      Objects.requireNonNull(restoreId, "restoreId");
      Objects.requireNonNull(snapshot, "snapshot");
    }

    /** The notice as shown, e.g. {@code restored from snapshot s1}. */
    public String text() {
      return "restored from snapshot " + snapshot;
    }
  }

  /** The outcome of storing a restore's notice. */
  public sealed interface Stored {
    /**
     * The notice was stored.
     *
     * @param notice the stored notice
     */
    record Added(Notice notice) implements Stored {
      public Added {
        Objects.requireNonNull(notice, "notice");
      }
    }

    /**
     * This restore already has its notice; nothing stored.
     *
     * @param notice the notice stored earlier
     */
    record AlreadyStored(Notice notice) implements Stored {
      public AlreadyStored {
        Objects.requireNonNull(notice, "notice");
      }
    }
  }

  /** What a view shows. */
  public sealed interface Shown {
    /**
     * Show these notices, in stored order.
     *
     * @param notices notices this view has not shown before, never empty
     */
    record Show(List<Notice> notices) implements Shown {
      public Show {
        notices = List.copyOf(notices);
        if (notices.isEmpty()) {
          throw new IllegalArgumentException("notices must not be empty");
        }
      }
    }

    /** Nothing this view has not shown. */
    record NothingNew() implements Shown {}
  }

  private final List<Notice> notices;

  private RestoreNotices(List<Notice> notices) {
    this.notices = notices;
  }

  /** No notices stored. */
  public static RestoreNotices none() {
    return NONE;
  }

  /** The stored notices rebuilt from the session's stored messages, in their order. */
  public static RestoreNotices of(List<Notice> stored) {
    RestoreNotices r = NONE;
    for (Notice n : Objects.requireNonNull(stored, "stored")) {
      r = r.onRestore(n.restoreId(), n.snapshot(), n.atWallMs()).next();
    }
    return r;
  }

  /** A worker started over restore {@code restoreId} of {@code snapshot} at {@code nowWallMs}. */
  public Step<RestoreNotices, Stored> onRestore(String restoreId, String snapshot, long nowWallMs) {
    Objects.requireNonNull(restoreId, "restoreId");
    for (Notice n : notices) {
      if (n.restoreId().equals(restoreId)) {
        return new Step<>(this, new Stored.AlreadyStored(n));
      }
    }
    Notice n = new Notice(restoreId, snapshot, nowWallMs);
    List<Notice> next = new ArrayList<>(notices);
    next.add(n);
    return new Step<>(new RestoreNotices(Collections.unmodifiableList(next)), new Stored.Added(n));
  }

  /** The stored notices, one per restore, in stored order. */
  public List<Notice> notices() {
    return notices;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RestoreNotices r && r.notices.equals(notices);
  }

  @Override
  public int hashCode() {
    return notices.hashCode();
  }

  @Override
  public String toString() {
    return "RestoreNotices" + notices;
  }

  /** One view of a session's transcript, across its attaches: the notices it has shown. */
  public static final class View {
    private static final View FRESH = new View(Set.of());

    private final Set<String> shown;

    private View(Set<String> shown) {
      this.shown = shown;
    }

    /** A view that has shown nothing. */
    public static View fresh() {
      return FRESH;
    }

    /** Attaches: rebuilds the transcript from {@code stored} and shows the notices not yet shown. */
    public Step<View, Shown> attach(RestoreNotices stored) {
      Objects.requireNonNull(stored, "stored");
      List<Notice> fresh = new ArrayList<>();
      Set<String> next = new HashSet<>(shown);
      for (Notice n : stored.notices()) {
        if (next.add(n.restoreId())) {
          fresh.add(n);
        }
      }
      if (fresh.isEmpty()) {
        return new Step<>(this, new Shown.NothingNew());
      }
      return new Step<>(new View(Collections.unmodifiableSet(next)), new Shown.Show(fresh));
    }

    /** A notice stored while this view is attached. */
    public Step<View, Shown> onNotice(Notice notice) {
      Objects.requireNonNull(notice, "notice");
      if (shown.contains(notice.restoreId())) {
        return new Step<>(this, new Shown.NothingNew());
      }
      Set<String> next = new HashSet<>(shown);
      next.add(notice.restoreId());
      return new Step<>(new View(Collections.unmodifiableSet(next)), new Shown.Show(List.of(notice)));
    }

    /** The restores whose notice this view has shown. */
    public Set<String> shown() {
      return shown;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof View v && v.shown.equals(shown);
    }

    @Override
    public int hashCode() {
      return shown.hashCode();
    }

    @Override
    public String toString() {
      return "View[shown " + shown + "]";
    }
  }
}
