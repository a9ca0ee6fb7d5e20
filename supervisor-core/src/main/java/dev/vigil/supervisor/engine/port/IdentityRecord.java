package dev.vigil.supervisor.engine.port;

import dev.vigil.coordination.ProcessIdentity;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What a worker wrote to {@code identity.json} in its directory after it took its reservation
 * (DESIGN.md §5, Q3), as {@link RunDirectories#identity} reads it. Reading never throws: a missing
 * file is {@link Absent}, an unreadable one {@link Corrupt}.
 */
public sealed interface IdentityRecord {
  /**
   * The worker's own record.
   *
   * @param identity  the worker process's identity
   * @param build     the build the worker runs (the build of the daemon that launched it), or
   *                  {@code null} when the record does not carry it
   * @param tokenHash SHA-256 of the token the worker holds, 64 lower-case hex digits, or {@code null}
   *                  when the record does not carry it. Without build and token hash, recovery
   *                  adopts a claimed run only once the worker's hello comes from this identity.
   */
  record Written(ProcessIdentity identity, String build, String tokenHash) implements IdentityRecord {
    private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");

    public Written {
      Objects.requireNonNull(identity, "identity");
      if (tokenHash != null && !SHA256_HEX.matcher(tokenHash).matches()) {
        throw new IllegalArgumentException("tokenHash must be 64 lower-case hex digits (a SHA-256)");
      }
      if (build != null && build.isBlank()) {
        throw new IllegalArgumentException("build must not be blank");
      }
    }

    /** A record with the identity only. */
    public static Written bare(ProcessIdentity identity) {
      return new Written(identity, null, null);
    }
  }

  /** No identity record (yet). */
  record Absent() implements IdentityRecord {}

  /**
   * A record that cannot be read.
   *
   * @param diagnosis what was wrong, naming the file
   */
  record Corrupt(String diagnosis) implements IdentityRecord {
    public Corrupt {
      Objects.requireNonNull(diagnosis, "diagnosis");
    }
  }
}
