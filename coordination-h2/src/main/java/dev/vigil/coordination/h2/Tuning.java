package dev.vigil.coordination.h2;

/**
 * H2 storage settings that {@link H2Coordination#open} applies and verifies. Only
 * {@link #DURABLE} is reachable from the public API; tests pass others to show what they cost
 * (H2's defaults lose acknowledged commits on {@code kill -9}).
 *
 * @param writeDelayMs    {@code SET WRITE_DELAY}: ms a commit may wait before it is written to the file
 * @param retentionTimeMs {@code SET RETENTION_TIME}: ms before freed file space may be reused
 * @param appendOnly      {@code REUSE_SPACE=FALSE}: chunks are only appended (see {@link Compaction})
 * @param minGrowthBytes  for an append-only file, the least growth that triggers a compaction
 */
record Tuning(int writeDelayMs, int retentionTimeMs, boolean appendOnly, long minGrowthBytes) {
  /** Every commit in the file before it returns, appended, never written over freed space. */
  static final Tuning DURABLE = new Tuning(0, 0, true, Compaction.MIN_GROWTH_BYTES);
  /** What a plain H2 URL gives: commits written within 500 ms, freed space reused after 45 s. */
  static final Tuning H2_DEFAULTS = new Tuning(500, 45_000, false, Compaction.MIN_GROWTH_BYTES);

  Tuning {
    if (writeDelayMs < 0 || retentionTimeMs < 0) {
      throw new IllegalArgumentException("writeDelayMs (" + writeDelayMs + ") and retentionTimeMs ("
          + retentionTimeMs + ") must be >= 0");
    }
    if (minGrowthBytes < 1) {
      throw new IllegalArgumentException("minGrowthBytes (" + minGrowthBytes + ") must be >= 1");
    }
  }

  /** Reads {@code writeDelayMs,retentionTimeMs,appendOnly,minGrowthBytes}, e.g. {@code 500,45000,false,1}. */
  static Tuning parse(String text) {
    String[] f = text.split(",");
    if (f.length != 4) {
      throw new IllegalArgumentException(
          "tuning '" + text + "' must be writeDelayMs,retentionTimeMs,appendOnly,minGrowthBytes");
    }
    return new Tuning(Integer.parseInt(f[0].strip()), Integer.parseInt(f[1].strip()),
        Boolean.parseBoolean(f[2].strip()), Long.parseLong(f[3].strip()));
  }

  @Override
  public String toString() {
    return writeDelayMs + "," + retentionTimeMs + "," + appendOnly + "," + minGrowthBytes;
  }
}
