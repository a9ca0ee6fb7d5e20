package dev.vigil.launcher.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.coordination.h2.H2Coordination;
import dev.vigil.supervisor.Replacement;
import dev.vigil.supervisor.TimeoutLattice;
import dev.vigil.supervisor.Version;
import dev.vigil.worker.protocol.Message;
import dev.vigil.worker.engine.HostClasspath;
import dev.vigil.worker.process.Processes;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code vigil up}: a detached singleton daemon. The daemon runs in its own session
 * ({@code setsid}), stdin from {@code /dev/null}, output appended to {@code <home>/logs/daemon.log};
 * {@code up} returns once the socket answers. When several start at once, the lock lets exactly
 * one serve (D2) and every {@code up} reports that one's pid. {@link #up} may replace an older idle
 * daemon (S8); {@link #launch}, an attached client's relaunch, never replaces one (S9).
 */
public final class Up {
  private static final long POLL_MS = 100;

  private Up() {}

  /**
   * {@code vigil up}, an interactive start: returns the pid of the daemon serving {@code home},
   * starting one when none answers. A daemon of a lower version is replaced when it is idle (S8,
   * S5) and the user is told on stderr; any other daemon is used as it is.
   *
   * @throws Client.Failure exit 2 for a bad configuration, 3 when refused (a busy older daemon stays,
   *                        a daemon runs with another configuration than {@code config}, or the daemon
   *                        that holds the home does not answer: no second one is started), 1 when it
   *                        did not start
   */
  public static long up(Home home, Path config) {
    return up(home, config, Map.of());
  }

  /**
   * As {@link #up(Home, Path)}, with {@code env} added to the environment of a daemon it starts (the demo's
   * short-lived daemons start with {@code VIGIL_CDS=off}: no class archive of their own).
   */
  public static long up(Home home, Path config, Map<String, String> env) {
    home.prepare();
    Client.Attempt a = Client.attempt(home, true);
    if (a instanceof Client.Attempt.Silent) {
      refuseIfNotAnswering(home);
    }
    Optional<Client> c = a instanceof Client.Attempt.Connected k ? Optional.of(k.client()) : Optional.empty();
    if (c.isEmpty()) {
      return start(home, config, false, env);
    }
    String replaced;
    try (Client client = c.get()) {
      long pid = pidOf(client);
      if (!(client.verdict() instanceof Replacement.Verdict.ReplaceIfIdle)) {
        refuseOtherConfig(home, pid, config);
        return pid;
      }
      replaced = "v" + client.capabilities().version() + ", pid " + pid;
      ObjectNode reply = client.shutdown(true);
      int code = Client.exitCodeOf(reply);
      if (code != 0) {
        String why = reply.path("message").asText().replaceFirst("^(busy|denied): ", "");
        throw new Client.Failure(code, ("Busy".equals(reply.path("kind").asText()) ? "busy" : "refused")
            + ": the running daemon (" + replaced + ") is not replaced: " + why);
      }
      waitGone(home, pid);
    }
    long pid = start(home, config, false, env);
    System.err.println("vigil: replaced the idle daemon (" + replaced + ") with this vigil (v" + BuildInfo.VERSION
        + ", pid " + pid + ")");
    return pid;
  }

  /** What {@code vigil restart} did: the new daemon's pid and one line for the user. */
  public record Restarted(long pid, String message) {}

  /** The capability a daemon advertises when it stops on request leaving every worker running. */
  public static final String RESTART_CAPABILITY = "restart";

  /**
   * {@code vigil restart}: stops the daemon serving {@code home} without sending any worker anything
   * (D4) and starts this vigil in its place, which takes every worker of its build over (S6). The new
   * daemon runs {@code config}, or, when that is null, the configuration file the stopped one ran
   * with (the defaults when it ran with none); it starts paused when the stopped one was paused, so
   * that a pause outlives the restart. With no daemon running it starts one.
   *
   * @param anyBuild restart a daemon of another build although its workers would be stopped as
   *                 another build's (their work starts again under this one)
   * @throws Client.Failure exit 2 when the configuration the new daemon would run is gone; 3 when
   *                        refused (the daemon is newer than this vigil, older than restarts, of
   *                        another build with workers and {@code anyBuild} not given, or holds the
   *                        home without answering): nothing was stopped; 1 when the new daemon did
   *                        not start
   */
  public static Restarted restart(Home home, Path config, boolean anyBuild) {
    home.prepare();
    Client.Attempt a = Client.attempt(home, true);
    if (a instanceof Client.Attempt.Silent) {
      refuseIfNotAnswering(home);
    }
    if (!(a instanceof Client.Attempt.Connected connected)) {
      long pid = start(home, config, false, Map.of());
      return new Restarted(pid, "no daemon was running: started one (pid " + pid + ")");
    }
    long old;
    Path next = config;
    boolean paused;
    try (Client client = connected.client()) {
      Message.Capabilities caps = client.capabilities();
      old = caps.pid();
      String running = "the running daemon (v" + caps.version() + ", pid " + old + ")";
      if (Version.parse(caps.version()).compareTo(Version.parse(BuildInfo.VERSION)) > 0) {
        throw new Client.Failure(3, "refused: " + running + " is newer than this vigil (v" + BuildInfo.VERSION
            + "); restart it with its own vigil. Nothing was stopped");
      }
      if (!caps.capabilities().contains(RESTART_CAPABILITY)) {
        throw new Client.Failure(3, "refused: " + running + " cannot be restarted without stopping its work; "
            + "vigil up replaces it once it is idle. Nothing was stopped");
      }
      com.fasterxml.jackson.databind.JsonNode status = Client.ok(client.call("status", Wire.JSON.createObjectNode()))
          .path("status");
      paused = "PAUSED".equals(status.path("state").asText());
      if (!caps.build().equals(BuildInfo.BUILD) && !anyBuild) {
        int workers = status.path("runs").size();
        for (com.fasterxml.jackson.databind.JsonNode s : status.path("services")) {
          workers += s.path("pid").isNumber() ? 1 : 0;
        }
        if (workers > 0) {
          throw new Client.Failure(3, "refused: " + running + " is another build (" + caps.build()
              + ") than this vigil (" + BuildInfo.BUILD + "); the new daemon would stop its " + workers
              + (workers == 1 ? " worker" : " workers") + " as another build's and start their work again. "
              + "Nothing was stopped; to restart anyway: vigil restart --any-build");
        }
      }
      if (next == null) {
        Optional<Path> recorded = new StatusFile(home.statusFile()).recorded().flatMap(StatusFile.Recorded::config);
        if (recorded.isPresent() && !Files.isRegularFile(recorded.get())) {
          throw new Client.Failure(2, "the configuration " + recorded.get() + " that " + running
              + " runs with is gone; give the one to use: vigil restart --config FILE. Nothing was stopped");
        }
        next = recorded.orElse(null);
      }
      try { // before anything stops: a configuration the new daemon would refuse changes nothing
        Daemon.checkWorkerTypes(next == null ? VigilConfig.defaults() : ConfigLoader.load(next), Daemon.hostClasspath());
      } catch (Daemon.Refused e) {
        throw new Client.Failure(e.exitCode(), e.getMessage());
      }
      ObjectNode reply = client.call("restart", Wire.JSON.createObjectNode());
      if (Client.exitCodeOf(reply) != 0) {
        throw new Client.Failure(Client.exitCodeOf(reply), "refused: " + running + " did not stop: "
            + reply.path("message").asText());
      }
    }
    waitGone(home, old);
    long pid = start(home, next, paused, Map.of());
    return new Restarted(pid, "restarted: pid " + old + " stopped, pid " + pid + " took its workers over"
        + (paused ? " (paused, as before: vigil resume dispatches)" : ""));
  }

  /**
   * After a connection the daemon left unanswered: when the daemon that holds the home wrote its
   * {@code daemon.json} (it booted and served), it lives and is not answering; a second daemon would
   * only be refused by the lock, so {@code up} says so instead (exit 3), in the words every client
   * uses.
   */
  private static void refuseIfNotAnswering(Home home) {
    Optional<DaemonWait.Decision.NotAnswering> n = DaemonWait.notAnsweringHolder(home);
    if (n.isPresent()) {
      throw new Client.Failure(3, DaemonWait.notAnswering(home, n.get(), System.currentTimeMillis()));
    }
  }

  /**
   * A {@code vigil up --config F} that finds a daemon running with another configuration refuses to
   * pretend it applied F: it says which daemon runs with what, and how to apply F (exit 3).
   */
  private static void refuseOtherConfig(Home home, long pid, Path config) {
    if (config == null) {
      return;
    }
    Path wanted = config.toAbsolutePath().normalize();
    Optional<Path> running = new StatusFile(home.statusFile()).recorded().flatMap(StatusFile.Recorded::config)
        .map(p -> p.toAbsolutePath().normalize());
    if (running.isPresent() && same(running.get(), wanted)) {
      return;
    }
    throw new Client.Failure(3, "a daemon already runs (pid " + pid + ", "
        + running.map(p -> "configuration " + p).orElse("the default configuration") + "); " + wanted
        + " was not applied. To apply it: vigil down, then vigil up --config " + wanted);
  }

  private static boolean same(Path a, Path b) {
    try {
      return a.equals(b) || Files.isSameFile(a, b);
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * S9: an attached client's relaunch. Returns the pid of the daemon that answers on {@code home},
   * starting one of this build only when none answers: it never replaces a daemon.
   *
   * @throws Client.Failure exit 2 for a bad configuration, 1 when it did not start
   */
  public static long launch(Home home, Path config) {
    home.prepare();
    Optional<Long> running = pidOfRunning(home);
    return running.isPresent() ? running.get() : start(home, config, false, Map.of());
  }

  /**
   * Starts a detached daemon of this build and returns the pid of the daemon that answers: this
   * one, or the one that won the lock when several started at once (D2).
   */
  private static long start(Home home, Path config, boolean paused, Map<String, String> env) {
    Path log = home.logs().resolve("daemon.log");
    Process p;
    try {
      ProcessBuilder pb = new ProcessBuilder()
          .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
          .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
      pb.environment().putAll(env);
      p = pb.command(daemonCommand(home, config, paused, pb.environment())).start();
    } catch (IOException e) {
      throw new Client.Failure(1, "cannot start the daemon: " + e.getMessage());
    }
    long deadline = System.nanoTime() / 1_000_000 + TimeoutLattice.Timeout.SUPERVISOR_BOOT.defaultMs() + 10_000;
    while (System.nanoTime() / 1_000_000 < deadline) {
      Client.Attempt a;
      try {
        a = Client.attempt(home, true);
      } catch (Client.Failure e) {
        a = new Client.Attempt.Absent(); // a daemon this vigil cannot use: as before, wait for one it can
      }
      if (a instanceof Client.Attempt.Connected c) {
        try (Client client = c.client()) {
          return pidOf(client);
        }
      }
      if (a instanceof Client.Attempt.Silent && !p.isAlive()) {
        refuseIfNotAnswering(home); // the one that holds the lock does not answer
      }
      if (!p.isAlive()) {
        int code = p.exitValue();
        if (code != 3) {
          String line = lastLine(log);
          if (code == 2 && StoreOps.isDamagedLine(line)) {
            throw new Client.Failure(2, line); // the daemon's own line names the store and what to do
          }
          throw new Client.Failure(code == 2 ? 2 : 1, "the daemon did not start: " + line);
        }
        // another daemon won the lock (D2): wait for it to answer
      }
      sleep(POLL_MS);
    }
    throw new Client.Failure(1, "the daemon did not answer within the boot time; see " + log);
  }

  private static long pidOf(Client client) {
    return client.capabilities().pid();
  }

  /** The pid of the daemon that answers on the socket, if one does. */
  public static Optional<Long> pidOfRunning(Home home) {
    Optional<Client> c = Client.tryConnect(home, true);
    if (c.isEmpty()) {
      return Optional.empty();
    }
    try (Client client = c.get()) {
      return Optional.of(pidOf(client));
    } catch (Client.Failure e) {
      return Optional.empty();
    }
  }

  /** Waits until no daemon answers and {@code pid} (if known) has exited, up to {@code launcherWait}. */
  public static void waitGone(Home home, long pid) {
    long deadline = System.nanoTime() / 1_000_000 + TimeoutLattice.Timeout.LAUNCHER_WAIT.defaultMs();
    while (System.nanoTime() / 1_000_000 < deadline) {
      boolean alive = Processes.running(pid);
      if (!alive && !Files.exists(home.socket())) {
        return;
      }
      if (!alive && Client.tryConnect(home, false).map(c -> {
        c.close();
        return true;
      }).isEmpty()) {
        return;
      }
      sleep(POLL_MS);
    }
    throw new Client.Failure(1, "the daemon did not exit within " + TimeoutLattice.Timeout.LAUNCHER_WAIT.defaultMs() + " ms");
  }

  /** {@code [setsid] java -cp CP dev.vigil.launcher.Main --home H daemon [--config F]} ({@link #selfCommand}). */
  public static List<String> daemonCommand(Home home, Path config) {
    return daemonCommand(home, config, false);
  }

  /** As {@link #daemonCommand(Home, Path)}, with {@code --paused} when the daemon starts paused. */
  public static List<String> daemonCommand(Home home, Path config, boolean paused) {
    return daemonCommand(home, config, paused, System.getenv());
  }

  /** As {@link #daemonCommand(Home, Path, boolean)}, for a daemon whose environment is {@code env}. */
  static List<String> daemonCommand(Home home, Path config, boolean paused, Map<String, String> env) {
    List<String> c = new ArrayList<>();
    if (Files.isExecutable(Path.of("/usr/bin/setsid"))) {
      c.add("/usr/bin/setsid");
    } else if (Files.isExecutable(Path.of("/bin/setsid"))) {
      c.add("/bin/setsid");
    }
    c.addAll(selfCommand(home, env));
    c.add("--home");
    c.add(home.dir().toString());
    c.add("daemon");
    if (config != null) {
      c.add("--config");
      c.add(config.toString());
    }
    if (paused) {
      c.add("--paused");
    }
    return c;
  }

  /**
   * The daemon's JVM flags: one GC thread and C1 only (a small, mostly idle process), and the JVM's
   * own periodic wakes made as rare as the heartbeat (docs/PERFORMANCE.md, stage 3): in an idle
   * daemon they cost more CPU than its own work. The performance counters ({@code jstat}) are sampled
   * every 5 s instead of every 50 ms; the monitor deflation thread looks every 5 s instead of every
   * 250 ms (idle monitors are still deflated, only later); the VM's periodic cleanup safepoint comes
   * at most every 5 s instead of every second (a safepoint that is needed still happens at once).
   * {@code jcmd} and {@code jstat} still attach. Two of these are diagnostic options a later JDK may
   * drop: {@code -XX:+IgnoreUnrecognizedVMOptions} makes such a JDK start the daemon without them.
   *
   * <p>The heap starts at 16 MiB ({@code -Xms16m}) and grows as the daemon needs it, up to the JVM's
   * usual limit: with the default start (1/64 of the machine's memory) the young generation alone was
   * about 100 MiB, which the daemon filled with short-lived garbage before its first collection, so an
   * idle daemon held 125-150 MB resident instead of about 90 (docs/PERFORMANCE.md, B5).
   *
   * <p>Class data is shared ({@code -Xshare:auto}, the JDK's default, named for {@link DaemonArchive}), and
   * archives are mapped where they were written ({@code -XX:ArchiveRelocationMode=0}, the JDK 17 GA default)
   * rather than relocated at every start.
   */
  public static final List<String> DAEMON_JVM_FLAGS = List.of("-XX:+IgnoreUnrecognizedVMOptions",
      "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xms16m",
      "-XX:PerfDataSamplingInterval=5000", "-XX:+UnlockDiagnosticVMOptions", "-XX:AsyncDeflationInterval=5000",
      "-XX:GuaranteedSafepointInterval=5000", "-Xshare:auto", "-XX:ArchiveRelocationMode=0");

  /**
   * How to run this vigil again: {@code java FLAGS -cp CP dev.vigil.launcher.Main}, with the daemon's flags
   * and its class archive when there is one ({@link DaemonArchive}), {@code CP} the jars
   * and directories this JVM loaded Vigil from ({@link #daemonClasspath}), never this JVM's
   * {@code java.class.path}, which names only a launcher's own jars under {@code mvn exec:java} and
   * another program's main class in an application's fat jar.
   *
   * @throws Client.Failure exit 1 when Vigil's classes came from something another JVM cannot be given
   */
  public static List<String> selfCommand(Home home) {
    return selfCommand(home, System.getenv());
  }

  /** As {@link #selfCommand(Home)}, for a daemon whose environment is {@code env} ({@link DaemonArchive#ENV}). */
  static List<String> selfCommand(Home home, Map<String, String> env) {
    List<String> c = new ArrayList<>();
    c.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    c.addAll(DAEMON_JVM_FLAGS);
    String classpath = daemonClasspath(home);
    c.addAll(DaemonArchive.flags(home, DAEMON_JVM_FLAGS, classpath, env));
    c.add("-cp");
    c.add(classpath);
    c.add("dev.vigil.launcher.Main");
    return c;
  }

  /**
   * The daemon's classpath, each jar as its copy under the home ({@link JarCopies}): the worker host's
   * ({@link HostClasspath#HOST}), then the launcher, the H2 store, H2, the PostgreSQL store and its driver,
   * HikariCP, picocli and cron-utils, then
   * Logback when this JVM logs through it (the runnable jar
   * does), each where this JVM loaded it from.
   *
   * @throws Client.Failure exit 1 when one of them came from something another JVM cannot be given
   */
  static String daemonClasspath(Home home) {
    List<Class<?>> classes = new ArrayList<>(HostClasspath.HOST);
    classes.addAll(List.of(Up.class, H2Coordination.class, org.h2.Driver.class,
        dev.vigil.coordination.postgres.PostgresCoordination.class, org.postgresql.Driver.class,
        com.zaxxer.hikari.HikariDataSource.class,
        picocli.CommandLine.class, com.cronutils.model.Cron.class)); // cron-utils: the schedules' cron expressions
    for (String logback : List.of("ch.qos.logback.classic.LoggerContext", "ch.qos.logback.core.Context")) {
      try {
        classes.add(Class.forName(logback, false, org.slf4j.LoggerFactory.class.getClassLoader()));
      } catch (ClassNotFoundException | LinkageError e) {
        // no Logback: the daemon logs through whatever SLF4J finds on its classpath
      }
    }
    HostClasspath.Resolution r = HostClasspath.of(classes);
    if (r instanceof HostClasspath.Resolution.Found f) {
      return new HostClasspath.Resolution.Found(JarCopies.stable(home, BuildInfo.BUILD, f.entries())).classpath();
    } else if (r instanceof HostClasspath.Resolution.Unknown u) {
      throw new Client.Failure(1, "cannot start the daemon: " + u.why());
    } else {
      throw new AssertionError(r);
    }
  }

  private static String lastLine(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      for (int i = lines.size() - 1; i >= 0; i--) {
        if (lines.get(i).startsWith("vigil: ")) {
          return lines.get(i).substring("vigil: ".length());
        }
      }
      return lines.isEmpty() ? "see " + log : lines.get(lines.size() - 1);
    } catch (IOException e) {
      return "see " + log;
    }
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Client.Failure(1, "interrupted");
    }
  }
}
