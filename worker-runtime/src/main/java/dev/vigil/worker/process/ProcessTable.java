package dev.vigil.worker.process;

import dev.vigil.coordination.ProcessIdentity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads process identities: from {@code /proc} on Linux, through {@link ProcessHandle} elsewhere.
 * The fallback has no process groups and no boot id: it takes the start instant in ms as the start
 * time, the pid as its own group (true for every worker started in its own session), and the start
 * instant of pid 1 as the boot.
 */
abstract class ProcessTable {
  /** The table of this system, chosen once. */
  static final ProcessTable SYSTEM = Files.isReadable(Path.of("/proc/self/stat")) ? new Procfs() : new Fallback();

  /** The id of the current boot; fixed for the life of a boot. */
  abstract String bootId();

  /** The identity of a live (not exited) process, or empty. */
  abstract Optional<ProcessIdentity> identityOf(long pid);

  /** Every live process in group {@code pgid}; empty when the system cannot tell. */
  abstract List<ProcessIdentity> groupMembers(long pgid);

  /** {@code /proc/<pid>/stat} of a live process, or empty (Linux only). */
  abstract Optional<ProcStat> stat(long pid);

  /** Whether a process {@code pid} runs: one that exited and waits to be reaped does not. */
  abstract boolean running(long pid);

  private static final class Procfs extends ProcessTable {
    private final String bootId;

    Procfs() {
      String id;
      try {
        id = Files.readString(Path.of("/proc/sys/kernel/random/boot_id"), StandardCharsets.US_ASCII).trim();
      } catch (IOException e) {
        id = Fallback.bootOfPid1();
      }
      this.bootId = id;
    }

    @Override
    String bootId() {
      return bootId;
    }

    @Override
    Optional<ProcStat> stat(long pid) {
      try {
        return ProcStat.parse(Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.ISO_8859_1))
            .filter(s -> !s.exited());
      } catch (IOException e) {
        return Optional.empty();
      }
    }

    @Override
    boolean running(long pid) {
      return stat(pid).isPresent();
    }

    @Override
    Optional<ProcessIdentity> identityOf(long pid) {
      return stat(pid).map(s -> new ProcessIdentity(bootId, s.pid(), s.startTicks(), s.pgrp()));
    }

    @Override
    List<ProcessIdentity> groupMembers(long pgid) {
      List<ProcessIdentity> members = new ArrayList<>();
      try (DirectoryStream<Path> dirs = Files.newDirectoryStream(Path.of("/proc"), p -> isNumber(p.getFileName().toString()))) {
        for (Path d : dirs) {
          stat(Long.parseLong(d.getFileName().toString()))
              .filter(s -> s.pgrp() == pgid)
              .ifPresent(s -> members.add(new ProcessIdentity(bootId, s.pid(), s.startTicks(), s.pgrp())));
        }
      } catch (IOException e) {
        // /proc is always listable on Linux; an unlistable one leaves the group unknown.
      }
      return members;
    }

    private static boolean isNumber(String s) {
      if (s.isEmpty()) {
        return false;
      }
      for (int i = 0; i < s.length(); i++) {
        if (!Character.isDigit(s.charAt(i))) {
          return false;
        }
      }
      return true;
    }
  }

  /** The non-Linux table; package-private so tests can run it on Linux too. */
  static final class Fallback extends ProcessTable {
    private final String bootId = bootOfPid1();

    static String bootOfPid1() {
      return "boot@" + ProcessHandle.of(1).flatMap(h -> h.info().startInstant()).map(Instant::toEpochMilli).orElse(0L);
    }

    @Override
    String bootId() {
      return bootId;
    }

    @Override
    Optional<ProcessIdentity> identityOf(long pid) {
      return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
          .flatMap(h -> h.info().startInstant())
          .map(start -> new ProcessIdentity(bootId, pid, start.toEpochMilli(), pid));
    }

    @Override
    List<ProcessIdentity> groupMembers(long pgid) {
      return List.of();
    }

    @Override
    Optional<ProcStat> stat(long pid) {
      return Optional.empty();
    }

    @Override
    boolean running(long pid) {
      return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }
  }
}
