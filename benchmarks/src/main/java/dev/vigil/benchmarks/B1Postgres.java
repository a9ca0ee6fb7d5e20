package dev.vigil.benchmarks;

import dev.vigil.benchmarks.VigilCycles.Verb;
import dev.vigil.coordination.postgres.PostgresCoordination;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * B1 on PostgreSQL, in one run on one server ({@link BenchPostgres}), interleaved: Vigil with 1
 * daemon, db-scheduler with 1 instance, Vigil with 2 daemons, db-scheduler with 2 instances, one-row
 * durable commits; again, {@code reps} times. Medians and ratios are taken within the run.
 *
 * <p>Vigil's cycle is B1's ({@link VigilCycles}: {@code submit ×16 → claimNext(16) → startAll →
 * takeExitAndFinishAll}) through {@link PostgresCoordination} with its default options, on a fresh
 * schema per window; with 2 daemons, two stores opened on the same schema (each its own pool) under
 * two owners claim from the same lane at once, as two hosts would. db-scheduler's side is
 * {@link DbSchedulerPostgres}. Sizes: {@code --seconds} per Vigil window, {@code --dbs-tasks} tasks
 * per db-scheduler window (default 20,000; smoke 300), {@code --warmup} seconds of unreported cycling
 * first (5; smoke 0.2), {@code --commit-seconds} per one-row commit window (2; smoke 0.2),
 * {@code --settle-ms} before each reading of the server's counters (700; smoke 300: PostgreSQL 14's
 * sessions report their counts at most every 500 ms). {@code --profile 1} profiles the server's side
 * of the last repetition's windows: the top statements ({@code pg_stat_statements}, loaded for it),
 * what the window's sessions were doing ({@code pg_stat_activity} sampled every 5 ms) and each
 * table's access counts ({@code pg_stat_user_tables}); it costs both sides some time, so not by
 * default.
 */
public final class B1Postgres {
  /**
   * One Vigil window.
   *
   * @param cycles the cycle's figures
   * @param load       the server's and this JVM's counters over the window
   * @param profile    what the server saw of the window, when profiled
   */
  public record Vigil(VigilCycles.Result cycles, BenchPostgres.Counters load, BenchPostgres.Profile profile) {
    public double perSecond() {
      return cycles.perSecond();
    }
  }

  /**
   * Every repetition's figures.
   *
   * @param one         Vigil, 1 daemon
   * @param peerOne     db-scheduler, 1 instance
   * @param two         Vigil, 2 daemons
   * @param peerTwo     db-scheduler, 2 instances
   * @param commitsPerS one-row durable commits per second
   */
  public record Rep(Vigil one, DbSchedulerPostgres.Result peerOne, Vigil two, DbSchedulerPostgres.Result peerTwo,
                    double commitsPerS) {}

  /**
   * @param reps     every repetition
   * @param server   where the server was ({@link BenchPostgres#describe})
   * @param settings what the server reported for its durability settings
   */
  public record Result(List<Rep> reps, String server, Map<String, String> settings) {
    public double vigil1() {
      return median(r -> r.one().perSecond());
    }

    public double vigil2() {
      return median(r -> r.two().perSecond());
    }

    public double peer1() {
      return median(r -> r.peerOne().perSecond());
    }

    public double peer2() {
      return median(r -> r.peerTwo().perSecond());
    }

    public double commits() {
      return median(Rep::commitsPerS);
    }

    double median(Function<Rep, Double> f) {
      return Stats.median(reps.stream().map(f).toList());
    }

    String spread(Function<Rep, Double> f) {
      return Stats.spread(reps.stream().map(f).toList());
    }
  }

  private B1Postgres() {}

