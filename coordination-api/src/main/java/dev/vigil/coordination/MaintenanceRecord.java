package dev.vigil.coordination;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The line a maintenance job last recorded (Q18), kept by the store in the transaction of the job's effect.
 *
 * @param job     the job's name: {@code retention}, {@code prune}, {@code directories} or {@code compact}
 * @param atMs    wall-clock ms of the record
 * @param summary what it did, in plain words
 */
public record MaintenanceRecord(String job, long atMs, String summary) {
  private static final Pattern JOB = Pattern.compile("[a-z][a-z0-9-]{0,31}");

  public MaintenanceRecord {
    checkJob(job);
    Objects.requireNonNull(summary, "summary");
    if (summary.length() > 1000) {
      summary = summary.substring(0, 1000);
    }
  }

  static void checkJob(String job) {
    Objects.requireNonNull(job, "job");
    if (!JOB.matcher(job).matches()) {
      throw new IllegalArgumentException("job '" + job + "' must be 1-32 lower-case letters, digits and '-'");
    }
  }
}
