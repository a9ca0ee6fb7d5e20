package dev.vigil.coordination.h2;

/**
 * Broken infrastructure, never a decision: the database file cannot be opened (missing directory,
 * not an H2 file, corrupt, in use by another process, written by a newer schema), or a verb could
 * not complete (lock timeouts past the retry bound, I/O errors, a closed store). The message is
 * one line and names the database file and the cause. A file that holds damaged data is reported as
 * the subclass {@link DamagedStoreException}; a store whose disk filled or failed as the subclass
 * {@link StoreUnavailableException}.
 */
public class CoordinationStoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CoordinationStoreException(String message) {
    super(message);
  }

  public CoordinationStoreException(String message, Throwable cause) {
    super(message, cause);
  }

  /** The first {@code type} in {@code t}'s chain of causes ({@code t} itself first), if any. */
  public static <T extends CoordinationStoreException> java.util.Optional<T> in(Throwable t, Class<T> type) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (type.isInstance(c)) {
        return java.util.Optional.of(type.cast(c));
      }
    }
    return java.util.Optional.empty();
  }
}
