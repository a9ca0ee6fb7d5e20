package dev.vigil.coordination;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What {@code start} records once the worker holds its reservation and wrote its identity (Q3).
 *
 * @param identity    the worker process's identity
 * @param build       the build of the daemon that launched it (S6 adopts only the same build)
 * @param tokenHash   SHA-256 of the run's capability token, 64 lower-case hex digits (C9)
 * @param startedAtMs wall-clock ms at which the start was recorded
 * @param timeoutMs   the run's time limit, ms, 0 for none: its ticket's own or its lane's, fixed at the
 *                    start, so that its deadline ({@code startedAtMs + timeoutMs}) is durable (Q12)
 */
public record RunStart(ProcessIdentity identity, String build, String tokenHash, long startedAtMs, long timeoutMs) {
  private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");

  public RunStart {
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(build, "build");
    Objects.requireNonNull(tokenHash, "tokenHash");
    if (build.isBlank()) {
      throw new IllegalArgumentException("build must not be blank");
    }
    if (!SHA256_HEX.matcher(tokenHash).matches()) {
      throw new IllegalArgumentException("tokenHash must be 64 lower-case hex digits (a SHA-256)");
    }
    RunSpec.checkTimeout(timeoutMs);
  }

  /** A start without a time limit. */
  public RunStart(ProcessIdentity identity, String build, String tokenHash, long startedAtMs) {
    this(identity, build, tokenHash, startedAtMs, 0);
  }

  /** This start with a time limit of {@code ms}. */
  public RunStart withTimeout(long ms) {
    return new RunStart(identity, build, tokenHash, startedAtMs, ms);
  }
}
