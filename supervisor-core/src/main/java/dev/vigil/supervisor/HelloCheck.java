package dev.vigil.supervisor;

import dev.vigil.coordination.ProcessIdentity;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Objects;
import java.util.Optional;

/**
 * The one check of a worker's hello against what the supervisor expects of the worker it names, for
 * task runs and service workers alike (C9, Q3, S6). In order, the first that fails decides:
 *
 * <ol>
 *   <li>an identity to check the worker against is known ({@link Reason#NO_IDENTITY} otherwise);
 *   <li>when a token hash is expected, the hello's equals it, compared in time independent of where
 *       they differ ({@link Reason#WRONG_TOKEN});
 *   <li>when a build is expected, the hello reports it ({@link Reason#OTHER_BUILD});
 *   <li>the pid the hello reports is a live process with the expected identity: same boot, pid,
 *       start time and group ({@link Reason#NOT_THE_WORKER}; a reused pid is another process).
 * </ol>
 *
 * Otherwise the hello is {@link Result.Accepted}. A missing token hash or build means there is
 * nothing to check it against (an identity record that carries neither); the identity then proves
 * the worker. What follows an accepted hello (a handoff completes, adoption by build, a welcome) is
 * the caller's.
 */
public final class HelloCheck {
  private HelloCheck() {}

  /**
   * What the supervisor knows of the worker.
   *
   * @param identity  the worker's identity (launched, recorded or started), or {@code null} when
   *                  nothing names it yet
   * @param tokenHash the token hash to check, or {@code null} when there is none to check against
   * @param build     the build to check, or {@code null} when the build is not checked here
   */
  public record Expected(ProcessIdentity identity, String tokenHash, String build) {}

  /**
   * What the hello presented.
   *
   * @param tokenHash the hash of the token it presented
   * @param build     the build it reported
   * @param process   the identity of the live process with the pid it reported, or empty when
   *                  none lives
   */
  public record Presented(String tokenHash, String build, Optional<ProcessIdentity> process) {
    public Presented {
      Objects.requireNonNull(tokenHash, "tokenHash");
      Objects.requireNonNull(build, "build");
      Objects.requireNonNull(process, "process");
    }
  }

  /** The check's decision. */
  public sealed interface Result {
    /**
     * The hello comes from the expected worker.
     *
     * @param identity the worker's identity
     */
    record Accepted(ProcessIdentity identity) implements Result {}

    /**
     * The hello is refused.
     *
     * @param reason the first check that failed
     */
    record Denied(Reason reason) implements Result {}
  }

  /** Why a hello is refused. */
  public enum Reason {
    /** Nothing names the worker yet: there is no identity to check it against. */
    NO_IDENTITY,
    /** Its token is not the worker's. */
    WRONG_TOKEN,
    /** It reports another build than the one expected. */
    OTHER_BUILD,
    /** Its pid is not a live process with the worker's identity. */
    NOT_THE_WORKER
  }

  /** Checks {@code hello} against {@code expected}. */
  public static Result check(Expected expected, Presented hello) {
    Objects.requireNonNull(expected, "expected");
    Objects.requireNonNull(hello, "hello");
    if (expected.identity() == null) {
      return new Result.Denied(Reason.NO_IDENTITY);
    }
    if (expected.tokenHash() != null && !sameToken(hello.tokenHash(), expected.tokenHash())) {
      return new Result.Denied(Reason.WRONG_TOKEN);
    }
    if (expected.build() != null && !expected.build().equals(hello.build())) {
      return new Result.Denied(Reason.OTHER_BUILD);
    }
    if (!hello.process().map(expected.identity()::equals).orElse(false)) {
      return new Result.Denied(Reason.NOT_THE_WORKER);
    }
    return new Result.Accepted(expected.identity());
  }

  /** Compares two token hashes in time independent of where they differ (C9); false when either is missing. */
  public static boolean sameToken(String a, String b) {
    return a != null && b != null
        && MessageDigest.isEqual(a.getBytes(StandardCharsets.US_ASCII), b.getBytes(StandardCharsets.US_ASCII));
  }
}
