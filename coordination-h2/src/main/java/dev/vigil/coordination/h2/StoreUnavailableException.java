package dev.vigil.coordination.h2;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * The store cannot be used now, for a reason outside its data: the disk is full, the file system
 * failed a read or a write, it turned read-only, or the database closed itself after such a
 * failure. The file may well be whole; the verb that found it did not complete and committed
 * nothing that it acknowledged. A caller keeps what it has, closes this store and opens it again
 * once the cause is gone (the daemon does so with a backoff, leaving its workers running).
 */
public final class StoreUnavailableException extends CoordinationStoreException {
  private static final long serialVersionUID = 1L;

  private final transient Path file;
  private final String reason;

  /**
   * @param file    the database file
   * @param reason  the cause in a few plain words, like {@code no space left on device} (no file name)
   * @param message the one-line message, naming the file
   */
  StoreUnavailableException(Path file, String reason, String message, Throwable cause) {
    super(message, cause);
    this.file = Objects.requireNonNull(file, "file");
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /** The database file. */
  public Path file() {
    return file;
  }

  /** Why the store cannot be used, in a few plain words, like {@code no space left on device}. */
  public String reason() {
    return reason;
  }

  /** The first {@link StoreUnavailableException} in {@code t}'s chain of causes, if any. */
  public static Optional<StoreUnavailableException> in(Throwable t) {
    return in(t, StoreUnavailableException.class);
  }
}
