package dev.vigil.coordination.h2;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * When to compact, so that the file stays bounded without giving up one acknowledged commit on
 * {@code kill -9}.
 *
 * <p>Measured on H2 2.5.252 with {@code WRITE_DELAY=0} (see the module README):
 * <ol>
 *   <li>When H2 writes a commit into file space freed by older chunks (its default), a
 *       {@code kill -9} loses the last acknowledged commits once the process has lived longer
 *       than {@code RETENTION_TIME}: with retention 0, 1 s, 5 s and H2's default 45 s alike; at
 *       0, commits of an earlier process, verified present after its kill, were rolled back by
 *       the next kill. So the database is opened with {@code REUSE_SPACE=FALSE}: every chunk is
 *       appended (and {@code RETENTION_TIME}, which only governs reuse, has nothing to do).
 *   <li>Appending grows the file by about 16 KB per commit, and H2's online compaction, which
 *       needs space reuse, stops with {@code WRITE_DELAY=0} (it runs in the background writer).
 *       Calling it from the adapter's own thread once failed a later verb with "Chunk not found".
 *       So the adapter compacts the way a clean close does: all verbs paused, pool closed,
 *       {@code SHUTDOWN COMPACT} (H2 copies the live data to a new file and moves it over the
 *       old one), reopened.
 *   <li>It does so when the file has grown past {@code max(3 × L, L + minGrowth)}, where L is its
 *       size after the last compaction: each compaction copies about L bytes after at least 2 × L
 *       bytes were appended (constant amortised cost per commit), and the file stays under about
 *       {@code 3 × live data + minGrowth}. Growth of L instead of 2 × L kept the file under
 *       {@code 2 × live data} but paused every verb twice as often; with a million settled tickets
 *       (150 MB, 5-7 s per compaction) the compactions then took a fifth to a half of the store's
 *       time (docs/PERFORMANCE.md, B6).
 * </ol>
 */
final class Compaction {
  /** The least growth that triggers a compaction, by default, bytes. */
  static final long MIN_GROWTH_BYTES = 16L << 20;
  /** The growth, in multiples of the size after the last compaction, that calls for the next one. */
  static final int GROWTH_FACTOR = 2;
  /** Write transactions between two looks at the file size. */
  static final int WRITES_PER_SIZE_CHECK = 64;

  private final Path file;
  private final long minGrowthBytes;
  private final AtomicLong writes = new AtomicLong();
  private volatile long baseline;

  Compaction(Path file, long minGrowthBytes) {
    this.file = file;
    this.minGrowthBytes = minGrowthBytes;
    compacted();
  }

  /** Counts a committed write transaction; true when the file has grown enough to compact. */
  boolean due() {
    if (writes.incrementAndGet() % WRITES_PER_SIZE_CHECK != 0) {
      return false;
    }
    long l = baseline;
    return size() >= l + growthAllowed(l, minGrowthBytes);
  }

  /** The growth of a file of {@code baseline} bytes after a compaction that calls for the next one. */
  static long growthAllowed(long baseline, long minGrowthBytes) {
    return Math.max(GROWTH_FACTOR * baseline, minGrowthBytes);
  }

  /** Records the size after a compaction (or at open) as the new baseline. */
  void compacted() {
    baseline = size();
  }

  private long size() {
    try {
      return Files.size(file);
    } catch (IOException e) {
      throw new UncheckedIOException(file + ": cannot read its size", e);
    }
  }
}
