package dev.vigil.supervisor.engine.port;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.supervisor.engine.Engine;
import java.util.Optional;

/**
 * The engine's view of the operating system's processes (worker-runtime implements it over
 * {@code /proc}, {@code setsid} and {@code kill}).
 *
 * <p>Threading: every method is called on the one scheduling thread that drives the engine, and
 * must return after at most a short local operation (a fork/exec, a {@code /proc} read, a
 * {@code kill(2)}); none may wait for a worker.
 */
public interface ProcessTable {
  /**
   * This daemon's own identity, registered as its {@code Owner} at boot so that a later daemon can
   * prove it dead by identity (Q10). Constant for the life of the process.
   */
  ProcessIdentity self();

  /**
   * Starts a worker host for {@code request} in its own session and process group ({@code setsid}),
   * stdin from {@code /dev/null}, stdout/stderr appended to files in its directory, never a pipe to
   * the daemon; the capability token goes only into its environment. Returns as soon as the process
   * exists: it does not wait for the worker's reservation or hello. When it returns
   * {@link Launch.Started}, the shell later delivers {@link Engine#onExit} for that identity (once),
   * unless the daemon dies first. Must not throw after a process was started.
   */
  Launch launch(LaunchRequest request);

  /**
   * The identity of the live process {@code pid} (boot id, pid, start ticks, pgid), or empty when
   * no such process lives. Used to resolve the pid a worker's hello reports.
   */
  Optional<ProcessIdentity> identity(long pid);

  /**
   * True only when a live process matches every field of {@code identity} (C5): same boot, same
   * pid, same start ticks, same group. A reused pid is not alive. An adapter whose workers' groups
   * can outlive their leader (a worker host killed outright leaves its command running) also counts
   * those survivors: the worker lives until its whole group is gone.
   */
  boolean alive(ProcessIdentity identity);

  /**
   * Sends {@code signal} to the whole process group of {@code identity}, identity-gated: re-checks
   * {@link #alive(ProcessIdentity)} immediately before signalling and sends nothing when it fails,
   * so a reused pid is never signalled.
   *
   * @return true when the signal was sent, false when the identity no longer matched
   */
  boolean signalGroup(ProcessIdentity identity, Signal signal);
}
