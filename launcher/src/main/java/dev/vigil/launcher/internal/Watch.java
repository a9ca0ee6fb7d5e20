package dev.vigil.launcher.internal;

import dev.vigil.supervisor.Replacement;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * {@code vigil watch}, an attached client (S9): it keeps one connection to the daemon and shows a
 * frame every second. When no daemon answers, it relaunches the lost one at once (well within the
 * minute S9 allows), and only when all of these hold:
 *
 * <ul>
 *   <li>{@code daemon.json} is still there: a daemon that exits cleanly ({@code vigil down}, a
 *       replacement, SIGTERM) deletes it (D1), so it was stopped, not lost;
 *   <li>no live process has the pid it names: a daemon that is booting, stopping or stuck is not lost;
 *   <li>it names this watch's own build: another build's daemon is left to its own clients.
 * </ul>
 *
 * <p>The relaunch starts the configuration file recorded in {@code daemon.json} (the defaults when
 * that file is gone, and the watch says so) and never replaces a daemon ({@link Up#launch}): when
 * one answers again, the watch attaches to it. A failed relaunch is shown with its reason and
 * retried at most every {@value #RELAUNCH_RETRY_MS} ms.
 *
 * <p>While no daemon answers and none is being relaunched, each frame also shows what the store
 * itself says ({@link StoreReading}): the tasks in each state and the runs that had not ended, each
 * marked stalled once no daemon has watched it for {@code stalledRunning}. A daemon that holds the
 * home without answering holds the store too, so then only that is said.
 */
public final class Watch {
  /** The pause between two frames, ms. */
  static final long FRAME_MS = 1_000;
  /** The least pause between two relaunch attempts, ms. */
  static final long RELAUNCH_RETRY_MS = 5_000;
  private static final String CLEAR = "\033[H\033[2J";

  /** Renders one frame of the attached daemon. */
  @FunctionalInterface
  public interface Frame {
    /**
     * The frame's text, one or more lines.
     *
     * @throws Client.Failure when the daemon does not answer (the watch then reconnects)
     */
    String render(Client client);
  }

  /** Renders what the store says while no daemon runs, or nothing when the store cannot be read now. */
  @FunctionalInterface
  public interface StoreFrame {
    /** The lines for {@code home}'s store, read without a daemon; empty when it cannot be read now. */
    Optional<String> render(Home home);
  }

  private final Home home;
  private final Frame frame;
  private final StoreFrame storeFrame;
  private final PrintStream out;
  private Client attached;
  private String notice = "";
  private long nextRelaunchMs = Long.MIN_VALUE;
  /** Whether the last connection attempt was accepted and left unanswered. */
  private boolean silent;

  public Watch(Home home, Frame frame, StoreFrame storeFrame, PrintStream out) {
    this.home = home;
    this.frame = frame;
    this.storeFrame = storeFrame;
    this.out = out;
  }

  /**
   * Shows a frame every second until the process is stopped (Ctrl-C).
   *
   * @throws Client.Failure exit 3 when the daemon's protocol does not agree with this vigil's (S9)
   */
  public void run() throws InterruptedException {
    while (true) {
      show(step());
      Thread.sleep(FRAME_MS);
    }
  }

  private String step() {
    if (attached == null) {
      Client.Attempt a = Client.attempt(home, false);
      silent = a instanceof Client.Attempt.Silent;
      attached = a instanceof Client.Attempt.Connected c ? c.client() : null;
      if (attached != null && attached.verdict() instanceof Replacement.Verdict.UseAndTell t) {
        notice = at() + " " + t.message() + "\n";
      }
    }
    if (attached != null) {
      try {
        return notice + frame.render(attached);
      } catch (Client.Failure f) {
        attached.close();
        attached = null;
      }
    }
    String absent = absent(); // first: a relaunch replaces the notice
    return notice + absent;
  }

  /** What the watch makes of a home where no daemon answers; relaunches the lost daemon when S9 says so. */
  private String absent() {
    String head = "no daemon answers on " + home.dir() + "\n";
    Optional<StatusFile.Recorded> lost = new StatusFile(home.statusFile()).recorded();
    if (lost.isEmpty()) {
      return head + "no daemon was lost (no daemon.json: the last one stopped cleanly, or none ran): "
          + "start one with vigil up\n" + store();
    }
    StatusFile.Recorded d = lost.get();
    if (d.alive()) {
      Optional<DaemonWait.Decision.NotAnswering> frozen = silent ? DaemonWait.notAnsweringHolder(home) : Optional.empty();
      return head + frozen.map(n -> DaemonWait.notAnswering(home, n, System.currentTimeMillis()))
          .orElse("daemon pid " + d.pid() + " is alive but does not answer yet") + "\n";
    }
    if (!d.build().equals(BuildInfo.BUILD)) {
      return head + "the lost daemon (pid " + d.pid() + ") ran build " + d.build() + ", this vigil is build "
          + BuildInfo.BUILD + ": a watch only restarts a daemon of its own build; start one with vigil up\n" + store();
    }
    long now = System.nanoTime() / 1_000_000;
    if (now < nextRelaunchMs) {
      return head + "next relaunch attempt in " + ((nextRelaunchMs - now + 999) / 1000) + " s\n" + store();
    }
    nextRelaunchMs = now + RELAUNCH_RETRY_MS;
    show(notice + head + "relaunching the lost daemon (pid " + d.pid() + ")\n");
    notice = relaunch(d);
    return "";
  }

  /** What the store says, read without a daemon, after a blank line; nothing when it cannot be read now. */
  private String store() {
    try {
      return storeFrame.render(home).map(t -> "\n" + t).orElse("");
    } catch (Client.Failure f) {
      return "\n" + f.getMessage() + "\n";
    }
  }

  /** Relaunches the lost daemon {@code d} of this build; returns the notice that tells how it went. */
  private String relaunch(StatusFile.Recorded d) {
    Path config = d.config().orElse(null);
    String with = config == null ? "the defaults" : config.toString();
    if (config != null && !Files.isRegularFile(config)) {
      with = "the defaults (its configuration " + config + " is gone)";
      config = null;
    }
    try {
      long pid = Up.launch(home, config);
      return at() + " relaunched the lost daemon (pid " + d.pid() + ") with " + with + ": pid " + pid + " serves\n";
    } catch (Client.Failure | ConfigException f) {
      return at() + " relaunching the lost daemon (pid " + d.pid() + ") with " + with + " failed: " + f.getMessage()
          + "; retrying every " + RELAUNCH_RETRY_MS / 1000 + " s\n";
    }
  }

  private void show(String text) {
    out.print(CLEAR);
    out.print(text);
    out.flush();
  }

  private static String at() {
    return LocalTime.now().truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
