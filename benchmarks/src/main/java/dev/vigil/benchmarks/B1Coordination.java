package dev.vigil.benchmarks;

import dev.vigil.benchmarks.VigilCycles.Verb;
import java.util.ArrayList;
import java.util.List;

/**
 * B1 in one run, interleaved: Vigil with 1 thread, Vigil with 2 threads, db-scheduler, one-row
 * durable commits; again, {@code reps} times. Medians and ratios are taken within the run.
 * Sizes: {@code --seconds} per Vigil window and per commit window, {@code --dbs-tasks} tasks per
 * db-scheduler repetition (default 20,000; smoke 300), {@code --warmup} seconds of unreported
 * cycling first (5; smoke 0.2).
 */
public final class B1Coordination {
  /**
   * Every repetition's figures.
   *
   * @param one         Vigil, 1 thread
   * @param two         Vigil, 2 threads
   * @param peer        db-scheduler
   * @param commitsPerS one-row durable commits per second
   */
  public record Rep(VigilCycles.Result one, VigilCycles.Result two, DbSchedulerPeer.Result peer, double commitsPerS) {}

  /**
   * @param reps         every repetition
   * @param peerFailures db-scheduler runs that failed inside H2 and were run again on a fresh file,
   *                     with the first line of each failure
   */
  public record Result(List<Rep> reps, List<String> peerFailures) {
    public double vigil1() {
      return Stats.median(reps.stream().map(r -> r.one.perSecond()).toList());
    }

    public double vigil2() {
      return Stats.median(reps.stream().map(r -> r.two.perSecond()).toList());
    }

    public double peer() {
      return Stats.median(reps.stream().map(r -> r.peer.perSecond()).toList());
    }

    public double commits() {
      return Stats.median(reps.stream().map(Rep::commitsPerS).toList());
    }
  }

  private B1Coordination() {}

  public static Result measure(Options o) throws Exception {
    int dbsTasks = o.integer("dbs-tasks", 20_000, 300);
    double warmup = o.real("warmup", 5, 0.2);
    // warm-up, not reported: every path compiled before the first measured window
    VigilCycles.fresh(o.dir(), 1, warmup);
    VigilCycles.fresh(o.dir(), 2, warmup / 2);
    DbSchedulerPeer.run(o.dir(), Math.max(100, dbsTasks / 10));
    DurableCommits.run(o.dir(), warmup / 5);
    List<Rep> reps = new ArrayList<>();
    List<String> failures = new ArrayList<>();
    for (int i = 0; i < o.reps(); i++) {
      VigilCycles.Result one = VigilCycles.fresh(o.dir(), 1, o.seconds());
      VigilCycles.Result two = VigilCycles.fresh(o.dir(), 2, o.seconds());
      DbSchedulerPeer.Result peer = peer(o, dbsTasks, failures);
      double commits = DurableCommits.run(o.dir(), Math.min(o.seconds(), 2));
      System.err.printf("B1 rep %d: vigil1 %.0f/s, vigil2 %.0f/s, db-scheduler %.0f/s (%d dup), commits %.0f/s%n",
          i + 1, one.perSecond(), two.perSecond(), peer.perSecond(), peer.duplicates(), commits);
      reps.add(new Rep(one, two, peer, commits));
    }
    return new Result(reps, failures);
  }

  /**
   * One db-scheduler run; one that fails inside H2 is recorded and run again on a fresh file (at
   * most twice more), so that one failure of the peer's database does not end the whole run.
   */
  private static DbSchedulerPeer.Result peer(Options o, int tasks, List<String> failures) throws Exception {
    for (int attempt = 1; ; attempt++) {
      try {
        return DbSchedulerPeer.run(o.dir(), tasks);
      } catch (RuntimeException e) {
        Throwable root = e;
        while (root.getCause() != null) {
          root = root.getCause();
        }
        String line = root.getClass().getSimpleName() + ": " + String.valueOf(root.getMessage()).lines().findFirst()
            .orElse("");
        System.err.println("B1: db-scheduler failed (" + line + "), running it again on a fresh file");
        failures.add(line);
        if (attempt == 3) {
          throw e;
        }
      }
    }
  }

