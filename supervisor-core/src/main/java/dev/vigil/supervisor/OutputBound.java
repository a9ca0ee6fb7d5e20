package dev.vigil.supervisor;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;

/**
 * The bound on one output stream of a run, its stdout or its stderr: at most {@code maxBytes} of it
 * are kept, the first half as it was written (the head) and the latest rest (the tail), with one
 * line in place of what was dropped between them ({@code … 4194304 bytes dropped …}). A run is never
 * stopped, slowed or blocked for its output: only bytes are dropped.
 *
 * <p>The stream is a file its command appends to. Which bytes of the file are output is a
 * {@link Layout}: the file's bytes {@code [0, head)} are the head, its bytes from {@code at} on are
 * the stream from offset {@code head + dropped} on, and the bytes between are a gap that is never
 * output (freed space while the run lasts, the marker line once it ended). Two decisions:
 *
 * <ol>
 *   <li>While the command writes, {@link #onSize}: once the kept rest after the gap is longer than
 *       {@link #tailBytes()} + {@link #slackBytes()}, all but its last {@link #tailBytes()} are
 *       dropped ({@link Cut.Drop}: publish the new layout first, then free the bytes). The slack
 *       batches the cuts: one per {@link #slackBytes()} written.
 *   <li>Once nothing writes to the file any more, {@link #onEnd}: its final form is the head, the
 *       marker line and exactly the last {@link #tailBytes()} of the stream ({@link Finish.Rewrite}),
 *       or the file as it is ({@link Finish.Unchanged}) when it never passed {@code maxBytes} or is
 *       in its final form already.
 * </ol>
 *
 * @param maxBytes how much of the stream is kept, bytes: {@value #MIN_BYTES} to {@value #MAX_BYTES}
 */
public record OutputBound(long maxBytes) {
  /** The default bound of each stream, bytes (64 MiB). */
  public static final long DEFAULT_MAX_BYTES = 64 * ByteSizes.MIB;
  /** The least bound, bytes (64 KiB). */
  public static final long MIN_BYTES = 64 * ByteSizes.KIB;
  /** The greatest bound, bytes (1 TiB). */
  public static final long MAX_BYTES = ByteSizes.TIB;
  /** The default bound. */
  public static final OutputBound DEFAULT = new OutputBound(DEFAULT_MAX_BYTES);

  public OutputBound {
    if (maxBytes < MIN_BYTES || maxBytes > MAX_BYTES) {
      throw new IllegalArgumentException("maxOutput (" + ByteSizes.format(maxBytes) + ") must be between "
          + ByteSizes.format(MIN_BYTES) + " and " + ByteSizes.format(MAX_BYTES));
    }
  }

  /** How much of the start of the stream is kept, bytes: half the bound. */
  public long headBytes() {
    return maxBytes / 2;
  }

  /** How much of the end of the stream is kept, bytes: the rest of the bound. */
  public long tailBytes() {
    return maxBytes - headBytes();
  }

  /** How far the kept rest may grow past {@link #tailBytes()} before the next cut, bytes: a quarter of it. */
  public long slackBytes() {
    return tailBytes() / 4;
  }

  /**
   * Which bytes of a stream's file are output.
   *
   * @param head    the file's first {@code head} bytes are the stream's first ones
   * @param dropped how many bytes of the stream after the head are not in the file
   * @param at      the file offset of the stream's byte {@code head + dropped}; the file's bytes
   *                {@code [head, at)} are the gap
   * @param marked  whether the gap is exactly the marker line of {@code dropped} (the final form)
   */
  public record Layout(long head, long dropped, long at, boolean marked) {
    public Layout {
      if (head < 0 || dropped < 0 || at < head) {
        throw new IllegalArgumentException("layout needs 0 <= head <= at and dropped >= 0: head " + head + ", dropped "
            + dropped + ", at " + at);
      }
    }

