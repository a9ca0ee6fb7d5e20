package dev.vigil.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.TicketId;
import dev.vigil.supervisor.engine.WorkerTypeSpec;
import dev.vigil.worker.host.WorkerArgs;
import dev.vigil.worker.process.LaunchSpec;
import dev.vigil.worker.process.LaunchedWorker;
import dev.vigil.worker.process.Processes;
import dev.vigil.worker.process.StartArchive;
import dev.vigil.worker.protocol.RunToken;
import dev.vigil.worker.protocol.Subject;
import dev.vigil.worker.rundir.RunDirectory;
import dev.vigil.worker.testkit.TestDaemon;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The worker host's own start, one at a time, without the daemon: a stand-in daemon
 * (worker-runtime's test kit) answers hello with go; the host runs {@code true} from vigil.jar with
 * its fast-start flags and exits. Its wall time, its CPU (this JVM's reaped children: host +
 * {@code true}) beside a bare JVM start with the same flags, and one run with
 * {@code -Xlog:class+load} to count the classes it loads, by where they come from. This is the
 * worker host's profile: it lives too briefly for a sampling profiler. {@code --hosts} (20; smoke 2).
 */
public final class HostStartup {
  /** Figures of hosts without the class archive, with it ({@code archived…}), and of bare JVM starts. */
  public record Result(List<Double> wallMs, List<Double> cpuS, List<Double> archivedWallMs, List<Double> archivedCpuS,
      List<Double> bareWallMs, List<Double> bareCpuS, Map<String, Integer> classesBySource,
      Map<String, Integer> classesByPackage, int classes, Map<String, Integer> archivedClassesBySource,
      int archivedClasses, double archiveMb) {}

  private HostStartup() {}

  public static Result measure(Options o) throws Exception {
    int hosts = o.integer("hosts", 20, 2);
    Path home = Files.createTempDirectory(o.dir(), "host");
    List<Double> wall = new ArrayList<>();
    List<Double> cpu = new ArrayList<>();
    List<Double> archWall = new ArrayList<>();
    List<Double> archCpu = new ArrayList<>();
    List<Double> bareWall = new ArrayList<>();
    List<Double> bareCpu = new ArrayList<>();
    Path log = home.resolve("class-load.log");
    Path archLog = home.resolve("class-load-archived.log");
    StartArchive archive = new StartArchive(home.resolve("cds"), "host", VigilHome.java());
    String classpath = WorkerArgs.absoluteClasspath(VigilHome.jar().toString());
    double archiveMb = 0;
    int n = 0;
    try (TestDaemon daemon = TestDaemon.start(home)) {
      // the first host writes the archive at its exit, as the daemon's first launch does
      StartArchive.Plan first = archive.plan(WorkerArgs.FAST_START_FLAGS, classpath, 0);
      if (!(first instanceof StartArchive.Plan.Create c)) {
        throw new IllegalStateException("expected to create the archive: " + first);
      }
      List<String> creating = new ArrayList<>(WorkerArgs.FAST_START_FLAGS);
      creating.addAll(c.flags());
      check(host(daemon, home, ++n, creating));
      if (!archive.created(c)) {
        throw new IllegalStateException("the first host wrote no usable archive");
      }
      archiveMb = Files.size(c.archive()) / 1048576.0;
      for (int i = 0; i <= hosts; i++) {
        StartArchive.Plan use = archive.plan(WorkerArgs.FAST_START_FLAGS, classpath, 0);
        if (!(use instanceof StartArchive.Plan.Use)) {
          throw new IllegalStateException("expected to use the archive: " + use);
        }
        for (boolean archived : new boolean[] {false, true}) {
          List<String> flags = new ArrayList<>(WorkerArgs.FAST_START_FLAGS);
          if (archived) {
            flags.addAll(use.flags());
          }
          if (i == hosts) {
            flags.add("-Xlog:class+load=info:file=" + (archived ? archLog : log));
          }
          Proc.Cpu before = Proc.selfCpu();
          long t0 = System.nanoTime();
          int code = host(daemon, home, ++n, flags);
          double ms = (System.nanoTime() - t0) / 1e6;
          double sec = Proc.selfCpu().minus(before).childrenSeconds();
          check(code);
          if (i > 0 && i < hosts) {
            (archived ? archWall : wall).add(ms);
            (archived ? archCpu : cpu).add(sec);
          }
        }
        if (i > 0 && i < hosts) {
          Proc.Cpu before = Proc.selfCpu();
          B3EndToEnd.Peer bare = B3EndToEnd.bareJvm(1, 1);
          bareWall.add(bare.p50WallMs());
          bareCpu.add(Proc.selfCpu().minus(before).childrenSeconds());
        }
      }
    }
    Map<String, Integer> bySource = new TreeMap<>();
    Map<String, Integer> byPackage = new TreeMap<>();
    int classes = countClasses(log, bySource, byPackage);
    Map<String, Integer> archBySource = new TreeMap<>();
    int archClasses = countClasses(archLog, archBySource, new TreeMap<>());
    Main.deleteTree(home);
    return new Result(wall, cpu, archWall, archCpu, bareWall, bareCpu, bySource, byPackage, classes, archBySource,
        archClasses, archiveMb);
  }

  private static void check(int code) {
    if (code != 0) {
      throw new IllegalStateException("the worker host exited " + code);
    }
  }

  private static int countClasses(Path log, Map<String, Integer> bySource, Map<String, Integer> byPackage)
      throws IOException {
    int classes = 0;
    for (String line : Files.readAllLines(log)) {
      int tag = line.indexOf("[class,load] ");
      if (tag < 0) {
        continue;
      }
      String rest = line.substring(tag + "[class,load] ".length());
      String name = rest.split(" ")[0];
      String source = rest.contains("source: shared objects file (top)") ? "host archive"
          : rest.contains("source: shared objects file") ? "JDK CDS archive"
          : rest.contains("source: jrt:/") ? "JDK modules (not archived)" : rest.contains(".jar") ? "vigil.jar"
          : "generated";
      classes++;
      bySource.merge(source, 1, Integer::sum);
      byPackage.merge(packageGroup(name), 1, Integer::sum);
    }
    return classes;
  }

  private static String packageGroup(String cls) {
    String[] p = cls.split("\\.");
    if (cls.startsWith("dev.vigil.") && p.length > 3) {
      return String.join(".", p[0], p[1], p[2], p[3]).replaceAll("\\.[A-Z].*$", "");
    }
    if (cls.startsWith("com.fasterxml.")) {
      return "com.fasterxml.jackson";
    }
    return p.length > 2 ? p[0] + "." + p[1] : cls;
  }

  private static int host(TestDaemon daemon, Path home, int n, List<String> flags) throws Exception {
    RunId run = new RunId(new TicketId(n), 1);
    String token = daemon.register(new Subject.Run(run.toString()));
    RunDirectory dir = RunDirectory.create(home, run.toString());
    dir.writePayload(new ObjectMapper().readTree("{\"argv\":[\"true\"]}"));
    Map<String, String> env = LaunchSpec.baseEnvironment();
    env.put(RunToken.ENV, token);
    WorkerArgs wa = WorkerArgs.task(home, run, 1, "command", WorkerTypeSpec.Command.DEFAULT, TestDaemon.BUILD);
    LaunchedWorker w = Processes.launch(new LaunchSpec(wa.command(VigilHome.java(), flags, VigilHome.jar().toString()),
        env, dir.path(), dir.stdoutLog(), dir.stderrLog()));
    if (!w.process().waitFor(60, TimeUnit.SECONDS)) {
      w.process().destroyForcibly();
      throw new IllegalStateException("the worker host did not exit");
    }
    return w.process().exitValue();
  }

  public static List<Report> report(Result r, Options o) {
    Report t = new Report("Worker host start, one at a time (stand-in daemon, `true` from vigil.jar)", "what",
        "wall ms p50", "CPU-s p50", "vs bare JVM start (CPU)");
    double bare = Stats.median(r.bareCpuS());
    t.row("worker host without its class archive: launch → hello → go → `true` → outcome → exit",
        Stats.median(r.wallMs()), Stats.median(r.cpuS()), Stats.ratio(Stats.median(r.cpuS()), bare));
    t.row("worker host with its class archive (as the daemon launches it)", Stats.median(r.archivedWallMs()),
        Stats.median(r.archivedCpuS()), Stats.ratio(Stats.median(r.archivedCpuS()), bare));
    t.row("bare JVM start with the same flags (`java … -version`)", Stats.median(r.bareWallMs()), bare, "1.00×");
    StringBuilder pkg = new StringBuilder();
    r.classesByPackage().entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue()).limit(12)
        .forEach(e -> pkg.append(e.getKey()).append(" ").append(e.getValue()).append(", "));
    t.note("classes loaded by one host without the archive: " + r.classes() + " (" + sources(r.classesBySource()) + ")");
    t.note("with the archive (" + String.format(java.util.Locale.ROOT, "%.1f", r.archiveMb()) + " MB): "
        + r.archivedClasses() + " (" + sources(r.archivedClassesBySource()) + ")");
    t.note("by package: " + pkg.toString().replaceAll(", $", ""));
    t.note("hosts with and without the archive alternate, each followed by a bare JVM start; the first host wrote the archive");
    return List.of(t);
  }

  private static String sources(Map<String, Integer> bySource) {
    StringBuilder src = new StringBuilder();
    bySource.forEach((k, v) -> src.append(k).append(" ").append(v).append(", "));
    return src.toString().replaceAll(", $", "");
  }
}
