package dev.vigil.launcher.internal;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.RetryPolicy;
import dev.vigil.supervisor.Durations;
import dev.vigil.supervisor.TimeoutLattice;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Reads the daemon's JSON configuration. Unknown fields are rejected with their JSON path; every
 * timeout is parsed as a duration ({@code 250ms}, {@code 30s}, {@code 5m}, {@code 1h},
 * {@code PT30S}) and the whole set must pass {@link TimeoutLattice#validate} (S2). Every error is
 * one line naming the file and the field.
 *
 * <pre>{@code
 * {
 *   "lanes": { "default": { "concurrency": 2 } },
 *   "maxAttempts": 3,
 *   "retry": { "backoffBase": "1s", "backoffCap": "5m" },
 *   "durability": "process",
 *   "workerTypes": { "command": { "builtin": "command", "stallExitCode": 75 },
 *                    "mine": { "class": "com.example.MyWorker", "classpath": ["lib/mine.jar"] } },
 *   "services": [ { "name": "indexer", "type": "command", "payload": { "argv": ["indexer"] } } ],
 *   "timeouts": { "heartbeat": "5s", "quiesceHold": "30s" },
 *   "restartGiveUpCount": 5
 * }
 * }</pre>
 */
public final class ConfigLoader {
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

  private ConfigLoader() {}

  record LaneJson(Integer concurrency) {}

  record RetryJson(String backoffBase, String backoffCap) {}

  record TypeJson(String builtin, @com.fasterxml.jackson.annotation.JsonProperty("class") String className,
                  List<String> classpath, Integer stallExitCode) {}

  record ServiceJson(String name, String type, JsonNode payload) {}

  record FileJson(Map<String, LaneJson> lanes, Integer maxAttempts, RetryJson retry, String durability,
                  Map<String, TypeJson> workerTypes, List<ServiceJson> services, Map<String, String> timeouts,
                  Integer restartGiveUpCount) {}

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
    FileJson f;
    try {
      f = JSON.readValue(text, FileJson.class);
    } catch (UnrecognizedPropertyException e) {
      throw new ConfigException("config " + origin + ": unknown field '" + path(e) + "'" + where(e));
    } catch (JsonParseException e) {
      throw new ConfigException("config " + origin + ": malformed JSON" + where(e) + ": " + e.getOriginalMessage());
    } catch (JsonMappingException e) {
      throw new ConfigException("config " + origin + ": field '" + path(e) + "' has the wrong type" + where(e));
    } catch (JsonProcessingException e) {
      throw new ConfigException("config " + origin + ": " + e.getOriginalMessage());
    }
    if (f == null) {
      throw new ConfigException("config " + origin + ": empty; write {} for the defaults");
    }
    try {
      return build(f, base);
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new ConfigException("config " + origin + ": " + e.getMessage());
    }
  }

  private static VigilConfig build(FileJson f, Path base) {
    VigilConfig d = VigilConfig.defaults();
    SortedMap<Lane, Integer> lanes = new TreeMap<>(d.lanes());
    if (f.lanes() != null) {
      for (Map.Entry<String, LaneJson> e : f.lanes().entrySet()) {
        Lane lane = new Lane(e.getKey());
        if (e.getValue() == null || e.getValue().concurrency() == null) {
          throw new IllegalArgumentException("lanes." + e.getKey() + ".concurrency is required");
        }
        lanes.put(lane, e.getValue().concurrency());
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
    SortedMap<String, VigilConfig.WorkerTypeSpec> types = new TreeMap<>(d.workerTypes());
    if (f.workerTypes() != null) {
      for (Map.Entry<String, TypeJson> e : f.workerTypes().entrySet()) {
        String name = e.getKey();
        if (!name.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,63}")) {
          throw new IllegalArgumentException("workerTypes." + name + ": a type name is 1-64 letters, digits, . _ or -");
        }
        TypeJson t = e.getValue();
        if (t == null) {
          throw new IllegalArgumentException("workerTypes." + name + " must be an object");
        }
        List<String> cp = new ArrayList<>();
        for (String entry : t.classpath() == null ? List.<String>of() : t.classpath()) {
          cp.add(base == null ? entry : base.resolve(entry).normalize().toString());
        }
        try {
          types.put(name, new VigilConfig.WorkerTypeSpec(t.builtin(), t.className(), cp,
              t.stallExitCode() == null ? 75 : t.stallExitCode()));
        } catch (IllegalArgumentException ex) {
          throw new IllegalArgumentException("workerTypes." + name + ": " + ex.getMessage());
        }
      }
    }
    List<VigilConfig.ServiceSpec> services = new ArrayList<>();
    if (f.services() != null) {
      for (int i = 0; i < f.services().size(); i++) {
        ServiceJson s = f.services().get(i);
        if (s == null || s.name() == null || s.type() == null) {
          throw new IllegalArgumentException("services[" + i + "] needs 'name' and 'type'");
        }
        String payload = s.payload() == null ? "{}" : s.payload().toString();
        services.add(new VigilConfig.ServiceSpec(s.name(), s.type(), payload));
      }
      if (services.stream().map(VigilConfig.ServiceSpec::name).distinct().count() != services.size()) {
        throw new IllegalArgumentException("services: two services share a name");
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
    List<TimeoutLattice.Violation> violations = TimeoutLattice.validate(overrides, giveUp);
    if (!violations.isEmpty()) {
      throw new IllegalArgumentException("timeouts violate " + violations.get(0).edge().law() + ": "
          + violations.get(0).message() + (violations.size() > 1 ? " (and " + (violations.size() - 1) + " more)" : ""));
    }
    TimeoutLattice lattice = new TimeoutLattice(overrides, giveUp);
    int maxAttempts = f.maxAttempts() == null ? d.maxAttempts() : f.maxAttempts();
    String durability = f.durability() == null ? d.durability() : f.durability();
    return new VigilConfig(lanes, maxAttempts, retry, durability, types, services, lattice, Optional.empty());
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

  private static String where(JsonProcessingException e) {
    return e.getLocation() == null ? ""
        : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")";
  }
}
