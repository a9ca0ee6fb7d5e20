package dev.vigil.coordination;

import java.util.Objects;

/**
 * One start of a {@code startAll}: what {@code start} records for {@code run}.
 *
 * @param run   the CLAIMED run whose worker holds its reservation
 * @param start the worker's identity, build, token hash, start time and time limit (Q3)
 */
public record StartOf(RunId run, RunStart start) {
  public StartOf {
    Objects.requireNonNull(run, "run");
    Objects.requireNonNull(start, "start");
  }
}
