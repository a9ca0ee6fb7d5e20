package dev.vigil.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.launcher.internal.Up;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The daemon's standing costs, on one fresh home per repetition:
 * <ol>
 *   <li>idle CPU: % of one core over {@code --idle-seconds} (30; smoke 1) from
 *       {@code /proc/<pid>/stat} utime+stime, after 5 s (smoke 1 s) to settle;
 *   <li>one CLI call ({@code vigil status}, {@code vigil submit -- true}): wall, user+system CPU and
 *       peak RSS ({@code /usr/bin/time}; -1 when it is not installed), median of {@code --calls} (5; smoke 1);
 *   <li>claim→start of a task ({@code start.startedAtMs − claimedAtMs}): one {@code true} at a time
 *       ({@code --singles} 5; smoke 1), with its submit→settled, and {@code --burst} (8; smoke 2) {@code sleep 1} submitted at once.
 * </ol>
 * <p>A daemon that {@code vigil up} starts on a new home writes its own class archive once, 10 s after it
 * serves (a second JVM does the work; the daemon checks its result). Unless {@code VIGIL_CDS=off}, each
 * repetition first measures that first daemon over the same window ({@code firstDaemonCorePercent}), waits
 * for its archive and stops it; the idle figures are of the next daemon on the home, which maps the archive,
 * as every later start does.
 *
 * <p>{@code --jfr DIR} records the idle window with {@code jcmd JFR.start settings=profile} and writes
 * the recording and its text summary to DIR.
 *
 * <p>Beside the daemon, over the same idle window, two JVMs that do nothing ({@link IdleJvm}): one
 * with the daemon's flags ({@link Up#DAEMON_JVM_FLAGS}), one with {@link #PLAIN_FLAGS} (the daemon's
 * flags before the JVM's own periodic wakes were made rarer): the floor, measured under the same
 * load. Each idle figure is also taken from the threads' run time ({@link Proc#runNanos}),
 * which has no 10 ms rounding (a thread that ends within the window is left out of it).
 */
public final class DaemonCosts {
  /** The flags the daemon ran with before {@link Up#DAEMON_JVM_FLAGS}: a plain JVM's floor. */
  public static final List<String> PLAIN_FLAGS = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  /**
   * One repetition. Idle figures are % of one core over the idle window: from {@code /proc/<pid>/stat}
   * (10 ms ticks) and from the threads' run time ({@code Run}); {@code bare}: a JVM doing nothing with
   * the daemon's flags; {@code plain}: the same with {@link #PLAIN_FLAGS}.
   */
  public record Rep(double idleCorePercent, List<VigilHome.Cli> status, List<VigilHome.Cli> submit,
      List<Long> singleClaimToStart, List<Long> burstClaimToStart, List<Long> singleSubmitToSettled,
      List<VigilHome.Cli> statusWithoutArchive, double idleRunPercent, double bareCorePercent, double bareRunPercent,
      double plainCorePercent, double plainRunPercent, double firstDaemonCorePercent) {}

  public record Result(List<Rep> reps, int burst) {}

  private DaemonCosts() {}

