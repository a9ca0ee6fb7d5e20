package dev.vigil.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * B3: {@code --tasks} (200; smoke 12) × {@code true} at {@code --concurrency} (8; smoke 4) through
 * the real jar, interleaved per repetition with its peers:
 * <ol>
 *   <li>fed over the socket (the CLI's own client, one connection, one submit after another);
 *   <li>fed by {@code vigil submit -- true} processes, one after another ({@code --cli-tasks},
 *       200; smoke 3);
 *   <li>task-spooler ({@code tsp -S <concurrency>}, {@code tsp -n true}) when installed, else a note;
 *   <li>a bare JVM start with the worker host's flags ({@code java <flags> -version}) at the same
 *       concurrency.
 * </ol>
 * Throughput is tasks over the time from the first submit to the last exit the daemon recorded.
 * From the daemon's records (ticket {@code createdAtMs}, run {@code claimedAtMs},
 * {@code start.startedAtMs}, {@code exit.atMs}): p50 submit→settled (to the recorded exit, which the
 * daemon settles at once) and claim→start. {@code --jfr DIR} records the daemon of each socket-fed run
 * with {@code jcmd JFR.start settings=profile} and writes the recording and its text summary to DIR. CPU from {@code /proc/<daemon>/stat}: the daemon's own
 * (utime+stime) and its reaped children's (cutime+cstime: the worker hosts and their {@code true}).
 */
public final class B3EndToEnd {
  /** One fed run of Vigil. */
  public record Fed(int tasks, double seconds, double p50SettleMs, double p50ClaimToStartMs, double daemonCpuPerTask,
      double hostCpuPerTask, int failed, double p50CliWallMs) {
    public double perSecond() {
      return tasks / seconds;
    }
  }

  /** A peer run: tasks per second, CPU per task (-1 when not measured), p50 wall of one. */
  public record Peer(int tasks, double seconds, double cpuPerTask, double p50WallMs) {
    public double perSecond() {
      return tasks / seconds;
    }
  }

  public record Rep(Fed socket, Fed cli, Peer tsp, Peer bareJvm, Peer bareJvmOneAtATime) {}

  public record Result(List<Rep> reps, int concurrency, boolean tspPresent) {}

  private B3EndToEnd() {}

  public static Result measure(Options o) throws Exception {
    int tasks = o.integer("tasks", 200, 12);
    int cliTasks = o.integer("cli-tasks", 200, 3);
    int concurrency = o.integer("concurrency", 8, 4);
    Path tsp = tspBinary();
    List<Rep> reps = new ArrayList<>();
    for (int i = 0; i < o.reps(); i++) {
      Path jfr = o.named().containsKey("jfr") ? Path.of(o.named().get("jfr")).resolve("b3-daemon-" + (i + 1) + ".jfr") : null;
      Fed socket = vigil(o.dir(), tasks, concurrency, false, jfr);
      Fed cli = vigil(o.dir(), cliTasks, concurrency, true, null);
      Peer ts = tsp == null ? null : taskSpooler(tsp, o.dir(), tasks, concurrency);
      Peer bare = bareJvm(tasks, concurrency);
      Peer one = bareJvm(Math.min(tasks, o.smoke() ? 3 : 20), 1);
      System.err.printf("B3 rep %d: socket %.1f/s (p50 settle %.0f ms), cli %.2f/s, tsp %s, bare JVM %.1f/s%n", i + 1,
          socket.perSecond(), socket.p50SettleMs(), cli.perSecond(),
          ts == null ? "absent" : String.format("%.0f/s", ts.perSecond()), bare.perSecond());
      reps.add(new Rep(socket, cli, ts, bare, one));
    }
    return new Result(reps, concurrency, tsp != null);
  }

