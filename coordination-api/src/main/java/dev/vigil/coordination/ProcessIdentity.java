package dev.vigil.coordination;

import java.util.Objects;

/**
 * Who a worker process is, durably: the boot it lives in, its pid, its start time in clock ticks
 * since boot, and its process group. A pid alone is reused; the four together name one process
 * for the life of a boot (C5).
 *
 * @param bootId     {@code /proc/sys/kernel/random/boot_id}, fixed for one boot
 * @param pid        process id
 * @param startTicks start time in clock ticks since boot ({@code /proc/<pid>/stat} field 22)
 * @param pgid       process group id ({@code /proc/<pid>/stat} field 5); the launched pid for a
 *                   worker started in its own session
 */
public record ProcessIdentity(String bootId, long pid, long startTicks, long pgid) {
  public ProcessIdentity {
    Objects.requireNonNull(bootId, "bootId");
    if (bootId.isBlank()) {
      throw new IllegalArgumentException("bootId must not be blank");
    }
    if (pid <= 0) {
      throw new IllegalArgumentException("pid (" + pid + ") must be > 0");
    }
    if (startTicks < 0) {
      throw new IllegalArgumentException("startTicks (" + startTicks + ") must be >= 0");
    }
    if (pgid <= 0) {
      throw new IllegalArgumentException("pgid (" + pgid + ") must be > 0");
    }
  }

  @Override
  public String toString() {
    return "pid " + pid + "@" + startTicks + " pgid " + pgid + " boot " + bootId;
  }
}
