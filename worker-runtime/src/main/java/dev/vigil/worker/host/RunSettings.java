package dev.vigil.worker.host;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.coordination.Environment;
import dev.vigil.worker.internal.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Where and with what environment a task's command runs, as recorded at submission, on its way from
 * the daemon to the worker host. The environment's values may be secrets, so they never go on a
 * command line or into a file: the daemon puts them in one environment variable of the worker host,
 * {@value #ENV} (as it does the run token, C9), whose own environment only the same user and root
 * can read, and the host never passes that variable on: the command gets exactly the recorded
 * environment (without {@value #ENV} and without the run token). The run directory, the journal and
 * every view carry the variables' names at most.
 *
 * @param workDir the directory the command runs in, when one was recorded
 * @param env     the command's whole environment, when one was recorded
 */
public record RunSettings(Optional<Path> workDir, Optional<Map<String, String>> env) {
  /** The worker host's environment variable that carries the settings (JSON). */
  public static final String ENV = "VIGIL_RUN_SETTINGS";
  /** Nothing recorded: the run directory and the host's small default environment. */
  public static final RunSettings NONE = new RunSettings(Optional.empty(), Optional.empty());

  public RunSettings {
    env = env.map(m -> java.util.Collections.unmodifiableMap(new TreeMap<>(m)));
  }

  /** The settings of a recorded directory (or null) and environment (or null). */
  public static RunSettings of(String workDir, Environment env) {
    return new RunSettings(Optional.ofNullable(workDir).map(Path::of),
        Optional.ofNullable(env).map(Environment::variables));
  }

  /** The names only: values never appear in logs. */
  @Override
  public String toString() {
    return "RunSettings[workDir=" + workDir.map(Path::toString).orElse("-") + ", env="
        + env.map(e -> e.keySet().toString()).orElse("-") + "]";
  }

  /** Whether nothing was recorded (the variable is then not set). */
  public boolean none() {
    return workDir.isEmpty() && env.isEmpty();
  }

  /** The value of {@value #ENV}. */
  public String encode() {
    ObjectNode o = Json.object();
    workDir.ifPresent(d -> o.put("workDir", d.toString()));
    env.ifPresent(e -> {
      ObjectNode vars = o.putObject("env");
      e.forEach(vars::put);
    });
    return new String(Json.write(o), StandardCharsets.UTF_8);
  }

  /**
   * Reads {@value #ENV}; absent (null) means nothing was recorded.
   *
   * @throws IllegalArgumentException naming what is wrong (never a value)
   */
  public static RunSettings decode(String text) {
    if (text == null || text.isEmpty()) {
      return NONE;
    }
    JsonNode n;
    try {
      n = Json.parse(text.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalArgumentException(ENV + " is not JSON");
    }
    Optional<Path> dir = Optional.empty();
    if (n.has("workDir")) {
      if (!n.get("workDir").isTextual()) {
        throw new IllegalArgumentException(ENV + ": workDir must be a string");
      }
      dir = Optional.of(Path.of(n.get("workDir").textValue()));
    }
    Optional<Map<String, String>> env = Optional.empty();
    if (n.has("env")) {
      Map<String, String> vars = new TreeMap<>();
      for (Map.Entry<String, JsonNode> f : n.get("env").properties()) {
        if (!f.getValue().isTextual()) {
          throw new IllegalArgumentException(ENV + ": the value of " + f.getKey() + " must be a string");
        }
        vars.put(f.getKey(), f.getValue().textValue());
      }
      env = Optional.of(vars);
    }
    return new RunSettings(dir, env);
  }
}
