package dev.vigil.supervisor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.supervisor.OutputBound.Cut;
import dev.vigil.supervisor.OutputBound.Finish;
import dev.vigil.supervisor.OutputBound.Layout;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The output bound against a file simulated in memory: a command appends, the keeper applies each
 * decision as the host does (a dropped range reads as zeros, a rewrite rebuilds the file), and the
 * output the layout describes is compared with the stream as written, byte for byte.
 */
class OutputBoundTest {
  @Test
  void aBoundOutsideItsRangeIsRefusedNamingTheField() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new OutputBound(1000));
    assertEquals("maxOutput (1000B) must be between 64KiB and 1TiB", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new OutputBound(ByteSizes.TIB + 1));
    assertEquals(32L << 20, OutputBound.DEFAULT.headBytes());
    assertEquals(32L << 20, OutputBound.DEFAULT.tailBytes());
  }

  @Test
  void theMarkerSaysHowManyBytesWereDropped_onALineOfItsOwn() {
    assertEquals("… 4194304 bytes dropped …\n", OutputBound.marker(4_194_304, true));
    assertEquals("\n… 1 byte dropped …\n", OutputBound.marker(1, false));
  }

  @Test
  void aStreamWithinTheBoundIsLeftAsItIs() {
    OutputBound b = new OutputBound(128 * 1024);
    assertInstanceOf(Cut.Keep.class, b.onSize(Optional.empty(), 128 * 1024));
    assertInstanceOf(Finish.Unchanged.class, b.onEnd(Optional.empty(), 128 * 1024, false));
    assertInstanceOf(Finish.Rewrite.class, b.onEnd(Optional.empty(), 128 * 1024 + 1, false));
  }

  /** A stream of bytes that depends on the seed and the offset only, with a newline now and then. */
  private static byte streamByte(long seed, long i) {
    long h = (i + seed) * 0x9E3779B97F4A7C15L;
    h ^= h >>> 29;
    return (h & 15) == 0 ? (byte) '\n' : (byte) ('a' + (int) ((h >>> 8) & 15));
  }

  /** The file as the keeper sees it: appended to, ranges zeroed, rebuilt at the end. */
  private static final class SimFile {
    byte[] bytes = new byte[1024];
    int size;

    void append(byte b) {
      if (size == bytes.length) {
        bytes = Arrays.copyOf(bytes, size * 2);
      }
      bytes[size++] = b;
    }

    void zero(long from, long to) {
      Arrays.fill(bytes, (int) from, (int) to, (byte) 0);
    }

    void rewrite(long head, String marker, long keepFrom, long end) {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      b.write(bytes, 0, (int) head);
      b.writeBytes(marker.getBytes(StandardCharsets.UTF_8));
      b.write(bytes, (int) keepFrom, (int) (end - keepFrom));
      bytes = Arrays.copyOf(b.toByteArray(), Math.max(1024, b.size()));
      size = b.size();
    }

    byte[] content() {
      return Arrays.copyOf(bytes, size);
    }
  }

  @Test
  void theKeptOutputIsExactlyTheHeadAndTheLastTailBytes_andTheFileStaysWithinTheBoundPlusTheSlack() {
    Props.Coverage cov = new Props.Coverage("output bound", Cut.Keep.class, Cut.Drop.class, Finish.Unchanged.class,
        Finish.Rewrite.class, "a later session appends to a final form", "head ends in a newline",
        "head ends mid-line", "over the bound but never cut", "final form kept as it was");
    Props.forSeeds(200, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      OutputBound bound = new OutputBound(OutputBound.MIN_BYTES + 1024L * r.nextInt(200));
      SimFile file = new SimFile();
      Optional<Layout> layout = Optional.empty();
      long written = 0;
      int cuts = 0;
      int sessions = 1 + (r.nextInt(3) == 0 ? 1 + r.nextInt(2) : 0);
      for (int session = 0; session < sessions; session++) {
        long sessionLength = switch (r.nextInt(5)) {
          case 0 -> r.nextLong(bound.maxBytes() + 2);
          case 1 -> bound.maxBytes() - 2 + r.nextInt(5);
          case 2 -> session > 0 ? 0 : r.nextLong(bound.maxBytes());
          default -> r.nextLong(4 * bound.maxBytes());
        };
        long end = written + sessionLength;
        while (written < end) {
          long burst = Math.min(end - written, r.nextInt(3) == 0 ? r.nextLong(bound.slackBytes() * 3) : r.nextInt(4096));
          for (long i = 0; i < burst; i++) {
            file.append(streamByte(seed, written + i));
          }
          written += burst;
          Cut c = bound.onSize(layout, file.size);
          cov.saw(c);
          if (c instanceof Cut.Drop d) {
            assertEquals(layout.map(Layout::at).orElse(bound.headBytes()), d.fromOffset(), "seed " + seed);
            file.zero(d.fromOffset(), d.toOffset());
            layout = Optional.of(d.next());
            cuts++;
            assertEquals(bound.tailBytes(), file.size - d.next().at(), "a cut keeps exactly the tail: seed " + seed);
          } else if (!(c instanceof Cut.Keep)) {
            throw new AssertionError(c);
          }
          long keptAfterGap = file.size - layout.map(Layout::at).orElse(bound.headBytes());
          assertTrue(keptAfterGap <= bound.tailBytes() + bound.slackBytes(), "the kept rest (" + keptAfterGap
              + ") stays within tail + slack after each decision: seed " + seed);
          checkMapping(seed, file, layout, written, r);
        }
        boolean nl = file.size >= bound.headBytes() && file.bytes[(int) bound.headBytes() - 1] == '\n';
        Finish f = bound.onEnd(layout, file.size, nl);
        cov.saw(f);
        if (f instanceof Finish.Rewrite w) {
          cov.label(nl ? "head ends in a newline" : "head ends mid-line");
          if (layout.isEmpty()) {
            cov.label("over the bound but never cut");
          }
          file.rewrite(bound.headBytes(), w.marker(), w.keepFrom(), w.end());
          layout = Optional.of(w.next());
          assertEquals(w.finalBytes(), file.size, "seed " + seed);
        } else if (f instanceof Finish.Unchanged && layout.isPresent()) {
          cov.label("final form kept as it was");
        }
        assertArrayEquals(expected(seed, bound, written), file.content(), "the final file is the head, the marker "
            + "and the last tail bytes, exactly: seed " + seed + ", " + written + " written, bound " + bound);
        checkMapping(seed, file, layout, written, r);
        if (session > 0) {
          cov.label("a later session appends to a final form");
        }
      }
      assertTrue(cuts <= written / bound.slackBytes() + 1, "cuts are batched by the slack: " + cuts + " cuts for "
          + written + " bytes, seed " + seed);
    });
    cov.assertComplete();
  }

  /** The whole stream when it fits, else its head, the marker for the rest and its last tail bytes. */
  private static byte[] expected(long seed, OutputBound bound, long written) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    if (written <= bound.maxBytes()) {
      for (long i = 0; i < written; i++) {
        b.write(streamByte(seed, i));
      }
      return b.toByteArray();
    }
    for (long i = 0; i < bound.headBytes(); i++) {
      b.write(streamByte(seed, i));
    }
    long dropped = written - bound.headBytes() - bound.tailBytes();
    b.writeBytes(OutputBound.marker(dropped, streamByte(seed, bound.headBytes() - 1) == '\n')
        .getBytes(StandardCharsets.UTF_8));
    for (long i = written - bound.tailBytes(); i < written; i++) {
      b.write(streamByte(seed, i));
    }
    return b.toByteArray();
  }

  /** Samples stream offsets the layout keeps: the file holds each at the offset the layout names. */
  private static void checkMapping(long seed, SimFile file, Optional<Layout> layout, long written, SplittableRandom r) {
    if (layout.isEmpty()) {
      return;
    }
    Layout l = layout.get();
    for (int k = 0; k < 20; k++) {
      long s = r.nextBoolean() ? r.nextLong(l.head()) : l.keptFrom() + r.nextLong(Math.max(1, written - l.keptFrom()));
      if (s >= written) {
        continue;
      }
      assertEquals(streamByte(seed, s), file.bytes[(int) l.fileOffsetOf(s)], "stream byte " + s + " at file offset "
          + l.fileOffsetOf(s) + " under " + l + ": seed " + seed);
    }
  }
}
