package dev.vigil.coordination.h2.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.h2.store.fs.FileBase;
import org.h2.store.fs.FilePath;
import org.h2.store.fs.FilePathWrapper;

/**
 * An H2 file system that fails writes on demand, the way a full or failing disk does, for tests of
 * what a store does when its disk fills or fails. Open a store through it with
 * {@code H2Options.withFileSystem(FaultyFileSystem.PREFIX)} after {@link #register()}; every file
 * access of H2 then passes through it and reaches the real file unchanged until a fault is set.
 *
 * <pre>{@code
 * FaultyFileSystem.register();
 * H2Coordination h2 = H2Coordination.open(dir.resolve("vigil.mv.db"), H2Options.defaults()
 *     .withFileSystem(FaultyFileSystem.PREFIX));
 * FaultyFileSystem.failWrites(dir, FaultyFileSystem.Fault.NO_SPACE);
 * // every verb that writes now throws StoreUnavailableException
 * FaultyFileSystem.heal(dir);
 * }</pre>
 *
 * <p>A fault holds for the files under one directory (as the database file's path names it, not
 * through symbolic links), so tests in other directories, also running in parallel, see none.
 * While it holds, every write, force (sync) and truncate of an open file there, and the creation
 * of a file there, throw {@link IOException} with the message the operating system gives
 * ({@link Fault#osMessage()}) and change nothing; reads, renames and deletes keep working.
 *
 * <p>H2 creates an instance for each path it names; tests use only the static methods.
 */
public final class FaultyFileSystem extends FilePathWrapper {
  /** The scheme prefix to pass to {@code H2Options.withFileSystem}. */
  public static final String PREFIX = "faulty:";

  /** What a failed write reports. */
  public enum Fault {
    /** The disk is full (ENOSPC). */
    NO_SPACE("No space left on device"),
    /** The device failed the write (EIO). */
    IO_ERROR("Input/output error");

    private final String osMessage;

    Fault(String osMessage) {
      this.osMessage = osMessage;
    }

    /** The message of the {@link IOException}, as Linux words it (strerror). */
    public String osMessage() {
      return osMessage;
    }
  }

  private static final String SCHEME = "faulty";
  /** The directories under a fault, by their absolute normalised path. */
  private static final Map<Path, Fault> FAULTS = new ConcurrentHashMap<>();
  /** Faults that begin once a file under their directory has been renamed. */
  private static final Map<Path, Fault> ARMED = new ConcurrentHashMap<>();
  /** Writes failed under each directory since its last {@link #failWrites}. */
  private static final Map<Path, AtomicLong> FAILED = new ConcurrentHashMap<>();
  private static final FaultyFileSystem INSTANCE = new FaultyFileSystem();
  private static volatile boolean registered;

  /** For H2, which creates one instance per path (see {@link FilePathWrapper}); tests call {@link #register}. */
  public FaultyFileSystem() {}

  /** Registers this file system with H2 under {@link #PREFIX}; idempotent. */
  public static synchronized void register() {
    if (!registered) {
      FilePath.register(INSTANCE);
      registered = true;
    }
  }

  /**
   * From now on, writes, syncs, truncations and file creations under {@code dir} fail with
   * {@code fault}, until {@link #heal}; resets the count of {@link #failedWrites}.
   */
  public static void failWrites(Path dir, Fault fault) {
    Objects.requireNonNull(fault, "fault");
    Path key = key(dir);
    FAILED.put(key, new AtomicLong());
    FAULTS.put(key, fault);
  }

  /**
   * As {@link #failWrites}, from the moment the next rename of a file under {@code dir} has
   * completed. H2 renames a database file only at the end of {@code SHUTDOWN COMPACT}, when it moves
   * the compacted copy over the old file: so the fault strikes whatever follows a compaction,
   * such as the store's reopen.
   */
  public static void failWritesAfterNextRename(Path dir, Fault fault) {
    ARMED.put(key(dir), Objects.requireNonNull(fault, "fault"));
  }

  /** Ends the fault under {@code dir}, and one armed for it (nothing when there is none); the count of failed writes stays. */
  public static void heal(Path dir) {
    ARMED.remove(key(dir));
    FAULTS.remove(key(dir));
  }