  public static Result measure(Options o) throws Exception {
    int dbsTasks = o.integer("dbs-tasks", 20_000, 300);
    double warmup = o.real("warmup", 5, 0.2);
    double commitSeconds = o.real("commit-seconds", 2, 0.2);
    long settle = o.integer("settle-ms", 700, 300);
    boolean profiled = o.integer("profile", 0, 0) != 0;
    long t0 = System.nanoTime();
    try (BenchPostgres pg = BenchPostgres.start(o.dir(), profiled)) {
      String server = pg.describe();
      Map<String, String> settings = pg.settings();
      System.err.printf("B1 on PostgreSQL: %s, up in %.1f s, %s%n", server, (System.nanoTime() - t0) / 1e9, settings);
      // warm-up, not reported: every path compiled, the server's caches filled
      vigil(pg, 1, warmup, 0, false);
      DbSchedulerPostgres.run(pg, 1, Math.max(100, dbsTasks / 10), 0, false);
      vigil(pg, 2, warmup / 2, 0, false);
      DbSchedulerPostgres.run(pg, 2, Math.max(100, dbsTasks / 10), 0, false);
      pg.oneRowCommits(warmup / 5);
      List<Rep> reps = new ArrayList<>();
      for (int i = 0; i < o.reps(); i++) {
        boolean profile = profiled && i == o.reps() - 1;
        Vigil one = vigil(pg, 1, o.seconds(), settle, profile);
        DbSchedulerPostgres.Result p1 = DbSchedulerPostgres.run(pg, 1, dbsTasks, settle, profile);
        Vigil two = vigil(pg, 2, o.seconds(), settle, profile);
        DbSchedulerPostgres.Result p2 = DbSchedulerPostgres.run(pg, 2, dbsTasks, settle, profile);
        double commits = pg.oneRowCommits(commitSeconds);
        System.err.printf("B1-pg rep %d: vigil1 %.0f/s, db-scheduler×1 %.0f/s (%d dup), vigil2 %.0f/s,"
                + " db-scheduler×2 %.0f/s (%d dup, %s), commits %.0f/s (load %s)%n", i + 1, one.perSecond(),
            p1.perSecond(), p1.duplicates(), two.perSecond(), p2.perSecond(), p2.duplicates(), p2.perInstance(),
            commits, Proc.loadAverage());
        reps.add(new Rep(one, p1, two, p2, commits));
      }
      return new Result(reps, server, settings);
    }
  }

  /**
   * One Vigil window of {@code daemons} stores on a fresh schema, each cycling from its own thread.
   * The schema is made by an open and close first (its session's counts reported at its end), so that
   * the window's counters hold the cycles and not the migration.
   */
  static Vigil vigil(BenchPostgres pg, int daemons, double seconds, long settleMs, boolean profile) throws Exception {
    String schema = BenchPostgres.freshSchema("vigil");
    List<PostgresCoordination> stores = new ArrayList<>();
    try {
      PostgresCoordination.open(pg.vigil(schema)).close();
      for (int i = 0; i < daemons; i++) {
        stores.add(PostgresCoordination.open(pg.vigil(schema)));
      }
      BenchPostgres.Counters before = pg.counters(settleMs);
      if (profile) {
        pg.resetStatements();
      }
      VigilCycles.Result r;
      BenchPostgres.WaitSampler sampler = profile ? pg.new WaitSampler("vigil/" + schema, 5) : null;
      try {
        r = VigilCycles.run(stores, null, seconds);
      } finally {
        if (sampler != null) {
          sampler.close();
        }
      }
      stores.forEach(PostgresCoordination::close);
      stores.clear();
      BenchPostgres.Counters load = pg.counters(settleMs).minus(before);
      BenchPostgres.Profile seen = profile ? new BenchPostgres.Profile(pg.statements(12), pg.allStatements(),
          sampler.shares(),
          sampler.rounds(), pg.tableStats(schema)) : BenchPostgres.Profile.NONE;
      return new Vigil(r, load, seen);
    } finally {
      stores.forEach(PostgresCoordination::close);
      pg.drop(schema);
    }
  }

