package dev.vigil.supervisor.engine;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.supervisor.Adoption;
import dev.vigil.supervisor.RestartBudget;
import dev.vigil.supervisor.engine.port.ProcessExit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The configured services, each in one {@link ServicePhase}; {@link #transition} is the one place
 * where a service's phase changes, whichever part decides it (boot, restarts, stops, hellos). It
 * also holds what the service side remembers across a shutdown: which services an idle shutdown
 * stopped, and whether the daemon is stopping every worker.
 */
final class ServiceTable {
  /** One service. */
  static final class Svc {
    final ServiceSpec spec;
    private ServicePhase phase = new ServicePhase.Down();
    /** Its restart budget and a survivor of an earlier stop (S1, S6). */
    Adoption.Relaunch relaunch;
    /** The shell's exit report for its current worker, or null. */
    ProcessExit exitSeen;
    private String note;

    Svc(ServiceSpec spec, RestartBudget.Policy policy) {
      this.spec = spec;
      this.relaunch = Adoption.Relaunch.start(RestartBudget.fresh(policy));
    }

    ServicePhase phase() {
      return phase;
    }

    /** Why it is in its phase, for status. */
    String note() {
      return note;
    }

    WorkerKey.Service key() {
      return spec.key();
    }

    String name() {
      return spec.name();
    }

    /** Its worker, or null when it has none or none is known. */
    ProcessIdentity identity() {
      return phase instanceof ServicePhase.WithWorker w ? w.identity() : null;
    }

    boolean hasWorker() {
      return phase instanceof ServicePhase.WithWorker;
    }

    /** How its worker exited, for a note: empty, or e.g. {@code " (code 1)"}. */
    String how() {
      return exitSeen == null ? "" : " (" + exitSeen + ")";
    }
  }

  private final Map<String, Svc> services = new LinkedHashMap<>();
  /** Services whose worker complied with an idle-shutdown stop: started again if the shutdown is abandoned. */
  final Set<String> idleStopped = new HashSet<>();
  /** Services serving again after an abandoned idle shutdown whose stop may still arrive. */
  final Set<String> idleStopInFlight = new HashSet<>();
  /** Set by a STOP_WORKERS shutdown: the daemon is stopping its workers, so no service launches or restarts again. */
  boolean stoppingAll;

  ServiceTable(List<ServiceSpec> specs, RestartBudget.Policy policy) {
    for (ServiceSpec s : specs) {
      services.put(s.name(), new Svc(s, policy));
    }
  }

  /** Moves {@code s} to {@code next}, with the note status shows; an exit report ends with its worker. */
  void transition(Svc s, ServicePhase next, String note) {
    s.phase = next;
    s.note = note;
    if (!(next instanceof ServicePhase.WithWorker)) {
      s.exitSeen = null;
    }
  }

  /** In configuration order. */
  Collection<Svc> all() {
    return services.values();
  }

  Optional<Svc> get(String name) {
    return Optional.ofNullable(services.get(name));
  }

  /** Every service with a worker process: the members of an idle-shutdown round (S5). */
  List<WorkerKey> workers() {
    List<WorkerKey> out = new ArrayList<>();
    for (Svc s : services.values()) {
      if (s.hasWorker()) {
        out.add(s.key());
      }
    }
    return out;
  }

  /** What status shows of every service, in configuration order. */
  List<Status.ServiceStatus> statuses(long nowMonoMs) {
    List<Status.ServiceStatus> out = new ArrayList<>();
    for (Svc s : services.values()) {
      out.add(statusOf(s, nowMonoMs));
    }
    return out;
  }

  private static Status.ServiceStatus statusOf(Svc s, long nowMonoMs) {
    ServicePhase p = s.phase;
    String build = null;
    Long restartIn = null;
    Status.ServiceState state;
    if (p instanceof ServicePhase.Down) {
      state = Status.ServiceState.DOWN;
    } else if (p instanceof ServicePhase.Launching) {
      state = Status.ServiceState.LAUNCHING;
    } else if (p instanceof ServicePhase.Adopting) {
      state = Status.ServiceState.ADOPTING;
    } else if (p instanceof ServicePhase.Up u) {
      state = Status.ServiceState.UP;
      build = u.build();
    } else if (p instanceof ServicePhase.Stopping) {
      state = Status.ServiceState.STOPPING;
    } else if (p instanceof ServicePhase.Backoff b) {
      state = Status.ServiceState.BACKOFF;
      restartIn = Math.max(0, b.dueMonoMs() - nowMonoMs);
    } else if (p instanceof ServicePhase.GivenUp) {
      state = Status.ServiceState.GIVEN_UP;
    } else {
      throw new AssertionError(p);
    }
    ProcessIdentity id = s.identity();
    return new Status.ServiceStatus(s.name(), s.spec.workerType(), s.spec.activation(), state,
        id == null ? null : id.pid(), build, s.relaunch.budget().failuresInWindow(nowMonoMs), restartIn, s.note);
  }
}
