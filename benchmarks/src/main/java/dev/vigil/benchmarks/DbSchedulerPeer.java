package dev.vigil.benchmarks;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The peer of B1: db-scheduler no-op one-time tasks on an H2 file with the store's settings
 * ({@link H2Settings}). One scheduler with {@value #THREADS} executor threads runs while one
 * thread schedules {@code n} tasks due now, each in its own durable commit; the rate is {@code n}
 * over the time from the first schedule to the last completion (each task: insert, pick, execute,
 * delete). Duplicated executions are counted.
 */
public final class DbSchedulerPeer {
  /** Executor threads of the one scheduler instance. */
  public static final int THREADS = 10;

  /** Executions per second, and how many instances ran more than once. */
  public record Result(int tasks, double seconds, int duplicates) {
    public double perSecond() {
      return tasks / seconds;
    }
  }

  private DbSchedulerPeer() {}

  /** db-scheduler's table, in H2's dialect (as its PostgreSQL script). */
  static final String TABLE = """
      CREATE TABLE scheduled_tasks (
        task_name VARCHAR(100) NOT NULL,
        task_instance VARCHAR(100) NOT NULL,
        task_data BLOB,
        execution_time TIMESTAMP WITH TIME ZONE NOT NULL,
        picked BOOLEAN NOT NULL,
        picked_by VARCHAR(50),
        last_success TIMESTAMP WITH TIME ZONE,
        last_failure TIMESTAMP WITH TIME ZONE,
        consecutive_failures INT,
        last_heartbeat TIMESTAMP WITH TIME ZONE,
        version BIGINT NOT NULL,
        priority SMALLINT,
        PRIMARY KEY (task_name, task_instance)
      )""";

  public static Result run(Path dir, int n) throws Exception {
    String name = "dbs-" + System.nanoTime();
    String url = H2Settings.url(dir, name);
    Connection keeper = H2Settings.keeper(url);
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername("sa");
    config.setPassword("");
    config.setMaximumPoolSize(THREADS + 2);
    config.setPoolName("db-scheduler-peer");
    try (HikariDataSource ds = new HikariDataSource(config)) {
      try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
        s.execute(TABLE);
        s.execute("CREATE INDEX execution_time_idx ON scheduled_tasks (execution_time)");
        s.execute("CREATE INDEX last_heartbeat_idx ON scheduled_tasks (last_heartbeat)");
      }
      CountDownLatch done = new CountDownLatch(n);
      Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
      OneTimeTask<Void> noop = Tasks.oneTime("noop").execute((instance, ctx) -> {
        if (runs.computeIfAbsent(instance.getId(), k -> new AtomicInteger()).incrementAndGet() == 1) {
          done.countDown();
        }
      });
      Scheduler scheduler = Scheduler.create(ds, noop).threads(THREADS).pollingInterval(Duration.ofMillis(100))
          .enableImmediateExecution().build();
      scheduler.start();
      try {
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
          scheduler.schedule(noop.instance("t" + i), Instant.now());
        }
        if (!done.await(10L * n + 60_000, TimeUnit.MILLISECONDS)) {
          throw new IllegalStateException("db-scheduler ran " + (n - done.getCount()) + " of " + n + " tasks");
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        int duplicates = (int) runs.values().stream().filter(a -> a.get() > 1).count();
        return new Result(n, seconds, duplicates);
      } finally {
        scheduler.stop();
      }
    } finally {
      H2Settings.shutdown(keeper);
      Files.deleteIfExists(dir.resolve(name + ".mv.db"));
    }
  }
}
