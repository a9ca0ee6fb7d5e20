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
}
