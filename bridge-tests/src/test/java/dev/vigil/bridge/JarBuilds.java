package dev.vigil.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.worker.process.GroupSignal;
import dev.vigil.worker.process.Processes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Real builds of vigil for the S8/S9 scenarios, made the honest way: each is a copy of
 * {@code launcher/target/vigil.jar} whose {@code dev/vigil/launcher/build.properties} names another
 * version and build, so each copy runs, starts daemons and workers, and says hello as that build.
 * Also the homes the scenarios run on (0700), the commands they run, and the cleanup of every daemon,
 * worker and watch they started.
 */
final class JarBuilds {
  static final Path VIGIL_JAR = Path.of("..", "launcher", "target", "vigil.jar").toAbsolutePath().normalize();
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * One build: a jar that reports {@code version} and {@code build}.
   *
   * @param jar     the jar
   * @param version its version
   * @param build   its build id
   */
  record Build(Path jar, String version, String build) {}

  /**
   * A finished command.
   *
   * @param code its exit code
   * @param out  its stdout, trimmed
   * @param err  its stderr
   */
  record Result(int code, String out, String err) {}

  private final Path dir;
  private final List<Path> homes = new ArrayList<>();
  private final List<ProcessIdentity> tracked = new ArrayList<>();
  private final List<Process> children = new ArrayList<>();
  private int outputs;

  JarBuilds(Path dir) {
    this.dir = dir;
  }

  /** A copy of vigil.jar that is {@code version}, build {@code build}. */
  Build build(String version, String build) throws IOException {
    assertTrue(Files.isRegularFile(VIGIL_JAR), "the runnable jar is built: " + VIGIL_JAR);
    Path jar = dir.resolve("vigil-" + build.replaceAll("[^A-Za-z0-9.-]", "_") + ".jar");
    Files.copy(VIGIL_JAR, jar);
    try (FileSystem zip = FileSystems.newFileSystem(jar)) {
      Files.writeString(zip.getPath("dev", "vigil", "launcher", "build.properties"),
          "version=" + version + "\nbuild=" + build + "\n", StandardCharsets.UTF_8);
    }
    return new Build(jar, version, build);
  }

  /** A fresh home, 0700, cleaned up by {@link #cleanup}. */
  Path home(String name) throws IOException {
    Path h = Files.createDirectory(dir.resolve(name),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    homes.add(h);
    return h;
  }

  /** Starts {@code vigil --home HOME ARGS} of {@code b}; stdout and stderr go to the given files. */
  Process start(Build b, Path home, Path out, Path err, String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    cmd.addAll(CliArchive.flags(b.jar()));
    cmd.addAll(List.of("-jar", b.jar().toString(), "--home", home.toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
        .redirectOutput(out.toFile()).redirectError(err.toFile());
    pb.environment().remove("VIGIL_HOME");
    Process p = pb.start();
    children.add(p);
    return p;
  }

  /** Runs {@code vigil --home HOME ARGS} of {@code b} to its end. */
  Result run(Build b, Path home, String... args) throws Exception {
    int n = ++outputs;
    Path out = dir.resolve("out-" + n + ".txt");
    Path err = dir.resolve("err-" + n + ".txt");
    Process p = start(b, home, out, err, args);
    assertTrue(p.waitFor(150, TimeUnit.SECONDS), "vigil " + String.join(" ", args) + " finished");
    return new Result(p.exitValue(), Files.readString(out).trim(), Files.readString(err));
  }

  /** {@code vigil up} of {@code b}, which must succeed; returns the pid it reports, tracked for cleanup. */
  long up(Build b, Path home, String... args) throws Exception {
    List<String> a = new ArrayList<>(List.of("up"));
    a.addAll(List.of(args));
    Result r = run(b, home, a.toArray(String[]::new));
    assertEquals(0, r.code(), "up of " + b.build() + ": " + r.err());
    assertTrue(r.out().matches("pid [0-9]+"), r.out());
    return track(Long.parseLong(r.out().substring("pid ".length())));
  }

  /** {@code vigil status --json} of {@code b}, which must succeed. */
  JsonNode status(Build b, Path home) throws Exception {
    Result r = run(b, home, "status", "--json");
    assertEquals(0, r.code(), r.err());
    return JSON.readTree(r.out());
  }

  /** {@code vigil show TICKET --json} of {@code b}, which must succeed. */
  JsonNode show(Build b, Path home, String ticket) throws Exception {
    Result r = run(b, home, "show", ticket, "--json");
    assertEquals(0, r.code(), r.err());
    return JSON.readTree(r.out());
  }

  /** Records the live process {@code pid} (a daemon or a worker) to be killed at cleanup if still alive. */
  long track(long pid) {
    Processes.identityOf(pid).ifPresent(tracked::add);
    return pid;
  }

  /** Whether a live process (not a zombie) has {@code pid}. */
  static boolean alive(long pid) {
    return Processes.identityOf(pid).isPresent();
  }

  /** Polls {@code condition} every 200 ms until it holds, failing with {@code what} after {@code seconds}. */
  static void await(String what, long seconds, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, "in " + seconds + " s: " + what);
      Thread.sleep(200);
    }
  }

  /**
   * Stops every started command, then every daemon with {@code down --stop-workers} (which stops its
   * workers), then kills whatever tracked process still lives.
   */
  void cleanup() throws Exception {
    for (Process p : children) {
      p.destroyForcibly();
    }
    for (Process p : children) {
      p.waitFor(30, TimeUnit.SECONDS);
    }
    Build plain = new Build(VIGIL_JAR, "", "");
    for (Path h : homes) {
      run(plain, h, "down", "--stop-workers");
    }
    for (ProcessIdentity id : tracked) {
      Processes.signalWhatIsLeft(id, GroupSignal.KILL);
    }
  }
}
