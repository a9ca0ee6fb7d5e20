package dev.vigil.launcher.internal;

import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.RunSpec;
import dev.vigil.coordination.schedule.CatchUp;
import dev.vigil.coordination.schedule.Cron;
import dev.vigil.coordination.schedule.Overlap;
import dev.vigil.coordination.schedule.ScheduleName;
import dev.vigil.coordination.schedule.ScheduleSpec;
import dev.vigil.supervisor.Durations;
import dev.vigil.supervisor.engine.EngineConfig;
import dev.vigil.supervisor.engine.WorkerTypeSpec;
import dev.vigil.supervisor.engine.Workload;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The built-in maintenance jobs (Q18, DESIGN.md §7.1): tickets of the worker type {@value #TYPE}
 * ({@link MaintenanceWorker}) in the lane {@value #LANE} (one at a time), run as worker processes like any
 * task, claimed and leased, so a daemon replacement adopts a running job and a job cut by a crash runs again.
 * Two schedules submit them: {@value #RETENTION} daily (prunes finished tasks older than the configured
 * {@code retention}) and {@value #COMPACT} daily (compacts the store at a safe point); {@code vigil prune}
 * submits one by hand. The daemon adds the type, the lane and the schedules to every configuration.
 */
public final class MaintenanceJobs {
  /** The capability of a daemon that answers {@code prune}, {@code prune-done}, {@code compact} and {@code maintenance}. */
  public static final String CAPABILITY = "maintenance";
  /** The worker type of maintenance jobs. */
  public static final String TYPE = "vigil-maintenance";
  /** The lane of maintenance jobs: one runs at a time. */
  public static final Lane LANE = new Lane("vigil-maintenance");
  /** The schedule of the daily retention job. */
  public static final String RETENTION = "vigil-retention";
  /** The schedule of the daily compaction. */
  public static final String COMPACT = "vigil-compact";
  /** When the retention job fires, in this machine's zone: daily at 03:17. */
  static final String RETENTION_CRON = "17 3 * * *";
  /** When the compaction fires: daily at 03:47, after the retention job. */
  static final String COMPACT_CRON = "47 3 * * *";
  /** Attempts of a maintenance job: a cut job runs again, idempotently. */
  static final int ATTEMPTS = 5;

  /** Whether {@code schedule} is one of the built-in maintenance schedules. */
  public static boolean builtIn(String schedule) {
    return schedule.equals(RETENTION) || schedule.equals(COMPACT);
  }

  private static final Pattern DAYS = Pattern.compile("([0-9]{1,5})d");

  private MaintenanceJobs() {}

  /**
   * An age as written in the configuration's {@code retention} or {@code vigil prune --older-than}: whole
   * days ({@code 30d}) or a duration ({@code 12h}, {@code 90m}, {@code PT1H}).
   *
   * @throws IllegalArgumentException naming {@code field} and the text
   */
  public static long age(String field, String text) {
    if (text == null) {
      throw new IllegalArgumentException(field + " must be an age such as 30d or 12h");
    }
    Matcher m = DAYS.matcher(text);
    if (m.matches()) {
      return Long.parseLong(m.group(1)) * 86_400_000L;
    }
    try {
      return Durations.parse(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(field + " '" + text + "': not an age (like 30d, 12h or 90m)");
    }
  }

  /** An age in words: whole days as {@code 30d}, else as a duration. */
  public static String ageText(long ms) {
    return ms == 0 ? "0s" : ms % 86_400_000L == 0 ? ms / 86_400_000L + "d" : Durations.format(ms);
  }

  /** The ticket of a job: {@code job} is {@code retention}, {@code prune} or {@code compact}. */
  public static NewTicket ticket(String payload, int priority) {
    return new NewTicket(LANE, TYPE, payload, ATTEMPTS, priority, 0, null, RunSpec.DEFAULT, new TreeMap<>());
  }

  /**
   * {@code config} with the maintenance worker type, its lane (one at a time) and its two schedules added
   * (the file's own schedules of the same names win), keeping its source.
   */
  static VigilConfig withJobs(VigilConfig config) {
    Workload w = config.workload();
    if (w.workerTypes().get(TYPE).isEmpty()) {
      w = w.with(new WorkerTypeSpec(TYPE, new WorkerTypeSpec.Declared(MaintenanceWorker.class.getName()),
          List.of(launcherLocation())));
    }
    if (w.concurrency(LANE) == 0) {
      List<EngineConfig.LaneLimit> lanes = new ArrayList<>(w.lanes());
      lanes.add(new EngineConfig.LaneLimit(LANE, 1));
      w = new Workload(lanes, w.workerTypes(), w.services(), w.maxStarting());
    }
    List<ScheduleSpec> schedules = new ArrayList<>(config.schedules());
    addUnlessNamed(schedules, RETENTION, RETENTION_CRON, "{\"job\":\"retention\"}");
    addUnlessNamed(schedules, COMPACT, COMPACT_CRON, "{\"job\":\"compact\"}");
    return new VigilConfig(w, config.maxAttempts(), config.retry(), config.durability(), config.timeouts(),
        config.source(), schedules, config.retentionMs(), config.store(), config.hostId());
  }

  /**
   * Where this class was loaded from (the launcher's jar, or its classes directory under a test runner): the
   * worker host's own classpath holds only worker-runtime and what it needs, so the maintenance type adds it.
   */
  private static String launcherLocation() {
    try {
      return java.nio.file.Path.of(MaintenanceWorker.class.getProtectionDomain().getCodeSource().getLocation().toURI())
          .toAbsolutePath().toString();
    } catch (java.net.URISyntaxException | RuntimeException e) {
      throw new IllegalStateException("cannot tell where Vigil's launcher was loaded from: " + e.getMessage(), e);
    }
  }

  private static void addUnlessNamed(List<ScheduleSpec> schedules, String name, String cron, String payload) {
    if (schedules.stream().noneMatch(s -> s.name().name().equals(name))) {
      schedules.add(new ScheduleSpec(new ScheduleName(name), Cron.parse(cron), ZoneId.systemDefault(),
          ticket(payload, 0), CatchUp.LATEST, Overlap.SKIP));
    }
  }
}
