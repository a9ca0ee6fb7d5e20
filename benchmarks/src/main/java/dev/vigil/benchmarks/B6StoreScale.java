package dev.vigil.benchmarks;

import dev.vigil.benchmarks.VigilCycles.Verb;
import dev.vigil.coordination.h2.H2Coordination;
import dev.vigil.coordination.h2.H2Options;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * B6: the B1 cycle (1 thread) and {@code claimNext(16)} on stores that already hold many settled
 * tickets. Sizes: {@code --settled 10000,100000,1000000} (smoke: 1000). Each store is built once:
 * {@link H2Coordination} creates the schema, then plain JDBC on the store's URL settings inserts
 * SUCCEEDED tickets with one SETTLED run each in batches of {@value #BATCH_ROWS} rows per commit,
 * sets the ticket counter, and compacts ({@code SHUTDOWN COMPACT}); the cycle then runs through
 * {@link H2Coordination} as in B1. The sizes are interleaved within each repetition.
 */
public final class B6StoreScale {
  static final int BATCH_ROWS = 5_000;

  /** One size's repetitions. */
  public record Size(int settled, double buildSeconds, long fileBytes, List<VigilCycles.Result> reps,
      List<Double> closeSeconds, List<Long> closedBytes) {
    public double cycles() {
      return Stats.median(reps.stream().map(VigilCycles.Result::perSecond).toList());
    }

    /**
     * Repetition {@code i}'s cycles per second with the compactions its appends call for, whether or
     * not one fell inside its window: the window without its compaction pauses, plus the appended bytes
     * at the cost per byte of the compaction measured at its close (close s / the growth after which
     * the store compacts a file of the size the close left, {@link H2Coordination#compactionGrowthBytes}). A window of a few seconds on a
     * large store often holds no compaction, and then its plain rate leaves their cost out.
     */
    public double amortised(int i) {
      VigilCycles.Result r = reps.get(i);
      double pauses = r.pauseMillis().stream().mapToDouble(Double::doubleValue).sum() / 1e3;
      double perByte = closeSeconds.get(i) / H2Coordination.compactionGrowthBytes(closedBytes.get(i));
      return r.cycles() / (r.seconds() - pauses + r.appendedBytes() * perByte);
    }

    public List<Double> amortised() {
      List<Double> out = new ArrayList<>();
      for (int i = 0; i < reps.size(); i++) {
        out.add(amortised(i));
      }
      return out;
    }

    /** Bytes appended per settled ticket, median of the repetitions. */
    public double appendedPerCycle() {
      return Stats.median(reps.stream().map(r -> r.appendedBytes() / (double) Math.max(1, r.cycles())).toList());
    }

    public double claimNextMicros() {
      return medianMicros(Verb.CLAIM_NEXT);
    }

    public double medianMicros(Verb v) {
      return Stats.median(reps.stream().map(r -> r.medianMicros(v)).toList());
    }
  }

  public record Result(List<Size> sizes) {}

  private B6StoreScale() {}

  public static Result measure(Options o) throws Exception {
    int[] sizes = o.integers("settled", new int[] {10_000, 100_000, 1_000_000}, new int[] {1_000});
    Map<Integer, Path> files = new LinkedHashMap<>();
    Map<Integer, Double> built = new LinkedHashMap<>();
    Map<Integer, List<VigilCycles.Result>> reps = new LinkedHashMap<>();
    Map<Integer, List<Double>> closes = new LinkedHashMap<>();
    Map<Integer, List<Long>> closed = new LinkedHashMap<>();
    Map<Integer, Long> bytes = new LinkedHashMap<>();
    try {
      for (int n : sizes) {
        Path file = o.dir().resolve("b6-" + n + ".mv.db");
        long t0 = System.nanoTime();
        build(file, n);
        built.put(n, (System.nanoTime() - t0) / 1e9);
        files.put(n, file);
        bytes.put(n, Files.size(file));
        reps.put(n, new ArrayList<>());
        closes.put(n, new ArrayList<>());
        closed.put(n, new ArrayList<>());
        System.err.printf("B6: built %,d settled tickets in %.1f s (%,d bytes)%n", n, built.get(n), Files.size(file));
      }
      VigilCycles.fresh(o.dir(), 1, o.real("warmup", 5, 0.2)); // warm-up, not reported
      for (int i = 0; i < o.reps(); i++) {
        for (int n : sizes) {
          Path file = files.get(n);
          H2Coordination h2 = H2Coordination.open(file, H2Options.defaults());
          VigilCycles.Result r;
          try {
            r = VigilCycles.run(h2, file, 1, o.seconds());
          } finally {
            long c0 = System.nanoTime();
            h2.close();
            closes.get(n).add((System.nanoTime() - c0) / 1e9);
            closed.get(n).add(Files.size(file));
          }
          reps.get(n).add(r);
          System.err.printf("B6 rep %d, %,d settled: %.0f cycles/s, claimNext(16) %.0f µs, %d compactions%n", i + 1, n,
              r.perSecond(), r.medianMicros(Verb.CLAIM_NEXT), r.pauseMillis().size());
        }
      }
    } finally {
      for (Path f : files.values()) {
        Files.deleteIfExists(f);
      }
    }
    List<Size> out = new ArrayList<>();
    for (int n : sizes) {
      out.add(new Size(n, built.get(n), bytes.get(n), reps.get(n), closes.get(n), closed.get(n)));
    }
    return new Result(out);
  }

  /** A store holding {@code n} SUCCEEDED tickets, each with one SETTLED run. */
  static void build(Path file, int n) throws Exception {
    H2Coordination.open(file, H2Options.defaults()).close();
    String name = file.getFileName().toString().replace(".mv.db", "");
    String url = H2Settings.url(file.getParent(), name);
    long now = System.currentTimeMillis() - 86_400_000L;
    try (Connection c = DriverManager.getConnection(url, "sa", "")) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        s.execute("MERGE INTO lanes(name, parked) KEY(name) VALUES ('default', FALSE)");
      }
      try (PreparedStatement t = c.prepareStatement("INSERT INTO tickets(id, lane, type, payload, state, attempts_used,"
          + " max_attempts, priority, not_before_ms, created_at_ms, parked, hold_reason, spawn_failures, idempotency_key)"
          + " VALUES (?, 'default', 'command', '{\"argv\":[\"true\"]}', 'SUCCEEDED', 1, 3, 0, 0, ?, FALSE, NULL, 0, NULL)");
           PreparedStatement r = c.prepareStatement("INSERT INTO runs(run_id, ticket_id, number, attempt, state, owner_id,"
               + " claimed_at_ms, hand_started, boot_id, pid, start_ticks, pgid, build, token_hash, started_at_ms,"
               + " exit_code, exit_signal, exit_at_ms, exit_role, exit_owner_id, verdict, diagnosis) VALUES (?, ?, 1, 1,"
               + " 'SETTLED', 'd-build', ?, FALSE, 'boot', 4242, 1, 4242, 'bench', '" + "ab".repeat(32) + "', ?, 0, NULL,"
               + " ?, 'SUPERVISOR', 'd-build', 'SUCCEEDED', NULL)")) {
        for (int id = 1; id <= n; id++) {
          long at = now + id;
          t.setLong(1, id);
          t.setLong(2, at);
          t.addBatch();
          r.setString(1, "t-" + id + ".1");
          r.setLong(2, id);
          r.setLong(3, at);
          r.setLong(4, at);
          r.setLong(5, at);
          r.addBatch();
          if (id % BATCH_ROWS == 0 || id == n) {
            t.executeBatch();
            r.executeBatch();
            c.commit();
          }
        }
      }
      try (Statement s = c.createStatement()) {
        s.executeUpdate("UPDATE counters SET issued = " + n + " WHERE name = 'ticket_seq'");
        c.commit();
        s.execute("SHUTDOWN COMPACT");
      }
    }
  }

  public static List<Report> report(Result r, Options o) {
    Report t = new Report("B6 store scale (B1 cycle, 1 thread, " + o.reps() + " interleaved repetitions, medians)",
        "settled tickets", "file after build", "cycles/s", "vs smallest", "with compaction amortised, cycles/s",
        "vs smallest", "appended per cycle", "claimNext(16) µs", "submit / startAll / takeExitAndFinishAll µs",
        "compactions in the windows (pause s)", "close (compact) s", "build s");
    double base = r.sizes().get(0).cycles();
    double amortisedBase = Stats.median(r.sizes().get(0).amortised());
    for (Size s : r.sizes()) {
      t.row(String.format("%,d", s.settled()), String.format("%.1f MiB", s.fileBytes() / 1048576.0),
          Stats.spread(s.reps().stream().map(VigilCycles.Result::perSecond).toList()), Stats.ratio(s.cycles(), base),
          Stats.spread(s.amortised()), Stats.ratio(Stats.median(s.amortised()), amortisedBase),
          String.format("%.1f KiB", s.appendedPerCycle() / 1024), s.claimNextMicros(), Stats.fmt(s.medianMicros(Verb.SUBMIT)) + " / " + Stats.fmt(s.medianMicros(Verb.START_ALL))
              + " / " + Stats.fmt(s.medianMicros(Verb.TAKE_EXIT_AND_FINISH_ALL)),
          s.reps().stream().mapToInt(x -> x.pauseMillis().size()).sum() + " (" + Stats.fmt(s.reps().stream()
              .flatMap(x -> x.pauseMillis().stream()).mapToDouble(Double::doubleValue).sum() / 1e3) + ")",
          Stats.median(s.closeSeconds()), s.buildSeconds());
    }
    t.note("Windows of " + o.seconds() + " s; a store is built once by batched JDBC inserts of "
        + BATCH_ROWS + " tickets and runs per commit through the store's schema, then compacted.");
    t.note("With compaction amortised: each window's cycles over its time without compaction pauses plus its"
        + " appended bytes at the cost per byte of the compaction measured at its close (close s / the growth after"
        + " which the store compacts a file of the size the close left). This is the rate the target is read on.");
    return List.of(t);
  }
}
