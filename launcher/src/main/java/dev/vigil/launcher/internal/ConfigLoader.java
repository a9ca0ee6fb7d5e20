package dev.vigil.launcher.internal;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.RetryPolicy;
import dev.vigil.coordination.RunSpec;
import dev.vigil.coordination.h2.H2Options;
import dev.vigil.coordination.schedule.CatchUp;
import dev.vigil.coordination.schedule.Cron;
import dev.vigil.coordination.schedule.Overlap;
import dev.vigil.coordination.schedule.ScheduleName;
import dev.vigil.coordination.schedule.ScheduleSpec;
import dev.vigil.supervisor.ByteSizes;
import dev.vigil.supervisor.Durations;
import dev.vigil.supervisor.OutputBound;
import dev.vigil.supervisor.TimeoutLattice;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.engine.EngineConfig;
import dev.vigil.supervisor.engine.ServiceSpec;
import dev.vigil.supervisor.engine.WorkerTypeSpec;
import dev.vigil.supervisor.engine.WorkerTypes;
import dev.vigil.supervisor.engine.Workload;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Reads the daemon's JSON configuration into the value types that hold each fact ({@link VigilConfig}),
 * adding only what belongs to the file: its JSON shape (unknown fields are rejected with their JSON
 * path), durations written as text ({@code 250ms}, {@code 30s}, {@code 5m}, {@code 1h},
 * {@code PT30S}), classpath entries relative to the file, and the words of enumerations. Every other
 * rule is the value types' own; every error is one line naming the file and the field.
 *
 * <pre>{@code
 * {
 *   "lanes": { "default": { "concurrency": 2 }, "batch": { "concurrency": 4, "timeout": "30m", "maxOutput": "256MiB" } },
 *   "maxAttempts": 3,
 *   "retry": { "backoffBase": "1s", "backoffCap": "5m" },
 *   "durability": "process",
 *   "workerTypes": { "command": { "builtin": "command", "stallExitCode": 75 },
 *                    "mine": { "class": "com.example.MyWorker", "classpath": ["lib/mine.jar"] } },
 *   "services": [ { "name": "indexer", "type": "command", "payload": { "argv": ["indexer"] },
 *                   "activation": "always" } ],
 *   "timeouts": { "heartbeat": "5s", "quiesceHold": "30s" },
 *   "restartGiveUpCount": 5,
 *   "retention": "30d"
 * }
 * }</pre>
 *
 * <ul>
 *   <li>{@code lanes}: name → {@code concurrency}, 1-{@value EngineConfig#MAX_LANE_CONCURRENCY} runs live at once,
 *       and an optional {@code timeout}: the time limit of a run whose ticket has none of its own
 *       (stopped past it, Q12), and an optional {@code maxOutput}: how much of each run's stdout and
 *       of its stderr is kept ({@code 64KiB}-{@code 1TiB}, default {@code 64MiB}); merged over the
 *       default {@code default} lane of 2.
 *   <li>{@code maxAttempts}: attempts of a submission that names none, 1-{@value NewTicket#MAX_ATTEMPTS}.
 *   <li>{@code maxStarting}: how many task workers start at once, 1-{@value EngineConfig#MAX_LANE_CONCURRENCY}
 *       (default {@link VigilConfig#defaultMaxStarting}); due work beyond it waits for a start to end.
 *   <li>{@code durability}: {@code process} (an acknowledged decision survives kill -9) or
 *       {@code power} (also a power loss).
 *   <li>{@code workerTypes}: name → exactly one of {@code "builtin": "command"} (with an optional
 *       {@code stallExitCode}, the exit code that means stalled, default
 *       {@value WorkerTypeSpec.Command#DEFAULT_STALL_EXIT_CODE}) or {@code "class"}, a
 *       {@code dev.vigil.worker.WorkerType} with a public no-argument constructor, with an optional
 *       {@code classpath}: entries (absolute, or relative to this file) that this type's workers get
 *       after Vigil's own classpath, and no other type's do, and an optional {@code resumable} (default
 *       false): each attempt of its tickets receives the ticket's latest checkpoint (Q17). The daemon refuses
 *       to start when a class is not found there or is no worker type. Merged over the built-in
 *       {@code command} type.
 *   <li>{@code services}: each a {@code name} (1-32 lower-case letters, digits, {@code _} or
 *       {@code -}), a {@code type} among {@code workerTypes}, a {@code payload} (any JSON, default
 *       {@code {}}) and an {@code activation}: {@code always} (the default: started at boot and
 *       restarted under the restart budget) or {@code on-demand} (started when asked, or at boot when
 *       its last worker died with work; it stays down once its worker exits idle).
 *   <li>{@code timeouts}: name → duration; the whole set must pass {@link TimeoutLattice#validate} (S2).
 *   <li>{@code retention}: how long finished tasks are kept before the daily retention job prunes them
 *       (Q18): days ({@code 30d}, the default) or a duration, at least {@code 1h}.
 *   <li>{@code store}: left out for the embedded H2 file under the home; {@code {"postgresql": {"url":
 *       "jdbc:postgresql://db:5432/vigil", "user": "vigil", "passwordFile": "pg.password"}}} (with an
 *       optional {@code schema}, default {@code vigil}, and {@code poolSize}, default 4) for a PostgreSQL
 *       server that the daemons of several hosts share, one daemon per host (H1).
 *   <li>{@code hostId}: this host's id among the daemons sharing a PostgreSQL store; by default derived
 *       from {@code /etc/machine-id} and the home's path ({@link HostIds}). Only with a shared store.
 * </ul>
 */
public final class ConfigLoader {
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

  private ConfigLoader() {}

  record LaneJson(Integer concurrency, String timeout, String maxOutput) {}

  record RetryJson(String backoffBase, String backoffCap) {}

  record TypeJson(String builtin, @com.fasterxml.jackson.annotation.JsonProperty("class") String className,
                  List<String> classpath, Integer stallExitCode, Boolean resumable) {}

  record ServiceJson(String name, String type, JsonNode payload, String activation) {}

  record ScheduleJson(String name, String cron, String zone, String lane, String type, JsonNode payload,
                      Integer maxAttempts, Integer priority, String timeout, String catchUp, String overlap) {}

  record PostgresJson(String url, String user, String passwordFile, String schema, Integer poolSize) {}

  record StoreJson(PostgresJson postgresql) {}

  record FileJson(Map<String, LaneJson> lanes, Integer maxAttempts, RetryJson retry, String durability,
                  Map<String, TypeJson> workerTypes, List<ServiceJson> services, Map<String, String> timeouts,
                  Integer restartGiveUpCount, List<ScheduleJson> schedules, String retention, StoreJson store,
                  String hostId, Integer maxStarting) {}

  /**
   * Loads and validates {@code file}, recorded as the configuration's source; a
   * {@link ConfigException} names the file and the problem.
   */
  public static VigilConfig load(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (NoSuchFileException e) {
      throw new ConfigException("config " + file + ": file not found");
    } catch (IOException e) {
      throw new ConfigException("config " + file + ": cannot read: " + e.getMessage());
    }
    return parse(text, file.toString(), file.toAbsolutePath().getParent()).loadedFrom(file);
  }

  /** Parses configuration text; {@code origin} names it in errors, {@code base} resolves classpaths. */
  public static VigilConfig parse(String text, String origin, Path base) {
    if (text.isBlank()) {
      throw new ConfigException("config " + origin + ": the file is empty (line 1, column 1); write {} for the defaults");
    }
    FileJson f;
    try {
      f = JSON.readValue(text, FileJson.class);
    } catch (UnrecognizedPropertyException e) {
      String field = path(e);
      String hint = !field.contains(".") && Timeout.byConfigName(field).isPresent()
          ? " (a time setting: it goes under \"timeouts\", as in {\"timeouts\": {\"" + field + "\": \"5m\"}})" : "";
      throw new ConfigException("config " + origin + ": unknown field '" + field + "'" + where(e) + hint);
    } catch (JsonParseException e) {
      throw new ConfigException("config " + origin + ": malformed JSON" + where(e) + ": " + syntax(e));
    } catch (JsonMappingException e) {
      Optional<JsonParseException> syntax = syntaxCause(e);
      if (syntax.isPresent()) {
        throw new ConfigException("config " + origin + ": malformed JSON" + where(syntax.get()) + ": "
            + syntax(syntax.get()));
      }
      throw new ConfigException("config " + origin + ": field '" + path(e) + "' has the wrong type" + where(e)
          + expected(e));
    } catch (JsonProcessingException e) {
      throw new ConfigException("config " + origin + ": " + e.getOriginalMessage());
    }
    if (f == null) {
      throw new ConfigException("config " + origin + ": the file holds null; write {} for the defaults");
    }
    try {
      return build(f, base);
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new ConfigException("config " + origin + ": " + e.getMessage());
    }
  }

  private static VigilConfig build(FileJson f, Path base) {
    VigilConfig d = VigilConfig.defaults();
    SortedMap<Lane, EngineConfig.LaneLimit> lanes = new TreeMap<>();
    d.workload().lanes().forEach(l -> lanes.put(l.lane(), l));
    if (f.lanes() != null) {
      for (Map.Entry<String, LaneJson> e : f.lanes().entrySet()) {
        Lane lane = new Lane(e.getKey());
        if (e.getValue() == null || e.getValue().concurrency() == null) {
          throw new IllegalArgumentException("lanes." + e.getKey() + ".concurrency is required");
        }
        long timeout = e.getValue().timeout() == null ? 0 : duration("lanes." + e.getKey() + ".timeout",
            e.getValue().timeout());
        if (e.getValue().timeout() != null && timeout <= 0) {
          throw new IllegalArgumentException("lanes." + e.getKey() + ".timeout must be longer than 0 (leave it out for none)");
        }
        OutputBound output = e.getValue().maxOutput() == null ? OutputBound.DEFAULT
            : output("lanes." + e.getKey() + ".maxOutput", e.getValue().maxOutput());
        lanes.put(lane, new EngineConfig.LaneLimit(lane, e.getValue().concurrency(), timeout, output));
      }
    }
    RetryPolicy retry = d.retry();
    if (f.retry() != null) {
      long base0 = f.retry().backoffBase() == null ? retry.backoffBaseMs()
          : duration("retry.backoffBase", f.retry().backoffBase());
      long cap = f.retry().backoffCap() == null ? retry.backoffCapMs()
          : duration("retry.backoffCap", f.retry().backoffCap());
      retry = new RetryPolicy(base0, cap);
    }
    WorkerTypes types = d.workload().workerTypes();
    if (f.workerTypes() != null) {
      for (Map.Entry<String, TypeJson> e : f.workerTypes().entrySet()) {
        try {
          types = types.with(workerType(e.getKey(), e.getValue(), base));
        } catch (IllegalArgumentException ex) {
          throw new IllegalArgumentException("workerTypes." + e.getKey() + ": " + ex.getMessage());
        }
      }
    }
    List<ServiceSpec> services = new ArrayList<>();
    if (f.services() != null) {
      for (int i = 0; i < f.services().size(); i++) {
        ServiceJson s = f.services().get(i);
        if (s == null || s.name() == null || s.type() == null) {
          throw new IllegalArgumentException("services[" + i + "] needs 'name' and 'type'");
        }
        String payload = s.payload() == null ? "{}" : s.payload().toString();
        services.add(new ServiceSpec(s.name(), s.type(), payload, activation("services[" + i + "].activation",
            s.activation())));
      }
    }
    Map<Timeout, Long> overrides = new EnumMap<>(Timeout.class);
    if (f.timeouts() != null) {
      for (Map.Entry<String, String> e : f.timeouts().entrySet()) {
        Timeout t = Timeout.byConfigName(e.getKey()).orElseThrow(() ->
            new IllegalArgumentException("unknown field 'timeouts." + e.getKey() + "'"));
        overrides.put(t, duration("timeouts." + e.getKey(), e.getValue()));
      }
    }
    int giveUp = f.restartGiveUpCount() == null ? TimeoutLattice.DEFAULT_RESTART_GIVE_UP_COUNT
        : f.restartGiveUpCount();
    derive(overrides);
    List<TimeoutLattice.Violation> violations = TimeoutLattice.validate(overrides, giveUp);
    if (!violations.isEmpty()) {
      throw new IllegalArgumentException("timeouts do not fit together: "
          + violations.get(0).message() + (violations.size() > 1 ? " (and " + (violations.size() - 1) + " more)" : ""));
    }
    TimeoutLattice lattice = new TimeoutLattice(overrides, giveUp);
    int maxAttempts = f.maxAttempts() == null ? d.maxAttempts() : f.maxAttempts();
    H2Options.Durability durability = f.durability() == null ? d.durability() : durability(f.durability());
    int maxStarting = f.maxStarting() == null ? d.workload().maxStarting() : f.maxStarting();
    return new VigilConfig(new Workload(List.copyOf(lanes.values()), types, services, maxStarting), maxAttempts, retry,
        durability,
        lattice, Optional.empty(), schedules(f.schedules(), lanes.keySet(), types, maxAttempts),
        f.retention() == null ? d.retentionMs() : MaintenanceJobs.age("retention", f.retention()),
        store(f.store(), base), Optional.ofNullable(f.hostId()));
  }

  /**
   * The file's {@code store}: absent or {@code {}} for the embedded H2 file, or {@code postgresql} with a
   * {@code url}, a {@code user}, an optional {@code passwordFile} (relative to this file; read at each open,
   * never kept), an optional {@code schema} and {@code poolSize}.
   */
  private static StoreConfig store(StoreJson s, Path base) {
    if (s == null || s.postgresql() == null) {
      return new StoreConfig.H2();
    }
    PostgresJson p = s.postgresql();
    if (p.url() == null || p.user() == null) {
      throw new IllegalArgumentException("store.postgresql needs 'url' and 'user'");
    }
    Optional<Path> passwordFile = Optional.ofNullable(p.passwordFile())
        .map(f -> base == null ? Path.of(f) : base.resolve(f).normalize());
    try {
      return new StoreConfig.Postgres(p.url(), p.user(), passwordFile,
          p.schema() == null ? dev.vigil.coordination.postgres.PostgresOptions.DEFAULT_SCHEMA : p.schema(),
          p.poolSize() == null ? dev.vigil.coordination.postgres.PostgresOptions.DEFAULT_POOL_SIZE : p.poolSize());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("store.postgresql." + e.getMessage(), e);
    }
  }

  /**
   * The file's {@code schedules} (Q15): each a {@code name} (unique), a {@code cron}, and the ticket each fire
   * submits; its lane and worker type must be configured. A zone left out is this machine's.
   */
  private static List<ScheduleSpec> schedules(List<ScheduleJson> list, java.util.Set<Lane> lanes, WorkerTypes types,
                                              int defaultMaxAttempts) {
    if (list == null) {
      return List.of();
    }
    List<ScheduleSpec> out = new ArrayList<>();
    java.util.Set<String> names = new java.util.HashSet<>();
    for (int i = 0; i < list.size(); i++) {
      ScheduleJson s = list.get(i);
      String at = "schedules[" + i + "]";
      if (s == null || s.name() == null || s.cron() == null || s.payload() == null) {
        throw new IllegalArgumentException(at + " needs 'name', 'cron' and 'payload'");
      }
      at = "schedules[" + i + "] (" + s.name() + ")";
      if (!names.add(s.name())) {
        throw new IllegalArgumentException(at + ": the name is used twice");
      }
      try {
        Lane lane = new Lane(s.lane() == null ? Lane.DEFAULT.name() : s.lane());
        if (!lanes.contains(lane)) {
          throw new IllegalArgumentException("lane '" + lane + "' is not configured (lanes: " + lanes + ")");
        }
        String type = s.type() == null ? WorkerTypeSpec.COMMAND : s.type();
        if (types.get(type).isEmpty()) {
          throw new IllegalArgumentException("worker type '" + type + "' is not configured");
        }
        long timeout = s.timeout() == null ? 0 : duration("timeout", s.timeout());
        NewTicket template = new NewTicket(lane, type, s.payload().toString(),
            s.maxAttempts() == null ? defaultMaxAttempts : s.maxAttempts(), s.priority() == null ? 0 : s.priority(), 0,
            null, new RunSpec(null, null, timeout), new TreeMap<>());
        out.add(new ScheduleSpec(new ScheduleName(s.name()), Cron.parse(s.cron()),
            s.zone() == null ? ZoneId.systemDefault() : ScheduleSpec.zone(s.zone()), template,
            s.catchUp() == null ? CatchUp.LATEST : CatchUp.parse(s.catchUp()),
            s.overlap() == null ? Overlap.SKIP : Overlap.parse(s.overlap())));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(at + ": " + e.getMessage(), e);
      }
    }
    return out;
  }

  /**
   * The timeouts that follow from another unless set: {@code statusStale} is six heartbeats, and
   * {@code leaseTtl} at least two reconcile passes, so that {@code "heartbeat": "5m"} alone is a
   * whole configuration.
   */
  private static void derive(Map<Timeout, Long> overrides) {
    Long beat = overrides.get(Timeout.HEARTBEAT);
    if (beat != null && beat > 0 && beat <= TimeoutLattice.MAX_MS / 6) {
      overrides.putIfAbsent(Timeout.STATUS_STALE, 6 * beat);
    }
    Long reconcile = overrides.get(Timeout.RECONCILE);
    if (reconcile != null && reconcile > 0 && reconcile <= TimeoutLattice.MAX_MS / 2) {
      overrides.putIfAbsent(Timeout.LEASE_TTL, Math.max(Timeout.LEASE_TTL.defaultMs(), 2 * reconcile));
    }
  }

  /** One entry of {@code workerTypes}: its JSON shape and classpath; the type checks the rest. */
  private static WorkerTypeSpec workerType(String name, TypeJson t, Path base) {
    if (t == null) {
      throw new IllegalArgumentException("must be an object");
    }
    if ((t.builtin() == null) == (t.className() == null)) {
      throw new IllegalArgumentException("a worker type names exactly one of 'builtin' or 'class'");
    }
    List<String> cp = new ArrayList<>();
    for (String entry : t.classpath() == null ? List.<String>of() : t.classpath()) {
      if (entry == null || entry.isBlank()) {
        throw new IllegalArgumentException("classpath entries must not be blank");
      }
      cp.add(base == null ? entry : base.resolve(entry).normalize().toString());
    }
    if (t.builtin() != null) {
      if (Boolean.TRUE.equals(t.resumable())) {
        throw new IllegalArgumentException("resumable is for a type with a class, which saves checkpoints; the built-in"
            + " command type cannot");
      }
      if (!t.builtin().equals(WorkerTypeSpec.COMMAND)) {
        throw new IllegalArgumentException("builtin ('" + t.builtin() + "') must be '" + WorkerTypeSpec.COMMAND + "'");
      }
      WorkerTypeSpec.Command command = t.stallExitCode() == null ? WorkerTypeSpec.Command.DEFAULT
          : new WorkerTypeSpec.Command(t.stallExitCode());
      return new WorkerTypeSpec(name, command, cp);
    }
    if (t.stallExitCode() != null) {
      throw new IllegalArgumentException("stallExitCode is for the built-in command type; a class decides its own outcomes");
    }
    return WorkerTypeSpec.declared(name, t.className(), cp).resumable(Boolean.TRUE.equals(t.resumable()));
  }

  private static ServiceSpec.Activation activation(String field, String text) {
    if (text == null || text.equals("always")) {
      return ServiceSpec.Activation.ALWAYS;
    } else if (text.equals("on-demand")) {
      return ServiceSpec.Activation.ON_DEMAND;
    }
    throw new IllegalArgumentException(field + " ('" + text + "') must be 'always' or 'on-demand'");
  }

  private static H2Options.Durability durability(String text) {
    return switch (text) {
      case "process" -> H2Options.Durability.PROCESS;
      case "power" -> H2Options.Durability.POWER;
      default -> throw new IllegalArgumentException("durability ('" + text + "') must be 'process' or 'power'");
    };
  }

  private static OutputBound output(String field, String text) {
    long bytes;
    try {
      bytes = ByteSizes.parse(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(field + ": " + e.getMessage());
    }
    try {
      return new OutputBound(bytes);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(field + e.getMessage().substring("maxOutput".length()));
    }
  }

  private static long duration(String field, String text) {
    if (text == null) {
      throw new IllegalArgumentException(field + " must be a duration such as 30s");
    }
    try {
      return Durations.parse(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(field + ": " + e.getMessage());
    }
  }

  private static String path(JsonMappingException e) {
    StringBuilder b = new StringBuilder();
    for (JsonMappingException.Reference r : e.getPath()) {
      if (r.getFieldName() != null) {
        b.append(b.length() == 0 ? "" : ".").append(r.getFieldName());
      } else if (r.getIndex() >= 0) {
        b.append('[').append(r.getIndex()).append(']');
      }
    }
    return b.toString();
  }

  /** The syntax error beneath a mapping error (a trailing comma inside a map is reported as one), if any. */
  private static Optional<JsonParseException> syntaxCause(Throwable e) {
    for (Throwable t = e.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
      if (t instanceof JsonParseException p) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /** What is wrong in plain words: a trailing comma named as such, else Jackson's own first line. */
  private static String syntax(JsonParseException e) {
    String m = String.valueOf(e.getOriginalMessage());
    if (m.startsWith("Unexpected character ('}'") || m.startsWith("Unexpected character (']'")) {
      return "a comma before '" + m.charAt("Unexpected character ('".length()) + "' (remove the trailing comma)";
    }
    if (m.contains("end-of-input")) {
      return "the file ends before the JSON does (a missing '}' or ']'?)";
    }
    return Wire.oneLine(m.replaceAll("\\s*\\(code [0-9]+\\)", ""));
  }

  /** What the field should have been, from the type it maps to. */
  private static String expected(JsonMappingException e) {
    if (!(e instanceof com.fasterxml.jackson.databind.exc.MismatchedInputException m) || m.getTargetType() == null) {
      return "";
    }
    Class<?> t = m.getTargetType();
    String what = t == Integer.class || t == int.class ? "a whole number"
        : t == String.class ? "a string (in quotes)"
        : Map.class.isAssignableFrom(t) || t.isRecord() ? "an object ({...})"
        : List.class.isAssignableFrom(t) ? "a list ([...])" : null;
    return what == null ? "" : ": it must be " + what;
  }

  private static String where(JsonProcessingException e) {
    return e.getLocation() == null ? ""
        : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")";
  }
}
