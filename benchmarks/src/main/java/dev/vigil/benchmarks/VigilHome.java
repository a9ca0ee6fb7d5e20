package dev.vigil.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.launcher.internal.Client;
import dev.vigil.launcher.internal.Home;
import dev.vigil.worker.host.WorkerArgs;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A Vigil home driven through the real jar ({@code launcher/target/vigil.jar}), as a user does:
 * {@code vigil up} with a configuration, commands over the socket (the CLI's own client) or
 * through {@code vigil ...} processes, {@code kill -9} of the daemon, and a cleanup that ends the
 * daemon and every worker it started, each by its pid.
 */
public final class VigilHome implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();
  /** The JVM flags of the {@code ./vigil} script (and of the daemon {@code vigil up} starts). */
  public static final List<String> CLI_FLAGS = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto");

  private final Path dir;
  private final Path config;
  private final List<Long> daemons = new ArrayList<>();
  private final List<Long> workers = new ArrayList<>();
  private Client client;

  private VigilHome(Path dir, Path config) {
    this.dir = dir;
    this.config = config;
  }

  /** The runnable jar: {@code -Dvigil.jar=...}, else {@code launcher/target/vigil.jar} from here or the parent. */
  public static Path jar() {
    String p = System.getProperty("vigil.jar");
    if (p != null) {
      return Path.of(p).toAbsolutePath();
    }
    for (Path c : List.of(Path.of("launcher", "target", "vigil.jar"), Path.of("..", "launcher", "target", "vigil.jar"))) {
      if (Files.isRegularFile(c)) {
        return c.toAbsolutePath().normalize();
      }
    }
    throw new IllegalStateException("launcher/target/vigil.jar not found; build it with mvn -B -q -DskipTests package");
  }

  /**
   * The {@code vigil} script beside {@code launcher/} when it runs this jar (it adds the CLI's class
   * archive to {@link #CLI_FLAGS}), so that CLI calls run as a user runs them; else none, and the
   * drivers run {@code java <CLI_FLAGS> -jar}.
   */
  public static Optional<Path> script() {
    Path j = jar();
    Path root = j.getParent() == null || j.getParent().getParent() == null ? null : j.getParent().getParent().getParent();
    if (root == null || !j.equals(root.resolve("launcher").resolve("target").resolve("vigil.jar"))) {
      return Optional.empty();
    }
    Path s = root.resolve("vigil");
    return Files.isRegularFile(s) ? Optional.of(s) : Optional.empty();
  }

  public static Path java() {
    return Path.of(System.getProperty("java.home"), "bin", "java");
  }

  /** A fresh home (0700) under {@code parent} with one {@code default} lane of {@code concurrency}. */
  public static VigilHome create(Path parent, String name, int concurrency) throws IOException {
    return create(parent, name, concurrency, 0);
  }

  /** As {@link #create(Path, String, int)}, with {@code maxStarting} in the configuration when above 0. */
  public static VigilHome create(Path parent, String name, int concurrency, int maxStarting) throws IOException {
    Path dir = Files.createDirectory(parent.resolve(name + "-" + System.nanoTime()),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    Path config = parent.resolve(dir.getFileName() + ".json");
    Files.writeString(config, "{\"lanes\": {\"default\": {\"concurrency\": " + concurrency + "}}"
        + (maxStarting > 0 ? ", \"maxStarting\": " + maxStarting : "") + "}\n");
    return new VigilHome(dir, config);
  }

  public Path dir() {
    return dir;
  }

  /** {@code vigil up --config ...}: starts the detached daemon and returns its pid. */
  public long up() throws Exception {
    return up(Map.of());
  }

  /** {@link #up()} with {@code env} added to the call's environment (and so to the daemon's). */
  public long up(Map<String, String> env) throws Exception {
    Cli r = cli(env, "up", "--config", config.toString());
    if (r.code() != 0 || !r.out().startsWith("pid ")) {
      throw new IllegalStateException("vigil up failed (" + r.code() + "): " + r.out() + " " + r.err());
    }
    long pid = Long.parseLong(r.out().substring(4).trim());
    daemons.add(pid);
    dropClient();
    return pid;
  }

  /** The daemon's pid as it answers on the socket. */
  public long daemonPid() {
    return client().capabilities().pid();
  }

  /**
   * A finished {@code vigil} process.
   *
   * @param code   its exit code
   * @param out    stdout, trimmed
   * @param err    stderr
   * @param wallMs its wall time
   * @param maxRssKb its peak resident set ({@code /usr/bin/time}), or -1 when that is not installed
   * @param cpuS   user+system CPU seconds ({@code /usr/bin/time}), or -1
   */
  public record Cli(int code, String out, String err, double wallMs, long maxRssKb, double cpuS) {}

  /**
   * Runs {@code vigil --home DIR args...} through the {@link #script} (with {@code JAVA_HOME} this
   * JVM's), else {@code java <CLI flags> -jar vigil.jar --home DIR args...}, and waits for it.
   */
  public Cli cli(String... args) throws Exception {
    return cli(Map.of(), args);
  }

  /** {@link #cli(String...)} with {@code env} added to the call's environment. */
  public Cli cli(Map<String, String> env, String... args) throws Exception {
    boolean timed = Files.isExecutable(Path.of("/usr/bin/time"));
    List<String> cmd = new ArrayList<>();
    Path timeOut = Files.createTempFile(dir.getParent(), "time", ".txt");
    if (timed) {
      cmd.addAll(List.of("/usr/bin/time", "-o", timeOut.toString(), "-f", "%M %U %S"));
    }
    Optional<Path> script = script();
    if (script.isPresent()) {
      cmd.addAll(List.of("/bin/sh", script.get().toString()));
    } else {
      cmd.add(java().toString());
      cmd.addAll(CLI_FLAGS);
      cmd.addAll(List.of("-jar", jar().toString()));
    }
    cmd.addAll(List.of("--home", dir.toString()));
    cmd.addAll(List.of(args));
    Path err = Files.createTempFile(dir.getParent(), "err", ".txt");
    long t0 = System.nanoTime();
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(err.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    pb.environment().putAll(env);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (!p.waitFor(180, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException("vigil " + String.join(" ", args) + " did not finish");
    }
    double wall = (System.nanoTime() - t0) / 1e6;
    long rss = -1;
    double cpu = -1;
    if (timed) {
      String[] f = Files.readString(timeOut).trim().split("\\s+");
      if (f.length >= 3) {
        String[] tail = java.util.Arrays.copyOfRange(f, f.length - 3, f.length);
        rss = Long.parseLong(tail[0]);
        cpu = Double.parseDouble(tail[1]) + Double.parseDouble(tail[2]);
      }
    }
    String e = Files.readString(err);
    Files.deleteIfExists(err);
    Files.deleteIfExists(timeOut);
    return new Cli(p.exitValue(), out, e, wall, rss, cpu);
  }

  /** The CLI's own socket client, connected once. */
  public synchronized Client client() {
    if (client == null) {
      client = Client.connect(new Home(dir), false);
    }
    return client;
  }

  private synchronized void dropClient() {
    if (client != null) {
      client.close();
      client = null;
    }
  }

  /** Submits {@code argv} as a command task over the socket; returns the ticket id. */
  public String submit(String... argv) {
    ObjectNode a = JSON.createObjectNode();
    ObjectNode payload = a.putObject("payload");
    var arr = payload.putArray("argv");
    for (String s : argv) {
      arr.add(s);
    }
    JsonNode r = Client.ok(client().call("submit", a));
    return r.path("ticket").path("id").asText();
  }

  /** Every ticket (one page of up to 10,000). */
  public List<JsonNode> tickets() {
    ObjectNode a = JSON.createObjectNode();
    a.put("limit", 10_000);
    List<JsonNode> out = new ArrayList<>();
    Client.ok(client().call("list", a)).path("tickets").forEach(out::add);
    return out;
  }

  /** Every run, or only the live ones (one page of up to 10,000). */
  public List<JsonNode> runs(boolean live) {
    ObjectNode a = JSON.createObjectNode();
    a.put("limit", 10_000);
    a.put("live", live);
    List<JsonNode> out = new ArrayList<>();
    Client.ok(client().call("runs", a)).path("runs").forEach(out::add);
    for (JsonNode r : out) {
      long pid = r.path("pid").asLong(-1);
      if (pid > 0) {
        synchronized (workers) {
          if (!workers.contains(pid)) {
            workers.add(pid);
          }
        }
      }
    }
    return out;
  }

  /** Polls {@code probe} every {@code everyMs} until it holds; fails after {@code maxMs}. */
  public static void await(String what, java.util.function.BooleanSupplier probe, long everyMs, long maxMs)
      throws InterruptedException {
    long deadline = System.nanoTime() + maxMs * 1_000_000;
    while (!probe.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("not within " + maxMs + " ms: " + what);
      }
      Thread.sleep(everyMs);
    }
  }

  /** Waits until {@code n} tickets are in a terminal state; returns the tickets. */
  public List<JsonNode> awaitSettled(int n, long maxMs) throws InterruptedException {
    List<List<JsonNode>> last = new ArrayList<>();
    await(n + " tickets settled", () -> {
      List<JsonNode> t = tickets();
      last.clear();
      last.add(t);
      return t.stream().filter(terminal()).count() >= n;
    }, 250, maxMs);
    return last.get(0);
  }

  static Predicate<JsonNode> terminal() {
    return t -> List.of("SUCCEEDED", "FAILED", "CANCELLED", "HELD").contains(t.path("state").asText());
  }

  /** {@code kill -9} of a daemon, waiting until it is gone. */
  public void kill9(long pid) throws Exception {
    new ProcessBuilder("kill", "-9", Long.toString(pid)).start().waitFor();
    await("daemon " + pid + " gone", () -> !Proc.alive(pid), 20, 10_000);
    dropClient();
  }

  /** Asks the daemon to stop if idle ({@code shutdown{ifIdle}}) and waits until it is gone. */
  public void down(long pid) throws Exception {
    try {
      client().shutdown(true);
    } catch (RuntimeException e) {
      // gone already
    }
    dropClient();
    await("daemon " + pid + " stopped", () -> !Proc.alive(pid), 50, 60_000);
  }

  /** Ends what this home started: each daemon and each worker seen in a run, by pid (kill -9 of its group). */
  @Override
  public void close() {
    dropClient();
    List<Long> pids = new ArrayList<>(daemons);
    synchronized (workers) {
      pids.addAll(workers);
    }
    for (long pid : pids) {
      if (pid > 1 && Proc.alive(pid)) {
        String target = workers.contains(pid) ? "-" + pid : Long.toString(pid);
        try {
          // the shell's builtin: procps kill misreads some negative targets (see Processes.killCommand)
          new ProcessBuilder("/bin/sh", "-c", "kill -s KILL -- \"$1\"", "kill", target).start().waitFor();
        } catch (IOException e) {
          // nothing to end
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  /** The worker host's JVM flags (what a bare JVM start is measured with). */
  public static List<String> hostFlags() {
    return WorkerArgs.FAST_START_FLAGS;
  }
}
