package dev.vigil.coordination.postgres;

/**
 * Broken infrastructure, never a decision: the database cannot be opened (unreachable, refused
 * credentials, not a Vigil schema, written by a newer schema), or a verb could not complete
 * (conflicts past the retry bound, a failed statement, a closed store). The message is one line and
 * names the server (host, port, database and schema; never a password) and the cause. A server that
 * cannot be reached or dropped the connection is the subclass {@link PostgresUnavailableException}; one that
 * refused the password, the user or the database, the subclass {@link PostgresRefusedException}.
 */
public class PostgresStoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public PostgresStoreException(String message) {
    super(message);
  }

  public PostgresStoreException(String message, Throwable cause) {
    super(message, cause);
  }

  /** The first {@code type} in {@code t}'s chain of causes ({@code t} itself first), if any. */
  public static <T extends PostgresStoreException> java.util.Optional<T> in(Throwable t, Class<T> type) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (type.isInstance(c)) {
        return java.util.Optional.of(type.cast(c));
      }
    }
    return java.util.Optional.empty();
  }
}
