package dev.vigil.coordination;

/**
 * What a compaction did (Q18).
 *
 * @param bytesBefore the store file's size before, bytes (0 for a store without a file)
 * @param bytesAfter  its size after, bytes
 */
public record Compacted(long bytesBefore, long bytesAfter) {
  public Compacted {
    if (bytesBefore < 0 || bytesAfter < 0) {
      throw new IllegalArgumentException("sizes must be >= 0: " + bytesBefore + ", " + bytesAfter);
    }
  }

  /** The record line. */
  public String summary() {
    return "store file " + bytesBefore + " bytes before, " + bytesAfter + " after";
  }
}