    /** The stream offset of the first byte kept after the gap. */
    public long keptFrom() {
      return head + dropped;
    }

    /** The file offset of stream offset {@code streamOffset}, which is in the head or at or after {@link #keptFrom()}. */
    public long fileOffsetOf(long streamOffset) {
      if (streamOffset < head) {
        return streamOffset;
      }
      if (streamOffset < keptFrom()) {
        throw new IllegalArgumentException("stream offset " + streamOffset + " was dropped");
      }
      return at + (streamOffset - keptFrom());
    }
  }

  /** What to do with a file that has grown, while its command may still write to it. */
  public sealed interface Cut {
    /** Nothing yet. */
    record Keep() implements Cut {}

    /**
     * Publish {@code next}, then free the file's bytes {@code [fromOffset, toOffset)}: they join the
     * gap. In that order, so that a reader that saw the old layout can tell its bytes were replaced.
     */
    record Drop(long fromOffset, long toOffset, Layout next) implements Cut {}
  }

  /** What to do with the file once nothing writes to it. */
  public sealed interface Finish {
    /** It is as it should stay. */
    record Unchanged() implements Finish {}

    /**
     * Make the file the head, then {@code marker}, then its bytes {@code [keepFrom, end)}: the last
     * {@link #tailBytes()} of the stream (or fewer, when fewer were kept); the result is {@code next}.
     */
    record Rewrite(long keepFrom, long end, String marker, Layout next) implements Finish {
      /** The file's size once rewritten. */
      public long finalBytes() {
        return next.at() + (end - keepFrom);
      }
    }
  }

  /**
   * The decision for a file of {@code fileBytes} whose output is {@code layout} (empty: the whole
   * file, nothing dropped yet).
   */
  public Cut onSize(Optional<Layout> layout, long fileBytes) {
    Objects.requireNonNull(layout, "layout");
    long head = layout.map(Layout::head).orElse(headBytes());
    long at = layout.map(Layout::at).orElse(head);
    long dropped = layout.map(Layout::dropped).orElse(0L);
    if (fileBytes - at <= tailBytes() + slackBytes()) {
      return new Cut.Keep();
    }
    long newAt = fileBytes - tailBytes();
    return new Cut.Drop(at, newAt, new Layout(head, dropped + (newAt - at), newAt, false));
  }

  /**
   * The final form of a file of {@code fileBytes} whose output is {@code layout}, once nothing
   * writes to it; {@code headEndsInNewline} tells whether the file's byte {@code head - 1} is a
   * newline (then the marker needs none before it).
   */
  public Finish onEnd(Optional<Layout> layout, long fileBytes, boolean headEndsInNewline) {
    Objects.requireNonNull(layout, "layout");
    if (layout.isEmpty() && fileBytes <= maxBytes) {
      return new Finish.Unchanged();
    }
    long head = layout.map(Layout::head).orElse(headBytes());
    long at = layout.map(Layout::at).orElse(head);
    long dropped = layout.map(Layout::dropped).orElse(0L);
    long keepFrom = fileBytes - at > tailBytes() ? fileBytes - tailBytes() : at;
    if (layout.isPresent() && layout.get().marked() && keepFrom == at) {
      return new Finish.Unchanged();
    }
    long total = dropped + (keepFrom - at);
    String marker = marker(total, headEndsInNewline);
    long markerBytes = marker.getBytes(StandardCharsets.UTF_8).length;
    return new Finish.Rewrite(keepFrom, fileBytes, marker, new Layout(head, total, head + markerBytes, true));
  }

  /**
   * The line that stands for {@code dropped} bytes: {@code … 4194304 bytes dropped …} and a
   * newline, after a newline of its own unless the output before it ended in one.
   */
  public static String marker(long dropped, boolean afterNewline) {
    return (afterNewline ? "" : "\n") + "… " + dropped + (dropped == 1 ? " byte" : " bytes") + " dropped …\n";
  }
}