  public static List<Report> report(Result r, Options o) {
    List<Report> out = new ArrayList<>();
    Report t = new Report("B1 on PostgreSQL (" + r.server() + ", " + o.reps() + " interleaved repetitions, medians)",
        "what", "per second (median, min–max)", "vs db-scheduler, same count", "the same ratio in each repetition"
            + " (median, min–max)", "vs one-row commits");
    double p1 = r.peer1();
    double p2 = r.peer2();
    double commits = r.commits();
    t.row("Vigil, 1 daemon: submit ×16→claimNext(16)→startAll→takeExitAndFinishAll",
        r.spread(x -> x.one().perSecond()), Stats.ratio(r.vigil1(), p1),
        ratios(r, x -> x.one().perSecond() / x.peerOne().perSecond()), Stats.ratio(r.vigil1(), commits));
    t.row("Vigil, 2 daemons (two stores, two owners, one lane)", r.spread(x -> x.two().perSecond()),
        Stats.ratio(r.vigil2(), p2), ratios(r, x -> x.two().perSecond() / x.peerTwo().perSecond()),
        Stats.ratio(r.vigil2(), commits));
    t.row("db-scheduler 16.12.0, no-op one-time tasks, 1 instance × " + DbSchedulerPostgres.THREADS
        + " threads, lock-and-fetch", r.spread(x -> x.peerOne().perSecond()), "1.00×", "—",
        Stats.ratio(p1, commits));
    t.row("db-scheduler, 2 instances × " + DbSchedulerPostgres.THREADS + " threads",
        r.spread(x -> x.peerTwo().perSecond()), "1.00×", "—", Stats.ratio(p2, commits));
    t.row("one-row durable commits, 1 connection", r.spread(Rep::commitsPerS), Stats.ratio(commits, p1), "—",
        "1.00×");
    int dups = r.reps().stream().mapToInt(x -> x.peerOne().duplicates() + x.peerTwo().duplicates()).sum();
    t.note("Server settings as it reports them: " + r.settings() + ".");
    t.note("Vigil windows " + o.seconds() + " s each; db-scheduler " + r.reps().get(0).peerOne().tasks()
        + " tasks per repetition and instance count (first schedule to an empty table), " + dups
        + " duplicated executions; with 2 instances each ran " + r.reps().stream()
        .map(x -> x.peerTwo().perInstance().toString()).toList() + " of them.");
    t.note("Ratios: Vigil with 1 daemon against db-scheduler with 1 instance, 2 against 2; \"in each repetition\""
        + " divides the two windows that ran one after the other.");
    out.add(t);

    Report c = new Report("B1 on PostgreSQL: the server's work per settled task (median of the repetitions)",
        "what", "commits", "WAL syncs", "WAL bytes", "rows written", "server CPU µs", "client JVM CPU µs",
        "wall µs");
    cost(c, "Vigil, 1 daemon", r, x -> x.one().load(), x -> (double) x.one().cycles().cycles(),
        x -> x.one().cycles().seconds());
    cost(c, "Vigil, 2 daemons", r, x -> x.two().load(), x -> (double) x.two().cycles().cycles(),
        x -> x.two().cycles().seconds());
    cost(c, "db-scheduler, 1 instance", r, x -> x.peerOne().load(), x -> (double) x.peerOne().tasks(),
        x -> x.peerOne().seconds());
    cost(c, "db-scheduler, 2 instances", r, x -> x.peerTwo().load(), x -> (double) x.peerTwo().tasks(),
        x -> x.peerTwo().seconds());
    c.note("From the server's own counters (pg_stat_database: commits and rows inserted, updated and deleted in the"
        + " database; pg_stat_wal: WAL syncs and bytes of the whole server) over each window, read after its sessions"
        + " closed; CPU from /proc: the server's processes (embedded server only) and this JVM's (every thread, the"
        + " JIT and GC included). Wall is the window over the tasks it settled.");
    out.add(c);

    Report v = new Report("B1 on PostgreSQL: per-verb cost (Vigil, 1 daemon, median of the repetitions' medians)",
        "verb", "median µs", "per ticket µs", "calls per cycle");
    for (Verb verb : Verb.values()) {
      double us = Stats.median(r.reps().stream().map(x -> x.one().cycles().medianMicros(verb)).toList());
      boolean batched = verb != Verb.SUBMIT;
      v.row(verb.name().toLowerCase().replace('_', ' '), us, batched ? us / VigilCycles.BATCH : us,
          batched ? "1/16" : "1");
    }
    v.note(String.format("one-row durable commit in the same run: %.0f µs", 1e6 / commits));
    out.add(v);

    Rep last = r.reps().get(r.reps().size() - 1);
    if (!last.one().profile().isEmpty()) {
      out.add(statements("Vigil, 1 daemon", last.one().profile(), last.one().cycles().cycles()));
      out.add(statements("db-scheduler, 1 instance", last.peerOne().profile(), last.peerOne().tasks()));
      out.add(waits(last));
      out.add(tables("Vigil, 1 daemon", last.one().profile().tables(), last.one().cycles().cycles()));
      out.add(tables("db-scheduler, 1 instance", last.peerOne().profile().tables(), last.peerOne().tasks()));
    }
    return out;
  }

  private static String ratios(Result r, Function<Rep, Double> f) {
    List<Double> xs = r.reps().stream().map(f).toList();
    String med = String.format("%.2f×", Stats.median(xs));
    return xs.size() == 1 ? med : med + String.format(" (%.2f–%.2f×)", Stats.min(xs), Stats.max(xs));
  }

