package dev.vigil.coordination;

/**
 * The verbs of service transcripts (S7), part of {@link Coordination}: each one transaction that appends
 * entries and deletes those past the service's bound ({@link TranscriptEntry#KEEP_LIFECYCLE},
 * {@link TranscriptEntry#KEEP_RESTORES}). A service given up writes its GIVEN_UP entry in the transaction
 * of its event ({@link Coordination#serviceGivenUp}).
 */
public interface TranscriptVerbs {
  /**
   * Appends a lifecycle entry (not RESTORED, not GIVEN_UP); its text is cut to {@link TranscriptEntry#MAX_TEXT}.
   *
   * @throws IllegalArgumentException for a RESTORED or GIVEN_UP kind or a negative {@code outputAt}
   */
  TranscriptEntry transcribe(String service, TranscriptEntry.Kind kind, String text, long outputAt, long nowMs);

  /**
   * S7: stores the notice of restore {@code restoreId} of {@code snapshot} once: {@link Restore.Added} the
   * first time, {@link Restore.AlreadyStored} (nothing changes) while the service keeps that notice.
   */
  Restore restored(String service, String restoreId, String snapshot, long outputAt, long nowMs);
}