  public static List<Report> report(Result r, Options o) {
    List<Report> out = new ArrayList<>();
    Report t = new Report("B1 coordination cycles (durable H2, " + o.reps() + " interleaved repetitions, medians)",
        "what", "per second (median, min–max)", "vs db-scheduler", "vs one-row commits");
    double peer = r.peer();
    double commits = r.commits();
    t.row("Vigil, 1 thread: submit ×16→claimNext(16)→startAll→takeExitAndFinishAll", Stats.spread(
        r.reps().stream().map(x -> x.one().perSecond()).toList()), Stats.ratio(r.vigil1(), peer),
        Stats.ratio(r.vigil1(), commits));
    t.row("Vigil, 2 threads", Stats.spread(r.reps().stream().map(x -> x.two().perSecond()).toList()),
        Stats.ratio(r.vigil2(), peer), Stats.ratio(r.vigil2(), commits));
    t.row("db-scheduler 16.12.0, no-op one-time tasks, 1 instance × " + DbSchedulerPeer.THREADS + " threads",
        Stats.spread(r.reps().stream().map(x -> x.peer().perSecond()).toList()), "1.00×", Stats.ratio(peer, commits));
    t.row("one-row durable commits, 1 connection", Stats.spread(r.reps().stream().map(Rep::commitsPerS).toList()),
        Stats.ratio(commits, peer), "1.00×");
    int dups = r.reps().stream().mapToInt(x -> x.peer().duplicates()).sum();
    t.note("Vigil windows " + o.seconds() + " s each; db-scheduler " + r.reps().get(0).peer().tasks()
        + " tasks per repetition (first schedule to last completion), " + dups + " duplicated executions.");
    if (!r.peerFailures().isEmpty()) {
      t.note("db-scheduler's H2 database failed " + r.peerFailures().size() + " time(s) and was run again on a fresh"
          + " file: " + String.join("; ", r.peerFailures()));
    }
    out.add(t);

    Report v = new Report("B1 per-verb cost (Vigil, 1 thread, median of the repetitions' medians)",
        "verb", "median µs", "per ticket µs", "calls per cycle");
    for (Verb verb : Verb.values()) {
      double us = Stats.median(r.reps().stream().map(x -> x.one().medianMicros(verb)).toList());
      boolean batched = verb != Verb.SUBMIT;
      double per = batched ? us / VigilCycles.BATCH : us;
      v.row(verb.name().toLowerCase().replace('_', ' '), us, per, batched ? "1/16" : "1");
    }
    double perTx = Stats.median(r.reps().stream().map(x -> x.one().seconds() * 1e6 / x.one().transactions()).toList());
    v.note(String.format("wall time per transaction over the whole window (compactions included): %.0f µs;"
        + " one-row durable commit: %.0f µs", perTx, 1e6 / commits));
    out.add(v);

    Report c = new Report("B1 compaction pauses (SHUTDOWN COMPACT and reopen), per 5 s of cycling",
        "threads", "compactions per 5 s", "pause median ms", "pause max ms", "share of the window");
    for (int threads = 1; threads <= 2; threads++) {
      int th = threads;
      List<Double> perFive = new ArrayList<>();
      List<Double> all = new ArrayList<>();
      List<Double> share = new ArrayList<>();
      for (Rep x : r.reps()) {
        VigilCycles.Result w = th == 1 ? x.one() : x.two();
        perFive.add(w.pauseMillis().size() * 5 / w.seconds());
        all.addAll(w.pauseMillis());
        share.add(w.pauseMillis().stream().mapToDouble(Double::doubleValue).sum() / 1e3 / w.seconds());
      }
      c.row(th, Stats.median(perFive), all.isEmpty() ? "—" : Stats.fmt(Stats.median(all)),
          all.isEmpty() ? "—" : Stats.fmt(Stats.max(all)), String.format("%.0f%%", 100 * Stats.median(share)));
    }
    c.note("A compaction is seen from outside as a new inode of the database file after a verb; its pause is that"
        + " verb's duration (the other thread waits meanwhile).");
    out.add(c);
    return out;
  }
}
