package dev.vigil.worker.host;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.supervisor.OutputBound;
import dev.vigil.supervisor.engine.WorkerTypeSpec;
import dev.vigil.worker.Outcome;
import dev.vigil.worker.process.LaunchedWorker;
import dev.vigil.worker.process.Processes;
import dev.vigil.worker.protocol.Subject;
import dev.vigil.worker.rundir.OutcomeRead;
import dev.vigil.worker.rundir.OutputFile;
import dev.vigil.worker.rundir.RunDirectory;
import dev.vigil.worker.testkit.Poll;
import dev.vigil.worker.testkit.TestDaemon;
import dev.vigil.worker.testkit.Workers;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bounded output with real worker hosts and real commands: the command writes to its log file
 * itself, the host cuts the file in place while it runs and writes its final form at the end.
 */
class BoundedOutputTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final OutputBound ONE_MIB = new OutputBound(1L << 20);

  @TempDir Path home;
  @TempDir Path scratch;
  private TestDaemon daemon;
  private final List<LaunchedWorker> launched = new ArrayList<>();
  private final List<ProcessHandle> strays = new ArrayList<>();

  @BeforeEach
  void startDaemon() throws IOException {
    daemon = TestDaemon.start(home);
  }

  @AfterEach
  void cleanUp() {
    for (LaunchedWorker w : launched) {
      w.identity().ifPresent(id -> Processes.stop(id, 0).join());
    }
    strays.forEach(ProcessHandle::destroyForcibly);
    daemon.close();
  }

  /** Runs {@code script} (sh) as a task's command under {@code bound}. */
  private LaunchedWorker run(String run, String script, OutputBound bound) throws IOException {
    Path file = Files.writeString(scratch.resolve(run + ".sh"), script);
    WorkerArgs args = new WorkerArgs(home, run, Optional.empty(), Optional.empty(), 1, "command",
        WorkerTypeSpec.Command.DEFAULT, TestDaemon.BUILD, home.resolve("vigil.sock"), Map.of()).withOutput(bound);
    String token = daemon.register(new Subject.Run(run));
    LaunchedWorker w = Workers.launch(args, token, JSON.readTree("{\"argv\":[\"sh\",\"" + file + "\"]}"));
    launched.add(w);
    return w;
  }

  /** {@code seq 1 n} as bytes: "1\n2\n…n\n". */
  private static byte[] seq(int n) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (int i = 1; i <= n; i++) {
      b.writeBytes((i + "\n").getBytes(StandardCharsets.US_ASCII));
    }
    return b.toByteArray();
  }

  /** A script printing {@code seq 1 steps*per} in {@code steps} bursts, {@code pause} apart. */
  private static String bursts(int steps, int per, String pause) {
    return "i=0\nwhile [ $i -lt " + steps + " ]; do seq $((i*" + per + "+1)) $((i*" + per + "+" + per + ")); i=$((i+1)); "
        + "sleep " + pause + "; done\n";
  }

  /**
   * Like {@link #bursts}, but after each burst the command waits, 10 s at most, until {@code log}
   * takes at most {@code kib} KiB of disk: the keeper's cuts set its pace, so what the disk holds
   * while it runs does not depend on how soon a loaded machine schedules the keeper. A keeper that
   * does not cut within the wait ends the pacing, and the file grows past the bound.
   */
  private static String pacedBursts(int steps, int per, Path log, int kib) {
    return "i=0; late=0\nwhile [ $i -lt " + steps + " ]; do seq $((i*" + per + "+1)) $((i*" + per + "+" + per + ")); "
        + "i=$((i+1)); w=0\n"
        + "  while [ $late -eq 0 ] && [ $(du -k '" + log + "' | cut -f1) -gt " + kib + " ]; do\n"
        + "    sleep 0.02; w=$((w+1)); if [ $w -ge 500 ]; then late=1; fi\n"
        + "  done\n"
        + "done\n";
  }

  /** The bound's final form of {@code stream}: the whole of it when it fits, else head, marker, tail. */
  private static byte[] finalForm(byte[] stream, OutputBound bound) {
    if (stream.length <= bound.maxBytes()) {
      return stream;
    }
    int head = (int) bound.headBytes();
    int tail = (int) bound.tailBytes();
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.write(stream, 0, head);
    b.writeBytes(OutputBound.marker(stream.length - head - tail, stream[head - 1] == '\n')
        .getBytes(StandardCharsets.UTF_8));
    b.write(stream, stream.length - tail, tail);
    return b.toByteArray();
  }

  private static Outcome outcome(RunDirectory dir) {
    return ((OutcomeRead.Recorded) dir.readOutcome()).outcome().outcome();
  }

  /** Blocks the file system allocated to {@code file}, in KiB, as {@code du} counts them. */
  private static long allocatedKib(Path file) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("du", "-k", file.toString()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    p.waitFor();
    return Long.parseLong(out.split("\\s+")[0]);
  }

  @Test
  void aRunThatPrintsFarMoreThanItsBound_succeedsWithItsExit_andKeepsExactlyTheHeadTheMarkerAndTheTail() throws Exception {
    int n = 700_000; // about 4.7 MiB of numbered lines, in 50 bursts
    RunDirectory dir = RunDirectory.of(home, "t-1.1");
    LaunchedWorker w = run("t-1.1", pacedBursts(50, n / 50, dir.stdoutLog(), 1536) + "echo to-stderr >&2\n", ONE_MIB);
    long maxKib = 0;
    while (w.process().isAlive()) {
      maxKib = Math.max(maxKib, allocatedKib(dir.stdoutLog()));
      Thread.sleep(20);
    }
    assertEquals(0, w.process().exitValue(), "the host exits with the command's own status");
    assertInstanceOf(Outcome.Succeeded.class, outcome(dir));
    byte[] stream = seq(n);
    assertTrue(stream.length > 4 * ONE_MIB.maxBytes(), "the command printed more than four bounds");
    assertArrayEquals(finalForm(stream, ONE_MIB), Files.readAllBytes(dir.stdoutLog()),
        "stdout.log is the first 512 KiB, the marker line and the last 512 KiB, byte for byte");
    assertTrue(maxKib <= 2 * 1024, "while it ran, the log's disk space stayed near its bound (the command waits"
        + " for the keeper's cuts, 10 s at most each): at most " + maxKib + " KiB seen");
    OutputFile.Record r = OutputFile.stdout(dir).readRecord().orElseThrow();
    assertEquals(OutputFile.State.CUT, r.state());
    assertEquals(stream.length - ONE_MIB.maxBytes(), r.layout().dropped());
    ByteArrayOutputStream read = new ByteArrayOutputStream();
    OutputFile.Copied c = OutputFile.stdout(dir).reader().copyNew(read);
    assertArrayEquals(Files.readAllBytes(dir.stdoutLog()), read.toByteArray(), "a reader prints what the file holds");
    assertEquals(r.layout().dropped(), c.droppedBytes(), "and tells how much was dropped");
    String err = Files.readString(dir.stderrLog());
    assertTrue(err.contains("to-stderr\n"), err);
    assertFalse(Files.exists(OutputFile.stderr(dir).recordFile()), "stderr stayed within its bound: not cut");
  }

  @Test
  void aRunQuietForAWhile_isStillCutWhileItRuns_whenItStartsPrinting() throws Exception {
    int n = 500_000;
    LaunchedWorker w = run("t-5.1", "sleep 4\n" + bursts(50, n / 50, "0.04"), ONE_MIB);
    OutputFile out = OutputFile.stdout(RunDirectory.of(home, "t-5.1"));
    Poll.until("a cut while the command prints, after it was quiet", () -> out.readRecord()
        .filter(r -> r.state() == OutputFile.State.CUTTING).isPresent() || !w.process().isAlive());
    assertTrue(w.process().isAlive(), "the keeper, waiting for a change while the run was quiet, cut the log as it grew");
    assertTrue(w.process().waitFor(Poll.PATIENCE_MS, TimeUnit.MILLISECONDS));
    assertArrayEquals(finalForm(seq(n), ONE_MIB), Files.readAllBytes(out.log()));
  }

  @Test
  void aRunWithinItsBound_leavesItsOutputAsItWasWritten() throws Exception {
    LaunchedWorker w = run("t-2.1", "seq 1 100000\n", ONE_MIB); // 588,895 bytes
    assertTrue(w.process().waitFor(Poll.PATIENCE_MS, TimeUnit.MILLISECONDS));
    RunDirectory dir = RunDirectory.of(home, "t-2.1");
    assertArrayEquals(seq(100_000), Files.readAllBytes(dir.stdoutLog()));
    assertFalse(Files.exists(OutputFile.stdout(dir).recordFile()), "no cut record for a log within its bound");
    ByteArrayOutputStream read = new ByteArrayOutputStream();
    assertEquals(0, OutputFile.stdout(dir).reader().copyNew(read).droppedBytes());
    assertArrayEquals(seq(100_000), read.toByteArray());
  }

  private static final Pattern MARKER = Pattern.compile("… ([0-9]+) bytes? dropped …\n");

  /**
   * What a follower printed is the stream with some ranges replaced by markers that name their
   * length; returns the bytes it says were dropped.
   */
  private static long checkFollowed(byte[] stream, byte[] printed) {
    String s = new String(printed, StandardCharsets.UTF_8);
    Matcher m = MARKER.matcher(s);
    int at = 0;
    long pos = 0;
    long dropped = 0;
    while (m.find()) {
      byte[] seg = s.substring(at, m.start()).getBytes(StandardCharsets.UTF_8);
      int len = seg.length;
      if (len > 0 && seg[len - 1] == '\n' && stream[(int) pos + len - 1] != '\n') {
        len--; // the newline the marker puts before itself after a line cut short
      }
      for (int i = 0; i < len; i++) {
        byte b = seg[i];
        assertEquals(stream[(int) pos], b, "printed byte at stream offset " + pos);
        pos++;
      }
      long n = Long.parseLong(m.group(1));
      dropped += n;
      pos += n;
      at = m.end();
    }
    byte[] rest = s.substring(at).getBytes(StandardCharsets.UTF_8);
    for (byte b : rest) {
      assertEquals(stream[(int) pos], b, "printed byte at stream offset " + pos);
      pos++;
    }
    assertEquals(stream.length, pos, "the follower reached the end of the stream");
    return dropped;
  }

  @Test
  void aFollowerPrintsEveryByteOnceOrAMarkerForIt_whileTheHostCutsTheFileUnderIt() throws Exception {
    int n = 600_000;
    LaunchedWorker w = run("t-3.1", bursts(60, n / 60, "0.01"), ONE_MIB);
    RunDirectory dir = RunDirectory.of(home, "t-3.1");
    OutputFile.Reader fast = OutputFile.stdout(dir).reader();
    OutputFile.Reader slow = OutputFile.stdout(dir).reader();
    ByteArrayOutputStream fastOut = new ByteArrayOutputStream();
    ByteArrayOutputStream slowOut = new ByteArrayOutputStream();
    boolean slowRead = false;
    while (w.process().isAlive()) {
      fast.copyNew(fastOut);
      if (!slowRead && OutputFile.stdout(dir).readRecord().isPresent()) {
        slow.copyNew(slowOut); // once, just after the first cut; then not until the end
        slowRead = true;
      }
      Thread.sleep(5);
    }
    assertTrue(slowRead, "the log was cut while the command printed");
    fast.copyNew(fastOut);
    slow.copyNew(slowOut);
    byte[] stream = seq(n);
    checkFollowed(stream, fastOut.toByteArray());
    long slowDropped = checkFollowed(stream, slowOut.toByteArray());
    assertTrue(slowDropped > 0, "a follower that lags past the tail is told of the bytes it missed");
    assertArrayEquals(finalForm(stream, ONE_MIB), Files.readAllBytes(dir.stdoutLog()));
  }

  @Test
  void aWorkerHostKilledOutright_leavesItsCommandRunningAndWriting_neverBlockedNorEnded() throws Exception {
    Path done = scratch.resolve("done");
    int steps = 40;
    int per = 20_000;
    LaunchedWorker w = run("t-4.1", bursts(steps, per, "0.05") + "echo finished > " + done + "\n", ONE_MIB);
    RunDirectory dir = RunDirectory.of(home, "t-4.1");
    OutputFile out = OutputFile.stdout(dir);
    Poll.until("the host cut the log once", () -> out.readRecord().isPresent());
    List<ProcessHandle> command = ProcessHandle.of(w.pid()).orElseThrow().descendants().toList();
    strays.addAll(command);
    assertFalse(command.isEmpty(), "the command runs under the host");
    new ProcessBuilder("kill", "-9", Long.toString(w.pid())).start().waitFor();
    assertTrue(w.process().waitFor(Poll.PATIENCE_MS, TimeUnit.MILLISECONDS), "the host is gone");
    assertEquals(137, w.process().exitValue(), "killed by SIGKILL");
    long sizeAtKill = out.size();
    Poll.until("the command finished all its output", 60_000, () -> Files.exists(done));
    assertEquals("finished\n", Files.readString(done), "it ran to its end, not ended by a broken pipe or a signal");
    assertTrue(out.size() > sizeAtKill, "it kept writing to its log after the host died");
    byte[] stream = seq(steps * per);
    ByteArrayOutputStream read = new ByteArrayOutputStream();
    OutputFile.Copied c = out.reader().copyNew(read);
    assertEquals(c.droppedBytes(), checkFollowed(stream, read.toByteArray()),
        "the log reads as the cut the host made, then everything written after it");
    assertTrue(c.droppedBytes() > 0);
  }
}
