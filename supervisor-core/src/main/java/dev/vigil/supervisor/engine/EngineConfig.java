package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Lane;
import dev.vigil.coordination.OwnerId;
import dev.vigil.supervisor.OutputBound;
import dev.vigil.supervisor.TimeoutLattice;
import java.util.List;
import java.util.Objects;

/**
 * Everything the engine needs to know that is not in the store: who this daemon incarnation is,
 * what it runs, and every timeout. Immutable; each compact constructor rejects (never repairs) a bad
 * value, naming the field.
 *
 * @param owner    this incarnation's owner id; must be new for every daemon start
 * @param host     the host name registered with the owner
 * @param build    this daemon's build; workers report it back (S6)
 * @param version  this daemon's version, for status (S8)
 * @param protocol the socket protocol number, for status
 * @param workload the lanes, worker types and services, as configured
 * @param timeouts every timeout, validated by {@link TimeoutLattice} (S2)
 * @param hostId   the stable id of this host, registered with the owner: the daemon recovers only runs of
 *                 owners of this host (H1); null when one host uses the store (the embedded store): owners are
 *                 registered without one, and only an owner registered with a host id is another host's
 */
public record EngineConfig(OwnerId owner, String host, String build, String version, int protocol, Workload workload,
                           TimeoutLattice timeouts, String hostId) {
  /** The most runs one lane may have live at once. */
  public static final int MAX_LANE_CONCURRENCY = 10_000;

  /**
   * A lane, how many of its runs may be live at once (CLAIMED, RUNNING or EXITED, by any owner), the
   * time limit of its runs whose ticket has none of its own (Q12), and how much of each run's stdout
   * and of its stderr is kept.
   *
   * @param lane        the lane
   * @param concurrency its limit, 1-{@value #MAX_LANE_CONCURRENCY}
   * @param timeoutMs   the default time limit of its runs, ms; 0 for none
   * @param output      the bound on each output stream of its runs
   */
  public record LaneLimit(Lane lane, int concurrency, long timeoutMs, OutputBound output) {
    public LaneLimit {
      Objects.requireNonNull(lane, "lane");
      Objects.requireNonNull(output, "output");
      if (concurrency < 1 || concurrency > MAX_LANE_CONCURRENCY) {
        throw new IllegalArgumentException("lanes." + lane + ".concurrency (" + concurrency + ") must be 1-"
            + MAX_LANE_CONCURRENCY);
      }
      if (timeoutMs < 0 || timeoutMs > dev.vigil.coordination.RunSpec.MAX_TIMEOUT_MS) {
        throw new IllegalArgumentException("lanes." + lane + ".timeout (" + timeoutMs
            + " ms) must be between 0 (none) and 366 days");
      }
    }

    /** A lane with the default output bound. */
    public LaneLimit(Lane lane, int concurrency, long timeoutMs) {
      this(lane, concurrency, timeoutMs, OutputBound.DEFAULT);
    }

    /** A lane without a default time limit, with the default output bound. */
    public LaneLimit(Lane lane, int concurrency) {
      this(lane, concurrency, 0);
    }
  }

  public EngineConfig {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(build, "build");
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(workload, "workload");
    Objects.requireNonNull(timeouts, "timeouts");
    if (host.isBlank()) {
      throw new IllegalArgumentException("host must not be blank");
    }
    if (build.isBlank()) {
      throw new IllegalArgumentException("build must not be blank");
    }
    if (version.isBlank()) {
      throw new IllegalArgumentException("version must not be blank");
    }
    if (protocol < 1) {
      throw new IllegalArgumentException("protocol (" + protocol + ") must be >= 1");
    }
    if (hostId != null) {
      dev.vigil.coordination.Owner.checkHostId(hostId);
    }
  }

  /** A daemon of a store that one host uses. */
  public EngineConfig(OwnerId owner, String host, String build, String version, int protocol, Workload workload,
                      TimeoutLattice timeouts) {
    this(owner, host, build, version, protocol, workload, timeouts, null);
  }

  /** The lanes this daemon claims from, each with its concurrency limit. */
  public List<LaneLimit> lanes() {
    return workload.lanes();
  }

  /** The worker types this daemon can launch; submissions of other types are refused. */
  public WorkerTypes workerTypes() {
    return workload.workerTypes();
  }

  /** The service sessions, in configuration order. */
  public List<ServiceSpec> services() {
    return workload.services();
  }

  /** The limit of {@code lane}, or 0 when this daemon does not serve it. */
  int concurrency(Lane lane) {
    return workload.concurrency(lane);
  }

  /** The default time limit of {@code lane}'s runs, ms, 0 for none. */
  long laneTimeoutMs(Lane lane) {
    return workload.timeoutMs(lane);
  }

  /** The configured type called {@code name}; the caller checked that there is one. */
  WorkerTypeSpec workerType(String name) {
    return workload.workerTypes().get(name)
        .orElseThrow(() -> new IllegalArgumentException("worker type '" + name + "' is not configured"));
  }

  long ms(TimeoutLattice.Timeout t) {
    return timeouts.ms(t);
  }
}
