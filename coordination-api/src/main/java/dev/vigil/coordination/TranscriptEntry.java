package dev.vigil.coordination;

import java.util.Objects;

/**
 * One lifecycle line of a service's transcript (S7, DESIGN.md "Service transcripts"): what happened to
 * the service's worker, or a restore notice. Ids count up in commit order across all services, so a reader
 * that saw up to id N and asks for what comes after N misses nothing that is still kept. A service keeps its
 * last {@link #KEEP_LIFECYCLE} lifecycle entries and its last {@link #KEEP_RESTORES} restore notices; older
 * ones are deleted in the transaction that appends a newer one.
 *
 * @param id        the entry's id
 * @param service   the service it is about
 * @param atMs      wall-clock ms of the decision
 * @param kind      what happened
 * @param text      a line for people (for {@link Kind#RESTORED}, the snapshot's name)
 * @param outputAt  the length of the service's output stream (bytes of {@code stdout.log}, dropped bytes
 *                  counted) when the entry was written: the output before it comes before it in the view
 * @param restoreId for {@link Kind#RESTORED}, the restore it tells of (unique per service); else {@code null}
 */
public record TranscriptEntry(long id, String service, long atMs, Kind kind, String text, long outputAt,
                              String restoreId) {
  /** Lifecycle entries a service keeps, newest first. */
  public static final int KEEP_LIFECYCLE = 1_000;
  /** Restore notices a service keeps, newest first. */
  public static final int KEEP_RESTORES = 100;
  /** The longest text kept, characters; longer text is cut with an ellipsis. */
  public static final int MAX_TEXT = 1_000;

  /** What an entry tells. */
  public enum Kind {
    /** A worker was launched (at boot, by an operator, after a restart pause). */
    LAUNCHED,
    /** A worker found alive at boot was taken over by this daemon (S6). */
    ADOPTED,
    /** The worker exited or was found dead. */
    EXITED,
    /** A restart was scheduled after a pause (S1); the text says how long and why. */
    RESTARTING,
    /** The service exceeded its restart budget (S1); written with its SERVICE_GIVEN_UP event. */
    GIVEN_UP,
    /** The service was left down (stopped by an operator, on demand and idle). */
    DOWN,
    /** A worker started over a restored snapshot (S7): one entry per restore. */
    RESTORED;

    /** The word a view shows, e.g. {@code launched}, {@code given up}. */
    public String word() {
      return name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
    }
  }

  public TranscriptEntry {
    if (id < 1) {
      throw new IllegalArgumentException("id (" + id + ") must be >= 1");
    }
    Objects.requireNonNull(service, "service");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(text, "text");
    if (outputAt < 0) {
      throw new IllegalArgumentException("outputAt (" + outputAt + ") must be >= 0");
    }
    if ((kind == Kind.RESTORED) != (restoreId != null)) {
      throw new IllegalArgumentException("a restore id is named exactly by a RESTORED entry");
    }
  }

  /** {@code text} cut to {@link #MAX_TEXT} characters. */
  public static String bounded(String text) {
    Objects.requireNonNull(text, "text");
    return text.length() <= MAX_TEXT ? text : text.substring(0, MAX_TEXT - 1) + "…";
  }

  /** Checks a lifecycle entry's arguments as every store does before anything changes. */
  public static void checkLifecycle(String service, Kind kind, String text, long outputAt) {
    Objects.requireNonNull(service, "service");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(text, "text");
    if (kind == Kind.RESTORED || kind == Kind.GIVEN_UP) {
      throw new IllegalArgumentException(kind + " entries are written by restored and serviceGivenUp");
    }
    if (outputAt < 0) {
      throw new IllegalArgumentException("outputAt (" + outputAt + ") must be >= 0");
    }
  }

  /** Checks a restore's arguments as every store does before anything changes. */
  public static void checkRestore(String service, String restoreId, String snapshot, long outputAt) {
    Objects.requireNonNull(service, "service");
    Objects.requireNonNull(restoreId, "restoreId");
    Objects.requireNonNull(snapshot, "snapshot");
    if (restoreId.isEmpty() || restoreId.length() > 200) {
      throw new IllegalArgumentException("restoreId must be 1-200 characters");
    }
    if (snapshot.isEmpty() || snapshot.length() > 200) {
      throw new IllegalArgumentException("snapshot must be 1-200 characters");
    }
    if (outputAt < 0) {
      throw new IllegalArgumentException("outputAt (" + outputAt + ") must be >= 0");
    }
  }
}
