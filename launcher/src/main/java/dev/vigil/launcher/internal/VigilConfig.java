package dev.vigil.launcher.internal;

import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.RetryPolicy;
import dev.vigil.coordination.h2.H2Options;
import dev.vigil.coordination.schedule.ScheduleSpec;
import dev.vigil.supervisor.TimeoutLattice;
import dev.vigil.supervisor.engine.EngineConfig;
import dev.vigil.supervisor.engine.WorkerTypeSpec;
import dev.vigil.supervisor.engine.WorkerTypes;
import dev.vigil.supervisor.engine.Workload;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The daemon's validated configuration (DESIGN.md §9), held in the value types of the parts that
 * use it, each of which checks its own facts once: the {@link Workload} (lanes and their
 * concurrency, worker types, services), the attempts rule of {@link NewTicket}, the
 * {@link RetryPolicy}, the store's {@link H2Options.Durability} and the {@link TimeoutLattice} (S2).
 * This record adds only what the launcher itself needs: the {@code default} lane and the built-in
 * {@code command} type, which {@code vigil submit} uses when none is named.
 *
 * @param workload    lanes, worker types and services
 * @param maxAttempts attempts a submission gets when it names none (Q1), by {@link NewTicket}'s rule
 * @param retry       the retry backoff of FAILED and LOST runs
 * @param durability  what an acknowledged decision survives: kill -9, or also power loss
 * @param timeouts    every timeout, validated
 * @param source      the file this configuration was loaded from (absolute), empty when it was built in
 *                    code; the daemon records it in {@code daemon.json} so that a client relaunching a
 *                    lost daemon starts it with the same configuration (S9)
 * @param schedules   the recurring schedules of the file (Q15), kept in the store at each start
 * @param retentionMs how long finished tasks are kept before the daily retention job prunes them (Q18), ms;
 *                    at least one hour
 * @param store       where decisions are kept: the embedded H2 file under the home, or a PostgreSQL server
 *                    that the daemons of several hosts share (H1)
 * @param hostId      this host's id among the daemons sharing a PostgreSQL store, when configured (else
 *                    derived, {@link HostIds}); only for a shared store
 */
public record VigilConfig(Workload workload, int maxAttempts, RetryPolicy retry, H2Options.Durability durability,
                          TimeoutLattice timeouts, Optional<Path> source, List<ScheduleSpec> schedules,
                          long retentionMs, StoreConfig store, Optional<String> hostId) {
  /** How long finished tasks are kept when the configuration names no {@code retention}: 30 days, ms. */
  public static final long DEFAULT_RETENTION_MS = 30L * 86_400_000L;
  /** The shortest {@code retention}: one hour, ms. */
  public static final long MIN_RETENTION_MS = 3_600_000L;

  /** Concurrency of the {@code default} lane when the configuration names none. */
  static final int DEFAULT_LANE_CONCURRENCY = 2;

  public VigilConfig {
    Objects.requireNonNull(workload, "workload");
    Objects.requireNonNull(retry, "retry");
    Objects.requireNonNull(durability, "durability");
    Objects.requireNonNull(timeouts, "timeouts");
    Objects.requireNonNull(source, "source");
    schedules = List.copyOf(schedules);
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(hostId, "hostId");
    hostId.ifPresent(dev.vigil.coordination.Owner::checkHostId);
    if (hostId.isPresent() && !store.shared()) {
      throw new IllegalArgumentException("hostId is for a store that several hosts share (\"store\": {\"postgresql\":"
          + " ...}); the embedded store belongs to one home");
    }
    source = source.map(p -> p.toAbsolutePath().normalize());
    NewTicket.checkMaxAttempts(maxAttempts);
    if (retentionMs < MIN_RETENTION_MS) {
      throw new IllegalArgumentException("retention (" + retentionMs + " ms) must be at least 1h");
    }
    if (workload.concurrency(Lane.DEFAULT) == 0) {
      throw new IllegalArgumentException("lanes must include 'default'");
    }
    if (!(workload.workerTypes().get(WorkerTypeSpec.COMMAND).map(WorkerTypeSpec::implementation).orElse(null)
        instanceof WorkerTypeSpec.Command)) {
      throw new IllegalArgumentException("workerTypes.command must be the built-in command type");
    }
  }

  /**
   * How many task workers start at once when the configuration does not say: 4 per processor of this
   * machine, at least 4. A worker host's start is mostly CPU; more at once only share the processors and
   * take longer each.
   */
  public static int defaultMaxStarting() {
    return Math.max(4, 4 * Runtime.getRuntime().availableProcessors());
  }

  /** Defaults: one {@code default} lane of 2, 3 attempts, the {@code command} type, default timeouts. */
  public static VigilConfig defaults() {
    Workload w = new Workload(List.of(new EngineConfig.LaneLimit(Lane.DEFAULT, DEFAULT_LANE_CONCURRENCY)),
        WorkerTypes.of(WorkerTypeSpec.command()), List.of(), defaultMaxStarting());
    return new VigilConfig(w, NewTicket.DEFAULT_MAX_ATTEMPTS, RetryPolicy.DEFAULT, H2Options.Durability.PROCESS,
        TimeoutLattice.defaults(), Optional.empty(), List.of(), DEFAULT_RETENTION_MS, new StoreConfig.H2(), Optional.empty());
  }

  /** This configuration, as loaded from {@code file}. */
  public VigilConfig loadedFrom(Path file) {
    return new VigilConfig(workload, maxAttempts, retry, durability, timeouts, Optional.of(file), schedules,
        retentionMs, store, hostId);
  }

  /**
   * This configuration with {@code type} added (or in place of the type of its name). The file alone
   * no longer describes the result, so it has no source to record for a relaunch.
   */
  public VigilConfig withWorkerType(WorkerTypeSpec type) {
    return new VigilConfig(workload.with(type), maxAttempts, retry, durability, timeouts, Optional.empty(), schedules,
        retentionMs, store, hostId);
  }
}