  /** Runs {@code tasks} × true on a fresh home, fed over the socket or by {@code vigil submit} processes. */
  static Fed vigil(Path parent, int tasks, int concurrency, boolean viaCli, Path jfr) throws Exception {
    try (VigilHome home = VigilHome.create(parent, viaCli ? "b3-cli" : "b3-socket", concurrency)) {
      long pid = home.up();
      home.tickets();
      if (jfr != null) {
        jcmd(pid, "JFR.start", "name=b3", "settings=profile");
      }
      Thread.sleep(500);
      Proc.Cpu before = Proc.cpu(pid).orElseThrow();
      long firstSubmit = System.currentTimeMillis();
      List<Double> cliWalls = new ArrayList<>();
      for (int i = 0; i < tasks; i++) {
        if (viaCli) {
          VigilHome.Cli r = home.cli("submit", "--", "true");
          if (r.code() != 0) {
            throw new IllegalStateException("vigil submit: " + r.err());
          }
          cliWalls.add(r.wallMs());
        } else {
          home.submit("true");
        }
      }
      List<JsonNode> tickets = home.awaitSettled(tasks, 120_000L + tasks * 2_000L);
      Proc.Cpu used = Proc.cpu(pid).orElseThrow().minus(before);
      List<JsonNode> runs = home.runs(false);
      Map<String, JsonNode> byTicket = new HashMap<>();
      for (JsonNode t : tickets) {
        byTicket.put(t.path("id").asText(), t);
      }
      long lastExit = 0;
      List<Long> settle = new ArrayList<>();
      List<Long> claimToStart = new ArrayList<>();
      for (JsonNode r : runs) {
        long exitAt = r.path("exit").path("atMs").asLong();
        lastExit = Math.max(lastExit, exitAt);
        String ticket = r.path("id").asText().replaceAll("\\.\\d+$", "");
        JsonNode t = byTicket.get(ticket);
        if (t != null && exitAt > 0) {
          settle.add(exitAt - t.path("createdAtMs").asLong());
        }
        long started = r.path("start").path("startedAtMs").asLong(0);
        if (started > 0) {
          claimToStart.add(started - r.path("claimedAtMs").asLong());
        }
      }
      if (jfr != null) {
        jcmd(pid, "JFR.dump", "name=b3", "filename=" + jfr);
        Files.writeString(jfr.resolveSibling(jfr.getFileName() + ".txt"), JfrSummary.summarize(jfr, 30));
      }
      int failed = (int) tickets.stream().filter(t -> !t.path("state").asText().equals("SUCCEEDED")).count();
      home.down(pid);
      return new Fed(tasks, (lastExit - firstSubmit) / 1e3, Stats.median(settle), Stats.median(claimToStart),
          used.selfSeconds() / tasks, used.childrenSeconds() / tasks, failed,
          cliWalls.isEmpty() ? 0 : Stats.median(cliWalls));
    }
  }

