package dev.vigil.launcher.internal;

import dev.vigil.coordination.Owner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The id of this host among the daemons that share a store (DESIGN.md §11): the configured
 * {@code hostId}, else one derived from the machine's id ({@code /etc/machine-id}) and the home's path,
 * so that it stays the same across restarts and reboots, and two homes on one machine are two hosts.
 * It reads {@code <host name>-<12 hex digits>}. A container whose machine id is missing or shared by
 * its copies sets {@code hostId} instead.
 */
final class HostIds {
  /** Where the machine's id is read from, the first that exists. */
  static final List<Path> MACHINE_ID_FILES = List.of(Path.of("/etc/machine-id"), Path.of("/var/lib/dbus/machine-id"));

  private HostIds() {}

  /**
   * This host's id for {@code home}.
   *
   * @throws ConfigException when none is configured and the machine has no id to derive one from
   */
  static String of(VigilConfig config, Home home, String hostName) {
    if (config.hostId().isPresent()) {
      return config.hostId().get();
    }
    String machine = machineId().orElseThrow(() -> new ConfigException("this machine has no id to derive its host id"
        + " from (" + MACHINE_ID_FILES.get(0) + " is missing or empty): set \"hostId\" in the configuration"));
    return derive(machine, home.dir().toAbsolutePath().normalize().toString(), hostName);
  }

  /** {@code <host name>-<the first 12 hex digits of SHA-256(machine id, home)>}, within the host id rule. */
  static String derive(String machineId, String homePath, String hostName) {
    String name = hostName.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9._-]", "-");
    if (name.length() > 40) {
      name = name.substring(0, 40);
    }
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256")
          .digest((machineId + "\n" + homePath).getBytes(StandardCharsets.UTF_8));
      return Owner.checkHostId((name.isEmpty() ? "host" : name) + "-" + HexFormat.of().formatHex(digest, 0, 6));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
    }
  }

  private static Optional<String> machineId() {
    for (Path p : MACHINE_ID_FILES) {
      try {
        String id = Files.readString(p, StandardCharsets.UTF_8).trim();
        if (!id.isEmpty()) {
          return Optional.of(id);
        }
      } catch (IOException e) {
        // the next one
      }
    }
    return Optional.empty();
  }
}
