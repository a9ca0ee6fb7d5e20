package dev.vigil.launcher;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.coordination.Environment;
import dev.vigil.coordination.Labels;
import dev.vigil.coordination.RunSpec;
import dev.vigil.supervisor.Durations;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The task-control options of {@code vigil submit} and {@code vigil tasks}, checked before anything
 * is sent: each bad value is one line naming the option and what it must be (exit 2), and nothing
 * is queued.
 */
final class TaskOptions {
  private TaskOptions() {}

  /**
   * Puts where and with what environment the command runs into a submission: {@code workDir} (the
   * directory the submitter stands in, or {@code --cwd} resolved against it; it must exist) and
   * {@code env} (the submitter's whole environment, or only PATH, HOME, LANG and USER with
   * {@code --clean-env}, then each {@code --env NAME=VALUE}).
   */
  static void place(ObjectNode submission, String cwd, List<String> envs, boolean cleanEnv,
                    Map<String, String> processEnv, Path here) {
    Path dir = directory(here, cwd);
    if (!Files.isDirectory(dir)) {
      throw new IllegalArgumentException("--cwd '" + (cwd == null ? dir.toString() : cwd) + "': no such directory");
    }
    try {
      RunSpec.checkWorkDir(dir.toString());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--cwd '" + cwd + "': " + e.getMessage());
    }
    Map<String, String> more = new TreeMap<>();
    for (String e : envs) {
      Map.Entry<String, String> kv = pair("--env", e);
      try {
        Environment.checkName(kv.getKey());
      } catch (IllegalArgumentException x) {
        throw new IllegalArgumentException("--env '" + kv.getKey() + "=…': " + x.getMessage()); // never a value
      }
      if (kv.getValue().indexOf('\0') >= 0) {
        throw new IllegalArgumentException("--env '" + kv.getKey() + "=…': a value holds no NUL character");
      }
      more.put(kv.getKey(), kv.getValue());
    }
    Environment env;
    try {
      env = environment(processEnv, cleanEnv, more);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException((cleanEnv ? "--env: " : "your environment: ") + e.getMessage()
          + (cleanEnv ? "" : " (try --clean-env)"));
    }
    submission.put("workDir", dir.toString());
    ObjectNode vars = submission.putObject("env");
    env.variables().forEach(vars::put);
  }

  /** The directory a submission runs in: {@code given} resolved against {@code here}, or {@code here} itself. */
  static Path directory(Path here, String given) {
    return (given == null ? here : here.resolve(given)).toAbsolutePath().normalize();
  }

  /**
   * The environment a submission records: the submitter's whole environment ({@code processEnv}), or
   * only PATH, HOME, LANG and USER of it when {@code clean}, then {@code more} on top.
   *
   * @throws IllegalArgumentException when a variable cannot be recorded
   */
  static Environment environment(Map<String, String> processEnv, boolean clean, Map<String, String> more) {
    Map<String, String> base = new TreeMap<>(processEnv);
    return (clean ? Environment.clean(base) : Environment.of(base)).with(more);
  }

  /** A time limit: a duration above 0 and at most 366 days, ms. */
  static long timeout(String option, String text) {
    long ms;
    try {
      ms = Durations.parse(text);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(option + " '" + text + "': not a duration (like 30s, 5m, 1h)");
    }
    if (ms <= 0) {
      throw new IllegalArgumentException(option + " '" + text + "': must be longer than 0");
    }
    if (ms > RunSpec.MAX_TIMEOUT_MS) {
      throw new IllegalArgumentException(option + " '" + text + "': at most 366 days");
    }
    return ms;
  }

  /** Each {@code NAME=VALUE} into {@code into}, by {@link Labels}' rule. */
  static void labels(ObjectNode into, List<String> labels, String option) {
    if (labels.size() > Labels.MAX_LABELS) {
      throw new IllegalArgumentException(option + ": at most " + Labels.MAX_LABELS + " labels, not " + labels.size());
    }
    for (String l : labels) {
      pair(option, l);
      try {
        Map.Entry<String, String> kv = Labels.parse(l);
        into.put(kv.getKey(), kv.getValue());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(option + " '" + l + "': " + e.getMessage());
      }
    }
  }

  private static Map.Entry<String, String> pair(String option, String text) {
    int eq = text.indexOf('=');
    if (eq <= 0) {
      throw new IllegalArgumentException(option + " '" + text + "': not NAME=VALUE");
    }
    return Map.entry(text.substring(0, eq), text.substring(eq + 1));
  }
}
