package dev.vigil.benchmarks;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The peer of B1 on PostgreSQL: db-scheduler no-op one-time tasks on the run's server, in a schema of
 * its own holding its table {@code scheduled_tasks} (its PostgreSQL script: {@code text},
 * {@code bytea}, {@code timestamp with time zone}, and its three indexes). {@code instances}
 * schedulers, each with its own HikariCP pool, name ({@code dbs-0}, {@code dbs-1}) and
 * {@value #THREADS} executor threads, poll with the {@code lock-and-fetch} strategy (one
 * {@code SELECT … FOR UPDATE SKIP LOCKED} that also marks the batch picked; its README recommends it
 * above 1,000 executions/s and names PostgreSQL as supported) at {@value #LOWER}, {@value #UPPER}
 * (its "high throughput" example), every 100 ms and at once when a task due now is scheduled
 * ({@code enableImmediateExecution}). One thread per instance schedules every {@code instances}-th of
 * the {@code n} tasks through its instance, each in its own autocommit insert. The rate is {@code n}
 * over the time from the first schedule until the table is empty again (insert, pick, execute,
 * delete: the last completion's delete included). Executions are counted per task instance and per
 * scheduler.
 */
public final class DbSchedulerPostgres {
  /** Executor threads of each scheduler instance (db-scheduler's default). */
  public static final int THREADS = 10;
  /** lock-and-fetch: fetch again when at most this × threads are left… */
  public static final double LOWER = 1.0;
  /** …up to this × threads picked at once. */
  public static final double UPPER = 4.0;

  /**
   * @param tasks       tasks scheduled (and each executed)
   * @param seconds     first schedule to an empty table
   * @param duplicates  task instances executed more than once
   * @param perInstance executions by each scheduler instance
   * @param load        the server's and this JVM's counters over the window
   * @param profile     what the server saw of the window, when profiled
   */
  public record Result(int tasks, double seconds, int duplicates, List<Integer> perInstance,
                       BenchPostgres.Counters load, BenchPostgres.Profile profile) {
    public double perSecond() {
      return tasks / seconds;
    }
  }

  private DbSchedulerPostgres() {}

  /** db-scheduler's table in its PostgreSQL script, for the columns 16.x reads and writes. */
  static final List<String> DDL = List.of("""
      CREATE TABLE scheduled_tasks (
        task_name TEXT NOT NULL,
        task_instance TEXT NOT NULL,
        task_data BYTEA,
        execution_time TIMESTAMP WITH TIME ZONE NOT NULL,
        picked BOOLEAN NOT NULL,
        picked_by TEXT,
        last_success TIMESTAMP WITH TIME ZONE,
        last_failure TIMESTAMP WITH TIME ZONE,
        consecutive_failures INT,
        last_heartbeat TIMESTAMP WITH TIME ZONE,
        version BIGINT NOT NULL,
        priority SMALLINT,
        PRIMARY KEY (task_name, task_instance)
      )""",
      "CREATE INDEX execution_time_idx ON scheduled_tasks (execution_time)",
      "CREATE INDEX last_heartbeat_idx ON scheduled_tasks (last_heartbeat)",
      "CREATE INDEX priority_execution_time_idx ON scheduled_tasks (priority DESC, execution_time ASC)");

  /**
   * One window: {@code n} tasks through {@code instances} schedulers. The server's counters are read
   * {@code settleMs} after the schedulers start and after they stop; with {@code profile}, the
   * window is profiled ({@link BenchPostgres.Profile}: its statements, its sessions' waits sampled every
   * 5 ms, its table's access counts).
   */
  public static Result run(BenchPostgres pg, int instances, int n, long settleMs, boolean profile) throws Exception {
    String schema = BenchPostgres.freshSchema("dbs");
    try (Connection c = pg.connect(); Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
      s.execute("SET search_path TO " + schema);
      for (String ddl : DDL) {
        s.execute(ddl);
      }
    }
    List<HikariDataSource> pools = new ArrayList<>();
    List<Scheduler> schedulers = new ArrayList<>();
    List<OneTimeTask<Void>> tasks = new ArrayList<>();
    CountDownLatch done = new CountDownLatch(n);
    Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    List<AtomicInteger> perInstance = new ArrayList<>();
    try {
      for (int i = 0; i < instances; i++) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(pg.url());
        config.setUsername(pg.user());
        config.setPassword(pg.password());
        config.addDataSourceProperty("currentSchema", schema);
        config.setMaximumPoolSize(THREADS + 2);
        config.setPoolName("db-scheduler-pg-" + i);
        config.addDataSourceProperty("ApplicationName", "db-scheduler/" + schema);
        HikariDataSource ds = new HikariDataSource(config);
        pools.add(ds);
        AtomicInteger mine = new AtomicInteger();
        perInstance.add(mine);
        OneTimeTask<Void> noop = Tasks.oneTime("noop").execute((instance, ctx) -> {
          mine.incrementAndGet();
          if (runs.computeIfAbsent(instance.getId(), k -> new AtomicInteger()).incrementAndGet() == 1) {
            done.countDown();
          }
        });
        tasks.add(noop);
        schedulers.add(Scheduler.create(ds, noop).threads(THREADS).pollingInterval(Duration.ofMillis(100))
            .pollUsingLockAndFetch(LOWER, UPPER).enableImmediateExecution()
            .schedulerName(new SchedulerName.Fixed("dbs-" + i)).build());
      }
      schedulers.forEach(Scheduler::start);
      BenchPostgres.Counters before = pg.counters(settleMs);
      if (profile) {
        pg.resetStatements();
      }
      BenchPostgres.WaitSampler sampler = profile ? pg.new WaitSampler("db-scheduler/" + schema, 5) : null;
      long t0 = System.nanoTime();
      AtomicReference<Throwable> failed = new AtomicReference<>();
      List<Thread> feeders = new ArrayList<>();
      for (int i = 0; i < instances; i++) {
        int me = i;
        Thread t = new Thread(() -> {
          try {
            for (int k = me; k < n; k += instances) {
              schedulers.get(me).schedule(tasks.get(me).instance("t" + k), Instant.now());
            }
          } catch (Throwable e) {
            failed.compareAndSet(null, e);
          }
        }, "dbs-feeder-" + i);
        feeders.add(t);
        t.start();
      }
      for (Thread t : feeders) {
        t.join();
      }
      if (failed.get() != null) {
        throw new IllegalStateException("scheduling failed", failed.get());
      }
      if (!done.await(10L * n + 60_000, TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException("db-scheduler ran " + (n - done.getCount()) + " of " + n + " tasks");
      }
      // the last completions' deletes: the rate counts a task once its row is gone
      try (Connection c = pg.connect(); Statement s = c.createStatement()) {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (true) {
          try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + schema + ".scheduled_tasks")) {
            rs.next();
            if (rs.getLong(1) == 0) {
              break;
            }
          }
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException("db-scheduler left rows in scheduled_tasks after running every task");
          }
          Thread.sleep(2);
        }
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      if (sampler != null) {
        sampler.close();
      }
      schedulers.forEach(Scheduler::stop);
      schedulers.clear();
      pools.forEach(HikariDataSource::close);
      pools.clear();
      BenchPostgres.Counters load = pg.counters(settleMs).minus(before);
      BenchPostgres.Profile seen = profile ? new BenchPostgres.Profile(pg.statements(12), pg.allStatements(),
          sampler.shares(),
          sampler.rounds(), pg.tableStats(schema)) : BenchPostgres.Profile.NONE;
      int duplicates = (int) runs.values().stream().filter(a -> a.get() > 1).count();
      return new Result(n, seconds, duplicates, perInstance.stream().map(AtomicInteger::get).toList(), load,
          seen);
    } finally {
      schedulers.forEach(Scheduler::stop);
      pools.forEach(HikariDataSource::close);
      pg.drop(schema);
    }
  }
}
