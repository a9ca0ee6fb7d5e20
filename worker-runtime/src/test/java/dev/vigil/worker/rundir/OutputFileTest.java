package dev.vigil.worker.rundir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.supervisor.OutputBound;
import dev.vigil.supervisor.OutputBound.Cut;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A bounded log on a real file: holes, the cut record, the final form and readers, including a host killed mid-way. */
class OutputFileTest {
  private static final OutputBound BOUND = new OutputBound(OutputBound.MIN_BYTES);

  @TempDir Path home;

  private static byte[] bytes(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static void append(Path log, byte[] b) throws IOException {
    Files.write(log, b, StandardOpenOption.APPEND);
  }

  private static byte[] read(OutputFile f) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    f.reader().copyNew(out);
    return out.toByteArray();
  }

  private static byte[] finalForm(byte[] stream) {
    int head = (int) BOUND.headBytes();
    int tail = (int) BOUND.tailBytes();
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.write(stream, 0, head);
    b.writeBytes(OutputBound.marker(stream.length - head - tail, stream[head - 1] == '\n').getBytes(StandardCharsets.UTF_8));
    b.write(stream, stream.length - tail, tail);
    return b.toByteArray();
  }

  /** Appends {@code stream} in pieces, cutting as the host does after each. */
  private static void writeAndCut(OutputFile f, byte[] stream, int piece) throws IOException {
    for (int at = 0; at < stream.length; at += piece) {
      append(f.log(), Arrays.copyOfRange(stream, at, Math.min(stream.length, at + piece)));
      Optional<OutputBound.Layout> layout = f.readRecord().map(OutputFile.Record::layout);
      if (BOUND.onSize(layout, f.size()) instanceof Cut.Drop d) {
        assertEquals(Optional.empty(), f.drop(d, BOUND), "this file system gives back the space of a hole");
      }
    }
  }

  @Test
  void aCutLogReadsAsItsHeadTheMarkerAndItsKeptEnd_andItsFinalFormHoldsExactlyThat() throws IOException {
    RunDirectory dir = RunDirectory.create(home, "t-1.1");
    OutputFile f = OutputFile.stdout(dir);
    byte[] stream = bytes(1_000_000, 1);
    writeAndCut(f, stream, 10_000);
    OutputFile.Record cutting = f.readRecord().orElseThrow();
    assertEquals(OutputFile.State.CUTTING, cutting.state());
    assertEquals(stream.length, f.size(), "a hole keeps the file's size");
    byte[] whileCut = read(f);
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    expected.write(stream, 0, (int) BOUND.headBytes());
    expected.writeBytes(OutputBound.marker(cutting.layout().dropped(), stream[(int) BOUND.headBytes() - 1] == '\n')
        .getBytes(StandardCharsets.UTF_8));
    expected.write(stream, (int) cutting.layout().keptFrom(), (int) (stream.length - cutting.layout().keptFrom()));
    assertArrayEquals(expected.toByteArray(), whileCut, "while it runs: head, marker, the kept end");

    assertTrue(f.finish(BOUND));
    assertArrayEquals(finalForm(stream), Files.readAllBytes(f.log()), "the final form, byte for byte");
    assertArrayEquals(finalForm(stream), read(f), "a reader prints the final form as it is");
    assertEquals(OutputFile.State.CUT, f.readRecord().orElseThrow().state());
    assertFalse(f.finish(BOUND), "a final form stays as it is");
  }

  /**
   * S7: the stream's length is the mark a transcript entry carries; a reader copies up to a mark and then on, so the
   * output before an entry is printed before it, also where the mark lies in the part a cut dropped.
   */
  @Test
  void streamLengthCountsDroppedBytes_andAReaderStopsAtAMark_whetherTheLogWasCutOrNot() throws IOException {
    RunDirectory dir = RunDirectory.create(home, "s-counter");
    OutputFile f = OutputFile.stdout(dir);
    assertEquals(0, f.streamLength(), "no log yet");
    append(f.log(), "one\ntwo\n".getBytes(StandardCharsets.UTF_8));
    long mark = f.streamLength();
    assertEquals(8, mark);
    append(f.log(), "three\n".getBytes(StandardCharsets.UTF_8));
    OutputFile.Reader r = f.reader();
    ByteArrayOutputStream before = new ByteArrayOutputStream();
    assertEquals(8, r.copyNew(before, mark).bytes());
    assertEquals("one\ntwo\n", before.toString(StandardCharsets.UTF_8));
    assertEquals(0, r.copyNew(new ByteArrayOutputStream(), mark).bytes(), "nothing more before the mark");
    ByteArrayOutputStream after = new ByteArrayOutputStream();
    r.copyNew(after);
    assertEquals("three\n", after.toString(StandardCharsets.UTF_8));

    RunDirectory big = RunDirectory.create(home, "s-big");
    OutputFile g = OutputFile.stdout(big);
    byte[] stream = bytes(1_000_000, 7);
    writeAndCut(g, stream, 10_000);
    assertEquals(stream.length, g.streamLength(), "while cut: every byte written counts, dropped ones too");
    OutputFile.Reader cut = g.reader();
    long inTheGap = g.readRecord().orElseThrow().layout().head() + 10;
    cut.copyNew(new ByteArrayOutputStream(), inTheGap);
    assertTrue(cut.position() >= inTheGap && cut.position() <= stream.length, "a mark in the gap is passed with the marker");
    assertTrue(g.finish(BOUND));
    assertEquals(stream.length, g.streamLength(), "in its final form too");
  }