  /** {@code jcmd PID ARGS...} of this JDK. */
  static void jcmd(long pid, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
        Long.toString(pid)));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (p.waitFor() != 0) {
      throw new IllegalStateException("jcmd " + String.join(" ", args) + ": " + out);
    }
  }

  static Path tspBinary() {
    for (String p : List.of("/usr/bin/tsp", "/usr/bin/ts", "/usr/local/bin/tsp")) {
      Path b = Path.of(p);
      if (Files.isExecutable(b) && (p.endsWith("tsp") || isTaskSpooler(b))) {
        return b;
      }
    }
    return null;
  }

  private static boolean isTaskSpooler(Path b) {
    try {
      Process p = new ProcessBuilder(b.toString(), "-h").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes());
      p.waitFor();
      return out.contains("Task Spooler") || out.contains("task spooler");
    } catch (Exception e) {
      return false;
    }
  }

  /** task-spooler with its own socket: {@code -S concurrency}, then {@code tasks} × {@code tsp -n true}. */
  static Peer taskSpooler(Path tsp, Path parent, int tasks, int concurrency) throws Exception {
    Path dir = Files.createTempDirectory(parent, "tsp");
    Map<String, String> env = Map.of("TS_SOCKET", dir.resolve("ts.sock").toString(), "TMPDIR", dir.toString());
    try {
      exec(tsp, env, "-S", Integer.toString(concurrency));
      long t0 = System.nanoTime();
      for (int i = 0; i < tasks; i++) {
        exec(tsp, env, "-n", "true");
      }
      while (true) {
        String list = exec(tsp, env, "-l");
        if (!list.contains("running") && !list.contains("queued")) {
          break;
        }
        Thread.sleep(5);
      }
      return new Peer(tasks, (System.nanoTime() - t0) / 1e9, -1, 0);
    } finally {
      exec(tsp, env, "-K");
      Main.deleteTree(dir);
    }
  }

  private static String exec(Path bin, Map<String, String> env, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(bin.toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    pb.environment().putAll(env);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes());
    p.waitFor();
    return out;
  }

  /** {@code tasks} × {@code java <worker host flags> -version} at {@code concurrency}; CPU from this JVM's cutime. */
  static Peer bareJvm(int tasks, int concurrency) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(VigilHome.java().toString()));
    cmd.addAll(VigilHome.hostFlags());
    cmd.add("-version");
    ExecutorService pool = Executors.newFixedThreadPool(concurrency);
    try {
      Proc.Cpu before = Proc.selfCpu();
      long t0 = System.nanoTime();
      List<Future<Double>> walls = new ArrayList<>();
      for (int i = 0; i < tasks; i++) {
        walls.add(pool.submit(() -> {
          long s = System.nanoTime();
          Process p = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .redirectError(ProcessBuilder.Redirect.DISCARD).start();
          if (p.waitFor() != 0) {
            throw new IllegalStateException("java -version failed");
          }
          return (System.nanoTime() - s) / 1e6;
        }));
      }
      List<Double> w = new ArrayList<>();
      for (Future<Double> f : walls) {
        w.add(f.get());
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      Proc.Cpu used = Proc.selfCpu().minus(before);
      return new Peer(tasks, seconds, used.childrenSeconds() / tasks, Stats.median(w));
    } finally {
      pool.shutdown();
      pool.awaitTermination(1, TimeUnit.MINUTES);
    }
  }

  public static List<Report> report(Result r, Options o) {
    List<Rep> reps = r.reps();
    double socket = Stats.median(reps.stream().map(x -> x.socket().perSecond()).toList());
    Report t = new Report("B3 end to end: " + reps.get(0).socket().tasks() + " × true at concurrency " + r.concurrency()
        + " (" + o.reps() + " interleaved repetitions, medians)", "what", "tasks/s (median, min–max)", "vs socket-fed Vigil",
        "p50 submit→settled ms", "claim→start p50 ms");
    t.row("Vigil, fed over the socket", Stats.spread(reps.stream().map(x -> x.socket().perSecond()).toList()), "1.00×",
        Stats.median(reps.stream().map(x -> x.socket().p50SettleMs()).toList()),
        Stats.median(reps.stream().map(x -> x.socket().p50ClaimToStartMs()).toList()));
    double cli = Stats.median(reps.stream().map(x -> x.cli().perSecond()).toList());
    t.row("Vigil, fed by `vigil submit` (" + reps.get(0).cli().tasks() + " one after another)",
        Stats.spread(reps.stream().map(x -> x.cli().perSecond()).toList()), Stats.ratio(cli, socket),
        Stats.median(reps.stream().map(x -> x.cli().p50SettleMs()).toList()),
        Stats.median(reps.stream().map(x -> x.cli().p50ClaimToStartMs()).toList()));
    if (r.tspPresent()) {
      double ts = Stats.median(reps.stream().map(x -> x.tsp().perSecond()).toList());
      t.row("task-spooler `tsp -S " + r.concurrency() + "`", Stats.spread(reps.stream().map(x -> x.tsp().perSecond())
          .toList()), Stats.ratio(ts, socket), "—", "—");
    } else {
      t.note("task-spooler (tsp) is not installed: its row is skipped (apt-get install task-spooler).");
    }
    double bare = Stats.median(reps.stream().map(x -> x.bareJvm().perSecond()).toList());
    t.row("bare JVM start with the worker host's flags (`java … -version`)",
        Stats.spread(reps.stream().map(x -> x.bareJvm().perSecond()).toList()), Stats.ratio(bare, socket), "—", "—");
    t.note("`vigil submit` wall time per call, p50: " + Stats.fmt(Stats.median(reps.stream()
        .map(x -> x.cli().p50CliWallMs()).toList())) + " ms. Failed or held tickets: "
        + reps.stream().mapToInt(x -> x.socket().failed() + x.cli().failed()).sum() + ".");

    Report c = new Report("B3 CPU per task (from /proc, socket-fed runs, medians)", "what", "CPU-s per task",
        "vs bare JVM start");
    double host = Stats.median(reps.stream().map(x -> x.socket().hostCpuPerTask()).toList());
    double daemon = Stats.median(reps.stream().map(x -> x.socket().daemonCpuPerTask()).toList());
    double bareCpu = Stats.median(reps.stream().map(x -> x.bareJvm().cpuPerTask()).toList());
    c.row("worker host (daemon's reaped children: host JVM + `true`)", host, Stats.ratio(host, bareCpu));
    c.row("daemon itself", daemon, Stats.ratio(daemon, bareCpu));
    c.row("bare JVM start with the host's flags, at concurrency " + r.concurrency(), bareCpu, "1.00×");
    c.note("bare JVM start wall, one at a time, p50: " + Stats.fmt(Stats.median(reps.stream()
        .map(x -> x.bareJvmOneAtATime().p50WallMs()).toList())) + " ms; at concurrency " + r.concurrency() + ": "
        + Stats.fmt(Stats.median(reps.stream().map(x -> x.bareJvm().p50WallMs()).toList())) + " ms.");
    return List.of(t, c);
  }
}