  private static Report statements(String what, BenchPostgres.Profile profile, long tasks) {
    List<BenchPostgres.StatementCost> top = profile.statements();
    Report s = new Report("B1 on PostgreSQL: top statements by server time, " + what + " (pg_stat_statements,"
        + " last repetition)", "statement", "calls per task", "server µs per task", "µs per call", "rows per call");
    BenchPostgres.StatementCost all = profile.allStatements();
    for (BenchPostgres.StatementCost c : top) {
      String q = c.query().length() > 160 ? c.query().substring(0, 157) + "…" : c.query();
      s.row("`" + q.replace("|", "\\|") + "`", (double) c.calls() / tasks, c.totalMs() * 1e3 / tasks,
          c.totalMs() * 1e3 / Math.max(1, c.calls()), (double) c.rows() / Math.max(1, c.calls()));
    }
    s.note(String.format("%d tasks settled in the window; every statement together: %.1f executions and %.0f µs per"
        + " task (the foreign-key checks the server runs inside a statement count as executions of their own, and their"
        + " time is counted in both; execution only: the WAL flush at each commit comes after its statement and"
        + " is in none of these).", tasks,
        (double) all.calls() / tasks, all.totalMs() * 1e3 / tasks));
    return s;
  }

  private static Report waits(Rep last) {
    List<String> names = List.of("Vigil, 1 daemon", "Vigil, 2 daemons", "db-scheduler, 1 instance",
        "db-scheduler, 2 instances");
    List<BenchPostgres.Profile> ps = List.of(last.one().profile(), last.two().profile(), last.peerOne().profile(),
        last.peerTwo().profile());
    Report w = new Report("B1 on PostgreSQL: what the sessions were doing (pg_stat_activity every 5 ms, share of"
        + " session samples, last repetition)", "state, wait", names.get(0), names.get(1), names.get(2), names.get(3));
    java.util.Set<String> labels = new java.util.LinkedHashSet<>();
    ps.forEach(p -> labels.addAll(p.waits().keySet()));
    for (String label : labels) {
      Object[] row = new Object[5];
      row[0] = label;
      for (int i = 0; i < 4; i++) {
        Double share = ps.get(i).waits().get(label);
        row[i + 1] = share == null ? "—" : String.format("%.1f%%", 100 * share);
      }
      w.row(row);
    }
    w.note("Sampling rounds per window: " + ps.stream().map(p -> Long.toString(p.waitRounds())).toList() + ". \"active,"
        + " CPU\" is a statement running with no wait event (on a CPU or waiting for one); \"idle in transaction\" is a"
        + " session inside a transaction waiting for the client's next statement (a round trip); IO:WALSync is the"
        + " commit's flush; Lock:transactionid waits for another transaction's row lock to be released at its end.");
    return w;
  }

  private static Report tables(String what, List<BenchPostgres.TableStats> tables, long tasks) {
    Report t = new Report("B1 on PostgreSQL: table access per task, " + what + " (pg_stat_user_tables, last"
        + " repetition)", "table", "seq scans", "rows read by seq scans", "index scans", "inserted", "updated",
        "of which HOT", "deleted");
    for (BenchPostgres.TableStats s : tables) {
      double n = tasks;
      t.row(s.table(), s.seqScans() / n, s.seqRowsRead() / n, s.indexScans() / n, s.inserted() / n, s.updated() / n,
          s.updated() == 0 ? "—" : String.format("%.0f%%", 100.0 * s.hotUpdated() / s.updated()), s.deleted() / n);
    }
    t.note(tasks + " tasks settled in the window; counts since the schema was made (its migration included).");
    return t;
  }

  private static void cost(Report c, String what, Result r, Function<Rep, BenchPostgres.Counters> load,
                           Function<Rep, Double> tasks, Function<Rep, Double> seconds) {
    double commits = r.median(x -> load.apply(x).commits() / tasks.apply(x));
    double syncs = r.median(x -> load.apply(x).walSyncs() / tasks.apply(x));
    double bytes = r.median(x -> load.apply(x).walBytes() / tasks.apply(x));
    double rows = r.median(x -> load.apply(x).rowsWritten() / tasks.apply(x));
    boolean serverKnown = r.reps().stream().allMatch(x -> load.apply(x).serverTicks() >= 0);
    double server = serverKnown ? r.median(x -> load.apply(x).serverTicks() * 1e6 / Proc.CLK_TCK / tasks.apply(x)) : 0;
    double jvm = r.median(x -> load.apply(x).jvmTicks() * 1e6 / Proc.CLK_TCK / tasks.apply(x));
    double wall = r.median(x -> seconds.apply(x) * 1e6 / tasks.apply(x));
    c.row(what, commits, syncs, bytes, rows, serverKnown ? Stats.fmt(server) : "—", jvm, wall);
  }
}
