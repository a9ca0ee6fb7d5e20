package dev.vigil.launcher.internal;

import dev.vigil.coordination.Lane;
import dev.vigil.coordination.RetryPolicy;
import dev.vigil.supervisor.TimeoutLattice;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The daemon's validated configuration (DESIGN.md §9): lanes and their concurrency, worker types,
 * services, attempts, retry backoff, durability and every timeout (checked by
 * {@link TimeoutLattice}, S2).
 *
 * @param lanes       lane → concurrency limit (≥ 1); the {@code default} lane always exists
 * @param maxAttempts attempts a submission gets when it names none (Q1)
 * @param retry       the retry backoff of FAILED and LOST runs
 * @param durability  {@code process} (survives kill -9) or {@code power} (also power loss)
 * @param workerTypes type name → how to run it
 * @param services    long-lived workers kept running, in configuration order
 * @param timeouts    every timeout, validated
 * @param source      the file this configuration was loaded from (absolute), empty when it was built in
 *                    code; the daemon records it in {@code daemon.json} so that a client relaunching a
 *                    lost daemon starts it with the same configuration (S9)
 */
public record VigilConfig(SortedMap<Lane, Integer> lanes, int maxAttempts, RetryPolicy retry, String durability,
                          SortedMap<String, WorkerTypeSpec> workerTypes, List<ServiceSpec> services,
                          TimeoutLattice timeouts, Optional<Path> source) {
  /** The built-in type that runs an OS command. */
  public static final String COMMAND = "command";

  public VigilConfig {
    Objects.requireNonNull(lanes, "lanes");
    Objects.requireNonNull(retry, "retry");
    Objects.requireNonNull(durability, "durability");
    Objects.requireNonNull(workerTypes, "workerTypes");
    Objects.requireNonNull(services, "services");
    Objects.requireNonNull(timeouts, "timeouts");
    Objects.requireNonNull(source, "source");
    source = source.map(p -> p.toAbsolutePath().normalize());
    lanes = new TreeMap<>(lanes);
    workerTypes = new TreeMap<>(workerTypes);
    services = List.copyOf(services);
    if (!lanes.containsKey(Lane.DEFAULT)) {
      throw new IllegalArgumentException("lanes must include 'default'");
    }
    lanes.forEach((lane, n) -> {
      if (n < 1 || n > 1_000) {
        throw new IllegalArgumentException("lanes." + lane + ".concurrency (" + n + ") must be between 1 and 1000");
      }
    });
    if (maxAttempts < 1 || maxAttempts > 1_000) {
      throw new IllegalArgumentException("maxAttempts (" + maxAttempts + ") must be between 1 and 1000");
    }
    if (!durability.equals("process") && !durability.equals("power")) {
      throw new IllegalArgumentException("durability ('" + durability + "') must be 'process' or 'power'");
    }
    if (!workerTypes.containsKey(COMMAND)) {
      throw new IllegalArgumentException("workerTypes must include the built-in 'command'");
    }
    for (ServiceSpec s : services) {
      if (!workerTypes.containsKey(s.type())) {
        throw new IllegalArgumentException("services." + s.name() + ".type ('" + s.type() + "') is not a worker type");
      }
    }
  }

  /** Defaults: one {@code default} lane of 2, 3 attempts, the {@code command} type, default timeouts. */
  public static VigilConfig defaults() {
    SortedMap<Lane, Integer> lanes = new TreeMap<>(Map.of(Lane.DEFAULT, 2));
    SortedMap<String, WorkerTypeSpec> types = new TreeMap<>(Map.of(COMMAND, WorkerTypeSpec.command(75)));
    return new VigilConfig(lanes, 3, RetryPolicy.DEFAULT, "process", types, List.of(), TimeoutLattice.defaults(),
        Optional.empty());
  }

  /** This configuration, as loaded from {@code file}. */
  public VigilConfig loadedFrom(Path file) {
    return new VigilConfig(lanes, maxAttempts, retry, durability, workerTypes, services, timeouts,
        Optional.of(file));
  }

  /**
   * How to run one worker type.
   *
   * @param builtin       {@code "command"} for the built-in type, else {@code null}
   * @param className     the {@code WorkerType} class to load, for a custom type
   * @param classpath     extra classpath entries for a custom type (absolute, or relative to the
   *                      configuration file)
   * @param stallExitCode for {@code command}: the exit code that means STALLED (Q2)
   */
  public record WorkerTypeSpec(String builtin, String className, List<String> classpath, int stallExitCode) {
    public WorkerTypeSpec {
      classpath = List.copyOf(classpath);
      if ((builtin == null) == (className == null)) {
        throw new IllegalArgumentException("a worker type names exactly one of 'builtin' or 'class'");
      }
      if (builtin != null && !builtin.equals(COMMAND)) {
        throw new IllegalArgumentException("builtin ('" + builtin + "') must be 'command'");
      }
      if (stallExitCode < 1 || stallExitCode > 255) {
        throw new IllegalArgumentException("stallExitCode (" + stallExitCode + ") must be between 1 and 255");
      }
    }

    public static WorkerTypeSpec command(int stallExitCode) {
      return new WorkerTypeSpec(COMMAND, null, List.of(), stallExitCode);
    }
  }

  /**
   * A long-lived worker kept running under the restart budget (S1).
   *
   * @param name    the session name
   * @param type    its worker type
   * @param payload its input, JSON text
   */
  public record ServiceSpec(String name, String type, String payload) {
    public ServiceSpec {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(type, "type");
      Objects.requireNonNull(payload, "payload");
      if (!name.matches("[a-z0-9][a-z0-9_-]{0,63}")) {
        throw new IllegalArgumentException("service name '" + name + "' must be 1-64 lower-case letters, digits, _ or -");
      }
    }
  }
}
