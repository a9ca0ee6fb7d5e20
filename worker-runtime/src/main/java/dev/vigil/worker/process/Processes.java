package dev.vigil.worker.process;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RunExit;
import java.io.File;
import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The real process table for Vigil: launch a worker in its own session, read identities, decide
 * liveness by identity, send identity-gated group signals, and watch workers for their exit.
 *
 * <p>Laws kept here:
 *
 * <ol>
 *   <li>C5 death by identity: {@link #alive(ProcessIdentity)} is true only when boot id, pid, start
 *       ticks and process group all match a live, not exited process. No clock is consulted.
 *   <li>Signals are identity-gated: the identity is re-checked immediately before each TERM and KILL;
 *       a reused pid, an exited one, or one from another boot is never signalled.
 *   <li>DESIGN.md §5 launch: {@code /usr/bin/setsid} execs in place (a child of the JVM is not a group
 *       leader), so the pid this JVM holds is the session and group leader; stdin is
 *       {@code /dev/null}, stdout and stderr are appended to files; a dead launcher cannot reach the
 *       worker through SIGPIPE or SIGHUP.
 * </ol>
 */
public final class Processes {
  /** The program that starts a new session and execs the command in place. */
  static final String SETSID = "/usr/bin/setsid";
  /** Longest wait for a launched process to become its group's leader, ms. */
  private static final long LEADER_WAIT_MS = 5_000;
  /** Poll period while a launch waits for group leadership, ns (0.5 ms). */
  private static final long LEADER_POLL_NANOS = 500_000;
  /** Poll period while a stop waits for the group to end, ms. */
  private static final long STOP_POLL_MS = 25;
  /** Wait after KILL for the group to disappear before naming survivors, ms. */
  private static final long AFTER_KILL_WAIT_MS = 2_000;

  private static final ScheduledExecutorService WATCHER = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "vigil-process-watch");
    t.setDaemon(true);
    return t;
  });

  private Processes() {}

  /** The id of the current boot ({@code /proc/sys/kernel/random/boot_id}). */
  public static String bootId() {
    return ProcessTable.SYSTEM.bootId();
  }

  /** The identity of the live process {@code pid}, or empty when there is none (or it exited). */
  public static Optional<ProcessIdentity> identityOf(long pid) {
    return ProcessTable.SYSTEM.identityOf(pid);
  }

  /**
   * Whether a process {@code pid} runs, whatever it is: one that exited and waits to be reaped (a
   * zombie, as under an init that does not reap) does not. For a process Vigil did not start, such
   * as a daemon named by a status file; a worker is asked by its identity ({@link #alive}).
   */
  public static boolean running(long pid) {
    return pid > 0 && ProcessTable.SYSTEM.running(pid);
  }

  /** This process's identity. */
  public static ProcessIdentity self() {
    long pid = ProcessHandle.current().pid();
    if (ProcessTable.SYSTEM.stat(pid).filter(s -> s.pgrp() <= 0).isPresent()) {
      // in a pid namespace, a group led from outside it reads as group 0: nothing could signal it by group
      throw new IllegalStateException("this process (pid " + pid + ") belongs to a process group led from outside"
          + " its pid namespace; start it in a session of its own (setsid), or with vigil up");
    }
    return identityOf(pid).orElseThrow(() -> new IllegalStateException("cannot read the identity of this process " + pid));
  }

  /** Whether a live process matches every field of {@code identity} (C5). */
  public static boolean alive(ProcessIdentity identity) {
    return mismatch(identity).isEmpty();
  }

  /** Why {@code identity} names no live process, or empty when it does. */
  public static Optional<Signalled.Mismatch> mismatch(ProcessIdentity identity) {
    Objects.requireNonNull(identity, "identity");
    if (!identity.bootId().equals(bootId())) {
      return Optional.of(Signalled.Mismatch.OTHER_BOOT);
    }
    Optional<ProcessIdentity> now = identityOf(identity.pid());
    if (now.isEmpty()) {
      return Optional.of(Signalled.Mismatch.GONE);
    }
    if (now.get().startTicks() != identity.startTicks()) {
      return Optional.of(Signalled.Mismatch.REUSED);
    }
    if (now.get().pgid() != identity.pgid()) {
      return Optional.of(Signalled.Mismatch.REGROUPED);
    }
    return Optional.empty();
  }

  /**
   * The processes still running in the worker's group after its leader died: members of the group
   * {@code identity.pgid()} on the same boot that started no earlier than the leader. A pid is not
   * reused while a process group of that id exists, so while members remain, {@code pgid} still
   * names the worker's group (a worker host killed by {@code kill -9} leaves its command running
   * there). Empty while the leader itself lives (use {@link #alive}), when its pid was reused, and
   * for a process that did not lead its own group (a daemon started from a shell shares its
   * group with that shell's other commands).
   */
  public static List<ProcessIdentity> orphanedMembers(ProcessIdentity identity) {
    Objects.requireNonNull(identity, "identity");
    if (identity.pgid() != identity.pid()) {
      return List.of(); // not a group leader (a daemon started from a shell): its group is not its own
    }
    Optional<Signalled.Mismatch> m = mismatch(identity);
    if (m.isEmpty() || m.get() != Signalled.Mismatch.GONE) {
      return List.of();
    }
    List<ProcessIdentity> out = new ArrayList<>();
    for (ProcessIdentity member : ProcessTable.SYSTEM.groupMembers(identity.pgid())) {
      if (member.startTicks() >= identity.startTicks() && isLive(member)) {
        out.add(member);
      }
    }
    return out;
  }

  /**
   * Whether the worker lives in any form (C5): its leader matches {@code identity}, or processes
   * of its group outlived the leader ({@link #orphanedMembers}). A run is dead only when this is
   * false and its reservation is free.
   */
  public static boolean groupAlive(ProcessIdentity identity) {
    return alive(identity) || !orphanedMembers(identity).isEmpty();
  }

  /**
   * Signals what is left of the worker: the whole group through its leader when the leader lives
   * ({@link #signal}), else each orphaned member by its own identity (re-checked before each
   * signal). Returns true when at least one signal was sent.
   */
  public static boolean signalWhatIsLeft(ProcessIdentity identity, GroupSignal signal) {
    if (signal(identity, signal) instanceof Signalled.Sent) {
      return true;
    }
    boolean sent = false;
    for (ProcessIdentity member : orphanedMembers(identity)) {
      if (alive(member)) {
        sent |= kill(signal, Long.toString(member.pid()));
      }
    }
    return sent;
  }

  /**
   * The live processes of this process's group other than this one (the descendants it started,
   * and theirs, that stayed in the group); empty where the system cannot tell.
   */
  public static List<ProcessIdentity> othersInOwnGroup() {
    ProcessIdentity me = self();
    List<ProcessIdentity> out = new ArrayList<>();
    for (ProcessIdentity member : ProcessTable.SYSTEM.groupMembers(me.pgid())) {
      if (member.pid() != me.pid() && isLive(member)) {
        out.add(member);
      }
    }
    return out;
  }

  private static boolean isLive(ProcessIdentity member) {
    return ProcessTable.SYSTEM.stat(member.pid()).map(s -> s.state() != 'Z' && s.startTicks() == member.startTicks())
        .orElse(false);
  }

  /**
   * Sends {@code signal} to the process group of {@code identity}, after re-checking the identity.
   * Nothing is sent when it does not match.
   */
  public static Signalled signal(ProcessIdentity identity, GroupSignal signal) {
    Objects.requireNonNull(signal, "signal");
    Optional<Signalled.Mismatch> mismatch = mismatch(identity);
    if (mismatch.isPresent()) {
      return new Signalled.Refused(mismatch.get());
    }
    return kill(signal, "-" + identity.pgid()) ? new Signalled.Sent() : new Signalled.Refused(Signalled.Mismatch.GONE);
  }

  /**
   * Stops a worker's group: TERM now, KILL after {@code graceMs} if the leader or any member seen
   * before the TERM still lives. Each signal is identity-gated; members are killed by their own
   * identities, so a reused pid is never signalled. Runs on a shared watcher thread.
   */
  public static CompletableFuture<Stopped> stop(ProcessIdentity identity, long graceMs) {
    if (graceMs < 0) {
      throw new IllegalArgumentException("graceMs (" + graceMs + ") must be >= 0");
    }
    CompletableFuture<Stopped> done = new CompletableFuture<>();
    WATCHER.execute(() -> {
      List<ProcessIdentity> members = ProcessTable.SYSTEM.groupMembers(identity.pgid());
      Signalled term = signal(identity, GroupSignal.TERM);
      if (term instanceof Signalled.Refused r) {
        done.complete(new Stopped.Refused(r.reason()));
        return;
      }
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMs);
      pollStop(identity, members, deadline, false, done);
    });
    return done;
  }

  private static void pollStop(ProcessIdentity leader, List<ProcessIdentity> members, long deadlineNanos, boolean killed,
      CompletableFuture<Stopped> done) {
    try {
      List<ProcessIdentity> living = living(leader, members);
      if (living.isEmpty()) {
        done.complete(new Stopped.Ended(killed));
        return;
      }
      if (System.nanoTime() - deadlineNanos >= 0) {
        if (killed) {
          done.complete(new Stopped.Survived(living));
          return;
        }
        signal(leader, GroupSignal.KILL);
        for (ProcessIdentity m : living) {
          if (m.pid() != leader.pid()) {
            killOne(m);
          }
        }
        long next = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(AFTER_KILL_WAIT_MS);
        WATCHER.schedule(() -> pollStop(leader, members, next, true, done), STOP_POLL_MS, TimeUnit.MILLISECONDS);
        return;
      }
      WATCHER.schedule(() -> pollStop(leader, members, deadlineNanos, killed, done), STOP_POLL_MS, TimeUnit.MILLISECONDS);
    } catch (RuntimeException e) {
      done.completeExceptionally(e);
    }
  }

  private static List<ProcessIdentity> living(ProcessIdentity leader, List<ProcessIdentity> members) {
    List<ProcessIdentity> living = new ArrayList<>();
    if (alive(leader)) {
      living.add(leader);
    }
    for (ProcessIdentity m : members) {
      if (m.pid() != leader.pid() && alive(m)) {
        living.add(m);
      }
    }
    return living;
  }

  /** KILLs one process by its own identity (re-checked). */
  private static void killOne(ProcessIdentity member) {
    if (alive(member)) {
      kill(GroupSignal.KILL, Long.toString(member.pid()));
    }
  }

  /**
   * Completes when no live process matches {@code identity} any more: exit observation for a worker
   * this JVM did not launch (adopted), polled every {@code pollMs}. How it ended is unknown; the
   * outcome is read from its run directory.
   */
  public static CompletableFuture<RunExit> watch(ProcessIdentity identity, long pollMs) {
    Objects.requireNonNull(identity, "identity");
    if (pollMs <= 0) {
      throw new IllegalArgumentException("pollMs (" + pollMs + ") must be > 0");
    }
    CompletableFuture<RunExit> done = new CompletableFuture<>();
    WATCHER.execute(() -> pollWatch(identity, pollMs, done));
    return done;
  }

  private static void pollWatch(ProcessIdentity identity, long pollMs, CompletableFuture<RunExit> done) {
    if (done.isDone()) {
      return;
    }
    if (!alive(identity)) {
      done.complete(RunExit.unknown(System.currentTimeMillis()));
      return;
    }
    WATCHER.schedule(() -> pollWatch(identity, pollMs, done), pollMs, TimeUnit.MILLISECONDS);
  }

  /**
   * Launches a worker in its own session and process group. Returns once the launched pid leads its
   * group, with its identity, or once it ended (then without an identity).
   *
   * @throws IOException when the process cannot be started, or lives on without leading its group
   */
  public static LaunchedWorker launch(LaunchSpec spec) throws IOException {
    Objects.requireNonNull(spec, "spec");
    List<String> argv = new ArrayList<>(spec.command().size() + 1);
    argv.add(SETSID);
    argv.addAll(spec.command());
    ProcessBuilder pb = new ProcessBuilder(argv)
        .directory(spec.workingDirectory().toFile())
        .redirectInput(Redirect.from(new File("/dev/null")))
        .redirectOutput(Redirect.appendTo(spec.stdout().toFile()))
        .redirectError(Redirect.appendTo(spec.stderr().toFile()));
    pb.environment().clear();
    pb.environment().putAll(spec.environment());
    Process process = pb.start();
    long pid = process.pid();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LEADER_WAIT_MS);
    while (true) {
      Optional<ProcessIdentity> id = identityOf(pid);
      if (id.isPresent() && id.get().pgid() == pid) {
        return new LaunchedWorker(pid, id, process);
      }
      if (!process.isAlive()) {
        return new LaunchedWorker(pid, Optional.empty(), process);
      }
      if (System.nanoTime() - deadline >= 0) {
        process.destroyForcibly();
        throw new IOException("worker " + pid + " did not lead its process group within " + LEADER_WAIT_MS + " ms: "
            + String.join(" ", spec.command()));
      }
      LockSupport.parkNanos(LEADER_POLL_NANOS);
    }
  }

  /** Runs {@code kill -s SIG -- target}; true when kill reported success. */
  private static boolean kill(GroupSignal signal, String target) {
    try {
      List<String> argv = new ArrayList<>(killCommand(signal));
      argv.add(target);
      Process p = new ProcessBuilder(argv)
          .redirectInput(Redirect.from(new File("/dev/null")))
          .redirectOutput(Redirect.DISCARD)
          .redirectError(Redirect.DISCARD)
          .start();
      return p.waitFor() == 0;
    } catch (IOException e) {
      throw new IllegalStateException("cannot run kill: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * The command that sends {@code signal} to the pid or negative group id appended to it: the
   * shell's own {@code kill}, not {@code /usr/bin/kill}. The kill of procps-ng 4.0.2 (Debian 12)
   * reads a negative target that is also a signal number ({@code -1} to {@code -64}: any group of a
   * process with a small pid, as in a container) as an option even after {@code --}, and so signals
   * nothing; and without {@code --} it reads {@code -9 -16524} as {@code kill(-1, SIGKILL)}: every
   * process there is. The shell's builtin reads both as a group.
   */
  static List<String> killCommand(GroupSignal signal) {
    return List.of("/bin/sh", "-c", "kill -s " + signal.name() + " -- \"$1\"", "kill");
  }
}
