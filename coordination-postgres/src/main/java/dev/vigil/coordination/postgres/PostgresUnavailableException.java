package dev.vigil.coordination.postgres;

import java.util.Objects;
import java.util.Optional;

/**
 * The server cannot be used now: it cannot be reached, it refused or dropped the connection, or it
 * is shutting down. The verb that met it was not acknowledged. When the connection broke before the
 * verb asked for its commit, nothing of it was recorded; when it broke during the commit
 * ({@link #outcomeUnknown()}), the server decided alone, so the verb is recorded whole or not at all
 * (a transaction is never half applied), and the caller reads the store once the server is back to
 * learn which. The store itself stays usable: the pool opens new connections once the server answers
 * again.
 */
public final class PostgresUnavailableException extends PostgresStoreException {
  private static final long serialVersionUID = 1L;

  private final String reason;
  private final boolean outcomeUnknown;

  PostgresUnavailableException(String reason, boolean outcomeUnknown, String message, Throwable cause) {
    super(message, cause);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.outcomeUnknown = outcomeUnknown;
  }

  /** Why the server cannot be used, in a few plain words, like {@code the connection was closed}. */
  public String reason() {
    return reason;
  }

  /** True when the connection broke while the verb's commit was in flight: recorded whole, or not at all. */
  public boolean outcomeUnknown() {
    return outcomeUnknown;
  }

  /** The first {@link PostgresUnavailableException} in {@code t}'s chain of causes, if any. */
  public static Optional<PostgresUnavailableException> in(Throwable t) {
    return in(t, PostgresUnavailableException.class);
  }
}