  public static Result measure(Options o) throws Exception {
    double idleSeconds = o.real("idle-seconds", 30, 1);
    int calls = o.integer("calls", 5, 1);
    int singles = o.integer("singles", 5, 1);
    int burst = o.integer("burst", 8, 2);
    List<Rep> reps = new ArrayList<>();
    for (int i = 0; i < o.reps(); i++) {
      Process bare = idleJvm(Up.DAEMON_JVM_FLAGS);
      Process plain = idleJvm(PLAIN_FLAGS);
      try (VigilHome home = VigilHome.create(o.dir(), "daemon", Math.max(8, burst))) {
        double first = -1;
        if (!"off".equals(System.getenv("VIGIL_CDS"))) {
          long trainer = home.up();
          Thread.sleep(o.smoke() ? 1_000 : 5_000);
          Proc.Cpu c0 = Proc.cpu(trainer).orElseThrow();
          long f0 = System.nanoTime();
          Thread.sleep((long) (idleSeconds * 1000));
          first = 100 * Proc.cpu(trainer).orElseThrow().minus(c0).selfSeconds() / ((System.nanoTime() - f0) / 1e9);
          java.nio.file.Path cds = home.dir().resolve("cds");
          VigilHome.await("the daemon's class archive", () -> {
            try (var files = java.nio.file.Files.list(cds)) {
              return files.anyMatch(f -> f.getFileName().toString().matches("daemon-.*\\.jsa"));
            } catch (java.io.IOException e) {
              return false;
            }
          }, 200, 120_000);
          home.down(trainer);
        }
        long pid = home.up();
        home.tickets();
        Thread.sleep(o.smoke() ? 1_000 : 5_000);
        java.nio.file.Path jfr = o.named().containsKey("jfr")
            ? java.nio.file.Path.of(o.named().get("jfr")).resolve("idle-daemon-" + (i + 1) + ".jfr") : null;
        if (jfr != null) {
          B3EndToEnd.jcmd(pid, "JFR.start", "name=idle", "settings=profile");
        }
        long[] procs = {pid, bare.pid(), plain.pid()};
        Proc.Cpu[] cpu0 = new Proc.Cpu[3];
        List<Map<String, Long>> run0 = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
          cpu0[p] = Proc.cpu(procs[p]).orElseThrow();
          run0.add(Proc.runNanos(procs[p]).orElseThrow());
        }
        long t0 = System.nanoTime();
        Thread.sleep((long) (idleSeconds * 1000));
        double wall = (System.nanoTime() - t0) / 1e9;
        double[] core = new double[3];
        double[] run = new double[3];
        for (int p = 0; p < 3; p++) {
          core[p] = 100 * Proc.cpu(procs[p]).orElseThrow().minus(cpu0[p]).selfSeconds() / wall;
          run[p] = 100 * Proc.runNanosBetween(run0.get(p), Proc.runNanos(procs[p]).orElseThrow()) / 1e9 / wall;
        }
        bare.destroy();
        plain.destroy();
        double idle = core[0];
        if (jfr != null) {
          B3EndToEnd.jcmd(pid, "JFR.dump", "name=idle", "filename=" + jfr);
          B3EndToEnd.jcmd(pid, "JFR.stop", "name=idle");
          java.nio.file.Files.writeString(jfr.resolveSibling(jfr.getFileName() + ".txt"), JfrSummary.summarize(jfr, 30));
        }

        List<VigilHome.Cli> status = new ArrayList<>();
        List<VigilHome.Cli> submit = new ArrayList<>();
        List<VigilHome.Cli> statusWithout = new ArrayList<>();
        for (int c = 0; c < calls; c++) {
          status.add(checked(home.cli("status")));
          if (VigilHome.script().isPresent()) {
            statusWithout.add(checked(home.cli(Map.of("VIGIL_CDS", "off"), "status")));
          }
          submit.add(checked(home.cli("submit", "--", "true")));
        }
        home.awaitSettled(calls, 120_000);

        List<Long> single = new ArrayList<>();
        List<Long> settle = new ArrayList<>();
        for (int s = 0; s < singles; s++) {
          String t = home.submit("true");
          single.add(claimToStart(home, Set.of(t)).get(0));
          settle.add(submitToSettled(home, t));
        }
        Set<String> ids = new HashSet<>();
        for (int b = 0; b < burst; b++) {
          ids.add(home.submit("sleep", "1"));
        }
        List<Long> burstLat = claimToStart(home, ids);
        System.err.printf("daemon rep %d: idle %.2f%% of a core (run time %.3f%%; bare JVM %.2f%%, %.3f%%; plain JVM"
            + " %.2f%%, %.3f%%; first daemon %.2f%%); status %.0f ms; claim→start %s single, %s burst%n",
            i + 1, idle, run[0], core[1], run[1], core[2], run[2], first, status.get(0).wallMs(), single, burstLat);
        home.down(pid);
        reps.add(new Rep(idle, status, submit, single, burstLat, settle, statusWithout, run[0], core[1], run[1], core[2],
            run[2], first));
      } finally {
        bare.destroy();
        plain.destroy();
      }
    }
    return new Result(reps, burst);
  }

  /** {@code java FLAGS -cp <this jar> IdleJvm}: a JVM that sleeps. */
  private static Process idleJvm(List<String> flags) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(VigilHome.java().toString()));
    cmd.addAll(flags);
    cmd.addAll(List.of("-cp", java.nio.file.Path.of(IdleJvm.class.getProtectionDomain().getCodeSource().getLocation()
        .toURI()).toString(), IdleJvm.class.getName()));
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
  }

  private static VigilHome.Cli checked(VigilHome.Cli c) {
    if (c.code() != 0) {
      throw new IllegalStateException("vigil exited " + c.code() + ": " + c.err());
    }
    return c;
  }

  /** Waits until every ticket of {@code ids} settled; their runs' claim→start, ms. */
  static List<Long> claimToStart(VigilHome home, Set<String> ids) throws InterruptedException {
    VigilHome.await(ids + " settled", () -> home.tickets().stream()
        .filter(t -> ids.contains(t.path("id").asText())).filter(VigilHome.terminal()).count() == ids.size(), 100, 120_000);
    List<Long> out = new ArrayList<>();
    for (JsonNode r : home.runs(false)) {
      if (ids.contains(r.path("id").asText().replaceAll("\\.\\d+$", "")) && r.path("start").has("startedAtMs")) {
        out.add(r.path("start").path("startedAtMs").asLong() - r.path("claimedAtMs").asLong());
      }
    }
    return out;
  }

  /** A settled ticket's submit→settled: its run's recorded exit (settled at once) − the ticket's creation, ms. */
  static long submitToSettled(VigilHome home, String ticket) {
    long created = home.tickets().stream().filter(t -> t.path("id").asText().equals(ticket)).findFirst()
        .orElseThrow().path("createdAtMs").asLong();
    long exit = home.runs(false).stream().filter(r -> r.path("id").asText().startsWith(ticket + "."))
        .mapToLong(r -> r.path("exit").path("atMs").asLong()).max().orElseThrow();
    return exit - created;
  }

  public static List<Report> report(Result r, Options o) {
    List<Rep> reps = r.reps();
    Report t = new Report("Daemon standing costs (" + o.reps() + " repetitions, medians)", "what", "figure");
    t.row("idle daemon CPU, % of one core", Stats.spread(reps.stream().map(Rep::idleCorePercent).toList()));
    t.row("same, from its threads' run time", Stats.spread(reps.stream().map(Rep::idleRunPercent).toList()));
    if (reps.stream().allMatch(x -> x.firstDaemonCorePercent() >= 0)) {
      t.row("the first daemon on the new home, same window (it writes its class archive), % of one core",
          Stats.spread(reps.stream().map(Rep::firstDaemonCorePercent).toList()));
    }
    t.row("a JVM doing nothing with the daemon's flags, same window, % of one core (run time)",
        Stats.spread(reps.stream().map(Rep::bareCorePercent).toList()) + " ("
            + Stats.spread(reps.stream().map(Rep::bareRunPercent).toList()) + ")");
    t.row("a JVM doing nothing with " + String.join(" ", PLAIN_FLAGS) + ", same window (run time)",
        Stats.spread(reps.stream().map(Rep::plainCorePercent).toList()) + " ("
            + Stats.spread(reps.stream().map(Rep::plainRunPercent).toList()) + ")");
    t.row("idle daemon ÷ the JVM doing nothing with its flags (run time, same window)",
        Stats.spread(reps.stream().map(x -> x.bareRunPercent() > 0 ? x.idleRunPercent() / x.bareRunPercent() : 0).toList())
            + "×");
    for (String which : List.of("status", "submit")) {
      List<VigilHome.Cli> calls = new ArrayList<>();
      reps.forEach(x -> calls.addAll(which.equals("status") ? x.status() : x.submit()));
      t.row("`vigil " + which + "` wall s", Stats.median(calls.stream().map(c -> c.wallMs() / 1e3).toList()));
      t.row("`vigil " + which + "` CPU s (user+system)", Stats.median(calls.stream().map(VigilHome.Cli::cpuS).toList()));
      t.row("`vigil " + which + "` peak RSS MB", Stats.median(calls.stream().map(c -> c.maxRssKb() / 1024.0).toList()));
    }
    List<VigilHome.Cli> without = new ArrayList<>();
    reps.forEach(x -> without.addAll(x.statusWithoutArchive()));
    if (!without.isEmpty()) {
      t.row("`vigil status` without the CLI's class archive (VIGIL_CDS=off) wall s",
          Stats.median(without.stream().map(c -> c.wallMs() / 1e3).toList()));
      t.row("`vigil status` without the CLI's class archive CPU s (user+system)",
          Stats.median(without.stream().map(VigilHome.Cli::cpuS).toList()));
    }
    List<Long> single = new ArrayList<>();
    List<Long> burst = new ArrayList<>();
    reps.forEach(x -> {
      single.addAll(x.singleClaimToStart());
      burst.addAll(x.burstClaimToStart());
    });
    t.row("claim→start of one task, ms (p50, max)", Stats.fmt(Stats.median(single)) + " (" + Stats.fmt(Stats.max(single)) + ")");
    List<Long> settle = new ArrayList<>();
    reps.forEach(x -> settle.addAll(x.singleSubmitToSettled()));
    t.row("submit→settled of one `true` at a time, ms (p50, max)",
        Stats.fmt(Stats.median(settle)) + " (" + Stats.fmt(Stats.max(settle)) + ")");
    t.row("claim→start with " + r.burst() + " at once, ms (p50, max)",
        Stats.fmt(Stats.median(burst)) + " (" + Stats.fmt(Stats.max(burst)) + ")");
    t.note((VigilHome.script().isPresent()
        ? "CLI calls run through the ./vigil script (java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto with the"
            + " CLI's class archive, written by the first call, `vigil up`)"
        : "CLI calls run as java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto -jar vigil.jar (no ./vigil script"
            + " beside the jar)")
        + "; CPU and peak RSS from /usr/bin/time (-1: not installed).");
    return List.of(t);
  }
}
