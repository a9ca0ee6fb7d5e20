package dev.vigil.benchmarks;

import dev.vigil.coordination.Claim;
import dev.vigil.coordination.Coordination;
import dev.vigil.coordination.EndOf;
import dev.vigil.coordination.ExitAndFinish;
import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Finish;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunStart;
import dev.vigil.coordination.Settlement;
import dev.vigil.coordination.Start;
import dev.vigil.coordination.StartOf;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.Verdict;
import dev.vigil.coordination.h2.H2Coordination;
import dev.vigil.coordination.h2.H2Options;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.CyclicBarrier;

/**
 * B1: coordination cycles on the durable H2 store, {@code submit ×16 → claimNext(16) → startAll →
 * takeExitAndFinishAll} of the claimed tickets (the daemon's own path: what one pass of its loop claims,
 * starts and settles, each in one transaction), from 1 or more threads, each its own owner. A cycle
 * is one settled ticket. Compaction pauses are seen from outside: {@link H2Coordination} compacts
 * by {@code SHUTDOWN COMPACT}, which moves a new file over the old one, so a new inode of the
 * database file after a verb marks a compaction, and that verb's time is its pause. The same cycle
 * runs on any {@link Coordination} ({@link #run(List, Path, double)}: one store per thread, e.g. a
 * PostgreSQL store per daemon, as on separate hosts).
 */
public final class VigilCycles {
  /** Tickets per claimNext, as the cycle. */
  public static final int BATCH = 16;
  static final long TTL_MS = 30_000;

  /** The verbs of a cycle, timed one by one. */
  public enum Verb { SUBMIT, CLAIM_NEXT, START_ALL, TAKE_EXIT_AND_FINISH_ALL }

  /**
   * What one window measured.
   *
   * @param cycles      settled tickets
   * @param seconds     the window
   * @param verbNanos   every verb's duration, by verb (a compaction's verb included)
   * @param pauseMillis each compaction's pause, ms (the duration of the verb that ran it)
   * @param appendedBytes what the verbs appended to the file, summed over the verbs that did not
   *                    compact it (0 for a store without a file)
   */
  public record Result(long cycles, double seconds, Map<Verb, List<Long>> verbNanos, List<Double> pauseMillis,
      long appendedBytes) {
    public double perSecond() {
      return cycles / seconds;
    }

    /** Median duration of one verb, µs. */
    public double medianMicros(Verb v) {
      return verbNanos.get(v).isEmpty() ? 0 : Stats.median(verbNanos.get(v)) / 1e3;
    }

    public long transactions() {
      return verbNanos.values().stream().mapToLong(List::size).sum();
    }
  }

  private VigilCycles() {}

  /** A fresh store in {@code dir}, run for {@code seconds} from {@code threads} threads. */
  public static Result fresh(Path dir, int threads, double seconds) throws Exception {
    Path file = dir.resolve("b1-" + System.nanoTime() + ".mv.db");
    try (H2Coordination h2 = H2Coordination.open(file, H2Options.defaults())) {
      return run(h2, file, threads, seconds);
    } finally {
      Files.deleteIfExists(file);
    }
  }

  /** Runs the cycle on an open store whose file is {@code file}. */
  public static Result run(H2Coordination h2, Path file, int threads, double seconds) throws Exception {
    return run(Collections.nCopies(threads, h2), file, seconds);
  }

  /**
   * Runs the cycle from one thread per store in {@code stores} (the same store several times for
   * threads sharing it), thread {@code i} as owner {@code d-bench-i}. {@code file} is the H2 file whose
   * inode marks compactions, or null for a store without one.
   */
  public static Result run(List<? extends Coordination> stores, Path file, double seconds) throws Exception {
    int threads = stores.size();
    Map<Verb, List<Long>> nanos = new EnumMap<>(Verb.class);
    for (Verb v : Verb.values()) {
      nanos.put(v, new ArrayList<>());
    }
    List<Double> pauses = new ArrayList<>();
    AtomicReference<Object> inode = new AtomicReference<>(file == null ? null : inode(file));
    Growth growth = new Growth(file);
    CyclicBarrier go = new CyclicBarrier(threads + 1);
    long[] cycles = new long[threads];
    List<Thread> workers = new ArrayList<>();
    List<Throwable> failures = new ArrayList<>();
    long[] window = new long[2];
    for (int t = 0; t < threads; t++) {
      int me = t;
      Thread th = new Thread(() -> {
        Map<Verb, List<Long>> mine = new EnumMap<>(Verb.class);
        for (Verb v : Verb.values()) {
          mine.put(v, new ArrayList<>());
        }
        List<Double> myPauses = new ArrayList<>();
        try {
          Loop loop = new Loop(stores.get(me), file, new OwnerId("d-bench-" + me), inode, growth, mine, myPauses);
          go.await();
          long end = window[1];
          while (System.nanoTime() < end) {
            cycles[me] += loop.once();
          }
        } catch (Throwable e) {
          synchronized (failures) {
            failures.add(e);
          }
        }
        synchronized (nanos) {
          mine.forEach((v, l) -> nanos.get(v).addAll(l));
          pauses.addAll(myPauses);
        }
      }, "b1-" + t);
      workers.add(th);
      th.start();
    }
    window[0] = System.nanoTime();
    window[1] = window[0] + (long) (seconds * 1e9);
    go.await();
    for (Thread th : workers) {
      th.join();
    }
    double elapsed = (System.nanoTime() - window[0]) / 1e9;
    if (!failures.isEmpty()) {
      throw new IllegalStateException("a B1 thread failed", failures.get(0));
    }
    long total = 0;
    for (long c : cycles) {
      total += c;
    }
    return new Result(total, elapsed, nanos, pauses, growth.appended.get());
  }

