package dev.vigil.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.TicketId;
import dev.vigil.supervisor.engine.WorkerTypeSpec;
import dev.vigil.worker.host.WorkerArgs;
import dev.vigil.worker.process.LaunchSpec;
import dev.vigil.worker.process.LaunchedWorker;
import dev.vigil.worker.process.Processes;
import dev.vigil.worker.protocol.RunToken;
import dev.vigil.worker.protocol.Subject;
import dev.vigil.worker.rundir.RunDirectory;
import dev.vigil.worker.testkit.TestDaemon;
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
  public record Result(List<Double> wallMs, List<Double> cpuS, List<Double> bareWallMs, List<Double> bareCpuS,
      Map<String, Integer> classesBySource, Map<String, Integer> classesByPackage, int classes) {}

  private HostStartup() {}

  public static Result measure(Options o) throws Exception {
    int hosts = o.integer("hosts", 20, 2);
    Path home = Files.createTempDirectory(o.dir(), "host");
    List<Double> wall = new ArrayList<>();
    List<Double> cpu = new ArrayList<>();
    List<Double> bareWall = new ArrayList<>();
    List<Double> bareCpu = new ArrayList<>();
    Path log = home.resolve("class-load.log");
    try (TestDaemon daemon = TestDaemon.start(home)) {
      for (int i = 0; i <= hosts; i++) {
        List<String> flags = new ArrayList<>(WorkerArgs.FAST_START_FLAGS);
        if (i == hosts) {
          flags.add("-Xlog:class+load=info:file=" + log);
        }
        Proc.Cpu before = Proc.selfCpu();
        long t0 = System.nanoTime();
        int code = host(daemon, home, i + 1, flags);
        double ms = (System.nanoTime() - t0) / 1e6;
        double s = Proc.selfCpu().minus(before).childrenSeconds();
        if (code != 0) {
          throw new IllegalStateException("the worker host exited " + code);
        }
        if (i > 0 && i < hosts) {
          wall.add(ms);
          cpu.add(s);
        }
        if (i > 0 && i < hosts) {
          before = Proc.selfCpu();
          B3EndToEnd.Peer bare = B3EndToEnd.bareJvm(1, 1);
          bareWall.add(bare.p50WallMs());
          bareCpu.add(Proc.selfCpu().minus(before).childrenSeconds());
        }
      }
    }
    Map<String, Integer> bySource = new TreeMap<>();
    Map<String, Integer> byPackage = new TreeMap<>();
    int classes = 0;
    for (String line : Files.readAllLines(log)) {
      int tag = line.indexOf("[class,load] ");
      if (tag < 0) {
        continue;
      }
      String rest = line.substring(tag + "[class,load] ".length());
      String name = rest.split(" ")[0];
      String source = rest.contains("source: shared objects file") ? "CDS archive"
          : rest.contains("source: jrt:/") ? "JDK modules (not archived)" : rest.contains(".jar") ? "vigil.jar"
          : "generated";
      classes++;
      bySource.merge(source, 1, Integer::sum);
      byPackage.merge(packageGroup(name), 1, Integer::sum);
    }
    Main.deleteTree(home);
    return new Result(wall, cpu, bareWall, bareCpu, bySource, byPackage, classes);
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
    t.row("worker host: launch → hello → go → `true` → outcome → exit", Stats.median(r.wallMs()),
        Stats.median(r.cpuS()), Stats.ratio(Stats.median(r.cpuS()), bare));
    t.row("bare JVM start with the same flags (`java … -version`)", Stats.median(r.bareWallMs()), bare, "1.00×");
    StringBuilder src = new StringBuilder();
    r.classesBySource().forEach((k, v) -> src.append(k).append(" ").append(v).append(", "));
    StringBuilder pkg = new StringBuilder();
    r.classesByPackage().entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue()).limit(12)
        .forEach(e -> pkg.append(e.getKey()).append(" ").append(e.getValue()).append(", "));
    t.note("classes loaded by one host: " + r.classes() + " (" + src.toString().replaceAll(", $", "") + ")");
    t.note("by package: " + pkg.toString().replaceAll(", $", ""));
    return List.of(t);
  }
}
