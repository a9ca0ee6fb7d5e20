package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Lane;
import dev.vigil.supervisor.OutputBound;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What a daemon runs, as its configuration gives it: lanes with their limits, worker types and
 * services. The one place these facts are checked together, for the configuration file and for the
 * engine alike; each part checks its own fields ({@link EngineConfig.LaneLimit}, {@link WorkerTypeSpec},
 * {@link ServiceSpec}).
 *
 * @param lanes       the lanes the daemon claims from, each once, with its concurrency limit
 * @param workerTypes the worker types it can launch
 * @param services    the service sessions, in configuration order, each name once, each of a
 *                    configured type
 * @param maxStarting how many task workers may be starting at once (launched, their handoff not over),
 *                    1-{@value EngineConfig#MAX_LANE_CONCURRENCY}; due work beyond it waits for a start to end
 */
public record Workload(List<EngineConfig.LaneLimit> lanes, WorkerTypes workerTypes, List<ServiceSpec> services,
                       int maxStarting) {
  /** {@link #maxStarting} when the configuration names none and nothing knows the machine (the launcher does). */
  public static final int DEFAULT_MAX_STARTING = 8;

  /** A workload with {@link #DEFAULT_MAX_STARTING}. */
  public Workload(List<EngineConfig.LaneLimit> lanes, WorkerTypes workerTypes, List<ServiceSpec> services) {
    this(lanes, workerTypes, services, DEFAULT_MAX_STARTING);
  }

  public Workload {
    if (maxStarting < 1 || maxStarting > EngineConfig.MAX_LANE_CONCURRENCY) {
      throw new IllegalArgumentException("maxStarting (" + maxStarting + ") must be 1-"
          + EngineConfig.MAX_LANE_CONCURRENCY);
    }
    Objects.requireNonNull(lanes, "lanes");
    Objects.requireNonNull(workerTypes, "workerTypes");
    Objects.requireNonNull(services, "services");
    lanes = List.copyOf(lanes);
    Set<Lane> seen = new HashSet<>();
    for (EngineConfig.LaneLimit l : lanes) {
      if (!seen.add(l.lane())) {
        throw new IllegalArgumentException("lanes: lane '" + l.lane() + "' is configured twice");
      }
    }
    services = List.copyOf(services);
    Set<String> names = new HashSet<>();
    for (ServiceSpec s : services) {
      if (!names.add(s.name())) {
        throw new IllegalArgumentException("services: service '" + s.name() + "' is configured twice");
      }
      if (!workerTypes.contains(s.workerType())) {
        throw new IllegalArgumentException("services." + s.name() + ".type '" + s.workerType()
            + "' is not one of workerTypes " + workerTypes);
      }
    }
  }

  /** The limit of {@code lane}, or 0 when it is not one of these lanes. */
  public int concurrency(Lane lane) {
    for (EngineConfig.LaneLimit l : lanes) {
      if (l.lane().equals(lane)) {
        return l.concurrency();
      }
    }
    return 0;
  }

  /** The default time limit of {@code lane}'s runs, ms, or 0 when it has none or is not one of these lanes. */
  public long timeoutMs(Lane lane) {
    for (EngineConfig.LaneLimit l : lanes) {
      if (l.lane().equals(lane)) {
        return l.timeoutMs();
      }
    }
    return 0;
  }

  /**
   * The bound on each output stream of {@code lane}'s runs; the default bound for a lane that is not
   * one of these (and for services, which have no lane).
   */
  public OutputBound output(Lane lane) {
    for (EngineConfig.LaneLimit l : lanes) {
      if (l.lane().equals(lane)) {
        return l.output();
      }
    }
    return OutputBound.DEFAULT;
  }

  /** This workload with {@code type} added, or put in place of the type of its name. */
  public Workload with(WorkerTypeSpec type) {
    return new Workload(lanes, workerTypes.with(type), services, maxStarting);
  }
}