  /** One thread's cycle. */
  private static final class Loop {
    private final Coordination h2;
    private final Path file;
    private final OwnerId owner;
    private final ExitOwner exitOwner;
    private final RunStart start;
    private final AtomicReference<Object> inode;
    private final Growth growth;
    private final Map<Verb, List<Long>> nanos;
    private final List<Double> pauses;

    Loop(Coordination h2, Path file, OwnerId owner, AtomicReference<Object> inode, Growth growth,
        Map<Verb, List<Long>> nanos, List<Double> pauses) {
      this.h2 = h2;
      this.file = file;
      this.owner = owner;
      this.exitOwner = ExitOwner.supervisor(owner);
      this.start = new RunStart(new ProcessIdentity("boot", 4242, 1, 4242), "bench", "ab".repeat(32), 0);
      this.inode = inode;
      this.growth = growth;
      this.nanos = nanos;
      this.pauses = pauses;
    }

    /** Submits a batch, claims up to a batch and settles every claim; returns how many settled. */
    long once() throws IOException {
      for (int i = 0; i < BATCH; i++) {
        long t0 = System.nanoTime();
        Submission s = h2.submit(NewTicket.of(Lane.DEFAULT, "command", "{\"argv\":[\"true\"]}"), System.currentTimeMillis());
        timed(Verb.SUBMIT, t0);
        if (!(s instanceof Submission.Accepted)) {
          throw new IllegalStateException("submit: " + s);
        }
      }
      long t0 = System.nanoTime();
      List<Claim.Granted> granted = h2.claimNext(Lane.DEFAULT, owner, System.currentTimeMillis(), TTL_MS, BATCH).granted();
      timed(Verb.CLAIM_NEXT, t0);
      if (granted.isEmpty()) {
        return 0;
      }
      List<StartOf> starts = new ArrayList<>(granted.size());
      for (Claim.Granted g : granted) {
        starts.add(new StartOf(g.run().id(), start));
      }
      t0 = System.nanoTime();
      List<Start> started = h2.startAll(owner, starts);
      timed(Verb.START_ALL, t0);
      long now = System.currentTimeMillis();
      List<EndOf> ends = new ArrayList<>(granted.size());
      for (int i = 0; i < granted.size(); i++) {
        var run = granted.get(i).run().id();
        if (!(started.get(i) instanceof Start.Started)) {
          throw new IllegalStateException("start of " + run + ": " + started.get(i));
        }
        ends.add(new EndOf(run, exitOwner, RunExit.code(0, now), Finish.as(exitOwner, run, Verdict.SUCCEEDED, null)));
      }
      t0 = System.nanoTime();
      // the daemon's own path: the exits it saw in one pass taken and settled in one transaction
      List<ExitAndFinish> done = h2.takeExitAndFinishAll(ends, now);
      timed(Verb.TAKE_EXIT_AND_FINISH_ALL, t0);
      for (int i = 0; i < done.size(); i++) {
        if (!(done.get(i).settlement().orElse(null) instanceof Settlement.Settled)) {
          throw new IllegalStateException("finish of " + ends.get(i).run() + ": " + done.get(i));
        }
      }
      return granted.size();
    }

    private void timed(Verb v, long t0) throws IOException {
      long d = System.nanoTime() - t0;
      nanos.get(v).add(d);
      if (file == null) {
        return;
      }
      Map<String, Object> now;
      try {
        now = Files.readAttributes(file, "unix:ino,size"); // one look for both: compaction and growth
      } catch (java.nio.file.NoSuchFileException e) {
        return; // the moment a compaction moves the new file in; the next verb sees the new inode
      }
      Object seen = inode.get();
      boolean compacted = !now.get("ino").equals(seen) && inode.compareAndSet(seen, now.get("ino"));
      if (compacted) {
        pauses.add(d / 1e6);
      }
      growth.after((Long) now.get("size"), compacted);
    }
  }

  /**
   * The bytes the verbs append to the file: after each verb, its size less the size after the verb
   * before (any thread's); a verb that compacted the file only sets the new size (its own commit, a
   * few KiB, is not counted).
   */
  private static final class Growth {
    private final AtomicLong last;
    final AtomicLong appended = new AtomicLong();

    Growth(Path file) throws IOException {
      this.last = new AtomicLong(file == null ? 0 : Files.size(file));
    }

    /** After a verb: the file's size now, and whether that verb compacted it. */
    void after(long size, boolean compacted) {
      long before = last.getAndSet(size);
      if (!compacted && size > before) {
        appended.addAndGet(size - before);
      }
    }
  }

  /** The file's inode number, or null in the moment a compaction moves the new file in. */
  static Object inode(Path file) throws IOException {
    try {
      return Files.getAttribute(file, "unix:ino");
    } catch (java.nio.file.NoSuchFileException e) {
      return null;
    }
  }
}
