package dev.vigil.coordination;

import java.util.List;

/** Read-only queries over service transcripts (S7), part of {@link Store}. */
public interface TranscriptReads {
  /**
   * The kept entries of {@code service} whose id is greater than {@code afterId}, in id order: at most
   * {@code limit} (at least 1).
   */
  List<TranscriptEntry> transcript(String service, long afterId, int limit);
}