  @Test
  void aHostKilledWhileWritingTheFinalForm_leavesALogThatReadsRight_andTheNextHostFinishesIt() throws IOException {
    RunDirectory dir = RunDirectory.create(home, "s-indexer");
    OutputFile f = OutputFile.stderr(dir);
    byte[] stream = bytes(400_000, 2);
    writeAndCut(f, stream, 7_777);
    assertTrue(f.beginMove(BOUND), "the kept end is copied aside and the record says so");
    assertEquals(OutputFile.State.MOVING, f.readRecord().orElseThrow().state());
    // the host dies here, with the file half rewritten after its head
    try (var ch = java.nio.channels.FileChannel.open(f.log(), StandardOpenOption.WRITE)) {
      ch.write(java.nio.ByteBuffer.wrap("half-written".getBytes(StandardCharsets.US_ASCII)), BOUND.headBytes() + 5);
    }
    assertArrayEquals(finalForm(stream), read(f), "a reader takes the kept end from the copy");
    assertTrue(f.completeMove(), "the next host of the session finishes the rewrite");
    assertArrayEquals(finalForm(stream), Files.readAllBytes(f.log()));
    assertEquals(OutputFile.State.CUT, f.readRecord().orElseThrow().state());

    byte[] more = "a later session writes on\n".getBytes(StandardCharsets.US_ASCII);
    append(f.log(), more);
    ByteArrayOutputStream both = new ByteArrayOutputStream();
    both.writeBytes(finalForm(stream));
    both.writeBytes(more);
    assertArrayEquals(both.toByteArray(), read(f), "output after the final form follows it");
  }

  @Test
  void aFollowerThatFallsBehindACut_isToldHowMuchItMissed_onceInItsOwnMarker() throws IOException {
    RunDirectory dir = RunDirectory.create(home, "t-2.1");
    OutputFile f = OutputFile.stdout(dir);
    byte[] stream = bytes(300_000, 3);
    OutputFile.Reader follower = f.reader();
    ByteArrayOutputStream seen = new ByteArrayOutputStream();
    writeAndCut(f, Arrays.copyOf(stream, 20_000), 20_000);
    assertEquals(0, follower.copyNew(seen).droppedBytes());
    append(f.log(), Arrays.copyOfRange(stream, 20_000, stream.length));
    OutputBound.Cut c = BOUND.onSize(f.readRecord().map(OutputFile.Record::layout), f.size());
    f.drop((Cut.Drop) c, BOUND);
    OutputFile.Copied copied = follower.copyNew(seen);
    long keptFrom = f.readRecord().orElseThrow().layout().keptFrom();
    int head = (int) BOUND.headBytes();
    assertEquals(keptFrom - head, copied.droppedBytes(), "it gets the rest of the head, then misses what was dropped");
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    expected.write(stream, 0, head);
    expected.writeBytes(OutputBound.marker(keptFrom - head, stream[head - 1] == '\n').getBytes(StandardCharsets.UTF_8));
    expected.write(stream, (int) keptFrom, (int) (stream.length - keptFrom));
    assertArrayEquals(expected.toByteArray(), seen.toByteArray());
  }

  @Test
  void aHoleGivesItsSpaceBack_andAnUnreadableRecordReadsAsNoCut() throws Exception {
    RunDirectory dir = RunDirectory.create(home, "t-3.1");
    OutputFile f = OutputFile.stdout(dir);
    append(f.log(), bytes(8 << 20, 4));
    assertEquals(Optional.empty(), Holes.punch(f.log(), 4096, (8 << 20) - 8192));
    Process du = new ProcessBuilder("du", "-k", f.log().toString()).start();
    long kib = Long.parseLong(new String(du.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim().split("\\s+")[0]);
    assertTrue(kib < 1024, "8 MiB with a hole of all but 8 KiB takes " + kib + " KiB");
    assertEquals(8 << 20, f.size());

    Files.writeString(f.recordFile(), "{\"v\": 1, \"state\": \"cutting\", \"head\": ");
    assertEquals(Optional.empty(), f.readRecord());
    Files.writeString(f.recordFile(), "{\"v\": 99, \"seq\": 1, \"state\": \"cut\", \"head\": 1, \"dropped\": 1, \"at\": 2, \"max\": 4}");
    assertEquals(Optional.empty(), f.readRecord(), "a record of another schema is not trusted");
  }
}