  /** How many operations failed under {@code dir} since its last {@link #failWrites} (0 if never). */
  public static long failedWrites(Path dir) {
    AtomicLong n = FAILED.get(key(dir));
    return n == null ? 0 : n.get();
  }

  private static Path key(Path dir) {
    return Objects.requireNonNull(dir, "dir").toAbsolutePath().normalize();
  }

  /** The fault that holds for {@code file}, if any. */
  private static Optional<Map.Entry<Path, Fault>> faultAt(Path file) {
    for (Map.Entry<Path, Fault> e : FAULTS.entrySet()) {
      if (file.startsWith(e.getKey())) {
        return Optional.of(e);
      }
    }
    return Optional.empty();
  }

  /** Throws the fault that holds for {@code file}, counting it. */
  private static void check(Path file) throws IOException {
    Optional<Map.Entry<Path, Fault>> f = faultAt(file);
    if (f.isPresent()) {
      FAILED.computeIfAbsent(f.get().getKey(), k -> new AtomicLong()).incrementAndGet();
      throw new IOException(f.get().getValue().osMessage());
    }
  }

  /** The path on the default file system that this one names. */
  private Path osPath() {
    FilePath p = getBase();
    for (FilePath u = p.unwrap(); u != p; u = p.unwrap()) {
      p = u;
    }
    String n = p.name.startsWith("file:") ? p.name.substring("file:".length()) : p.name;
    return Paths.get(n).toAbsolutePath().normalize();
  }

  @Override
  public String getScheme() {
    return SCHEME;
  }

  @Override
  public FileChannel open(String mode) throws IOException {
    Path os = osPath();
    if (mode.contains("w") && !getBase().exists()) {
      check(os);
    }
    return new Channel(super.open(mode), os);
  }

  @Override
  public boolean createFile() {
    if (faultAt(osPath()).isPresent()) {
      try {
        check(osPath());
      } catch (IOException e) {
        return false; // as H2's own disk file system reports a file it could not create
      }
    }
    return super.createFile();
  }

  @Override
  public OutputStream newOutputStream(boolean append) throws IOException {
    Path os = osPath();
    check(os);
    OutputStream out = super.newOutputStream(append);
    return new OutputStream() {
      @Override
      public void write(int b) throws IOException {
        check(os);
        out.write(b);
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        check(os);
        out.write(b, off, len);
      }

      @Override
      public void flush() throws IOException {
        check(os);
        out.flush();
      }

      @Override
      public void close() throws IOException {
        out.close();
      }
    };
  }

  @Override
  public void moveTo(FilePath newName, boolean atomicReplace) {
    super.moveTo(newName, atomicReplace);
    Path os = osPath();
    for (Map.Entry<Path, Fault> e : ARMED.entrySet()) {
      if (os.startsWith(e.getKey()) && ARMED.remove(e.getKey(), e.getValue())) {
        failWrites(e.getKey(), e.getValue());
      }
    }
  }

  @Override
  public FilePath createTempFile(String suffix, boolean inTempDir) throws IOException {
    check(osPath());
    return super.createTempFile(suffix, inTempDir);
  }

  /** An open file whose writes, syncs and truncations fail while a fault holds for it. */
  private static final class Channel extends FileBase {
    private final FileChannel base;
    private final Path file;

    Channel(FileChannel base, Path file) {
      this.base = base;
      this.file = file;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
      return base.read(dst);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
      return base.read(dst, position);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      check(file);
      return base.write(src);
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
      check(file);
      return base.write(src, position);
    }

    @Override
    public long position() throws IOException {
      return base.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
      base.position(newPosition);
      return this;
    }

    @Override
    public long size() throws IOException {
      return base.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
      check(file);
      base.truncate(size);
      return this;
    }

    @Override
    public void force(boolean metaData) throws IOException {
      check(file);
      base.force(metaData);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
      return base.tryLock(position, size, shared);
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
      return base.lock(position, size, shared);
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
      return base.map(mode, position, size);
    }

    @Override
    protected void implCloseChannel() throws IOException {
      base.close();
    }

    @Override
    public String toString() {
      return PREFIX + file;
    }
  }
}
