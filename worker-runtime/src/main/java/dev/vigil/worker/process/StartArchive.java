package dev.vigil.worker.process;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A dynamic class-data-sharing archive (AppCDS) for one kind of short-lived JVM, such as the worker
 * host: the classes its start loads, parsed and verified once, then mapped by every later start
 * (about half its CPU, and the mapped pages are shared between the hosts that run at once).
 *
 * <p>The archive is valid only for one JDK build, one set of JVM flags and one classpath with the
 * same jar files (size and modification time). Its file name carries a digest of all of them, so a
 * new build or JDK gets a new archive, never a stale one. The protocol:
 *
 * <ol>
 *   <li>{@link #plan}: when a checked archive for this classpath and these flags exists, the start
 *       maps it ({@link Plan.Use}: {@code -XX:SharedArchiveFile}, {@code -Xshare:auto}, CDS logging
 *       off, so that any mismatch the JVM finds itself falls back silently to a start without it).
 *   <li>When none exists and no other start is creating it, this start writes it at its exit
 *       ({@link Plan.Create}: {@code -XX:ArchiveClassesAtExit} into a temporary file); else the
 *       start runs without ({@link Plan.Without}).
 *   <li>{@link #created}, after that process has exited: the temporary file is checked by a JVM
 *       with the same flags and classpath ({@code -XX:+PrintSharedArchiveAndExit}: it maps every
 *       region, so a short file cannot pass), its size and SHA-256 are written beside it
 *       ({@code .sum}), and it is renamed into place. Archives of this name for other builds are
 *       deleted.
 *   <li>Before a start first maps an archive, its size and SHA-256 are compared with its
 *       {@code .sum} (once per size and modification time): a damaged or replaced archive is deleted
 *       and made again, never mapped (a JVM maps a short archive and dies of SIGBUS).
 * </ol>
 *
 * <p>A start that never exits normally (killed, or a service that runs for days) writes nothing;
 * after {@link #CREATE_PATIENCE_MS} another start may create the archive instead.
 *
 * <p>Thread-safe: the mutable state ({@code checked}, {@code creating}) is guarded by {@code this}.
 * {@link #plan} does file I/O (a stat; the digest of a few MB once), {@link #created} runs a short JVM.
 */
public final class StartArchive {
  /** Silences CDS's own messages: a mismatch falls back without a line in the worker's log. */
  static final String QUIET = "-Xlog:cds*=off";
  /** Wait before another start may create an archive that one start is still creating, ms. */
  static final long CREATE_PATIENCE_MS = 60_000;
  /** Longest wait for the check of a new archive, s. */
  private static final long CHECK_WAIT_S = 30;

  /** How a start uses the archive: the JVM flags to add to its command. */
  public sealed interface Plan {
    /** The flags to add before the main class (after the start's own flags). */
    List<String> flags();

    /** Map the checked archive. */
    record Use(Path archive, List<String> flags) implements Plan {}

    /** Write the archive into {@code temporary} at exit; call {@link StartArchive#created} once the process ended. */
    record Create(Path archive, Path temporary, List<String> classpathAndFlags, List<String> flags) implements Plan {}

    /** Neither: the start runs with the JDK's default archive only. */
    record Without(String why) implements Plan {
      @Override
      public List<String> flags() {
        return List.of();
      }
    }
  }

  private record Stamp(long size, long modifiedMs) {}

  private final Path dir;
  private final String name;
  private final Path java;
  private final Map<Path, Stamp> checked = new HashMap<>();
  private final Map<Path, Long> creating = new HashMap<>();
  private final Set<Path> seen = new HashSet<>();

  /**
   * @param dir  where the archives live (created 0700 when missing), e.g. {@code <home>/cds}
   * @param name what they are for, the first part of their file names (e.g. {@code host})
   * @param java the java launcher the starts run, used to check a new archive
   */
  public StartArchive(Path dir, String name, Path java) {
    this.dir = Objects.requireNonNull(dir, "dir");
    this.name = Objects.requireNonNull(name, "name");
    this.java = Objects.requireNonNull(java, "java");
    if (!name.matches("[a-z][a-z0-9-]*")) {
      throw new IllegalArgumentException("name '" + name + "' must be lower-case letters, digits and '-'");
    }
  }

  /** The java launcher of this JVM. */
  public static Path currentJava() {
    return Path.of(System.getProperty("java.home"), "bin", "java");
  }

  /**
   * How the next start with {@code jvmFlags} and {@code classpath} uses the archive.
   *
   * @param jvmFlags  the start's JVM flags, without any CDS flag of its own but with {@code -Xshare:auto}
   * @param classpath absolute entries; the archive is used only when every entry is a jar file (the
   *                  JVM archives no classes from directories)
   * @param nowMs     the caller's clock (wall or monotonic, the same in every call), for {@link #CREATE_PATIENCE_MS}
   */
  public synchronized Plan plan(List<String> jvmFlags, String classpath, long nowMs) {
    Named named = named(jvmFlags, classpath);
    if (named.without() != null) {
      return named.without();
    }
    Path archive = named.archive();
    try {
      if (Files.exists(archive)) {
        if (isSound(archive)) {
          seen.add(archive);
          return new Plan.Use(archive, List.of("-XX:SharedArchiveFile=" + archive, QUIET));
        }
        Files.deleteIfExists(archive);
        Files.deleteIfExists(sumOf(archive));
        checked.remove(archive);
      }
      Long since = creating.get(archive);
      if (since != null && nowMs - since < CREATE_PATIENCE_MS) {
        return new Plan.Without("another start is creating " + archive.getFileName());
      }
      directory();
      Path tmp = dir.resolve("." + archive.getFileName() + "." + Long.toHexString(ThreadLocalRandom.current().nextLong())
          + ".tmp");
      creating.put(archive, nowMs);
      List<String> check = new ArrayList<>(jvmFlags);
      check.add("-cp");
      check.add(classpath);
      return new Plan.Create(archive, tmp, List.copyOf(check), List.of("-XX:ArchiveClassesAtExit=" + tmp, QUIET));
    } catch (IOException e) {
      return new Plan.Without("cannot use " + dir + ": " + e.getMessage());
    }
  }

  /**
   * The archive that starts with {@code jvmFlags} and {@code classpath} map once it exists, as
   * {@link #plan} names it (the same for every start of one JDK, flags and jar files); empty when such
   * starts run without one. Touches nothing.
   */
  public Optional<Path> archiveOf(List<String> jvmFlags, String classpath) {
    return Optional.ofNullable(named(jvmFlags, classpath).archive());
  }

  /** The archive's name, or why there is none. */
  private record Named(Path archive, Plan.Without without) {}

  /** The archive's file name carries a digest of the JDK build, the flags and each jar's path, size and time. */
  private Named named(List<String> jvmFlags, String classpath) {
    if (!jvmFlags.contains("-Xshare:auto")) {
      return new Named(null, new Plan.Without("the start does not run with -Xshare:auto"));
    }
    List<String> key = new ArrayList<>(jvmFlags);
    key.add(System.getProperty("java.vm.version"));
    key.add(java.toString());
    for (String e : classpath.split(File.pathSeparator)) {
      Path p = Path.of(e);
      if (!p.isAbsolute() || !e.endsWith(".jar") || !Files.isRegularFile(p)) {
        return new Named(null, new Plan.Without("classpath entry '" + e + "' is not an absolute path of a jar file"));
      }
      try {
        key.add(e + "|" + Files.size(p) + "|" + Files.getLastModifiedTime(p).toMillis());
      } catch (IOException x) {
        return new Named(null, new Plan.Without("cannot read " + e + ": " + x.getMessage()));
      }
    }
    key.add("-cp " + classpath);
    return new Named(dir.resolve(name + "-" + digest(String.join("\n", key).getBytes(StandardCharsets.UTF_8), 8) + ".jsa"),
        null);
  }

  /**
   * After the process of {@code plan} has exited: checks the archive it wrote and puts it in place;
   * nothing when it wrote none or a broken one (the next start tries again).
   *
   * @return whether the archive is now in place
   */
  public boolean created(Plan.Create plan) {
    boolean ok = false;
    try {
      if (Files.isRegularFile(plan.temporary()) && Files.size(plan.temporary()) > 0 && loads(plan)) {
        long size = Files.size(plan.temporary());
        String sum = size + " " + sha256(plan.temporary()) + "\n";
        synchronized (this) {
          if (!Files.exists(plan.archive())) {
            Files.writeString(sumOf(plan.archive()), sum, StandardCharsets.UTF_8);
            Files.move(plan.temporary(), plan.archive(), StandardCopyOption.ATOMIC_MOVE);
            seen.add(plan.archive());
            deleteOthers();
          }
          ok = true;
        }
      }
    } catch (IOException e) {
      ok = false;
    } finally {
      try {
        Files.deleteIfExists(plan.temporary());
      } catch (IOException ignored) {
        // a stray temporary file costs disk space only; the next creation uses another name
      }
      synchronized (this) {
        creating.remove(plan.archive());
      }
    }
    return ok;
  }

  /** After the start of {@code plan} failed to launch: lets the next start create the archive. */
  public synchronized void abandoned(Plan.Create plan) {
    creating.remove(plan.archive());
  }

  /** Size and digest match the {@code .sum} written with the archive; checked once per size and modification time. */
  private boolean isSound(Path archive) throws IOException {
    Stamp now = new Stamp(Files.size(archive), Files.getLastModifiedTime(archive).toMillis());
    if (now.equals(checked.get(archive))) {
      return true;
    }
    Path sum = sumOf(archive);
    if (!Files.isRegularFile(sum)) {
      return false;
    }
    String[] recorded = Files.readString(sum, StandardCharsets.UTF_8).trim().split(" ");
    boolean sound = recorded.length == 2 && recorded[0].equals(Long.toString(now.size()))
        && recorded[1].equals(sha256(archive));
    if (sound) {
      checked.put(archive, now);
    }
    return sound;
  }

  /** A JVM with the same flags and classpath maps the whole archive and finds it valid. */
  private boolean loads(Plan.Create plan) throws IOException {
    Path out = dir.resolve(plan.temporary().getFileName() + ".check");
    List<String> c = new ArrayList<>();
    c.add(java.toString());
    c.addAll(plan.classpathAndFlags());
    c.addAll(List.of("-XX:SharedArchiveFile=" + plan.temporary(), "-XX:+PrintSharedArchiveAndExit",
        "-XX:-CreateCoredumpOnCrash", "-XX:ErrorFile=" + out + ".err", "-version"));
    try {
      Process p = new ProcessBuilder(c).redirectErrorStream(true).redirectOutput(out.toFile())
          .redirectInput(Redirect.from(new File("/dev/null"))).start();
      if (!p.waitFor(CHECK_WAIT_S, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return false;
      }
      return p.exitValue() == 0 && Files.readString(out, StandardCharsets.ISO_8859_1).contains("archive is valid");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(Path.of(out + ".err"));
    }
  }

  /** Archives of this name that no start of this process used: older builds or JDKs. */
  private void deleteOthers() throws IOException {
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, name + "-*.jsa")) {
      for (Path p : s) {
        if (!seen.contains(p)) {
          Files.deleteIfExists(p);
          Files.deleteIfExists(sumOf(p));
          checked.remove(p);
        }
      }
    }
  }

  /** The prefix of the temporary directories training JVMs run in. */
  private static final String TRAINING_DIRECTORY = "vigil-cds-";

  /** A new private directory under the system's temporary directory for a training JVM to run in. */
  public static Path newTrainingDirectory() throws IOException {
    return Files.createTempDirectory(TRAINING_DIRECTORY);
  }

  /**
   * Deletes a directory {@link #newTrainingDirectory} made, and everything in it; any other path is left
   * alone. Quietly, as far as it can (a stray directory of a few KB in the temporary directory is all a
   * failure leaves).
   */
  public static void deleteTrainingDirectory(Path dir) {
    Path name = dir == null ? null : dir.getFileName();
    if (name == null || !name.toString().startsWith(TRAINING_DIRECTORY)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException | RuntimeException e) {
      // nothing depends on it
    }
  }

  private void directory() throws IOException {
    if (!Files.isDirectory(dir)) {
      try {
        Files.createDirectories(dir.toAbsolutePath().getParent());
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      } catch (FileAlreadyExistsException e) {
        if (!Files.isDirectory(dir)) {
          throw e;
        }
      }
    }
  }

  private static Path sumOf(Path archive) {
    return archive.resolveSibling(archive.getFileName() + ".sum");
  }

  private static String sha256(Path file) throws IOException {
    MessageDigest d = sha256();
    byte[] buf = new byte[1 << 16];
    try (InputStream in = Files.newInputStream(file)) {
      for (int n; (n = in.read(buf)) > 0; ) {
        d.update(buf, 0, n);
      }
    }
    return HexFormat.of().formatHex(d.digest());
  }

  private static String digest(byte[] bytes, int n) {
    byte[] h = sha256().digest(bytes);
    return HexFormat.of().formatHex(h, 0, n);
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError("every JDK has SHA-256", e);
    }
  }
}
