package dev.vigil.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.coordination.Environment;
import dev.vigil.coordination.Labels;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.Prerequisite;
import dev.vigil.coordination.Prerequisites;
import dev.vigil.coordination.RunSpec;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.WorkerTypeName;
import dev.vigil.launcher.internal.Wire;
import dev.vigil.supervisor.engine.WorkerTypeSpec;
import dev.vigil.worker.JsonBinding;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A task to submit to an embedded {@link Vigil}: what {@code vigil submit} takes, as a value. Build
 * one with {@link #command(String...)} or {@link #worker(String, Object)} and the builder's options.
 *
 * <p>Where it runs, as the CLI's {@code submit} does: the command runs in {@code workDir}, by default
 * the JVM's working directory ({@code user.dir}) when the task is submitted, and with the JVM's whole
 * environment ({@link System#getenv()}), or only PATH, HOME, LANG and USER with
 * {@link Builder#cleanEnv()}; then each {@link Builder#env(String, String)} on top. The environment is
 * recorded with the ticket and never shown: {@link #toString()} names only the variables added.
 *
 * @param lane        the lane to queue in ({@code default})
 * @param type        the worker type ({@code command} for an OS command)
 * @param payload     the worker's input, a JSON object (for {@code command}: {@code {"argv": [...]}})
 * @param maxAttempts attempts before the ticket is held (Q1), or {@code null} for the configured number
 * @param priority    higher is claimed first (0)
 * @param at          when it becomes due, or {@code null}; an instant that has passed is due at once
 * @param in          how long after its submission it becomes due, or {@code null}; not with {@code at}
 * @param timeout     the longest a run may take before it is stopped (Q12), or {@code null} for the lane's
 * @param labels      labels to find it by ({@link Labels}' rule)
 * @param workDir     the directory it runs in, or {@code null} for the JVM's {@code user.dir}; a relative
 *                    one is resolved against {@code user.dir}; it must exist when the task is submitted
 * @param cleanEnv    start from PATH, HOME, LANG and USER only, not the JVM's whole environment
 * @param env         variables set on top
 * @param key         an idempotency key, or {@code null}: a second submission with the same key queues
 *                    nothing and names the earlier ticket ({@link Submitted#duplicate()})
 * @param after       the tickets it waits for (Q14): it is started only once each has succeeded; when one
 *                    fails, is held or is cancelled, this one is held until that one is released or retried
 */
public record Task(Lane lane, String type, String payload, Integer maxAttempts, int priority, Instant at,
                   Duration in, Duration timeout, SortedMap<String, String> labels, Path workDir, boolean cleanEnv,
                   SortedMap<String, String> env, String key, List<TicketId> after) {

  public Task {
    Objects.requireNonNull(lane, "lane");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(payload, "payload");
    new WorkerTypeName(type);
    if (maxAttempts != null) {
      NewTicket.checkMaxAttempts(maxAttempts);
    }
    if (at != null && in != null) {
      throw new IllegalArgumentException("at and in exclude each other: give one");
    }
    if (in != null && in.isNegative()) {
      throw new IllegalArgumentException("in (" + in + ") must not be negative");
    }
    if (timeout != null) {
      if (timeout.isZero() || timeout.isNegative()) {
        throw new IllegalArgumentException("timeout (" + timeout + ") must be longer than 0");
      }
      RunSpec.checkTimeout(timeout.toMillis());
    }
    labels = Collections.unmodifiableSortedMap(new TreeMap<>(Labels.check(Objects.requireNonNull(labels, "labels"))));
    env = Collections.unmodifiableSortedMap(new TreeMap<>(Objects.requireNonNull(env, "env")));
    for (Map.Entry<String, String> e : env.entrySet()) {
      Environment.checkName(e.getKey());
      if (e.getValue().indexOf('\0') >= 0) {
        throw new IllegalArgumentException("env " + e.getKey() + ": a value holds no NUL character");
      }
    }
    if (key != null && (key.isEmpty() || key.length() > 200)) {
      throw new IllegalArgumentException("key must be 1-200 characters");
    }
    after = List.copyOf(Objects.requireNonNull(after, "after"));
    if (after.size() > Prerequisites.MAX) {
      throw new IllegalArgumentException("a task may wait for at most " + Prerequisites.MAX + " others, not "
          + after.size());
    }
  }

  /** An OS command (the built-in {@code command} type): its argv, run as is, without a shell. */
  public static Builder command(String... argv) {
    return command(List.of(argv));
  }

  /** An OS command (the built-in {@code command} type): its argv, run as is, without a shell. */
  public static Builder command(List<String> argv) {
    if (argv.isEmpty()) {
      throw new IllegalArgumentException("a command needs at least one word");
    }
    var p = Wire.JSON.createObjectNode();
    var a = p.putArray("argv");
    for (String w : argv) {
      a.add(Objects.requireNonNull(w, "a word of the command"));
    }
    return new Builder(WorkerTypeSpec.COMMAND, p.toString());
  }

  /**
   * Work for the worker type {@code type}, with {@code payload} as its input: any object
   * {@link JsonBinding} writes as a JSON object (a record, a map, a {@link JsonNode}), with the
   * configuration the worker's {@code WorkContext.payload(Class)} binds it back with ({@code java.time}
   * values as ISO-8601 text).
   *
   * @throws IllegalArgumentException when the payload is not a JSON object, or cannot be written as JSON
   */
  public static Builder worker(String type, Object payload) {
    JsonNode n = JsonBinding.toJson(Objects.requireNonNull(payload, "payload"));
    if (n == null || !n.isObject()) {
      throw new IllegalArgumentException("payload must serialise to a JSON object, not " + (n == null ? "null"
          : n.getNodeType()));
    }
    return new Builder(type, n.toString());
  }

  /** A builder starting from this task. */
  public Builder toBuilder() {
    Builder b = new Builder(type, payload);
    b.lane = lane;
    b.maxAttempts = maxAttempts;
    b.priority = priority;
    b.at = at;
    b.in = in;
    b.timeout = timeout;
    b.labels.putAll(labels);
    b.workDir = workDir;
    b.cleanEnv = cleanEnv;
    b.env.putAll(env);
    b.key = key;
    b.after.addAll(after);
    return b;
  }

  /** The task without the values of its variables (they may be secrets). */
  @Override
  public String toString() {
    return "Task[lane=" + lane + ", type=" + type + ", payload=" + (type.equals(WorkerTypeSpec.COMMAND) ? payload
        : "(" + payload.length() + " chars)") + ", maxAttempts=" + maxAttempts + ", priority=" + priority + ", at=" + at
        + ", in=" + in + ", timeout=" + timeout + ", labels=" + labels + ", workDir=" + workDir + ", cleanEnv="
        + cleanEnv + ", env=" + env.keySet() + ", key=" + key + ", after=" + after + "]";
  }

  /**
   * The submission at {@code nowWallMs}, placed where it runs ({@code user.dir}, the environment).
   *
   * @throws IllegalArgumentException naming the field, when the directory is missing or the
   *                                  environment cannot be recorded
   */
  NewTicket toNewTicket(int defaultMaxAttempts, long nowWallMs, Path userDir, Map<String, String> processEnv) {
    Path dir = TaskOptions.directory(userDir, workDir == null ? null : workDir.toString());
    if (!java.nio.file.Files.isDirectory(dir)) {
      throw new IllegalArgumentException("workDir '" + dir + "': no such directory");
    }
    Environment e;
    try {
      e = TaskOptions.environment(processEnv, cleanEnv, env);
    } catch (IllegalArgumentException x) {
      throw new IllegalArgumentException("env: " + x.getMessage() + (cleanEnv ? "" : " (try cleanEnv())"));
    }
    long due = at != null ? Math.max(0, at.toEpochMilli()) : in != null ? nowWallMs + in.toMillis() : 0;
    RunSpec spec = new RunSpec(dir.toString(), e, timeout == null ? 0 : timeout.toMillis());
    return new NewTicket(lane, type, payload, maxAttempts == null ? defaultMaxAttempts : maxAttempts, priority, due,
        key, spec, labels, after.stream().<Prerequisite>map(Prerequisite.Existing::new).toList());
  }

  /** Builds a {@link Task}; every value is checked by {@link #build()}. */
  public static final class Builder {
    private final String type;
    private final String payload;
    private Lane lane = Lane.DEFAULT;
    private Integer maxAttempts;
    private int priority;
    private Instant at;
    private Duration in;
    private Duration timeout;
    private final SortedMap<String, String> labels = new TreeMap<>();
    private Path workDir;
    private boolean cleanEnv;
    private final SortedMap<String, String> env = new TreeMap<>();
    private String key;
    private final java.util.LinkedHashSet<TicketId> after = new java.util.LinkedHashSet<>();

    private Builder(String type, String payload) {
      this.type = type;
      this.payload = payload;
    }

    public Builder lane(String name) {
      this.lane = new Lane(name);
      return this;
    }

    /** Attempts before the ticket is held for a person (Q1), 1-1000; the configured number by default. */
    public Builder attempts(int n) {
      this.maxAttempts = n;
      return this;
    }

    public Builder priority(int p) {
      this.priority = p;
      return this;
    }

    /** Due at {@code when} (an instant that has passed: at once); replaces an earlier {@link #in}. */
    public Builder at(Instant when) {
      this.at = Objects.requireNonNull(when, "at");
      this.in = null;
      return this;
    }

    /** The same as {@link #at(Instant)}. */
    public Builder notBefore(Instant when) {
      return at(when);
    }

    /** Due {@code delay} after it is submitted; replaces an earlier {@link #at}. */
    public Builder in(Duration delay) {
      this.in = Objects.requireNonNull(delay, "in");
      this.at = null;
      return this;
    }

    /** Stop a run that takes longer (TERM, then KILL); it counts as a failed attempt (Q12). */
    public Builder timeout(Duration limit) {
      this.timeout = Objects.requireNonNull(limit, "timeout");
      return this;
    }

    public Builder label(String name, String value) {
      labels.put(Objects.requireNonNull(name, "label name"), Objects.requireNonNull(value, "label value"));
      return this;
    }

    /** The directory it runs in (relative: against the JVM's {@code user.dir}). */
    public Builder workDir(Path dir) {
      this.workDir = Objects.requireNonNull(dir, "workDir");
      return this;
    }

    /** Start from PATH, HOME, LANG and USER only, not the JVM's whole environment. */
    public Builder cleanEnv() {
      this.cleanEnv = true;
      return this;
    }

    /** Set a variable for the command, on top of the environment. */
    public Builder env(String name, String value) {
      env.put(Objects.requireNonNull(name, "env name"), Objects.requireNonNull(value, "the value of " + name));
      return this;
    }

    /** An idempotency key: a second submission with it queues nothing and names the first ticket. */
    public Builder key(String k) {
      this.key = Objects.requireNonNull(k, "key");
      return this;
    }

    /**
     * Start it only once each of {@code tickets} has succeeded (Q14); when one fails, is held or is
     * cancelled, it is held until that one is released or retried. Adds to earlier calls; a ticket that
     * does not exist is refused when the task is submitted.
     */
    public Builder after(TicketId... tickets) {
      for (TicketId t : tickets) {
        after.add(Objects.requireNonNull(t, "after"));
      }
      return this;
    }

    /** @throws IllegalArgumentException naming the field that is wrong */
    public Task build() {
      return new Task(lane, type, payload, maxAttempts, priority, at, in, timeout, labels, workDir, cleanEnv, env,
          key, List.copyOf(after));
    }
  }
}
