package dev.vigil.worker.host;

import dev.vigil.supervisor.ByteSizes;
import dev.vigil.supervisor.OutputBound;
import dev.vigil.supervisor.OutputBound.Cut;
import dev.vigil.supervisor.OutputBound.Layout;
import dev.vigil.worker.process.Processes;
import dev.vigil.worker.rundir.OutputFile;
import dev.vigil.worker.rundir.RunDirectory;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Keeps the run's {@code stdout.log} and {@code stderr.log} within their {@link OutputBound}, on a
 * thread of its own: it reads the files' sizes, and cuts a file ({@link OutputFile#drop}) once its
 * kept end is longer than the bound's tail and slack. The command writes to the files directly, so
 * nothing here can block it, slow it or end it: a keeper that is late, failing or dead (a host
 * killed by {@code kill -9}) only lets a file grow past its bound until the next cut.
 *
 * <p>It looks again sooner the faster the files grow: at the rate it saw last, after about half a
 * slack's worth of output, between {@value #MIN_POLL_MS} and {@value #MAX_POLL_MS} ms. After
 * {@value #IDLE_LOOKS} looks in a row without growth it waits for the run directory to change
 * instead (inotify, through a {@link WatchService}), and at most {@value #IDLE_WAIT_MS} ms, so an
 * idle run or service costs next to nothing, and a file system that reports no changes is still
 * looked at.
 *
 * <p>{@link #finish} stops it and writes each file's final form, when no other process of the
 * host's group (something the command left running) may still write to them; this host's own
 * writers ({@code System.out}, {@code System.err}) are held meanwhile.
 */
final class OutputKeeper {
  /** The shortest pause between two looks, ms. */
  static final long MIN_POLL_MS = 20;
  /** The longest pause between two looks, ms. */
  static final long MAX_POLL_MS = 500;
  /** Looks in a row without growth after which the keeper waits for a change instead. */
  static final int IDLE_LOOKS = 4;
  /** The longest wait for a change of the run directory, ms. */
  static final long IDLE_WAIT_MS = 5_000;

  private final OutputBound bound;
  private final Stream[] streams;
  private final Path directory;
  private final Thread thread;
  private volatile boolean stopped;
  /** Made on the first idle spell; closed by {@link #finish}. */
  private volatile WatchService watcher;

  /** One file and what the keeper knows of it. */
  private static final class Stream {
    final OutputFile file;
    Optional<Layout> layout;
    long lastSize;
    boolean cannotFree;

    Stream(OutputFile file) {
      this.file = file;
      this.layout = file.readRecord().map(OutputFile.Record::layout);
    }
  }

  private OutputKeeper(RunDirectory dir, OutputBound bound) {
    this.bound = bound;
    this.directory = dir.path();
    this.streams = new Stream[] {new Stream(OutputFile.stdout(dir)), new Stream(OutputFile.stderr(dir))};
    this.thread = new Thread(this::loop, "vigil-output");
    this.thread.setDaemon(true);
  }

  /**
   * Starts keeping the logs of {@code dir}. A final form a killed host left half written is
   * finished first (the command has not started).
   */
  static OutputKeeper start(RunDirectory dir, OutputBound bound) {
    OutputKeeper k = new OutputKeeper(dir, bound);
    for (Stream s : k.streams) {
      try {
        if (s.file.completeMove()) {
          s.layout = s.file.readRecord().map(OutputFile.Record::layout);
        }
      } catch (IOException e) {
        HostLog.info("cannot finish the cut of " + s.file.log() + ": " + e);
      }
    }
    k.thread.start();
    return k;
  }

  private void loop() {
    long lastMono = System.nanoTime();
    int idleLooks = 0;
    while (!stopped) {
      long grown = 0;
      for (Stream s : streams) {
        grown = Math.max(grown, check(s));
      }
      idleLooks = grown > 0 ? 0 : idleLooks + 1;
      if (idleLooks >= IDLE_LOOKS && awaitChange()) {
        lastMono = System.nanoTime(); // one look now; still idle after it, it waits again at once
        continue;
      }
      long now = System.nanoTime();
      long elapsedMs = Math.max(1, TimeUnit.NANOSECONDS.toMillis(now - lastMono));
      lastMono = now;
      long pauseMs = grown <= 0 ? MAX_POLL_MS : bound.slackBytes() / 2 * elapsedMs / grown;
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(Math.max(MIN_POLL_MS, Math.min(MAX_POLL_MS, pauseMs))));
    }
  }

  /**
   * Waits until the run directory changes, or {@link #IDLE_WAIT_MS}; false when it cannot watch it
   * (then the keeper goes on polling).
   */
  private boolean awaitChange() {
    try {
      if (watcher == null) {
        watcher = FileSystems.getDefault().newWatchService();
      }
      WatchService w = watcher;
      WatchKey key = directory.register(w, StandardWatchEventKinds.ENTRY_MODIFY, StandardWatchEventKinds.ENTRY_CREATE);
      try {
        if (!stopped && !grewSinceLastLook()) { // a write just before the registration is seen here
          w.poll(IDLE_WAIT_MS, TimeUnit.MILLISECONDS);
        }
      } finally {
        key.cancel();
        for (WatchKey k = w.poll(); k != null; k = w.poll()) {
          k.pollEvents();
        }
      }
      return true;
    } catch (ClosedWatchServiceException e) {
      return true; // finish closed it: the loop ends
    } catch (IOException | UnsupportedOperationException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private boolean grewSinceLastLook() throws IOException {
    for (Stream s : streams) {
      if (s.file.size() != s.lastSize) {
        return true;
      }
    }
    return false;
  }

  /** One look at one file: cuts it when the bound says so; returns how much it grew since the last look. */
  private long check(Stream s) {
    try {
      long size = s.file.size();
      long grown = size - s.lastSize;
      s.lastSize = size;
      if (bound.onSize(s.layout, size) instanceof Cut.Drop d) {
        Optional<String> notFreed = s.file.drop(d, bound);
        s.layout = Optional.of(d.next());
        if (notFreed.isPresent() && !s.cannotFree) {
          s.cannotFree = true;
          HostLog.info("output past " + ByteSizes.describe(bound.maxBytes()) + " is left out of " + s.file.log()
              + ", but its disk space comes back only when the run ends: " + notFreed.get());
        }
      }
      return grown;
    } catch (IOException | RuntimeException e) {
      HostLog.info("cannot keep " + s.file.log() + " within its bound: " + e);
      return 0;
    }
  }

  /** Whether a file needs its final form written (most runs: none, and nothing more is done). */
  private boolean due() {
    for (Stream s : streams) {
      try {
        if (s.file.finishDue(bound)) {
          return true;
        }
      } catch (IOException | RuntimeException e) {
        HostLog.info("cannot read " + s.file.log() + ": " + e);
      }
    }
    return false;
  }

  /**
   * Stops keeping and writes each file's final form: its head, the marker line and its last
   * {@link OutputBound#tailBytes()}. Left as cut while the run lasted (it reads the same) when other
   * processes of this group still run: they may be writing to the files.
   */
  void finish() {
    stopped = true;
    LockSupport.unpark(thread);
    WatchService w = watcher;
    if (w != null) {
      try {
        w.close();
      } catch (IOException e) {
        // the keeper's wait ends within IDLE_WAIT_MS anyway
      }
    }
    try {
      thread.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    if (thread.isAlive() || !due()) {
      return;
    }
    List<?> others = Processes.othersInOwnGroup();
    if (!others.isEmpty()) {
      HostLog.info("output logs left as cut while the run lasted: " + others.size()
          + " process(es) the command started still run and may write to them");
      return;
    }
    synchronized (System.out) {
      synchronized (System.err) {
        System.out.flush();
        System.err.flush();
        for (Stream s : streams) {
          try {
            s.file.finish(bound);
          } catch (IOException | RuntimeException e) {
            HostLog.info("cannot write the final form of " + s.file.log() + ": " + e);
          }
        }
      }
    }
  }
}
