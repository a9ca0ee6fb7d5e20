package dev.vigil.worker.host;

import java.time.Instant;

/** The worker host's log: one line per event on stderr, which the launcher appends to {@code stderr.log}. */
final class HostLog {
  private HostLog() {}

  static void info(String message) {
    System.err.println(Instant.now() + " vigil-worker[" + ProcessHandle.current().pid() + "]: " + message);
  }
}
