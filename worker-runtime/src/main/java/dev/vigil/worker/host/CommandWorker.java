package dev.vigil.worker.host;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.supervisor.Durations;
import dev.vigil.supervisor.WorkSet;
import dev.vigil.supervisor.engine.WorkerTypeSpec;
import dev.vigil.worker.Outcome;
import dev.vigil.worker.WorkContext;
import dev.vigil.worker.WorkerType;
import dev.vigil.worker.protocol.RunToken;
import java.io.File;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The built-in {@code command} worker type: runs an OS command as a child of the worker host and
 * maps its exit status to a verdict. Payload:
 *
 * <pre>
 * {"argv": ["prog", "arg", …],   required, non-empty
 *  "stallCode": 75,              exit code that means "stalled" (a quota was hit), default the
 *                                type's configured stallExitCode
 *  "stallFor": "1m",             how long a stall holds the ticket back, default 1m
 *  "cwd": "/path",               working directory when the ticket recorded none, default the run
 *                                directory
 *  "env": {"NAME": "value"}}     added to the environment
 * </pre>
 *
 * <ol>
 *   <li>Where and with what: the directory and the whole environment recorded with the ticket at
 *       submission ({@link WorkContext#workingDirectory()}, {@link WorkContext#environment()}), when
 *       recorded; else the payload's {@code cwd} (or the run directory) and the host's small default
 *       environment. A recorded directory that is gone → BLOCKED, naming it (no attempt spent, the
 *       ticket is held), and nothing runs.
 *   <li>Exit 0 → SUCCEEDED; exit {@code stallCode} → STALLED until now + {@code stallFor} (Q2); any
 *       other status → FAILED. A bad payload → PERMANENT_FAILURE, and nothing runs; a command that
 *       cannot be executed (not found, not executable) → PERMANENT_FAILURE with the system's reason.
 *   <li>The child's exit code, or the signal that ended it (a status above 128, as shells report
 *       it), is reported to the host ({@link WorkContext#processEnded}): it is the run's exit as
 *       shown everywhere.
 *   <li>The child stays in the host's process group, so the daemon's group TERM/KILL reaches it and
 *       its descendants; stdin is {@code /dev/null}, stdout/stderr are the host's run-directory logs.
 *   <li>The child never sees the run token: {@code VIGIL_RUN_TOKEN} is removed from its
 *       environment (C9), as is {@value RunSettings#ENV}.
 *   <li>The child is work ({@code unsettled child}) until it exits; on a stop request it gets TERM,
 *       then KILL after the child drain.
 * </ol>
 */
final class CommandWorker implements WorkerType {
  /** Default hold-back of a stalled ticket, ms (1 min). */
  static final long DEFAULT_STALL_FOR_MS = 60_000;

  private final long childDrainMs;
  private final int stallExitCode;

  /**
   * @param childDrainMs  how long a stopped child has between TERM and KILL
   * @param configured    the type's configuration: its exit code that means stalled, for payloads naming none
   */
  CommandWorker(long childDrainMs, WorkerTypeSpec.Command configured) {
    this.childDrainMs = childDrainMs;
    this.stallExitCode = configured.stallExitCode();
  }

  @Override
  public String name() {
    return WorkerTypeSpec.COMMAND;
  }

  /** The parsed payload. */
  record Spec(List<String> argv, int stallCode, long stallForMs, Optional<Path> cwd, Map<String, String> env) {}

  static Spec spec(JsonNode p, int defaultStallCode) {
    JsonNode argv = p.get("argv");
    if (argv == null || !argv.isArray() || argv.isEmpty()) {
      throw new IllegalArgumentException("payload field 'argv' must be a non-empty array of strings");
    }
    List<String> a = new ArrayList<>();
    for (JsonNode s : argv) {
      if (!s.isTextual()) {
        throw new IllegalArgumentException("payload field 'argv' must be a non-empty array of strings");
      }
      a.add(s.textValue());
    }
    int stallCode = defaultStallCode;
    if (p.has("stallCode")) {
      JsonNode c = p.get("stallCode");
      if (!c.isInt()) {
        throw new IllegalArgumentException("payload field 'stallCode' must be a whole number");
      }
      try {
        stallCode = new WorkerTypeSpec.Command(c.intValue()).stallExitCode();
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("payload field 'stallCode': " + e.getMessage());
      }
    }
    long stallFor = DEFAULT_STALL_FOR_MS;
    if (p.has("stallFor")) {
      if (!p.get("stallFor").isTextual()) {
        throw new IllegalArgumentException("payload field 'stallFor' must be a duration such as \"5m\"");
      }
      stallFor = Durations.parse(p.get("stallFor").textValue());
    }
    Optional<Path> cwd = Optional.empty();
    if (p.has("cwd")) {
      if (!p.get("cwd").isTextual()) {
        throw new IllegalArgumentException("payload field 'cwd' must be a string");
      }
      cwd = Optional.of(Path.of(p.get("cwd").textValue()));
    }
    Map<String, String> env = new java.util.TreeMap<>();
    if (p.has("env")) {
      JsonNode e = p.get("env");
      if (!e.isObject()) {
        throw new IllegalArgumentException("payload field 'env' must be an object of strings");
      }
      for (Map.Entry<String, JsonNode> f : e.properties()) {
        if (!f.getValue().isTextual() || f.getKey().equals(RunToken.ENV)) {
          throw new IllegalArgumentException("payload field 'env." + f.getKey() + "' must be a string and not the run token");
        }
        env.put(f.getKey(), f.getValue().textValue());
      }
    }
    return new Spec(a, stallCode, stallFor, cwd, env);
  }

  /** The system's reason a program could not be started, e.g. "No such file or directory". */
  static String reason(java.io.IOException e) {
    String m = String.valueOf(e.getMessage());
    int i = m.indexOf("error=");
    if (i >= 0) {
      int comma = m.indexOf(", ", i);
      return comma >= 0 ? m.substring(comma + 2) : m.substring(i);
    }
    return m;
  }

  @Override
  public Outcome run(WorkContext ctx) throws Exception {
    Spec spec;
    try {
      spec = spec(ctx.payload(), stallExitCode);
    } catch (IllegalArgumentException e) {
      return ctx.permanentFailure(e.getMessage());
    }
    Optional<Path> recorded = ctx.workingDirectory();
    if (recorded.isPresent() && !java.nio.file.Files.isDirectory(recorded.get())) {
      return ctx.blocked("the working directory " + recorded.get() + " is gone");
    }
    ProcessBuilder pb = new ProcessBuilder(spec.argv())
        .directory(recorded.or(spec::cwd).orElse(ctx.runDirectory()).toFile())
        .redirectInput(Redirect.from(new File("/dev/null")))
        .redirectOutput(Redirect.INHERIT)
        .redirectError(Redirect.INHERIT);
    Optional<Map<String, String>> env = ctx.environment();
    if (env.isPresent()) {
      pb.environment().clear();
      pb.environment().putAll(env.get());
    }
    pb.environment().remove(RunToken.ENV);
    pb.environment().remove(RunSettings.ENV);
    pb.environment().putAll(spec.env());
    Process child;
    try {
      child = pb.start();
    } catch (java.io.IOException e) {
      // what a POSIX shell reports for a command it cannot run: 127 not found, 126 found but not runnable
      String why = reason(e);
      ctx.processEnded(why.contains("No such file") ? 127 : 126, null);
      return ctx.permanentFailure("cannot run " + spec.argv().get(0) + ": " + why);
    }
    Optional<WorkContext.Work> work = ctx.busy(WorkSet.Kind.UNSETTLED_CHILD, "pid " + child.pid());
    ctx.addListener(new WorkContext.Listener() {
      @Override
      public void stopRequested(long graceMs) {
        Thread t = new Thread(() -> {
          List<ProcessHandle> tree = new ArrayList<>(child.descendants().toList());
          tree.add(0, child.toHandle());
          Children.terminate(tree, childDrainMs);
        }, "vigil-command-stop");
        t.setDaemon(true);
        t.start();
      }
    });
    if (work.isEmpty()) {
      Children.terminate(List.of(child.toHandle()), childDrainMs);
    }
    int status = child.waitFor();
    work.ifPresent(WorkContext.Work::close);
    if (status > 128 && status <= 128 + 64) {
      ctx.processEnded(null, status - 128);
    } else {
      ctx.processEnded(status, null);
    }
    if (status == 0) {
      return ctx.succeeded("exit code 0");
    }
    if (status == spec.stallCode()) {
      long until = System.currentTimeMillis() + spec.stallForMs();
      return ctx.stalled(until, "exit code " + status + ": stalled for " + Durations.format(spec.stallForMs()));
    }
    return ctx.failed(status > 128 ? "exit status " + status + " (128 + signal " + (status - 128) + ")" : "exit code " + status);
  }
}
