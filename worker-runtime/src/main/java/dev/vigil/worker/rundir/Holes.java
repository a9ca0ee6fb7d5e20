package dev.vigil.worker.rundir;

import java.io.File;
import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Gives a range of a file's space back to the file system while its size, and every other byte,
 * stay as they are: {@code fallocate --punch-hole} (util-linux, beside {@code setsid}), since Java
 * has no call for it. The range reads as zeros after. A file system without holes (or no
 * {@code fallocate}) leaves the range as it is, and says why.
 */
final class Holes {
  /** The program, or empty when this system has none. */
  private static final Optional<String> FALLOCATE = find();

  private Holes() {}

  private static Optional<String> find() {
    for (String p : List.of("/usr/bin/fallocate", "/bin/fallocate")) {
      if (Files.isExecutable(Path.of(p))) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /**
   * Frees {@code length} bytes of {@code file} from {@code offset}: empty when done, else why not,
   * in one line. The program gets an empty environment: nothing of the worker's (its run token)
   * reaches it.
   */
  static Optional<String> punch(Path file, long offset, long length) throws IOException {
    if (length <= 0) {
      return Optional.empty();
    }
    if (FALLOCATE.isEmpty()) {
      return Optional.of("this system has no fallocate program");
    }
    ProcessBuilder pb = new ProcessBuilder(FALLOCATE.get(), "--punch-hole", "--offset", Long.toString(offset),
        "--length", Long.toString(length), file.toString())
        .redirectInput(Redirect.from(new File("/dev/null")))
        .redirectErrorStream(true);
    pb.environment().clear();
    pb.environment().put("LC_ALL", "C");
    Process p = pb.start();
    String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    try {
      int code = p.waitFor();
      return code == 0 ? Optional.empty() : Optional.of(said.isEmpty() ? "fallocate exited " + code : said);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.of("interrupted");
    }
  }
}
